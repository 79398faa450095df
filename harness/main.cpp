// devplan: the command-line harness. `devplan help` lists the commands.
#include <iostream>
#include <string>
#include <vector>

#include <harness/cli/args.h>
#include <harness/commands/command.h>

namespace {

using devplan::harness::Args;

struct Command {
  const char* name;
  int (*run)(const Args&, std::ostream&, std::ostream&);
  const char* summary;
};

const Command kCommands[] = {
    {"inspect", &devplan::harness::inspect_command,
     "show a program's methods, planned buffers and their devices"},
    {"simulate", &devplan::harness::simulate_command,
     "load and unload methods on simulated devices; report the ledger, leaks and misuse"},
    {"run", &devplan::harness::run_command,
     "execute a method on simulated devices and print its outputs"},
    {"plan", &devplan::harness::plan_command,
     "plan a graph (JSON) per device, insert copies, write the program"},
    {"replan", &devplan::harness::replan_command,
     "re-plan an existing program's buffers with devplan's planners, write it"},
    {"check", &devplan::harness::check_command,
     "find planned tensors that share bytes while both are live"},
    {"plot", &devplan::harness::plot_command,
     "draw the memory plan: one rectangle per planned tensor, lifetime by bytes"},
    {"fuzz", &devplan::harness::fuzz_command,
     "randomized campaign: generated programs, device mappings, faults, lifecycles"},
    {"report", &devplan::harness::report_command,
     "the main job: inspect, check, simulate and run programs, pictures, fuzz, summary"},
};

void print_help(std::ostream& out) {
  out << "usage: devplan COMMAND [ARGS...]   (options may come before or after FILE)\n\n"
         "commands:\n";
  for (const Command& c : kCommands) out << "  " << c.name << "  " << c.summary << "\n";
  out << "\nexit codes: 0 ok, 1 program or load error, 2 usage error, 3 leak/misuse/overlap "
         "found\n";
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    print_help(std::cerr);
    return devplan::cli::kExitUsage;
  }
  const std::string name = argv[1];
  if (name == "help" || name == "--help" || name == "-h") {
    print_help(std::cout);
    return devplan::cli::kExitOk;
  }
  const Args args(argv + 2, argv + argc);
  for (const Command& c : kCommands) {
    if (name == c.name) return c.run(args, std::cout, std::cerr);
  }
  std::cerr << "devplan: unknown command '" << name << "'\n";
  print_help(std::cerr);
  return devplan::cli::kExitUsage;
}
