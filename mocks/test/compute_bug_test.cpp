// ComputeBugInjector: each planted compute bug does exactly what probe's tests rely on.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include <mocks/compute_bug.h>
#include <mocks/tracking_device_allocator.h>

namespace devplan {
namespace {

// Four float32[2] device blocks: a = {1.5, 2}, b = {4, 0.5}, out0 and out1 filled with 0xA5.
class ComputeBugTest : public ::testing::Test {
 protected:
  ComputeBugTest() {
    const float a[2] = {1.5f, 2.0f}, b[2] = {4.0f, 0.5f};
    const std::vector<uint8_t> poison(8, 0xA5);
    for (int i = 0; i < 4; ++i) {
      block_[i] = *cuda_.allocate(8, 0);
      t_[i].dtype = ScalarType::Float;
      t_[i].sizes = {2};
      t_[i].device = Device::cuda(0);
      t_[i].nbytes = 8;
      t_[i].data = block_[i];
    }
    EXPECT_TRUE(cuda_.copy_host_to_device(block_[0], a, 8, 0).ok());
    EXPECT_TRUE(cuda_.copy_host_to_device(block_[1], b, 8, 0).ok());
    EXPECT_TRUE(cuda_.copy_host_to_device(block_[2], poison.data(), 8, 0).ok());
    EXPECT_TRUE(cuda_.copy_host_to_device(block_[3], poison.data(), 8, 0).ok());
  }
  ~ComputeBugTest() override {
    for (void* p : block_) cuda_.deallocate(p, 0);
  }
  // Calls the hook as a device backend does: a op b into output `out` (2 or 3).
  std::optional<Error> call(ComputeBugInjector& bug, SimulatedDeviceBackend::Op op, int out) {
    return bug.hook()(op, t_[0], t_[1], t_[out], Device::cuda(0));
  }
  std::vector<uint8_t> bytes(int i) {
    std::vector<uint8_t> out(8);
    EXPECT_TRUE(cuda_.copy_device_to_host(out.data(), block_[i], 8, 0).ok());
    return out;
  }
  static std::vector<uint8_t> floats(float x, float y) {
    std::vector<uint8_t> out(8);
    std::memcpy(out.data(), &x, 4);
    std::memcpy(out.data() + 4, &y, 4);
    return out;
  }

  TrackingDeviceAllocator cuda_;
  void* block_[4] = {};
  Tensor t_[4];
};

TEST(ComputeBugNames, ParseTheirNamesAndRefuseOthers) {
  for (ComputeBug bug : {ComputeBug::None, ComputeBug::UnwrittenOutput, ComputeBug::MergedOutputs,
                         ComputeBug::ReadBeforeWrite}) {
    EXPECT_EQ(*parse_compute_bug(compute_bug_name(bug)), bug);
  }
  const Result<ComputeBug> other = parse_compute_bug("skip-free");
  EXPECT_EQ(other.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(other.error().message(),
            "unknown compute bug 'skip-free' (choose none, unwritten-output, merged-outputs or "
            "read-before-write)");
}

TEST_F(ComputeBugTest, NoneLeavesTheWorkToTheStagedKernel) {
  ComputeBugInjector bug(ComputeBug::None, &cuda_, {});
  EXPECT_FALSE(call(bug, SimulatedDeviceBackend::Op::Add, 2).has_value());
  EXPECT_EQ(bytes(2), std::vector<uint8_t>(8, 0xA5));
}

TEST_F(ComputeBugTest, UnwrittenOutputSucceedsAndWritesNothing) {
  ComputeBugInjector bug(ComputeBug::UnwrittenOutput, &cuda_, {});
  ASSERT_TRUE(call(bug, SimulatedDeviceBackend::Op::Add, 2)->ok());
  EXPECT_EQ(bytes(2), std::vector<uint8_t>(8, 0xA5));
}

TEST_F(ComputeBugTest, MergedOutputsWritesTheSecondCallIntoTheFirstsOutput) {
  ComputeBugInjector bug(ComputeBug::MergedOutputs, &cuda_, {});
  ASSERT_TRUE(call(bug, SimulatedDeviceBackend::Op::Add, 2)->ok());
  EXPECT_EQ(bytes(2), floats(5.5f, 2.5f));
  ASSERT_TRUE(call(bug, SimulatedDeviceBackend::Op::Mul, 3)->ok());
  EXPECT_EQ(bytes(2), floats(6.0f, 1.0f));
  EXPECT_EQ(bytes(3), std::vector<uint8_t>(8, 0xA5));
  // A new execution pairs its own calls: its first call writes its own output.
  bug.start_execution();
  ASSERT_TRUE(call(bug, SimulatedDeviceBackend::Op::Mul, 3)->ok());
  EXPECT_EQ(bytes(3), floats(6.0f, 1.0f));
}

TEST_F(ComputeBugTest, ReadBeforeWriteAddsTheOutputsPreviousBytesToTheResult) {
  ComputeBugInjector bug(ComputeBug::ReadBeforeWrite, &cuda_, {});
  ASSERT_TRUE(call(bug, SimulatedDeviceBackend::Op::Add, 2)->ok());
  std::vector<uint8_t> expected = floats(5.5f, 2.5f);
  for (uint8_t& byte : expected) byte = static_cast<uint8_t>(byte + 0xA5);
  EXPECT_EQ(bytes(2), expected);
}

}  // namespace
}  // namespace devplan
