// devplan: the command-line harness. `devplan --help` lists the commands, `devplan --version`
// prints the version.
#include <cstdio>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include <harness/cli/command_table.h>
#include <harness/engine/engine.h>
#include <harness/output/json_document.h>
#include <harness/values/exit_codes.h>

using devplan::harness::Args;
using devplan::harness::Command;
using devplan::harness::command_table;
using devplan::harness::find_command;

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
  for (const Command& c : command_table()) app.add_subcommand(c.name, c.summary);
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
