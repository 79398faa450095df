// The `devplan` command table: each command's name, its function (commands/commands.h) and the
// one line `devplan --help` shows for it.
#pragma once

#include <ostream>
#include <string>
#include <vector>

#include <harness/commands/commands.h>

namespace devplan::harness {

struct Command {
  const char* name;
  int (*run)(const Args&, std::ostream&, std::ostream&);
  const char* summary;
};

// Every command, in the order `devplan --help` lists them.
const std::vector<Command>& command_table();

// The command named `name`, or nullptr.
const Command* find_command(const std::string& name);

}  // namespace devplan::harness
