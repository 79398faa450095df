#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/services/replan.h>
#include <runtime_ext/program/file_data_loader.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/writer/program_builder.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::run;

std::string upstream(const std::string& name) {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/upstream-1.5.1/" + name;
}

Result<std::vector<uint8_t>> bytes_of(const std::string& path) { return read_file(path); }

TEST(ReplanTest, TheTransformerShrinksToItsLowerBoundRespectingViews) {
  Result<std::vector<uint8_t>> bytes = bytes_of(upstream("transformer.pte"));
  ASSERT_TRUE(bytes.ok());
  Result<ReplanResult> r = replan_program(*bytes, PlannerAlgorithm::Best);
  ASSERT_TRUE(r.ok()) << r.error();
  ASSERT_EQ(r->methods.size(), 1u);
  ASSERT_EQ(r->methods[0].buffers.size(), 1u);
  const ReplanBuffer& b = r->methods[0].buffers[0];
  EXPECT_EQ(b.old_size, 1056768u);
  EXPECT_EQ(b.new_size, 851968u);
  EXPECT_EQ(b.lower_bound, 851968u);
  EXPECT_FALSE(b.kept);
  // The written program checks clean and is the same program but for offsets and the size.
  const std::string out = testing::temp_file(r->bytes);
  EXPECT_EQ(run(&check_command, {out}).exit_code, 0);
  Result<Program> before =
      Program::load_from_bytes(Span<const uint8_t>(bytes->data(), bytes->size()));
  Result<Program> after =
      Program::load_from_bytes(Span<const uint8_t>(r->bytes.data(), r->bytes.size()));
  ASSERT_TRUE(before.ok() && after.ok());
  const MethodPlan& x = **before->method_plan_at(0);
  const MethodPlan& y = **after->method_plan_at(0);
  EXPECT_EQ(y.buffer_sizes, std::vector<uint64_t>{851968});
  EXPECT_EQ(y.buffer_devices, x.buffer_devices);
  EXPECT_EQ(y.inputs, x.inputs);
  EXPECT_EQ(y.outputs, x.outputs);
  EXPECT_EQ(y.operators.size(), x.operators.size());
  ASSERT_EQ(y.values.size(), x.values.size());
  size_t moved = 0;
  for (size_t v = 0; v < x.values.size(); ++v) {
    ASSERT_EQ(y.values[v].tag, x.values[v].tag) << v;
    if (x.values[v].tag != ValueTag::Tensor) continue;
    const TensorInfo& a = x.values[v].tensor;
    const TensorInfo& c = y.values[v].tensor;
    EXPECT_EQ(c.sizes, a.sizes) << v;
    EXPECT_EQ(c.device, a.device) << v;
    EXPECT_EQ(c.storage, a.storage) << v;
    EXPECT_EQ(c.buffer_index, a.buffer_index) << v;
    EXPECT_EQ(std::vector<uint8_t>(c.data.begin(), c.data.end()),
              std::vector<uint8_t>(a.data.begin(), a.data.end()))
        << v;  // constants
    moved += c.offset != a.offset ? 1 : 0;
  }
  EXPECT_GT(moved, 0u);
  ASSERT_EQ(y.chains.size(), x.chains.size());
  EXPECT_EQ(y.chains[0].instructions.size(), x.chains[0].instructions.size());
}

TEST(ReplanCommandTest, ReportsOldNewAndLowerBoundPerBuffer) {
  const std::string out = testing::temp_file({}, ".pte");
  testing::CommandResult r = run(&replan_command, {upstream("residual.pte"), "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "method forward:\n"
            "  buffer 0 on cpu:0: 10240 B (10.0 KiB) -> 8192 B (8.0 KiB) (lower bound 8192 B "
            "(8.0 KiB), 1.0000 of it), "
            "saving 20.0%, optimal\nwrote " +
                out + "\n");
  testing::CommandResult kept = run(&replan_command, {upstream("mlp.pte"), "-o", out, "--json"});
  EXPECT_EQ(kept.exit_code, 0);
  EXPECT_THAT(
      kept.out,
      HasSubstr(R"("buffers":[{"index":0,"device":"cpu:0","old_size":69632,"new_size":69632,)"
                R"("lower_bound":69632,"proven_bound":69632,"optimal":true,"saving_percent":0.0,)"
                R"("kept":true}])"))
      << kept.out;
}

TEST(ReplanCommandTest, AWastefulDevicePlanShrinksAndRunsTheSame) {
  const std::string in = testing::temp_file(testing::wasteful_device_add());
  const std::string out = testing::temp_file({}, ".pte");
  testing::CommandResult r = run(&replan_command, {in, "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("  buffer 0 on cpu:0: 48 B -> 32 B (lower bound 32 B, 1.0000 of it), saving "
                "33.3%, optimal\n"
                "  buffer 1 on cuda:0: 48 B -> 48 B (lower bound 48 B, 1.0000 of it), saving "
                "0.0% (kept: ours would not be smaller), optimal\n"))
      << r.out;
  for (const std::string& file : {in, out}) {
    testing::CommandResult ran = run(&run_command, {file, "--input", "1,2,3,4", "--input", "10"});
    EXPECT_EQ(ran.exit_code, 0) << ran.err;
    EXPECT_EQ(ran.out,
              "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [11, 12, 13, 14]\n");
  }
  EXPECT_EQ(run(&check_command, {out}).exit_code, 0);
}

TEST(ReplanCommandTest, UsageAndBadInput) {
  EXPECT_EQ(run(&replan_command, {upstream("mlp.pte")}).exit_code, 2);  // no -o
  testing::CommandResult bad =
      run(&replan_command, {upstream("mlp.pte"), "-o", "/tmp/x.pte", "--algorithm", "magic"});
  EXPECT_EQ(bad.exit_code, 2);
  testing::CommandResult missing = run(&replan_command, {"/nonexistent.pte", "-o", "/tmp/x.pte"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_EQ(missing.err,
            "devplan replan: AccessFailed: cannot open '/nonexistent.pte': No such file or "
            "directory\n");
  testing::CommandResult corrupt =
      run(&replan_command, {testing::temp_file({1, 2, 3}), "-o", "/tmp/x.pte"});
  EXPECT_EQ(corrupt.exit_code, 1);
  EXPECT_THAT(corrupt.err, HasSubstr("InvalidProgram")) << corrupt.err;
}

}  // namespace
}  // namespace devplan::harness
