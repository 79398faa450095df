// Generated scenarios load, execute and unload on the simulated devices without leaks or
// misuse: the seeded generator's promise to `devplan fuzz`.
#include <harness/scenario/seeded_generator.h>
#include <harness/scenario/writer.h>

#include <gtest/gtest.h>

#include <fixtures/leak_checked_test.h>
#include <mocks/simulated_device_backend.h>
#include <runtime_ext/module/module.h>

namespace devplan {
namespace {

class GeneratedProgramsTest : public LeakCheckedTest {
 protected:
  SimulatedDeviceBackend add_{SimulatedDeviceBackend::Op::Add};
  ScopedBackend scoped_add_{kScenarioDelegateBackend, &add_};
};

TEST_F(GeneratedProgramsTest, LoadExecuteAndUnload) {
  uint64_t executed_instructions = 0;
  for (uint64_t seed = 0; seed < 300; ++seed) {
    const ProgramScenario s = generate_program_scenario(seed);
    Module module(build_program(s));
    for (const MethodScenario& m : s.methods) {
      const Error load = module.load_method(m.name);
      ASSERT_TRUE(load.ok()) << "seed " << seed << ": " << load << "\n"
                             << describe_program_scenario(s);
      Result<std::vector<EValue>> out = module.execute(m.name, {});
      ASSERT_TRUE(out.ok()) << "seed " << seed << ": " << out.error() << "\n"
                            << describe_program_scenario(s);
      ASSERT_EQ(out->size(), m.outputs.size());
      executed_instructions += m.instructions.size();
      ASSERT_EQ(tracking().live_count(), [&] {
        size_t n = 0;
        for (const MethodScenario& x : s.methods) {
          if (module.is_method_loaded(x.name)) n += x.num_device_allocations();
        }
        return n;
      }());
    }
    ASSERT_TRUE(module.unload_method(s.methods[0].name).ok());
    ASSERT_FALSE(tracking().has_misuse()) << "seed " << seed << ": " << tracking().misuse_report();
  }
  EXPECT_GT(executed_instructions, 1000u);
  EXPECT_GT(add_.executions(), 100u);
}

}  // namespace
}  // namespace devplan
