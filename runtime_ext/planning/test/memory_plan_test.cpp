#include <runtime_ext/planning/memory_plan.h>

#include <gtest/gtest.h>

namespace devplan {
namespace {

Graph reference_graph() {
  Graph g;
  g.name = "forward";
  const int32_t a = g.add_tensor("a", ScalarType::Float, {2, 2});
  const int32_t b = g.add_tensor("b", ScalarType::Float, {2, 2});
  const int32_t z = g.add_tensor("z", ScalarType::Float, {2, 2});
  g.inputs = {a, b};
  g.outputs = {z};
  g.add_delegate("DeviceAddBackend", Device::cuda(0), {a, b}, {z});
  return g;
}

TEST(MemoryPlanTest, ReferenceProgram) {
  Result<MethodMemoryPlan> plan = plan_method(reference_graph());
  ASSERT_TRUE(plan.ok()) << plan.error();
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 32, 48}));
}

}  // namespace
}  // namespace devplan
