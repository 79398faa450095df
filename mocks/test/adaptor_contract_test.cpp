// The contract every DeviceAllocatorAdaptor keeps with the layer below, after RMM's one typed
// test for all its resource adaptors: with none of its own settings made, an adaptor passes
// each call down once, with the size, index, alignment and pointers it was given, returns what
// came back, and frees with the block's own size and device. Each case looks at what arrives at
// a recording upstream, not only at the result on top.
#include <memory>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mocks/device_allocator_adaptor.h>
#include <mocks/failure_injecting_device_allocator.h>
#include <mocks/ledger_device_allocator.h>
#include <mocks/limiting_device_allocator.h>
#include <mocks/statistics_device_allocator.h>
#include <mocks/validating_device_allocator.h>

#include "recording_upstream.h"

namespace devplan {
namespace {

using testing::RecordingUpstream;
using testing::UpstreamCall;
using Kind = UpstreamCall::Kind;
using Calls = std::vector<UpstreamCall>;

// Each adaptor over `upstream`, as its constructor makes it (no limits, faults or restrictions).
template <typename A>
std::unique_ptr<A> make_adaptor(DeviceAllocator* upstream) {
  return std::make_unique<A>(upstream);
}
template <>
std::unique_ptr<DeviceAllocatorAdaptor> make_adaptor(DeviceAllocator* upstream) {
  return std::make_unique<DeviceAllocatorAdaptor>(upstream, "DeviceAllocatorAdaptor");
}

// An upstream that frees only by pointer (as CudaAllocator does): it forwards to a
// RecordingUpstream but is not a SizedDeviceAllocator.
class PlainUpstream final : public DeviceAllocator {
 public:
  explicit PlainUpstream(RecordingUpstream* below) : below_(below) {}
  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) override {
    return below_->allocate(nbytes, index, alignment);
  }
  void deallocate(void* ptr, DeviceIndex index) override { below_->deallocate(ptr, index); }
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    return below_->copy_host_to_device(dst, src, nbytes, index);
  }
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    return below_->copy_device_to_host(dst, src, nbytes, index);
  }
  DeviceType device_type() const override { return below_->device_type(); }

 private:
  RecordingUpstream* below_;
};

template <typename A>
class AdaptorContract : public ::testing::Test {
 protected:
  UpstreamCall allocated(void* p, size_t n, DeviceIndex i, size_t alignment) const {
    return {Kind::Allocate, p, nullptr, n, i, alignment};
  }
  UpstreamCall freed_sized(void* p, size_t n, DeviceIndex i) const {
    return {Kind::FreeSized, p, nullptr, n, i, 0};
  }

  RecordingUpstream below_;
  std::unique_ptr<A> adaptor_ = make_adaptor<A>(&below_);
};

using Adaptors = ::testing::Types<DeviceAllocatorAdaptor, LedgerDeviceAllocator,
                                  StatisticsDeviceAllocator, LimitingDeviceAllocator,
                                  FailureInjectingDeviceAllocator, ValidatingDeviceAllocator>;

class AdaptorNames {
 public:
  template <typename A>
  static std::string GetName(int) {
    return make_adaptor<A>(nullptr_upstream())->name();
  }

 private:
  static DeviceAllocator* nullptr_upstream() {
    static RecordingUpstream upstream;
    return &upstream;
  }
};

TYPED_TEST_SUITE(AdaptorContract, Adaptors, AdaptorNames);

TYPED_TEST(AdaptorContract, AllocateForwardsSizeIndexAndAlignmentOnce) {
  struct Case {
    size_t nbytes;
    DeviceIndex index;
    size_t alignment;
  };
  // The smallest and largest index, alignment 1 and a GPU's 256, one byte and a large block.
  for (const Case c :
       {Case{1, 0, 1}, Case{48, 3, 16}, Case{size_t{1} << 30, kMaxDeviceIndex, 256}}) {
    this->below_.clear_calls();
    Result<void*> p = this->adaptor_->allocate(c.nbytes, c.index, c.alignment);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(this->below_.calls(), (Calls{this->allocated(*p, c.nbytes, c.index, c.alignment)}));
  }
}

