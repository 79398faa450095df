// The contracts the allocators of mocks/ keep, after RMM's one typed test for all its resource
// adaptors. Three typed suites, one per kind of allocator:
//  - AdaptorContract, every DeviceAllocatorAdaptor: with none of its own settings made, it passes
//    each call down once, with the size, index, alignment and pointers it was given, returns what
//    came back, and frees with the block's own size and device.
//  - ForwarderContract, the plain forwarding DeviceAllocators (index mapping, recording, the
//    unload bug switched off): each call arrives below once and unchanged, a free as a plain free.
//  - MemoryContract, the allocators that hold the memory (the block store, the whole tracking
//    allocator): aligned blocks of exactly the requested size, filled with the fresh pattern;
//    unique zero-byte blocks; InvalidArgument for a bad alignment; a freed block is not live.
// Each forwarding case looks at what arrives at a recording upstream, not only at the result.
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <mocks/block_store_device_allocator.h>
#include <mocks/device_allocator_adaptor.h>
#include <mocks/failure_injecting_device_allocator.h>
#include <mocks/forwarding_device_allocator.h>
#include <mocks/index_mapping_device_allocator.h>
#include <mocks/ledger_device_allocator.h>
#include <mocks/limiting_device_allocator.h>
#include <mocks/recording_device_allocator.h>
#include <mocks/statistics_device_allocator.h>
#include <mocks/tracking_device_allocator.h>
#include <mocks/unload_bug_allocator.h>
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
using PlainUpstream = ForwardingDeviceAllocator;

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

