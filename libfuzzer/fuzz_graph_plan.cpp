// libFuzzer target: arbitrary bytes as graph JSON through the graph reader and every memory
// planner, each plan checked by the verifier (see graph_plan_entry.h). A finding is printed and
// aborts, so libFuzzer saves the input as a crash.
//
//   scripts/fuzz.sh fuzz_graph_plan 600
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include <libfuzzer/graph_plan_entry.h>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const devplan::fuzz::GraphPlanOutcome outcome =
      devplan::fuzz::run_graph_plan(devplan::Span<const uint8_t>(data, size));
  if (!outcome.clean()) {
    std::fprintf(stderr, "fuzz_graph_plan finding:\n%s", outcome.finding.c_str());
    std::abort();
  }
  return 0;
}
