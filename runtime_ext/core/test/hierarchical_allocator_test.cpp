#include <runtime_ext/core/hierarchical_allocator.h>
#include <runtime_ext/core/memory_manager.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace devplan {
namespace {

class HierarchicalAllocatorTest : public ::testing::Test {
 protected:
  std::vector<uint8_t> host_ = std::vector<uint8_t>(32);
  std::vector<uint8_t> device_ = std::vector<uint8_t>(48);  // stands in for device memory
  HierarchicalAllocator make() {
    auto r = HierarchicalAllocator::create({Span<uint8_t>(host_), Span<uint8_t>(device_)},
                                           {Device::cpu(), Device::cuda(0)});
    EXPECT_TRUE(r.ok()) << r.error();
    return std::move(r).value();
  }
};

TEST_F(HierarchicalAllocatorTest, ReportsBuffersAndDevices) {
  HierarchicalAllocator a = make();
  ASSERT_EQ(a.num_buffers(), 2u);
  EXPECT_EQ(a.device(0), Device::cpu());
  EXPECT_EQ(a.device(1), Device::cuda(0));
  EXPECT_EQ(a.buffer(1).size(), 48u);
}

TEST_F(HierarchicalAllocatorTest, OffsetAddressIsBasePlusOffset) {
  HierarchicalAllocator a = make();
  EXPECT_EQ(*a.get_offset_address(0, 0, 16), host_.data());
  EXPECT_EQ(*a.get_offset_address(0, 16, 16), host_.data() + 16);
  EXPECT_EQ(*a.get_offset_address(1, 32, 16), device_.data() + 32);
  EXPECT_EQ(*a.get_offset_address(1, 48, 0), device_.data() + 48);
}

TEST_F(HierarchicalAllocatorTest, RangeErrors) {
  HierarchicalAllocator a = make();
  Result<void*> past = a.get_offset_address(1, 40, 16);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(past.error().message(),
            "bytes [40, 40+16) do not fit in planned buffer 1 of 48 bytes on cuda:0");
  EXPECT_EQ(a.get_offset_address(0, 33, 0).code(), ErrorCode::InvalidArgument);
  Result<void*> missing = a.get_offset_address(2, 0, 1);
  EXPECT_EQ(missing.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(missing.error().message(), "planned buffer 2 does not exist (2 buffers)");
}

TEST_F(HierarchicalAllocatorTest, RangeEndingAtTheBufferEndFitsOneByteMoreDoesNot) {
  HierarchicalAllocator a = make();
  EXPECT_EQ(*a.get_offset_address(1, 32, 16), device_.data() + 32);
  EXPECT_EQ(*a.get_offset_address(1, 0, 48), device_.data());
  Result<void*> past_end = a.get_offset_address(1, 32, 17);
  ASSERT_FALSE(past_end.ok());
  EXPECT_EQ(past_end.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(past_end.error().message(),
            "bytes [32, 32+17) do not fit in planned buffer 1 of 48 bytes on cuda:0");
  Result<void*> too_long = a.get_offset_address(1, 0, 49);
  ASSERT_FALSE(too_long.ok());
  EXPECT_EQ(too_long.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(too_long.error().message(),
            "bytes [0, 0+49) do not fit in planned buffer 1 of 48 bytes on cuda:0");
}

TEST_F(HierarchicalAllocatorTest, OverflowIsAnErrorNotAWrap) {
  HierarchicalAllocator a = make();
  EXPECT_EQ(a.get_offset_address(0, UINT64_MAX, 2).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(a.get_offset_address(0, 16, UINT64_MAX - 8).code(), ErrorCode::InvalidArgument);
}

TEST(HierarchicalAllocatorCreateTest, LengthMismatchIsAnError) {
  std::vector<uint8_t> host(8);
  auto r = HierarchicalAllocator::create({Span<uint8_t>(host)}, {Device::cpu(), Device::cuda(0)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(r.error().message(), "planned memory has 1 buffers but 2 devices");
}

TEST(HierarchicalAllocatorCreateTest, NullNonEmptySpanIsAnError) {
  auto r = HierarchicalAllocator::create({Span<uint8_t>(nullptr, 4)}, {Device::cuda(0)});
  EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(r.error().message(), "planned buffer 0 has 4 bytes but no memory");
}

TEST(HierarchicalAllocatorCreateTest, NullNonEmptySpanAfterAGoodOneNamesItsIndex) {
  std::vector<uint8_t> host(8);
  auto r = HierarchicalAllocator::create({Span<uint8_t>(host), Span<uint8_t>(nullptr, 4)},
                                         {Device::cpu(), Device::cuda(1)});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(r.error().message(), "planned buffer 1 has 4 bytes but no memory");
}

TEST(HierarchicalAllocatorCreateTest, MoreBuffersThanDevicesIsAnError) {
  std::vector<uint8_t> host(8), dev(8);
  auto r =
      HierarchicalAllocator::create({Span<uint8_t>(host), Span<uint8_t>(dev)}, {Device::cpu()});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(r.error().message(), "planned memory has 2 buffers but 1 devices");
}

TEST(HierarchicalAllocatorCreateTest, EmptySpansAreAllowed) {
  auto r = HierarchicalAllocator::create({Span<uint8_t>()}, {Device::cuda(0)});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r->get_offset_address(0, 0, 0), nullptr);
  EXPECT_EQ(r->get_offset_address(0, 0, 1).code(), ErrorCode::InvalidArgument);
}

TEST(MemoryAllocatorTest, BumpsWithAlignmentAndFailsWhenFull) {
  alignas(64) uint8_t arena[64];
  MemoryAllocator m(Span<uint8_t>(arena, sizeof(arena)));
  Result<void*> a = m.allocate(3, 1);
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(*a, arena);
  Result<void*> b = m.allocate(16, 16);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(*b, arena + 16);
  EXPECT_EQ(m.used(), 32u);
  Result<void*> full = m.allocate(40, 1);
  EXPECT_EQ(full.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(full.error().message(), "arena of 64 bytes has no room for 40 more (32 used)");
  EXPECT_EQ(m.allocate(8, 3).code(), ErrorCode::InvalidArgument);
  m.reset();
  EXPECT_EQ(*m.allocate(64, 1), arena);
}

TEST(MemoryAllocatorTest, AlignedAllocationEndingAtTheArenaEndFitsThenNothingMore) {
  alignas(64) uint8_t arena[64];
  MemoryAllocator m(Span<uint8_t>(arena, sizeof(arena)));
  ASSERT_TRUE(m.allocate(1, 1).ok());
  Result<void*> last = m.allocate(48, 16);  // starts at 16, ends at exactly 64
  ASSERT_TRUE(last.ok()) << last.error();
  EXPECT_EQ(*last, arena + 16);
  EXPECT_EQ(m.used(), 64u);
  Result<void*> full = m.allocate(1, 1);
  ASSERT_FALSE(full.ok());
  EXPECT_EQ(full.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(full.error().message(), "arena of 64 bytes has no room for 1 more (64 used)");
}

TEST(MemoryAllocatorTest, AlignmentPaddingCountsAgainstTheArena) {
  alignas(64) uint8_t arena[64];
  MemoryAllocator m(Span<uint8_t>(arena, sizeof(arena)));
  ASSERT_TRUE(m.allocate(1, 1).ok());
  // 49 bytes would fit after the first byte (63 left), not after aligning to 16 (48 left).
  Result<void*> over = m.allocate(49, 16);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(over.error().message(), "arena of 64 bytes has no room for 49 more (1 used)");
  EXPECT_EQ(m.used(), 1u);
}

TEST(MemoryManagerTest, ExposesPerBufferDevices) {
  std::vector<uint8_t> host(8), dev(8);
  auto planned = HierarchicalAllocator::create({Span<uint8_t>(host), Span<uint8_t>(dev)},
                                               {Device::cpu(), Device::cuda(1)});
  ASSERT_TRUE(planned.ok());
  MemoryManager mm(nullptr, &*planned);
  EXPECT_EQ(mm.num_planned_buffers(), 2u);
  EXPECT_EQ(mm.planned_buffer_device(0), Device::cpu());
  EXPECT_EQ(mm.planned_buffer_device(1), Device::cuda(1));
  EXPECT_EQ(mm.planned_buffer_device(7), Device::cpu());
  EXPECT_EQ(MemoryManager().num_planned_buffers(), 0u);
}

}  // namespace
}  // namespace devplan
