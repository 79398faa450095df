// devplan: the command-line harness. `devplan --help` lists the commands, `devplan --version`
// prints the version.
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <harness/cli/exit_codes.h>
#include <harness/commands/command.h>
#include <harness/report/json_document.h>

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

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("devplan: hunts leaks and lifetime bugs in the path that places memory-planned "
               "buffers of ExecuTorch programs on devices and allocates them.",
               "devplan");
  app.set_version_flag("--version", std::string("devplan ") + devplan::harness::devplan_version());
  app.require_subcommand(1);
  app.footer("`devplan COMMAND --help` shows a command's options.\n"
             "exit codes: 0 ok, 1 program or load error, 2 usage error, 3 leak/misuse/overlap "
             "found");
  std::vector<std::pair<CLI::App*, const Command*>> subcommands;
  for (const Command& c : kCommands) {
    CLI::App* sub = app.add_subcommand(c.name, c.summary);
    // The command parses its own words (and its own --help).
    sub->prefix_command();
    sub->set_help_flag();
    subcommands.emplace_back(sub, &c);
  }
  CLI::App* help = app.add_subcommand("help", "show this help");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return devplan::cli::kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << "\n";
    return devplan::cli::kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << "devplan: " << e.what() << "\n" << app.help();
    return devplan::cli::kExitUsage;
  }
  if (help->parsed()) {
    std::cout << app.help();
    return devplan::cli::kExitOk;
  }
  for (const auto& [sub, command] : subcommands) {
    if (sub->parsed()) return command->run(sub->remaining(), std::cout, std::cerr);
  }
  return devplan::cli::kExitUsage;  // unreachable: require_subcommand(1)
}
