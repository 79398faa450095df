#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/commands/plan_check.h>
#include <runtime_ext/program/program_builder.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using testing::fixture_program;
using testing::real_program;
using testing::run;

// device_add_cuda0 with one tensor moved by `field` to plant an overlap.
std::vector<uint8_t> device_add_with(int32_t value, uint64_t offset) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodPlan plan = source.method(0).plan();
  plan.values[value].tensor.offset = offset;
  ProgramBuilder builder;
  builder.add_method(plan);
  return builder.build();
}

TEST(PlanCheckTest, LifetimesFollowTheRule) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  int32_t steps = 0;
  std::vector<ValueLifetime> life = value_lifetimes(source.method(0).plan(), &steps);
  EXPECT_EQ(steps, 4);
  // a: input, last use at the first h2d (step 0); b: input, used at step 1.
  EXPECT_EQ(life[0].first, 0);
  EXPECT_EQ(life[0].last, 0);
  EXPECT_EQ(life[1].first, 0);
  EXPECT_EQ(life[1].last, 1);
  EXPECT_EQ(life[2].first, 0);  // a_dev: h2d out at 0, delegate input at 2
  EXPECT_EQ(life[2].last, 2);
  EXPECT_EQ(life[3].first, 1);
  EXPECT_EQ(life[3].last, 2);
  EXPECT_EQ(life[4].first, 2);  // the delegate's output, read by the d2h at 3
  EXPECT_EQ(life[4].last, 3);
  EXPECT_EQ(life[5].first, 3);  // the output lives to the end
  EXPECT_EQ(life[5].last, 3);
}

TEST(PlanCheckTest, ReferenceProgramIsCleanWithItsLowerBounds) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodCheck c = check_method_plan(source.method(0).plan());
  EXPECT_TRUE(c.overlaps.empty());
  ASSERT_EQ(c.buffers.size(), 2u);
  EXPECT_EQ(c.buffers[0].lower_bound, 32u);
  EXPECT_EQ(c.buffers[0].size, 32u);
  EXPECT_EQ(c.buffers[1].lower_bound, 48u);
  EXPECT_EQ(c.buffers[1].device, Device::cuda(0));
}

TEST(CheckCommandTest, RealFilesCheckClean) {
  testing::CommandResult r = run(&check_command, {real_program("linear_no_constant_segment.pte")});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "file: " + real_program("linear_no_constant_segment.pte") +
                       "\nmethod forward: 2 steps\n"
                       "  buffer 0: 32 B on cpu:0, lower bound 32 B (size/bound 1.000), 3 planned "
                       "tensors\nresult: clean\n");
  EXPECT_EQ(run(&check_command, {real_program("add.pte")}).exit_code, 0);
}

TEST(CheckCommandTest, EveryFixtureChecksClean) {
  for (const FixtureProgram& f : all_fixture_programs()) {
    testing::CommandResult r = run(&check_command, {fixture_program(f.name)});
    EXPECT_EQ(r.exit_code, 0) << f.name << "\n" << r.out;
  }
}

TEST(CheckCommandTest, FindsAPlantedOverlap) {
  // b_dev (value 3) moved onto a_dev's bytes: both live during instructions 1..2.
  testing::CommandResult r = run(&check_command, {testing::temp_file(device_add_with(3, 0))});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find("  OVERLAP values 2 and 3 in buffer 1 share bytes [0, 16) during "
                       "instructions 1..2 (value 2 at [0, 16), value 3 at [0, 16))\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("result: 1 overlaps\n"), std::string::npos);
}

TEST(CheckCommandTest, PartialOverlapJson) {
  // The delegate output (value 4, live 2..3) moved to offset 8 overlaps a_dev (2, live 0..2)
  // and b_dev (3, live 1..2) at step 2.
  testing::CommandResult r =
      run(&check_command, {"--json", testing::temp_file(device_add_with(4, 8))});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.out.find(R"("status":"overlap")"), std::string::npos);
  EXPECT_NE(r.out.find(R"("overlaps":[{"buffer":1,"values":[2,4],"bytes":[[0,16],[8,24]],"instructions":[2,2]},)"
                       R"({"buffer":1,"values":[3,4],"bytes":[[16,32],[8,24]],"instructions":[2,2]}])"),
            std::string::npos) << r.out;
}

TEST(CheckCommandTest, ReuseAfterLastUseIsNotAnOverlap) {
  // out (value 5) already reuses a's bytes; a dead slot reused by the delegate output too.
  testing::CommandResult r = run(&check_command, {testing::temp_file(device_add_with(4, 0))});
  // a_dev (value 2) lives 0..2 and the delegate output 2..3: they meet at step 2.
  EXPECT_EQ(r.exit_code, 3) << r.out;
}

TEST(CheckCommandTest, BadInputs) {
  EXPECT_EQ(run(&check_command, {}).exit_code, 2);
  testing::CommandResult r = run(&check_command, {"/nonexistent.pte"});
  EXPECT_EQ(r.exit_code, 1);
  r = run(&check_command, {"/nonexistent.pte", "--json"});
  EXPECT_EQ(r.out.rfind(R"({"error":{"code":"AccessFailed")", 0), 0u);
}

}  // namespace
}  // namespace devplan::harness
