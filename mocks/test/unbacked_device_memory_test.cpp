// Unbacked simulated device memory: ReservedAddressSpace alone, and TrackingDeviceAllocator with
// DeviceBacking::Unbacked (every ledger check still applies; copies back just their pages).
#include <mocks/host_access_fault_report.h>
#include <mocks/reserved_address_space.h>
#include <mocks/tracking_device_allocator.h>

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <fstream>
#include <vector>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan {
namespace {

constexpr size_t kGiB = size_t{1} << 30;

// Resident pages of this process, in bytes (/proc/self/statm's second field).
size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  size_t total = 0, resident = 0;
  statm >> total >> resident;
  return resident * static_cast<size_t>(::sysconf(_SC_PAGESIZE));
}

std::vector<uint8_t> peek(const TrackingDeviceAllocator& a, const void* ptr, size_t n) {
  std::vector<uint8_t> out(n, 0);
  Error e = a.peek(ptr, n, out.data());
  EXPECT_TRUE(e.ok()) << e;
  return out;
}

const uint8_t* at(const void* p, size_t offset) { return static_cast<const uint8_t*>(p) + offset; }

TEST(ReservedAddressSpaceTest, ReservesAlignedRangesAndBacksOnlyTheTouchedPages) {
  ReservedAddressSpace space;
  const size_t page = ReservedAddressSpace::page_size();
  Result<void*> block = space.reserve(16 * kGiB, 65536);
  ASSERT_TRUE(block.ok()) << block.error();
  EXPECT_TRUE(is_aligned(*block, 65536));
  EXPECT_EQ(space.backed_bytes(), 0u);

  // 48 bytes across a page boundary back the two pages under them, filled.
  const uint8_t* first = at(*block, 3 * page - 16);
  ASSERT_TRUE(space.back(first, 48, 0xCD).ok());
  EXPECT_EQ(space.backed_bytes(), 2 * page);
  EXPECT_EQ(first[0], 0xCD);
  EXPECT_EQ(first[47], 0xCD);
  // Backing again, overlapping, adds only the new page; the old bytes stay.
  const_cast<uint8_t*>(first)[0] = 7;
  ASSERT_TRUE(space.back(at(*block, 3 * page), 2 * page, 0xAA).ok());
  EXPECT_EQ(space.backed_bytes(), 3 * page);
  EXPECT_EQ(first[0], 7);
  EXPECT_EQ(*at(*block, 4 * page), 0xAA);
  EXPECT_EQ(*at(*block, 3 * page), 0xCD);

  // Reads over unbacked pages give the fill; over backed ones, the bytes.
  std::vector<uint8_t> out(3);
  space.read(at(*block, page - 1), 2, 0x11, out.data());
  EXPECT_EQ(out, (std::vector<uint8_t>{0x11, 0x11, 0}));
  space.read(first - 1, 3, 0x11, out.data());
  EXPECT_EQ(out, (std::vector<uint8_t>{0xCD, 7, 0xCD}));
  space.read(at(*block, 5 * page - 1), 2, 0x11, out.data());
  EXPECT_EQ(out, (std::vector<uint8_t>{0xAA, 0x11, 0xCD}));

  space.drop(*block, 16 * kGiB);
  EXPECT_EQ(space.backed_bytes(), 0u);
  space.unreserve(*block, 16 * kGiB);
}

