// Programs executed end to end: the real ExecuTorch files and the device fixtures on the
// simulated device.
#include "module_test_support.h"

#include <cstring>

namespace devplan {
namespace {

using testing::ModuleTestBase;
using EndToEndTest = ModuleTestBase;

std::string real_file(const char* name) {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/" + name;
}

// A host float tensor over `data` with `sizes`.
EValue host_floats(std::vector<float>& data, std::vector<int32_t> sizes) {
  Tensor t;
  t.dtype = ScalarType::Float;
  t.sizes = std::move(sizes);
  t.data = data.data();
  t.nbytes = data.size() * sizeof(float);
  return EValue::from_tensor(t);
}

std::vector<float> output_floats(Module& module, const std::string& method, size_t i) {
  Method* m = *module.method(method);
  const EValue* out = *m->get_output(i);
  std::vector<float> values(out->tensor.nbytes / sizeof(float));
  Error e = m->copy_output_to_host(i, values.data(), out->tensor.nbytes);
  EXPECT_TRUE(e.ok()) << e;
  return values;
}

TEST_F(EndToEndTest, RealAddGivesThree) {
  Module module(real_file("add.pte"));
  std::vector<float> a{1.0f}, b{2.0f};
  Result<std::vector<EValue>> out =
      module.execute("forward", {host_floats(a, {1}), host_floats(b, {1})});
  ASSERT_TRUE(out.ok()) << out.error();
  ASSERT_EQ(out->size(), 1u);
  EXPECT_EQ(*static_cast<const float*>((*out)[0].tensor.data), 3.0f);
}

TEST_F(EndToEndTest, RealLinearGivesFiveFromOnes) {
  Module module(real_file("linear_no_constant_segment.pte"));
  std::vector<float> ones(4, 1.0f);
  Result<std::vector<EValue>> out = module.execute("forward", {host_floats(ones, {2, 2})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(output_floats(module, "forward", 0), (std::vector<float>{5, 5, 5, 5}));
}

TEST_F(EndToEndTest, DeviceAddRunsOnTheSimulatedDevice) {
  auto module = fixture_module("device_add_cuda0");
  std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40};
  Result<std::vector<EValue>> out =
      module->execute("forward", {host_floats(a, {2, 2}), host_floats(b, {2, 2})});
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(output_floats(*module, "forward", 0), (std::vector<float>{11, 22, 33, 44}));
  EXPECT_EQ(add_backend_.executions(), 1u);
  EXPECT_GE(tracking().stats(0).host_to_device_copies, 2u);
}

TEST_F(EndToEndTest, MultiDeviceRunsAcrossTwoDevices) {
  auto module = fixture_module("multi_device");
  Result<MethodMeta> meta = module->method_meta("forward");
  ASSERT_TRUE(meta.ok());
  ASSERT_EQ(meta->num_inputs(), 2u);
  std::vector<float> a{1, 2, 3, 4}, b{10, 20, 30, 40};
  Result<std::vector<EValue>> out =
      module->execute("forward", {host_floats(a, {2, 2}), host_floats(b, {2, 2})});
  ASSERT_TRUE(out.ok()) << out.error();
  // (a + b) on cuda:0, then + b on cuda:1.
  EXPECT_EQ(output_floats(*module, "forward", 0), (std::vector<float>{21, 42, 63, 84}));
  EXPECT_EQ(add_backend_.executions(), 2u);
  EXPECT_GE(tracking().stats(1).host_to_device_copies, 1u);
}

TEST_F(EndToEndTest, EveryFixtureRunsWithOnes) {
  for (const FixtureProgram& fixture : all_fixture_programs()) {
    Module module(fixture.bytes());
    const std::vector<std::string> names = module.method_names().value();
    for (const std::string& method : names) {
      Error e = module.load_method(method);
      ASSERT_TRUE(e.ok()) << fixture.name << "/" << method << ": " << e;
      Method* m = *module.method(method);
      std::vector<std::vector<float>> storage;
      for (size_t i = 0; i < m->num_inputs(); ++i) {
        const EValue& in = m->value(m->plan().inputs[i]);
        ASSERT_TRUE(in.is_tensor());
        storage.emplace_back(in.tensor.nbytes / sizeof(float), 1.0f);
        ASSERT_TRUE(m->set_input(i, host_floats(storage.back(), in.tensor.sizes)).ok());
      }
      e = m->execute();
      EXPECT_TRUE(e.ok()) << fixture.name << "/" << method << ": " << e;
    }
  }
}

}  // namespace
}  // namespace devplan
