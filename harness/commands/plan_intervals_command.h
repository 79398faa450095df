// `devplan plan --intervals IN.csv [--capacity SIZE] [-o OUT.csv] [--json]` (plan_command.cpp
// parses the line and hands the instance here).
#pragma once

#include <ostream>

#include <harness/options/planner_command_args.h>

namespace devplan::harness {

int plan_intervals_command(const PlannerCommandArgs& args, std::ostream& out, std::ostream& err);

}  // namespace devplan::harness
