// check_method_plan and value_lifetimes over written programs: lifetimes by the rules of
// plan_check.h, lower bounds, views (aliases) and overlaps. The `devplan check` command's
// output over the same programs is tested in harness/test/check_command_test.cpp.
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {
namespace {

TEST(PlanCheckTest, LifetimesFollowTheRule) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  int32_t steps = 0;
  std::vector<Lifetime> life = value_lifetimes(source.method(0).plan(), &steps);
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

TEST(PlanCheckTest, AViewReadAfterItsBaseIsOverwrittenIsAnOverlap) {
  // cpu: a [0,16) input; v = view of a (bytes [0,8), written by nothing); t = add(a, a) written
  // into a's bytes at step 0; then v is read at step 1: its base a must still be live, so t
  // overlapping a while v is in use is a real overlap.
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(16);
  const int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}), host, 0);
  const int32_t v = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), host, 0);
  const int32_t t = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}), host, 0);
  const int32_t u = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), host, 8);
  const int32_t alpha = m.add_int(1);
  m.add_chain();
  m.add_kernel_call("aten::add", "out", {a, a, alpha, t, t});
  m.add_kernel_call("aten::add", "out", {v, v, alpha, u, u});
  m.set_inputs({a});
  m.set_outputs({t, u});
  const MethodCheck c = check_method_plan(builder.method(0).plan());
  EXPECT_EQ(c.alias_of[v], a);
  EXPECT_EQ(c.lifetimes[a].last, 1);  // kept alive by its view
  ASSERT_FALSE(c.overlaps.empty());
  EXPECT_EQ(c.overlaps[0].value_a, a);
  EXPECT_EQ(c.overlaps[0].value_b, t);
}

}  // namespace
}  // namespace devplan