TYPED_TEST(AdaptorContract, AZeroByteBlockArrivesAsZeroBytesAndIsFreedSizedZero) {
  Result<void*> p = this->adaptor_->allocate(0, 4, 8);
  ASSERT_TRUE(p.ok()) << p.error();
  this->adaptor_->deallocate(*p, 4);
  EXPECT_EQ(this->below_.calls(),
            (Calls{this->allocated(*p, 0, 4, 8), this->freed_sized(*p, 0, 4)}));
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

// --- the plain forwarders -----------------------------------------------------------------------

template <typename F>
std::unique_ptr<F> make_forwarder(DeviceAllocator* upstream) {
  if constexpr (std::is_same_v<F, UnloadBugAllocator>) {
    return std::make_unique<F>(upstream, UnloadBug::None);
  } else {
    return std::make_unique<F>(upstream);  // no index mapped
  }
}

template <typename F>
class ForwarderContract : public ::testing::Test {
 protected:
  RecordingUpstream below_;
  std::unique_ptr<F> forwarder_ = make_forwarder<F>(&below_);
};

using Forwarders =
    ::testing::Types<IndexMappingDeviceAllocator, RecordingDeviceAllocator, UnloadBugAllocator>;

class ForwarderNames {
 public:
  template <typename F>
  static std::string GetName(int) {
    if constexpr (std::is_same_v<F, IndexMappingDeviceAllocator>) return "IndexMapping";
    if constexpr (std::is_same_v<F, RecordingDeviceAllocator>) return "Recording";
    return "UnloadBugNone";
  }
};

TYPED_TEST_SUITE(ForwarderContract, Forwarders, ForwarderNames);

TYPED_TEST(ForwarderContract, EveryCallArrivesOnceAndUnchanged) {
  DeviceAllocator& f = *this->forwarder_;
  void* p = *f.allocate(48, 3, 16);
  void* z = *f.allocate(0, kMaxDeviceIndex, 1);
  uint8_t host[64] = {};
  ASSERT_TRUE(f.copy_host_to_device(p, host + 4, 48, 3).ok());
  ASSERT_TRUE(f.copy_device_to_host(host + 8, static_cast<uint8_t*>(p) + 32, 16, 3).ok());
  f.deallocate(p, 3);
  f.deallocate(z, kMaxDeviceIndex);
  EXPECT_NE(p, z);
  EXPECT_EQ(this->below_.calls(),
            (Calls{{Kind::Allocate, p, nullptr, 48, 3, 16},
                   {Kind::Allocate, z, nullptr, 0, kMaxDeviceIndex, 1},
                   {Kind::HostToDevice, p, host + 4, 48, 3, 0},
                   {Kind::DeviceToHost, host + 8, static_cast<uint8_t*>(p) + 32, 16, 3, 0},
                   {Kind::Free, p, nullptr, 0, 3, 0},
                   {Kind::Free, z, nullptr, 0, kMaxDeviceIndex, 0}}));
  EXPECT_EQ(this->below_.live_blocks(), 0u);
}

TYPED_TEST(ForwarderContract, AnUpstreamFailureComesBackExactlyAsItWas) {
  this->below_.fail_next_allocation(
      Error(ErrorCode::MemoryAllocationFailed, "below: no memory for 64 bytes on cuda:3"));
  Result<void*> p = this->forwarder_->allocate(64, 3, 16);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(p.error().message(), "below: no memory for 64 bytes on cuda:3");
  EXPECT_EQ(this->below_.calls(), (Calls{{Kind::Allocate, nullptr, nullptr, 64, 3, 16}}));
  EXPECT_EQ(this->below_.live_blocks(), 0u);
}

TYPED_TEST(ForwarderContract, TheDeviceTypeIsTheUpstreams) {
  EXPECT_EQ(this->forwarder_->device_type(), DeviceType::CUDA);
  RecordingUpstream cpu(DeviceType::CPU);
  EXPECT_EQ(make_forwarder<TypeParam>(&cpu)->device_type(), DeviceType::CPU);
}

// --- the allocators that hold the memory ---------------------------------------------------------

bool is_live(const BlockStoreDeviceAllocator& a, const void* ptr) {
  return a.find_live_block(ptr).has_value();
}
bool is_live(const TrackingDeviceAllocator& a, const void* ptr) {
  for (const AllocationRecord& record : a.live_allocations()) {
    if (record.ptr == ptr) return true;
  }
  return false;
}

template <typename M>
class MemoryContract : public ::testing::Test {
 protected:
  M memory_;  // a simulated CUDA device, host-backed, with its default settings
};

using MemoryAllocators = ::testing::Types<BlockStoreDeviceAllocator, TrackingDeviceAllocator>;

class MemoryNames {
 public:
  template <typename M>
  static std::string GetName(int) {
    return std::is_same_v<M, BlockStoreDeviceAllocator> ? "BlockStore" : "Tracking";
  }
};

TYPED_TEST_SUITE(MemoryContract, MemoryAllocators, MemoryNames);

TYPED_TEST(MemoryContract, BlocksAreAlignedExactlySizedAndHoldTheFreshPattern) {
  for (const size_t alignment : {size_t{1}, size_t{8}, size_t{16}, size_t{256}, size_t{4096}}) {
    for (const size_t nbytes : {size_t{1}, size_t{48}, size_t{4097}}) {
      SCOPED_TRACE(std::to_string(nbytes) + " B align " + std::to_string(alignment));
      Result<void*> p = this->memory_.allocate(nbytes, 2, alignment);
      ASSERT_TRUE(p.ok()) << p.error();
      ASSERT_NE(*p, nullptr);
      EXPECT_EQ(reinterpret_cast<uintptr_t>(*p) % alignment, 0u);
      EXPECT_TRUE(is_live(this->memory_, *p));
      std::vector<uint8_t> bytes(nbytes, 0);
      ASSERT_TRUE(this->memory_.copy_device_to_host(bytes.data(), *p, nbytes, 2).ok());
      EXPECT_EQ(bytes, std::vector<uint8_t>(nbytes, 0xCD));
      // Every requested byte is the block's: the last one round-trips.
      const uint8_t last = 0x5A;
      uint8_t* end = static_cast<uint8_t*>(*p) + nbytes - 1;
      ASSERT_TRUE(this->memory_.copy_host_to_device(end, &last, 1, 2).ok());
      uint8_t back = 0;
      ASSERT_TRUE(this->memory_.copy_device_to_host(&back, end, 1, 2).ok());
      EXPECT_EQ(back, 0x5A);
      this->memory_.deallocate(*p, 2);
      EXPECT_FALSE(is_live(this->memory_, *p));
    }
  }
}

TYPED_TEST(MemoryContract, ZeroByteBlocksAreDistinctNonNullAndFreeable) {
  Result<void*> a = this->memory_.allocate(0, 0, 16);
  Result<void*> b = this->memory_.allocate(0, 0, 16);
  ASSERT_TRUE(a.ok()) << a.error();
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_NE(*a, nullptr);
  EXPECT_NE(*b, nullptr);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(*a) % 16, 0u);
  EXPECT_TRUE(is_live(this->memory_, *a));
  this->memory_.deallocate(*a, 0);
  this->memory_.deallocate(*b, 0);
  EXPECT_FALSE(is_live(this->memory_, *a));
  EXPECT_FALSE(is_live(this->memory_, *b));
}

TYPED_TEST(MemoryContract, ANonPowerOfTwoAlignmentIsInvalidArgumentAndKeepsNothing) {
  const std::string name = std::is_same_v<TypeParam, BlockStoreDeviceAllocator>
                               ? "BlockStoreDeviceAllocator"
                               : "TrackingDeviceAllocator";
  for (const size_t alignment : {size_t{0}, size_t{3}, size_t{24}}) {
    Result<void*> p = this->memory_.allocate(48, 1, alignment);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(p.error().message(), name + "::allocate: alignment " + std::to_string(alignment) +
                                       " for 48 bytes on cuda:1 is not a power of two");
  }
  // The failures took no memory: a good block afterwards is the only live one.
  void* q = *this->memory_.allocate(48, 1, 16);
  EXPECT_TRUE(is_live(this->memory_, q));
  this->memory_.deallocate(q, 1);
  EXPECT_FALSE(is_live(this->memory_, q));
}

}  // namespace
}  // namespace devplan
