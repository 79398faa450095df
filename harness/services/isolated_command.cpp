#include <harness/services/isolated_command.h>

#include <iostream>
#include <sstream>

#include <harness/engine/child_process.h>
#include <harness/values/exit_codes.h>

namespace devplan::harness {

int run_in_child_command(const std::string& command, const std::string& doing,
                         const std::string& file, const std::function<int(std::ostream&)>& work,
                         std::ostream& out, std::ostream& err) {
  ChildOutcome child = run_in_child([&](std::string* child_out) {
    std::ostringstream o;
    const int code = work(o);
    std::cerr.flush();
    *child_out = o.str();
    return code;
  });
  out << child.out;
  err << child.err;
  if (!child.signaled() && child.started) return child.exit_code;
  err << "devplan " << command << ": FINDING: ExecuTorch aborted while " << doing << " " << file
      << ": " << child.describe() << "\n";
  return child.started ? cli::kExitFinding : cli::kExitError;
}

}  // namespace devplan::harness
