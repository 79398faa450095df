#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <harness/options/planner_command_args.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::run;

// ExecuTorch's reference device program as a graph: add(a, b) delegated to cuda:0.
const char* kReferenceGraph = R"({"name": "forward", "alignment": 16,
  "tensors": [{"id": "a", "dtype": "float32", "shape": [2, 2]},
              {"id": "b", "dtype": "float32", "shape": [2, 2]},
              {"id": "z", "dtype": "float32", "shape": [2, 2]}],
  "inputs": ["a", "b"], "outputs": ["z"],
  "nodes": [{"delegate": "DeviceAddBackend", "device": "cuda:0", "inputs": ["a", "b"], "outputs": ["z"]}]})";

std::string graph_file(const std::string& text) {
  return testing::temp_file(std::vector<uint8_t>(text.begin(), text.end()), ".json");
}

TEST(PlanCommandTest, ReferenceProgramLayoutAndItRuns) {
  const std::string out = testing::temp_file({}, ".pte");
  testing::CommandResult r = run(&plan_command, {graph_file(kReferenceGraph), "-o", out, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  // Every field of the JSON document, as scripts read it.
  EXPECT_THAT(r.out,
              HasSubstr(R"(,"algorithm":"best","methods":[)"
                        R"({"name":"forward","h2d_copies":2,"d2h_copies":1,"buffers":[)"
                        R"({"index":0,"device":"cpu:0","size":32,"lower_bound":32,"ratio":1.0,)"
                        R"("proven_bound":32,"optimal":true,"algorithm":"greedy","tensors":3},)"
                        R"({"index":1,"device":"cuda:0","size":48,"lower_bound":48,"ratio":1.0,)"
                        R"("proven_bound":48,"optimal":true,"algorithm":"naive","tensors":3}]}]})"
                        "\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr(R"("output":")" + out + R"(",)"));
  // The written program has the reference layout and runs end to end on simulated devices.
  testing::CommandResult inspect = run(&inspect_command, {out});
  EXPECT_THAT(inspect.out,
              HasSubstr("  buffer 0: 32 B on cpu:0, 3 planned tensors, max end 32 B\n"
                        "  buffer 1: 48 B on cuda:0, 3 planned tensors, max end 48 B\n"))
      << inspect.out;
  testing::CommandResult ran = run(&run_command, {out, "--input", "1,2,3,4", "--input", "10"});
  ASSERT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out,
            "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [11, 12, 13, 14]\n");
  EXPECT_EQ(run(&check_command, {out}).exit_code, 0);
  EXPECT_EQ(run(&simulate_command, {out}).exit_code, 0);
}

TEST(PlanCommandTest, NaiveIsNeverSmallerThanBest) {
  const std::string graph = graph_file(R"({"methods": [{"name": "chain", "tensors": [
      {"id": "x", "dtype": "float32", "shape": [64]}, {"id": "t1", "dtype": "float32", "shape": [64]},
      {"id": "t2", "dtype": "float32", "shape": [64]}, {"id": "y", "dtype": "float32", "shape": [64]}],
      "inputs": ["x"], "outputs": ["y"], "nodes": [
      {"op": "aten::mul.out", "inputs": ["x", "x"], "outputs": ["t1"]},
      {"op": "aten::mul.out", "inputs": ["t1", "t1"], "outputs": ["t2"]},
      {"op": "aten::mul.out", "inputs": ["t2", "t2"], "outputs": ["y"]}]}]})");
  testing::CommandResult naive =
      run(&plan_command, {graph, "-o", testing::temp_file({}), "--algorithm", "naive"});
  testing::CommandResult best = run(&plan_command, {graph, "-o", testing::temp_file({})});
  ASSERT_EQ(naive.exit_code, 0) << naive.err;
  ASSERT_EQ(best.exit_code, 0) << best.err;
  // Four 256-byte tensors; a chain needs only two live at once.
  EXPECT_THAT(naive.out, HasSubstr("  buffer 0 on cpu:0: 1024 B (1.0 KiB), lower bound 512 B, "
                                   "ratio 2.0000 (naive, 4 tensors)"))
      << naive.out;
  EXPECT_THAT(best.out, HasSubstr("  buffer 0 on cpu:0: 512 B, lower bound 512 B, ratio 1.0000"))
      << best.out;
}

TEST(PlanCommandTest, BadGraphsAndUsage) {
  const std::string bad = graph_file(R"({"tensors": [{"id": "x", "dtype": "float32", "shape": [1]}],
      "nodes": [{"op": "aten::mul.out", "inputs": ["nope"], "outputs": ["x"]}]})");
  testing::CommandResult r = run(&plan_command, {bad, "-o", testing::temp_file({})});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("node 0")) << r.err;
  EXPECT_EQ(run(&plan_command, {graph_file(kReferenceGraph)}).exit_code, 2);  // no -o
  EXPECT_EQ(run(&plan_command, {graph_file(kReferenceGraph), "-o", "x.pte", "--algorithm", "magic"})
                .exit_code,
            2);
}

// The ratio every command prints: size over lower bound, with a zero bound (nothing live) 1 for
// an empty buffer and 0 for a buffer that holds bytes nothing needs.
TEST(PlanCommandTest, SizeOverLowerBoundOfAZeroBound) {
  EXPECT_EQ(size_over_lower_bound(0, 0), 1.0);
  EXPECT_EQ(size_over_lower_bound(16, 0), 0.0);
  EXPECT_EQ(size_over_lower_bound(48, 32), 1.5);
  EXPECT_EQ(size_over_lower_bound(32, 32), 1.0);
}

}  // namespace
}  // namespace devplan::harness
