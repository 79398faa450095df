// Running the devplan tool as its own process from tests (so an abort or a crash shows as a
// signal), with a scratch folder that holds one bad input of each kind.
#pragma once

#include <string>
#include <vector>

namespace devplan::harness::testing {

struct ToolRun {
  bool signaled = false;
  int signal = 0;
  int exit_code = -1;
  std::string out;
  std::string err;
};

// A temporary folder, removed at the end, holding: folder/, empty.pte, text.pte (text, not a
// program), unreadable.pte (mode 0), fifo.pte (a FIFO) and read-only/ (mode 0555).
class Scratch {
 public:
  Scratch();
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string path(const std::string& name) const { return dir_ + "/" + name; }

 private:
  std::string dir_;
};

// Runs the devplan tool (DEVPLAN_TOOL) with `args`; stdout and stderr go through files in
// `scratch`. A run longer than 60 s is killed with SIGALRM.
ToolRun run_tool(const Scratch& scratch, const std::vector<std::string>& args);

}  // namespace devplan::harness::testing
