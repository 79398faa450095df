// devplan plan --intervals: the field's CSV format in and out, capacities, bad input, and the
// committed tight instances (fixtures/intervals) solved at their capacity.
#include <cstdlib>
#include <fstream>
#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <harness/services/plan_intervals.h>
#include <runtime_ext/planning/tight_instances.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;
using testing::run;

std::string csv_file(const std::string& text) {
  return testing::temp_file(std::vector<uint8_t>(text.begin(), text.end()), ".csv");
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Five buffers in the published format (lifetimes [lower, upper)): b3 and b5 overlap every
// other buffer, so the live bytes peak at 12 and a plan of 12 exists.
const char* kPublished =
    "id,lower,upper,size\n"
    "b1,0,3,4\n"
    "b2,3,9,4\n"
    "b3,0,9,4\n"
    "b4,9,21,4\n"
    "b5,0,21,4\n";

TEST(PlanIntervalsTest, PublishedFormatRoundTripsWithAnOffsetColumn) {
  const std::string in = csv_file(kPublished);
  const std::string out = testing::temp_file({}, ".csv");
  testing::CommandResult r =
      run(&plan_command, {"--intervals", in, "-o", out, "--algorithm", "exact"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, in +
                       ": 5 buffers, height 12 B, live-bytes bound 12 B, optimal (proven bound "
                       "12 B, exact, 0 search steps)\nwrote " +
                       out + "\n");
  const std::string written = read_text(out);
  EXPECT_EQ(written,
            "id,lower,upper,size,offset\nb1,0,3,4,0\nb2,3,9,4,0\nb3,0,9,4,4\nb4,9,21,4,0\n"
            "b5,0,21,4,8\n");
  // The output reads back as the same instance (its offset column read past).
  Result<IntervalTable> again = parse_interval_csv(written, out);
  ASSERT_TRUE(again.ok()) << again.error();
  Result<IntervalTable> first = parse_interval_csv(kPublished, in);
  ASSERT_TRUE(first.ok());
  EXPECT_EQ(again->header, first->header);
  EXPECT_EQ(again->fields, first->fields);
  // Without -o the plan goes to standard output and the summary to standard error.
  testing::CommandResult stdout_run = run(&plan_command, {"--intervals", in});
  EXPECT_EQ(stdout_run.exit_code, 0);
  EXPECT_EQ(stdout_run.out, written);
  EXPECT_THAT(stdout_run.err, HasSubstr("height 12 B"));
}

TEST(PlanIntervalsTest, EveryAlgorithmReportsItsHeightInBytes) {
  // Sizes of 4 bytes: the exact search works in units of 4; every height is still in bytes.
  const std::string in = csv_file(kPublished);
  for (const char* algorithm : {"naive", "greedy", "greedy_breadth", "search", "exact", "best"}) {
    testing::CommandResult r =
        run(&plan_command, {"--intervals", in, "--algorithm", algorithm, "--json"});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string naive_height = R"("height":20,)";  // every buffer stacked
    EXPECT_THAT(r.out,
                HasSubstr(std::string(algorithm) == "naive" ? naive_height : R"("height":12,)"))
        << algorithm << ": " << r.out;
  }
}

TEST(PlanIntervalsTest, TheOtherHeaderSpellingIsEchoed) {
  const std::string in = csv_file("buffer,start,end,size\nx,0,2,8\ny,1,3,8\n");
  testing::CommandResult r = run(&plan_command, {"--intervals", in});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "buffer,start,end,size,offset\nx,0,2,8,0\ny,1,3,8,8\n");
}

TEST(PlanIntervalsTest, AnEndIsTheLastStepABufferIsLive) {
  // As MiniMalloc reads the older spelling: x ends at 2 and y starts at 2, so they overlap.
  const std::string ends = csv_file("buffer,start,end,size\nx,0,2,8\ny,2,4,8\nz,5,5,8\n");
  testing::CommandResult r = run(&plan_command, {"--intervals", ends});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "buffer,start,end,size,offset\nx,0,2,8,0\ny,2,4,8,8\nz,5,5,8,0\n");
  // With upper, the lifetimes are half-open: the same numbers do not overlap.
  const std::string uppers = csv_file("id,lower,upper,size\nx,0,2,8\ny,2,4,8\n");
  testing::CommandResult half_open = run(&plan_command, {"--intervals", uppers});
  ASSERT_EQ(half_open.exit_code, 0) << half_open.err;
  EXPECT_EQ(half_open.out, "id,lower,upper,size,offset\nx,0,2,8,0\ny,2,4,8,0\n");
  const std::string backwards = csv_file("buffer,begin,end,size\nx,3,2,8\n");
  testing::CommandResult bad = run(&plan_command, {"--intervals", backwards});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err, "devplan plan: InvalidArgument: " + backwards +
                         ":2: column 3 (end): end 2 is before start 3 (an end is the last step: "
                         "lifetimes are [start, end])\n");
}

