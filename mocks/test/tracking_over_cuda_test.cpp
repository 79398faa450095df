// TrackingDeviceAllocator over real device memory: the same ledger, faults, capacities and
// misuse checks over CudaAllocator, shown against the CUDA runtime seam's fake. The fake logs
// every CUDA call, so each test states exactly which calls reached the "driver".
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/allocation_owner.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/test/fake_cuda_runtime.h>

namespace devplan {
namespace {

using testing::FakeCudaRuntime;
using ::testing::HasSubstr;

// The fake's log without the device selection around each call: what reached memory.
std::vector<std::string> memory_calls(const FakeCudaRuntime& fake) {
  std::vector<std::string> kept;
  for (const std::string& call : fake.calls()) {
    if (call.rfind("malloc", 0) == 0 || call.rfind("free", 0) == 0 ||
        call.rfind("memcpy", 0) == 0) {
      kept.push_back(call);
    }
  }
  return kept;
}

class TrackingOverCuda : public ::testing::Test {
 protected:
  FakeCudaRuntime fake{/*device_count=*/2};
  CudaAllocator cuda{fake};
  TrackingDeviceAllocator tracking{&cuda};

  void SetUp() override {
    tracking.set_fill_patterns(false);  // each test that wants the patterns turns them on
    tracking.set_quarantine_limits(0, 0);
  }
};

TEST_F(TrackingOverCuda, LedgerNumbersCallsAndMemoryComesFromTheDevice) {
  Result<void*> a = tracking.allocate(48, 0);
  Result<void*> b = tracking.allocate(100, 1, 256);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(fake.device_of(*a), 0);
  EXPECT_EQ(fake.device_of(*b), 1);
  EXPECT_EQ(tracking.backing(), DeviceBacking::Device);
  EXPECT_EQ(tracking.upstream(), &cuda);
  tracking.deallocate(*a, 0);
  EXPECT_EQ(tracking.leak_report_lines(),
            (std::vector<std::string>{"#2 cuda:1 100 B align 256 owner -"}));
  EXPECT_EQ(memory_calls(fake),
            (std::vector<std::string>{"malloc(48) on cuda:0", "malloc(100) on cuda:1",
                                      "free on cuda:0"}));
  const std::vector<AllocationRecord> ledger = tracking.ledger();
  ASSERT_EQ(ledger.size(), 2u);
  EXPECT_EQ(ledger[0].seq, 1u);
  EXPECT_FALSE(ledger[0].live);
  EXPECT_EQ(ledger[1].device, Device::cuda(1));
  EXPECT_TRUE(ledger[1].live);
  EXPECT_EQ(tracking.stats(1).current_bytes, 100u);
  tracking.deallocate(*b, 1);
  EXPECT_EQ(fake.live_allocations(), 0u);
}

TEST_F(TrackingOverCuda, NewAndFreedBlocksHoldThePatternsOnTheDevice) {
  tracking.set_fill_patterns(true);
  tracking.set_quarantine_limits(1 << 20, 16);
  Result<void*> p = tracking.allocate(16, 0);
  ASSERT_TRUE(p.ok());
  uint8_t bytes[16] = {};
  ASSERT_TRUE(tracking.copy_device_to_host(bytes, *p, 16, 0).ok());
  for (uint8_t byte : bytes) EXPECT_EQ(byte, TrackingDeviceAllocator::kFreshPattern);
  tracking.deallocate(*p, 0);
  EXPECT_TRUE(tracking.is_quarantined(*p));
  EXPECT_EQ(fake.live_allocations(), 1u);  // held back from cudaFree by the quarantine
  ASSERT_TRUE(tracking.peek(*p, 16, bytes).ok());
  for (uint8_t byte : bytes) EXPECT_EQ(byte, TrackingDeviceAllocator::kFreedPattern);
  tracking.set_quarantine_limits(0, 0);
  EXPECT_EQ(fake.live_allocations(), 0u);
}

TEST_F(TrackingOverCuda, AnInjectedFaultFailsTheCallBeforeCudaMallocIsCalled) {
  tracking.fail_allocation_at(2);
  ASSERT_TRUE(tracking.allocate(8, 0).ok());
  Result<void*> failed = tracking.allocate(8, 0);
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(failed.error().code(), ErrorCode::MemoryAllocationFailed);
  ASSERT_TRUE(tracking.allocate(8, 0).ok());
  EXPECT_EQ(memory_calls(fake),
            (std::vector<std::string>{"malloc(8) on cuda:0", "malloc(8) on cuda:0"}));
  ASSERT_EQ(tracking.failed_allocations().size(), 1u);
  EXPECT_EQ(tracking.failed_allocations()[0].seq, 2u);
  EXPECT_EQ(tracking.ledger()[1].seq, 3u);
}

TEST_F(TrackingOverCuda, ACapacityRefusesWhatTheDeviceCouldHold) {
  ASSERT_TRUE(tracking.set_capacity(0, 64).ok());
  ASSERT_TRUE(tracking.allocate(64, 0).ok());
  Result<void*> over = tracking.allocate(1, 0);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error().code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(memory_calls(fake), std::vector<std::string>{"malloc(64) on cuda:0"});
}

TEST_F(TrackingOverCuda, TheDevicesOwnOutOfMemoryIsAFailedAllocationWithCudasWords) {
  fake.malloc_status = kCudaErrorMemoryAllocation;
  ScopedAllocationOwner owner("forward/buffer 1");
  Result<void*> p = tracking.allocate(48, 0);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_THAT(p.error().message(),
              HasSubstr("TrackingDeviceAllocator::allocate: 48 bytes on cuda:0: "
                        "CudaAllocator::allocate: cudaMalloc of 48 bytes on cuda:0 failed: "
                        "out of memory (CUDA error 2)"));
  ASSERT_EQ(tracking.failed_allocations().size(), 1u);
  EXPECT_EQ(tracking.failed_allocations()[0].device, Device::cuda(0));
  EXPECT_TRUE(tracking.ledger().empty());
}

TEST_F(TrackingOverCuda, AnAbsentDeviceIsRefusedAsCudaSaysIt) {
  Result<void*> p = tracking.allocate(48, 5);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.error().code(), ErrorCode::InvalidArgument);
  EXPECT_THAT(p.error().message(), HasSubstr("invalid device cuda:5: 2 CUDA devices are visible"));
  EXPECT_TRUE(memory_calls(fake).empty());
}

TEST_F(TrackingOverCuda, ADoubleFreeNeverReachesCudaFree) {
  Result<void*> p = tracking.allocate(48, 0);
  ASSERT_TRUE(p.ok());
  tracking.deallocate(*p, 0);
  tracking.deallocate(*p, 0);
  EXPECT_EQ(tracking.misuse_report_lines(),
            std::vector<std::string>{"double free of #1 cuda:0 48 B owner -"});
  EXPECT_EQ(memory_calls(fake),
            (std::vector<std::string>{"malloc(48) on cuda:0", "free on cuda:0"}));
}

TEST_F(TrackingOverCuda, AFreeOnTheWrongDeviceIsMisuseAndFreesTheBlockOnItsOwn) {
  Result<void*> p = tracking.allocate(48, 0);
  ASSERT_TRUE(p.ok());
  tracking.deallocate(*p, 1);
  EXPECT_EQ(tracking.misuse_report_lines(),
            std::vector<std::string>{"free on cuda:1 of #1 cuda:0 48 B owner -"});
  EXPECT_EQ(memory_calls(fake),
            (std::vector<std::string>{"malloc(48) on cuda:0", "free on cuda:0"}));
  EXPECT_EQ(fake.live_allocations(), 0u);
}

TEST_F(TrackingOverCuda, AHostPointerPassedAsDeviceMemoryIsRefusedBeforeCudaMemcpy) {
  uint8_t host[16] = {};
  const uint8_t src[16] = {1};
  Error e = tracking.copy_host_to_device(host, src, 16, 0);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  ASSERT_EQ(tracking.misuse().size(), 1u);
  EXPECT_EQ(tracking.misuse()[0].kind, MisuseKind::CopyUnknownPointer);
  EXPECT_TRUE(memory_calls(fake).empty());
}

TEST_F(TrackingOverCuda, DeviceMemoryPassedAsTheHostSideIsRefusedBeforeCudaMemcpy) {
  Result<void*> p = tracking.allocate(48, 0);
  Result<void*> q = tracking.allocate(48, 0);
  ASSERT_TRUE(p.ok() && q.ok());
  Error e = tracking.copy_host_to_device(*p, *q, 16, 0);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  ASSERT_EQ(tracking.misuse().size(), 1u);
  EXPECT_EQ(tracking.misuse()[0].kind, MisuseKind::HostPointerInDeviceMemory);
  EXPECT_EQ(memory_calls(fake),
            (std::vector<std::string>{"malloc(48) on cuda:0", "malloc(48) on cuda:0"}));
}

TEST_F(TrackingOverCuda, ACopyPastABlocksEndIsRefusedBeforeCudaMemcpy) {
  Result<void*> p = tracking.allocate(48, 0);
  ASSERT_TRUE(p.ok());
  std::vector<uint8_t> src(64, 7);
  Error e = tracking.copy_host_to_device(*p, src.data(), 64, 0);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(tracking.misuse_report_lines(),
            std::vector<std::string>{"copy_host_to_device of 64 B at offset 0 past the end of "
                                     "#1 cuda:0 48 B owner -"});
  EXPECT_EQ(memory_calls(fake), std::vector<std::string>{"malloc(48) on cuda:0"});
  ASSERT_TRUE(tracking.copy_host_to_device(*p, src.data(), 48, 0).ok());
  EXPECT_EQ(memory_calls(fake).back(), "memcpy host to device 48 bytes on cuda:0");
}

TEST_F(TrackingOverCuda, AZeroByteBlockHasAnAddressOfItsOwn) {
  Result<void*> a = tracking.allocate(0, 0);
  Result<void*> b = tracking.allocate(0, 0);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, nullptr);
  EXPECT_NE(*a, *b);
  EXPECT_EQ(tracking.ledger()[0].size, 0u);
  EXPECT_EQ(tracking.stats(0).current_bytes, 0u);
}

TEST(TrackingOverCudaLifetime, TheDestructorReturnsEveryBlockToTheDevice) {
  FakeCudaRuntime fake(1);
  CudaAllocator cuda(fake);
  {
    TrackingDeviceAllocator tracking(&cuda);
    ASSERT_TRUE(tracking.allocate(32, 0).ok());  // live: a leak
    Result<void*> freed = tracking.allocate(32, 0);
    ASSERT_TRUE(freed.ok());
    tracking.deallocate(*freed, 0);  // quarantined
    EXPECT_EQ(fake.live_allocations(), 2u);
  }
  EXPECT_EQ(fake.live_allocations(), 0u);
}

TEST(TrackingOverCudaLifetime, SetBackingCannotTurnADeviceIntoHostMemory) {
  FakeCudaRuntime fake(1);
  CudaAllocator cuda(fake);
  TrackingDeviceAllocator tracking(&cuda);
  tracking.set_backing(DeviceBacking::Unbacked);
  EXPECT_EQ(tracking.backing(), DeviceBacking::Device);
  Result<void*> p = tracking.allocate(8, 0);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(fake.device_of(*p), 0);
  tracking.deallocate(*p, 0);
}

}  // namespace
}  // namespace devplan