TYPED_TEST(AdaptorContract, AnUpstreamFailureComesBackWithItsCodeAndMessage) {
  this->below_.fail_next_allocation(
      Error(ErrorCode::MemoryAllocationFailed, "below: no memory for 64 bytes on cuda:3"));
  Result<void*> p = this->adaptor_->allocate(64, 3, 16);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_THAT(p.error().message(), ::testing::HasSubstr("below: no memory for 64 bytes on cuda:3"));
  EXPECT_EQ(this->below_.calls(), (Calls{this->allocated(nullptr, 64, 3, 16)}));
  // Nothing was kept of the failed block: the next allocation and its free go through.
  this->below_.clear_calls();
  Result<void*> q = this->adaptor_->allocate(8, 3, 8);
  ASSERT_TRUE(q.ok()) << q.error();
  this->adaptor_->deallocate(*q, 3);
  EXPECT_EQ(this->below_.calls(),
            (Calls{this->allocated(*q, 8, 3, 8), this->freed_sized(*q, 8, 3)}));
  EXPECT_EQ(this->below_.live_blocks(), 0u);
}

TYPED_TEST(AdaptorContract, AFreeArrivesSizedWithTheBlocksSizeAndDevice) {
  void* p = *this->adaptor_->allocate(48, 2, 16);
  void* q = *this->adaptor_->allocate(40, 5, 8);
  this->below_.clear_calls();
  this->adaptor_->deallocate(p, 2);            // as a runtime frees: by pointer
  this->adaptor_->deallocate_sized(q, 40, 5);  // as an outer layer frees: with the size
  EXPECT_EQ(this->below_.calls(),
            (Calls{this->freed_sized(p, 48, 2), this->freed_sized(q, 40, 5)}));
  EXPECT_EQ(this->below_.live_blocks(), 0u);
}

TYPED_TEST(AdaptorContract, CopiesArriveWithTheirPointersSizeDeviceAndDirection) {
  uint8_t* p = static_cast<uint8_t*>(*this->adaptor_->allocate(64, 1, 16));
  uint8_t host[64] = {};
  this->below_.clear_calls();
  ASSERT_TRUE(this->adaptor_->copy_host_to_device(p + 16, host + 4, 32, 1).ok());
  ASSERT_TRUE(this->adaptor_->copy_device_to_host(host + 8, p + 56, 8, 1).ok());
  EXPECT_EQ(this->below_.calls(), (Calls{{Kind::HostToDevice, p + 16, host + 4, 32, 1, 0},
                                         {Kind::DeviceToHost, host + 8, p + 56, 8, 1, 0}}));
  this->adaptor_->deallocate(p, 1);
}

TYPED_TEST(AdaptorContract, InterleavedDevicesKeepTheirIndicesAndOrder) {
  const struct {
    size_t nbytes;
    DeviceIndex index;
  } blocks[] = {{16, 0}, {32, 7}, {48, 0}, {64, kMaxDeviceIndex}};
  std::vector<void*> p;
  for (const auto& b : blocks) p.push_back(*this->adaptor_->allocate(b.nbytes, b.index, 16));
  this->below_.clear_calls();
  for (size_t k : {2, 0, 3, 1}) this->adaptor_->deallocate(p[k], blocks[k].index);
  EXPECT_EQ(this->below_.calls(),
            (Calls{this->freed_sized(p[2], 48, 0), this->freed_sized(p[0], 16, 0),
                   this->freed_sized(p[3], 64, kMaxDeviceIndex), this->freed_sized(p[1], 32, 7)}));
}

TYPED_TEST(AdaptorContract, LiveBlocksAndTheDeviceTypeAreAnsweredAsBelow) {
  void* p = *this->adaptor_->allocate(48, 2, 16);
  const std::optional<LiveBlock> block = this->adaptor_->find_live_block(p);
  ASSERT_TRUE(block.has_value());
  EXPECT_EQ(block->size, 48u);
  EXPECT_EQ(block->index, 2);
  EXPECT_FALSE(this->adaptor_->find_live_block(static_cast<uint8_t*>(p) + 1).has_value());
  this->adaptor_->deallocate(p, 2);
  EXPECT_FALSE(this->adaptor_->find_live_block(p).has_value());
  EXPECT_EQ(this->adaptor_->device_type(), DeviceType::CUDA);
  RecordingUpstream cpu(DeviceType::CPU);
  EXPECT_EQ(make_adaptor<TypeParam>(&cpu)->device_type(), DeviceType::CPU);
}

TYPED_TEST(AdaptorContract, OverAnUpstreamThatFreesByPointerAFreeArrivesAsAPlainFree) {
  RecordingUpstream below;
  PlainUpstream plain(&below);
  std::unique_ptr<TypeParam> adaptor = make_adaptor<TypeParam>(&plain);
  void* p = *adaptor->allocate(48, 2, 16);
  below.clear_calls();
  adaptor->deallocate(p, 2);
  EXPECT_EQ(below.calls(), (Calls{{Kind::Free, p, nullptr, 0, 2, 0}}));
  EXPECT_EQ(below.live_blocks(), 0u);
}

}  // namespace
}  // namespace devplan