TEST(PlanIntervalsTest, PerRowAlignmentIsHonouredAndTheOptimumProven) {
  // y (alignment 8) at 0 and x (alignment 4) at 8: height 11. x first would give 13.
  const std::string in = csv_file("id,lower,upper,size,alignment\nx,0,2,3,4\ny,1,3,5,8\n");
  testing::CommandResult r =
      run(&plan_command, {"--intervals", in, "--algorithm", "exact", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(R"("buffers":2,"algorithm":"exact","height":11,"lower_bound":8,)"
                               R"("proven_bound":11,"optimal":true,)"))
      << r.out;
  IntervalPlanOptions options;
  options.algorithm = PlannerAlgorithm::Exact;
  Result<IntervalPlan> plan =
      plan_interval_rows(parse_interval_csv(read_text(in), in)->rows, options);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->offsets, (std::vector<uint64_t>{8, 0}));
}

TEST(PlanIntervalsTest, CapacityDecidesTheExitCode) {
  const std::string in = csv_file(kPublished);
  const std::string out = testing::temp_file({}, ".csv");
  testing::CommandResult fits =
      run(&plan_command, {"--intervals", in, "--capacity", "12", "-o", out, "--json"});
  EXPECT_EQ(fits.exit_code, 0) << fits.err;
  EXPECT_THAT(fits.out, HasSubstr(R"("capacity":12,"fits":true,"output":")")) << fits.out;
  testing::CommandResult tight = run(&plan_command, {"--intervals", in, "--capacity", "11"});
  EXPECT_EQ(tight.exit_code, 1);
  EXPECT_EQ(tight.out, "");
  EXPECT_THAT(tight.err, HasSubstr("devplan plan: " + in +
                                   " does not fit within 11 B: proven (no plan is below 12 B)\n"));
  // Seven buffers whose optimum (14) is above their live bytes (13): without a budget the
  // capacity 13 stays open, with the default budget the search proves it too small.
  const std::string gap = csv_file(
      "id,lower,upper,size\na,5,8,6\nb,3,6,5\nc,0,2,6\nd,1,3,2\ne,0,1,6\nf,2,4,4\ng,1,4,4\n");
  testing::CommandResult unknown =
      run(&plan_command, {"--intervals", gap, "--capacity", "13", "--budget-steps", "0"});
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_THAT(unknown.err, HasSubstr("devplan plan: " + gap +
                                     " does not fit within 13 B: none found within the budget "
                                     "(best 14 B); a larger --budget-steps searches further\n"))
      << unknown.err;
  EXPECT_THAT(unknown.err, HasSubstr("7.69% above the proven bound (proven bound 13 B, search, 0 "
                                     "search steps)"));
  testing::CommandResult proven = run(&plan_command, {"--intervals", gap, "--capacity", "13"});
  EXPECT_EQ(proven.exit_code, 1);
  EXPECT_THAT(proven.err, HasSubstr("does not fit within 13 B: proven (no plan is below 14 B)\n"));
  EXPECT_THAT(proven.err, HasSubstr("optimal (proven bound 14 B, exact, 32 search steps)"));
  testing::CommandResult solved = run(&plan_command, {"--intervals", gap, "--capacity", "14"});
  EXPECT_EQ(solved.exit_code, 0) << solved.err;
}

TEST(PlanIntervalsTest, TheTimeLimitEndsTheSearchAndSaysSo) {
  // The gap instance again: the search needs steps to prove 13 too small, and a time limit
  // already past when it starts (the heuristics ran first) gives it none.
  const std::string gap = csv_file(
      "id,lower,upper,size\na,5,8,6\nb,3,6,5\nc,0,2,6\nd,1,3,2\ne,0,1,6\nf,2,4,4\ng,1,4,4\n");
  testing::CommandResult r =
      run(&plan_command, {"--intervals", gap, "--capacity", "13", "--time-limit", "0.000001"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("devplan plan: " + gap +
                               " does not fit within 13 B: none found within the time limit "
                               "(best 14 B); a larger --time-limit searches further\n"))
      << r.err;
  testing::CommandResult json = run(&plan_command, {"--intervals", gap, "--capacity", "13",
                                                    "--time-limit", "0.000001", "--json"});
  EXPECT_EQ(json.exit_code, 1);
  EXPECT_THAT(json.out, HasSubstr(R"("steps":1,"timed_out":true,"capacity":13,"fits":false})"))
      << json.out;
  // With a budget of steps and no time limit, nothing depends on time.
  testing::CommandResult steps = run(
      &plan_command, {"--intervals", gap, "--capacity", "13", "--budget-steps", "1000", "--json"});
  EXPECT_THAT(steps.out, HasSubstr(R"("optimal":true,"steps":32,"timed_out":false,)")) << steps.out;
}

TEST(PlanIntervalsTest, TheTimeLimitIsANumberOfSeconds) {
  const std::string in = csv_file(kPublished);
  for (const char* bad : {"0", "-1", "abc", "1e3", "2000000", "1.5s", "."}) {
    testing::CommandResult r = run(&plan_command, {"--intervals", in, "--time-limit", bad});
    EXPECT_EQ(r.exit_code, 2) << bad;
    EXPECT_THAT(r.err, HasSubstr(std::string("'") + bad +
                                 "' is not a number of seconds (above 0, at most 10^6)"))
        << r.err;
  }
  testing::CommandResult graph = run(&plan_command, {"g.json", "-o", "x.pte", "--time-limit", "5"});
  EXPECT_EQ(graph.exit_code, 2);
  EXPECT_THAT(graph.err, HasSubstr("--time-limit requires --intervals")) << graph.err;
  testing::CommandResult ok = run(&plan_command, {"--intervals", in, "--time-limit", "2.5"});
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
}

TEST(PlanIntervalsTest, BadInputNamesTheLineAndColumn) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"", ": empty (expected a header id,lower,upper,size[,alignment])"},
      {"id,lower,upper\n",
       ":1: the header has no 'size' column (expected id,lower,upper,size[,alignment])"},
      {"id,lower,upper,size,colour\n", ":1: column 5 ('colour'): unknown column"},
      {"id,lower,lower,size\n", ":1: column 3 ('lower'): repeats column 2"},
      {"id,lower,upper,size\na,1,1,4\n",
       ":2: column 3 (upper): upper 1 is not above lower 1 (lifetimes are [lower, upper))"},
      {"id,lower,upper,size\na,5,2,4\n", ":2: column 3 (upper): upper 2 is not above lower 5"},
      {"id,lower,upper,size\na,0,2,-4\n",
       ":2: column 4 (size): '-4' is not a non-negative integer"},
      {"id,lower,upper,size\na,x,2,4\n", ":2: column 2 (lower): 'x' is not a non-negative integer"},
      {"id,lower,upper,size\na,0,2,4.5\n",
       ":2: column 4 (size): '4.5' is not a non-negative integer"},
      {"id,lower,upper,size\na,0,2,\n", ":2: column 4 (size): '' is not a non-negative integer"},
      {"id,lower,upper,size\na,0,2,18446744073709551616\n",
       ":2: column 4 (size): '18446744073709551616' does not fit in 64 bits"},
      {"id,lower,upper,size\na,0,9223372036854775808,4\n",
       ":2: column 3 (upper): '9223372036854775808' does not fit in 63 bits"},
      {"id,lower,upper,size\na,0,2,4611686018427387904\n", ":2: the sizes sum past 2^62 bytes"},
      {"id,lower,upper,size\na,0,2,4\nb,0,2\n", ":3: 3 fields, the header has 4"},
      {"id,lower,upper,size\na,0,2,4\na,3,4,1\n",
       ":3: column 1 (id): duplicate id 'a' (first on line 2)"},
      {"id,lower,upper,size\n,0,2,4\n", ":2: column 1 (id): the id is empty"},
      {"id,lower,upper,size,alignment\na,0,2,4,3\n",
       ":2: column 5 (alignment): alignment 3 is not a power of two up to 2^32"},
      {"id,lower,upper,size,alignment\na,0,2,4,0\n",
       ":2: column 5 (alignment): alignment 0 is not a power of two up to 2^32"},
  };
  for (const auto& [text, message] : cases) {
    const std::string in = csv_file(text);
    testing::CommandResult r = run(&plan_command, {"--intervals", in});
    EXPECT_EQ(r.exit_code, 2) << text;
    EXPECT_EQ(r.out, "") << text;
    EXPECT_THAT(r.err, HasSubstr("devplan plan: InvalidArgument: " + in + message)) << text;
    testing::CommandResult json = run(&plan_command, {"--intervals", in, "--json"});
    EXPECT_EQ(json.exit_code, 2) << text;
    EXPECT_THAT(json.out, HasSubstr(R"("error":{"code":"InvalidArgument")")) << json.out;
  }
  testing::CommandResult missing = run(&plan_command, {"--intervals", "/nonexistent/in.csv"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("/nonexistent/in.csv"));
  testing::CommandResult both = run(&plan_command, {"g.json", "--intervals", "in.csv"});
  EXPECT_EQ(both.exit_code, 2);
  testing::CommandResult capacity_alone = run(&plan_command, {"g.json", "--capacity", "4"});
  EXPECT_EQ(capacity_alone.exit_code, 2);
  testing::CommandResult bad_capacity =
      run(&plan_command, {"--intervals", csv_file(kPublished), "--capacity", "lots"});
  EXPECT_EQ(bad_capacity.exit_code, 2);
  testing::CommandResult bad_budget =
      run(&plan_command, {"--intervals", csv_file(kPublished), "--budget-steps", "-5"});
  EXPECT_EQ(bad_budget.exit_code, 2);
  EXPECT_THAT(bad_budget.err, HasSubstr("--budget-steps: '-5' is not a number of steps"));
  testing::CommandResult neither = run(&plan_command, {});
  EXPECT_EQ(neither.exit_code, 2);
  EXPECT_THAT(neither.err, HasSubstr("GRAPH.json and -o are required (or --intervals IN.csv)"));
}

