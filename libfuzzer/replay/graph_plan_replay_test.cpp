// Replays the committed graph_plan corpus and its regression inputs (fixtures/corpus/) through
// the same entry point as the libFuzzer target fuzz_graph_plan, built with the normal compiler.
#include <libfuzzer/graph_plan_entry.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <libfuzzer/replay/corpus_files.h>
#include <runtime_ext/planning/offset_planner.h>

#include <gtest/gtest.h>

namespace devplan::fuzz {
namespace {

namespace fs = std::filesystem;

GraphPlanOutcome run(const std::string& text) {
  return run_graph_plan(
      Span<const uint8_t>(reinterpret_cast<const uint8_t*>(text.data()), text.size()));
}

GraphPlanOutcome run(const std::vector<uint8_t>& bytes) {
  return run_graph_plan(Span<const uint8_t>(bytes.data(), bytes.size()));
}

TEST(GraphPlanReplayTest, AValidGraphIsReadAndPlannedByEveryAlgorithm) {
  GraphPlanOutcome outcome = run(std::string(R"({"name": "forward",
    "tensors": [{"id": "a", "dtype": "float32", "shape": [2, 2]},
                {"id": "b", "dtype": "float32", "shape": [2, 2]},
                {"id": "z", "dtype": "float32", "shape": [2, 2]}],
    "inputs": ["a", "b"], "outputs": ["z"],
    "nodes": [{"delegate": "DeviceAddBackend", "device": "cuda:0",
               "inputs": ["a", "b"], "outputs": ["z"]}]})"));
  EXPECT_TRUE(outcome.clean()) << outcome.finding;
  EXPECT_TRUE(outcome.read);
  EXPECT_EQ(outcome.graphs, 1u);
  EXPECT_EQ(outcome.planned, all_planner_algorithms().size());
  EXPECT_EQ(outcome.planned, 6u);
}

TEST(GraphPlanReplayTest, BadJsonAndInvalidGraphsAreCleanErrors) {
  for (const std::string& text :
       {std::string(""), std::string("{"), std::string("[]"), std::string("{\"tensors\": 1}"),
        std::string("{\"tensors\": [{\"id\": \"x\", \"dtype\": \"float32\", \"shape\": [-1]}]}"),
        std::string("{\"tensors\": [], \"outputs\": [\"nope\"]}")}) {
    GraphPlanOutcome outcome = run(text);
    EXPECT_TRUE(outcome.clean()) << text << ":\n" << outcome.finding;
    EXPECT_FALSE(outcome.read) << text;
    EXPECT_EQ(outcome.planned, 0u) << text;
  }
}

TEST(GraphPlanReplayTest, CommittedCorpusReplaysCleanly) {
  const std::vector<fs::path> files = corpus_files(corpus_dir() / "graph_plan");
  EXPECT_GE(files.size(), 5u);
  size_t planned = 0;
  for (const fs::path& file : files) {
    GraphPlanOutcome outcome = run(read_bytes(file));
    EXPECT_TRUE(outcome.clean()) << file << ":\n" << outcome.finding;
    if (outcome.planned > 0) ++planned;
  }
  // The hand-written seeds: every one but invalid_cycle.json plans.
  EXPECT_GE(planned, 5u);
}

TEST(GraphPlanReplayTest, RegressionInputsReplayCleanly) {
  const std::vector<fs::path> files = corpus_files(corpus_dir() / "regressions" / "graph_plan");
  for (const fs::path& file : files) {
    GraphPlanOutcome outcome = run(read_bytes(file));
    EXPECT_TRUE(outcome.clean()) << file << ":\n" << outcome.finding;
  }
  std::cout << "replayed " << files.size() << " graph_plan regression input(s)\n";
}

}  // namespace
}  // namespace devplan::fuzz
