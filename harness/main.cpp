// devplan: the command-line harness. `devplan --help` lists the commands, `devplan --version`
// prints the version.
#include <cstdio>
#include <exception>
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
     "load and unload methods on simulated devices or a GPU; report the ledger, leaks and misuse"},
    {"run", &devplan::harness::run_command,
     "execute a method on simulated devices or a GPU and print its outputs"},
    {"plan", &devplan::harness::plan_command,
     "plan a graph (JSON) per device, insert copies, write the program"},
    {"replan", &devplan::harness::replan_command,
     "re-plan an existing program's buffers with devplan's planners, write it"},
    {"check", &devplan::harness::check_command,
     "find planned tensors that share bytes while both are live"},
    {"plot", &devplan::harness::plot_command,
     "draw the memory plan: one rectangle per planned tensor, lifetime by bytes"},
    {"probe", &devplan::harness::probe_command,
     "execute over poisoned memory and a no-reuse plan: unwritten outputs, plan corruption"},
    {"fuzz", &devplan::harness::fuzz_command,
     "randomized campaign: generated programs, device mappings, faults, lifecycles"},
    {"diff", &devplan::harness::diff_command,
     "compare two versions of a program: buffers, peak device bytes, copies, devices, loads"},
    {"budget", &devplan::harness::budget_command,
     "record a program's memory figures in a budget file, or check programs against one"},
    {"report", &devplan::harness::report_command,
     "the main job: inspect, check, simulate and run programs, pictures, fuzz, summary"},
};

const Command* find_command(const std::string& name) {
  for (const Command& c : kCommands) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace

static int run_main(int argc, char** argv) {
  // A command gets its words exactly as given (its own CLI11 app parses them, `--` included);
  // `devplan help COMMAND` is `devplan COMMAND --help`.
  if (argc >= 2) {
    const bool help_for = std::string(argv[1]) == "help" && argc == 3;
    if (const Command* c = find_command(argv[help_for ? 2 : 1])) {
      const Args args = help_for ? Args{"--help"} : Args(argv + 2, argv + argc);
      return c->run(args, std::cout, std::cerr);
    }
  }
  // Everything else is the top level's: --help, --version, help, or a usage error.
  CLI::App app(
      "devplan: hunts leaks and lifetime bugs in the path that places memory-planned "
      "buffers of ExecuTorch programs on devices and allocates them.",
      "devplan");
  app.set_version_flag(
      "--version", std::string("devplan ") + devplan::harness::devplan_version() +
                       "\nExecuTorch engine: " + devplan::harness::executorch_engine_description());
  app.require_subcommand(1);
  app.footer(
      "`devplan COMMAND --help` (or `devplan help COMMAND`) shows a command's options.\n"
      "exit codes: 0 ok, 1 program or load error, 2 usage error, 3 leak/misuse/overlap "
      "found");
  for (const Command& c : kCommands) app.add_subcommand(c.name, c.summary);
  CLI::App* help = app.add_subcommand("help", "show this help, or a command's (help COMMAND)");
  if (argc == 2 && std::string(argv[1]) == "help") {
    std::cout << app.help();
    return devplan::cli::kExitOk;
  }
  if (argc >= 2 && argv[1][0] != '-' && std::string(argv[1]) != "help") {
    std::cerr << "devplan: unknown command '" << argv[1]
              << "'\nRun 'devplan --help' for the commands.\n";
    return devplan::cli::kExitUsage;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return devplan::cli::kExitOk;
  } catch (const CLI::CallForVersion&) {
    std::cout << app.version() << "\n";
    return devplan::cli::kExitOk;
  } catch (const CLI::ParseError& e) {
    std::cerr << "devplan: " << e.what() << "\nRun 'devplan --help' for the commands.\n";
    return devplan::cli::kExitUsage;
  }
  // Only `help` with a word that is no command gets here (CLI11 rejects the word first).
  (void)help;
  std::cerr << "devplan: unknown command\nRun 'devplan --help' for the commands.\n";
  return devplan::cli::kExitUsage;
}

// Nothing escapes as an exception (an abort): a library's throw, out of memory included, is an
// error line and exit 1.
int main(int argc, char** argv) {
  try {
    return run_main(argc, argv);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "devplan: internal error: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "devplan: internal error: unknown exception\n");
  }
  return 1;
}