TEST(ReservedAddressSpaceTest, ZeroBytesReserveOnePageAndHugeRequestsFail) {
  ReservedAddressSpace space;
  Result<void*> a = space.reserve(0, 16);
  Result<void*> b = space.reserve(0, 16);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
  space.unreserve(*a, 0);
  space.unreserve(*b, 0);
  Result<void*> huge = space.reserve(SIZE_MAX - 5, 16);
  EXPECT_EQ(huge.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(huge.error().message(),
            "cannot reserve " + std::to_string(SIZE_MAX - 5) + " bytes of address space");
}

TEST(UnbackedTrackingAllocatorTest, SixtyFourGibibytesOnFourDevicesTakeNoHostMemory) {
  TrackingDeviceAllocator cuda;
  cuda.set_backing(DeviceBacking::Unbacked);
  cuda.set_max_allocation_bytes(uint64_t{1} << 40);
  EXPECT_EQ(cuda.backing(), DeviceBacking::Unbacked);
  const size_t before = resident_bytes();
  std::vector<void*> blocks;
  for (DeviceIndex d = 0; d < 4; ++d) {
    ScopedAllocationOwner owner("forward/buffer " + std::to_string(d + 1));
    Result<void*> p = cuda.allocate(16 * kGiB, d, 256);
    ASSERT_TRUE(p.ok()) << p.error();
    blocks.push_back(*p);
  }
  // Far below the 64 GiB requested (a few page-table pages and the ledger).
  EXPECT_LT(resident_bytes() - before, size_t{16} << 20);
  ASSERT_EQ(cuda.live_count(), 4u);
  EXPECT_EQ(cuda.leak_report_lines()[3],
            "#4 cuda:3 17179869184 B (16.0 GiB) align 256 owner forward/buffer 4");
  EXPECT_EQ(cuda.stats(2).current_bytes, 16 * kGiB);
  for (DeviceIndex d = 0; d < 4; ++d) cuda.deallocate(blocks[d], d);
  EXPECT_FALSE(cuda.has_leaks());
  EXPECT_FALSE(cuda.has_misuse()) << cuda.misuse_report();
  // Freed unbacked blocks hold no host bytes, so all four stay in the 64 MiB quarantine.
  EXPECT_TRUE(cuda.is_quarantined(blocks[0]));
  EXPECT_TRUE(cuda.is_quarantined(blocks[3]));
}

TEST(UnbackedTrackingAllocatorTest, EveryLedgerCheckStillApplies) {
  TrackingDeviceAllocator cuda;
  cuda.set_backing(DeviceBacking::Unbacked);
  cuda.set_max_allocation_bytes(uint64_t{1} << 40);
  ASSERT_TRUE(cuda.set_capacity(0, 20 * kGiB).ok());
  Result<void*> a = cuda.allocate(16 * kGiB, 0);
  ASSERT_TRUE(a.ok()) << a.error();
  Result<void*> over = cuda.allocate(8 * kGiB, 0);
  EXPECT_EQ(over.code(), ErrorCode::MemoryAllocationFailed);
  ASSERT_EQ(cuda.failed_allocations().size(), 1u);
  EXPECT_EQ(cuda.failed_allocations()[0].seq, 2u);

  cuda.deallocate(*a, 1);  // wrong index: misuse, still freed
  cuda.deallocate(*a, 0);  // double free
  ASSERT_EQ(cuda.misuse().size(), 2u);
  EXPECT_EQ(cuda.misuse()[0].kind, MisuseKind::WrongDeviceFree);
  EXPECT_EQ(cuda.misuse()[1].kind, MisuseKind::DoubleFree);

  // A copy into the freed block is refused and recorded; nothing is backed.
  const uint8_t src[4] = {1, 2, 3, 4};
  Error stale = cuda.copy_host_to_device(*a, src, 4, 0);
  EXPECT_EQ(stale.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(cuda.misuse().size(), 3u);
  EXPECT_EQ(cuda.unbacked_backed_bytes(), 0u);
  EXPECT_EQ(peek(cuda, *a, 4), std::vector<uint8_t>(4, TrackingDeviceAllocator::kFreedPattern));
}

TEST(UnbackedTrackingAllocatorTest, CopiesBackJustTheirPagesAndReadBackLikeHostMemory) {
  TrackingDeviceAllocator cuda;
  cuda.set_backing(DeviceBacking::Unbacked);
  const size_t page = ReservedAddressSpace::page_size();
  Result<void*> block = cuda.allocate(64 * page, 1);
  ASSERT_TRUE(block.ok()) << block.error();
  const std::vector<uint8_t> values = {9, 8, 7, 6, 5};
  void* dst = const_cast<uint8_t*>(at(*block, 10 * page + 3));
  ASSERT_TRUE(cuda.copy_host_to_device(dst, values.data(), values.size(), 1).ok());
  EXPECT_EQ(cuda.unbacked_backed_bytes(), page);

  std::vector<uint8_t> back(values.size());
  ASSERT_TRUE(cuda.copy_device_to_host(back.data(), dst, back.size(), 1).ok());
  EXPECT_EQ(back, values);
  // Bytes never written read as the fresh pattern, backed or not.
  EXPECT_EQ(peek(cuda, at(*block, 10 * page), 3), std::vector<uint8_t>(3, 0xCD));
  EXPECT_EQ(peek(cuda, at(*block, 40 * page), 2), std::vector<uint8_t>(2, 0xCD));
  std::vector<uint8_t> fresh(16);
  ASSERT_TRUE(cuda.copy_device_to_host(fresh.data(), at(*block, 50 * page), 16, 1).ok());
  EXPECT_EQ(fresh, std::vector<uint8_t>(16, 0xCD));
  EXPECT_EQ(cuda.unbacked_backed_bytes(), 2 * page);

  cuda.deallocate(*block, 1);
  EXPECT_EQ(cuda.unbacked_backed_bytes(), 0u);
  EXPECT_EQ(peek(cuda, dst, 5), std::vector<uint8_t>(5, 0xDD));
  EXPECT_TRUE(cuda.reset().ok());
}

TEST(UnbackedTrackingAllocatorTest, BackingIsChosenPerBlockAtAllocation) {
  TrackingDeviceAllocator cuda;
  Result<void*> host = cuda.allocate(32, 0);
  cuda.set_backing(DeviceBacking::Unbacked);
  Result<void*> unbacked = cuda.allocate(32, 0);
  ASSERT_TRUE(host.ok() && unbacked.ok());
  const uint8_t src[2] = {1, 2};
  ASSERT_TRUE(cuda.copy_host_to_device(*host, src, 2, 0).ok());
  EXPECT_EQ(cuda.unbacked_backed_bytes(), 0u);  // the host block needed no backing
  EXPECT_EQ(static_cast<const uint8_t*>(*host)[1], 2);
  ASSERT_TRUE(cuda.copy_host_to_device(*unbacked, src, 2, 0).ok());
  EXPECT_EQ(cuda.unbacked_backed_bytes(), ReservedAddressSpace::page_size());
  cuda.set_backing(DeviceBacking::Host);
  cuda.deallocate(*unbacked, 0);
  cuda.deallocate(*host, 0);
  EXPECT_FALSE(cuda.has_misuse()) << cuda.misuse_report();
  EXPECT_EQ(std::string(device_backing_name(DeviceBacking::Unbacked)), "unbacked");
  EXPECT_EQ(std::string(device_backing_name(DeviceBacking::Host)), "host");
}

TEST(UnbackedTrackingAllocatorDeathTest, AHostReadOfAnUnbackedBlockFaults) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TrackingDeviceAllocator cuda;
  cuda.set_backing(DeviceBacking::Unbacked);
  Result<void*> block = cuda.allocate(4096, 0);
  ASSERT_TRUE(block.ok());
  volatile const uint8_t* byte = static_cast<const uint8_t*>(*block);
  EXPECT_DEATH((void)*byte, "");
  cuda.deallocate(*block, 0);
}

TEST(UnbackedTrackingAllocatorDeathTest, AFaultReportNamesTheBlockAndTheOffset) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  TrackingDeviceAllocator cuda;
  cuda.set_backing(DeviceBacking::Unbacked);
  Result<void*> other = cuda.allocate(64, 0);
  Result<void*> block = [&] {
    ScopedAllocationOwner owner("forward/buffer 2");
    return cuda.allocate(8192, 1, 256);
  }();
  ASSERT_TRUE(other.ok() && block.ok());
  uint8_t* byte = static_cast<uint8_t*>(*block) + 4100;
  EXPECT_DEATH(
      {
        ScopedHostAccessFaultReport report(&cuda);
        *static_cast<volatile uint8_t*>(byte) = 1;
      },
      "devplan: host access to unbacked device memory at 0x[0-9a-f]+: byte 4100 of #2 cuda:1 "
      "8192 B \\(8.0 KiB\\) align 256 owner forward/buffer 2; device memory is reachable only "
      "through the allocator's copies \\(--backing host lets host accesses through\\)");
  EXPECT_EQ(cuda.describe_unbacked_address(static_cast<uint8_t*>(*block) + 8191).substr(0, 2),
            "0x");
  const int on_the_stack = 0;
  EXPECT_EQ(cuda.describe_unbacked_address(&on_the_stack), "");
  cuda.deallocate(*block, 1);
  EXPECT_NE(cuda.describe_unbacked_address(byte).find("byte 4100 of #2 cuda:1 8192 B (8.0 KiB) "
                                                      "align 256 owner forward/buffer 2 (freed)"),
            std::string::npos);
  cuda.deallocate(*other, 0);
}

TEST(UnbackedTrackingAllocatorTest, HostBackedBlocksAreNotDescribedAsUnbacked) {
  TrackingDeviceAllocator cuda;
  Result<void*> host = cuda.allocate(64, 0);
  ASSERT_TRUE(host.ok());
  EXPECT_EQ(cuda.describe_unbacked_address(*host), "");
  {
    // A report for a host-backed allocator is harmless: nothing faults.
    ScopedHostAccessFaultReport report(&cuda);
    static_cast<uint8_t*>(*host)[0] = 1;
  }
  cuda.deallocate(*host, 0);
}

}  // namespace
}  // namespace devplan
