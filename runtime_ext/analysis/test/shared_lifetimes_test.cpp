// The planner and the plan checker share one lifetime rule (runtime_ext/planning/lifetime.h):
// a planned graph written through the emitter and checked as a program has, value for value,
// the lifetimes the planner gave its tensors, the planner's lower bounds, and no overlap.
#include <gtest/gtest.h>

#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/planning/graph_gen.h>
#include <runtime_ext/planning/memory_plan.h>
#include <runtime_ext/planning/program_emitter.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {
namespace {

TEST(SharedLifetimesTest, ThePlanCheckerSeesThePlannersLifetimes) {
  for (GraphFamily family : all_graph_families()) {
    for (int num_devices : {0, 2}) {
      GraphGenOptions options;
      options.family = family;
      options.num_tensors = 60;
      options.seed = 11;
      options.num_devices = num_devices;
      const Graph graph = generate_graph(options);
      SCOPED_TRACE(std::string(graph_family_name(family)) + ", " + std::to_string(num_devices) +
                   " devices");
      Result<MethodMemoryPlan> plan = plan_method(graph);
      ASSERT_TRUE(plan.ok()) << plan.error();
      ProgramBuilder builder;
      ASSERT_TRUE(emit_method(*plan, builder.add_method(plan->method())).ok());
      const MethodPlan& written = builder.method(0).plan();

      int32_t steps = 0;
      const std::vector<Lifetime> life = value_lifetimes(written, &steps);
      EXPECT_EQ(steps, num_steps(plan->graph));
      // The emitter writes one value per tensor with a lifetime, in tensor order, first.
      int32_t value = 0;
      for (size_t t = 0; t < plan->tensors.size(); ++t) {
        if (!plan->tensors[t].planned) continue;
        EXPECT_EQ(life[value], plan->tensors[t].lifetime) << "tensor " << t << ", value " << value;
        ++value;
      }
      const MethodCheck check = check_method_plan(written);
      EXPECT_TRUE(check.overlaps.empty()) << describe_overlap(check.overlaps.front());
      ASSERT_EQ(check.buffers.size(), plan->buffers.size());
      for (size_t b = 0; b < check.buffers.size(); ++b) {
        EXPECT_EQ(check.buffers[b].size, plan->buffers[b].size) << "buffer " << b;
        EXPECT_EQ(check.buffers[b].lower_bound, plan->buffers[b].lower_bound) << "buffer " << b;
      }
    }
  }
}

}  // namespace
}  // namespace devplan