// The committed tight instances: (buffers, seed) of generate_tight_instance with its defaults
// (capacity 1 MiB, 1000 steps, pinwheel chance 0.1).
const std::vector<std::pair<size_t, int>> kTightFixtures = {
    {100, 1}, {100, 2}, {200, 1}, {200, 4}, {300, 1}, {300, 2}, {300, 4},
    {400, 1}, {500, 1}, {500, 2}, {500, 3}, {500, 6}, {500, 8}};

std::string tight_fixture_name(size_t buffers, int seed) {
  return "tight-" + std::to_string(buffers) + "-seed" + std::to_string(seed) + ".1048576.csv";
}

std::string tight_csv(const std::vector<ExactItem>& items) {
  std::string out = "id,lower,upper,size\n";
  for (size_t i = 0; i < items.size(); ++i) {
    out += "b" + std::to_string(i) + "," + std::to_string(items[i].lower) + "," +
           std::to_string(items[i].upper) + "," + std::to_string(items[i].size) + "\n";
  }
  return out;
}

TEST(PlanIntervalsTest, TightFixturesAreTheGeneratorsOutputAndSolveAtCapacity) {
  // DEVPLAN_WRITE_TIGHT_FIXTURES=1 rewrites them (after a change to the generator).
  const bool write = std::getenv("DEVPLAN_WRITE_TIGHT_FIXTURES") != nullptr;
  for (const auto& [buffers, seed] : kTightFixtures) {
    const std::string path = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/intervals/" +
                             tight_fixture_name(buffers, seed);
    TightInstanceOptions o;
    o.buffers = buffers;
    o.seed = static_cast<uint64_t>(seed);
    const std::string expected = tight_csv(generate_tight_instance(o));
    if (write) std::ofstream(path, std::ios::binary) << expected;
    EXPECT_EQ(read_text(path), expected) << path;
    testing::CommandResult r = run(&plan_command, {"--intervals", path, "--capacity", "1MiB",
                                                   "--algorithm", "exact", "--json"});
    EXPECT_EQ(r.exit_code, 0) << path << r.err;
    EXPECT_THAT(r.out, HasSubstr(R"("height":1048576,"lower_bound":1048576,)"
                                 R"("proven_bound":1048576,"optimal":true,)"))
        << path;
    EXPECT_THAT(r.out, HasSubstr(R"("capacity":1048576,"fits":true})")) << path;
  }
}

}  // namespace
}  // namespace devplan::harness
