#include <harness/cli/command_table.h>

namespace devplan::harness {

const std::vector<Command>& command_table() {
  static const std::vector<Command> table = {
      {"inspect", &inspect_command, "show a program's methods, planned buffers and their devices"},
      {"simulate", &simulate_command,
       "load and unload methods on simulated devices or a GPU; report the ledger, leaks and "
       "misuse"},
      {"run", &run_command, "execute a method on simulated devices or a GPU and print its outputs"},
      {"plan", &plan_command, "plan a graph (JSON) per device, insert copies, write the program"},
      {"replan", &replan_command,
       "re-plan an existing program's buffers with devplan's planners, write it"},
      {"check", &check_command, "find planned tensors that share bytes while both are live"},
      {"plot", &plot_command,
       "draw the memory plan: one rectangle per planned tensor, lifetime by bytes"},
      {"probe", &probe_command,
       "execute over poisoned memory and a no-reuse plan: unwritten outputs, plan corruption"},
      {"fuzz", &fuzz_command,
       "randomized campaign: generated programs, device mappings, faults, lifecycles"},
      {"diff", &diff_command,
       "compare two versions of a program: buffers, peak device bytes, copies, devices, loads"},
      {"budget", &budget_command,
       "record a program's memory figures in a budget file, or check programs against one"},
      {"report", &report_command,
       "the main job: inspect, check, simulate and run programs, pictures, fuzz, summary"},
  };
  return table;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : command_table()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

}  // namespace devplan::harness
