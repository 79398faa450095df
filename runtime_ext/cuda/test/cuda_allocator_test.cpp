#include <gtest/gtest.h>
#include <runtime_ext/core/device_allocator_registry.h>
#include <runtime_ext/core/device_memory_buffer.h>
#include <runtime_ext/cuda/cuda_allocator.h>

#include <cstdint>
#include <cstring>
#include <thread>
#include <vector>

#include "fake_cuda_runtime.h"

namespace devplan {
namespace {

using testing::FakeCudaRuntime;
using Calls = std::vector<std::string>;

class CudaAllocatorTest : public ::testing::Test {
 protected:
  FakeCudaRuntime fake_{4};
  CudaAllocator allocator_{fake_};
};

// ---- placement and device selection ----

TEST_F(CudaAllocatorTest, IsTheAllocatorForCuda) {
  EXPECT_EQ(allocator_.device_type(), DeviceType::CUDA);
  EXPECT_EQ(&allocator_.runtime(), &fake_);
}

TEST_F(CudaAllocatorTest, AllocatesOnTheRequestedDeviceAndRestoresTheCallersDevice) {
  Result<void*> p = allocator_.allocate(64, 2);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(fake_.device_of(*p), 2);
  EXPECT_EQ(fake_.size_of(*p), 64u);
  EXPECT_EQ(fake_.current_device(), 0);
  EXPECT_EQ(fake_.calls(), (Calls{"get_device_count", "get_device", "set_device(2)",
                                  "malloc(64) on cuda:2", "set_device(0)"}));
  allocator_.deallocate(*p, 2);
  EXPECT_EQ(fake_.live_allocations(), 0u);
}

TEST_F(CudaAllocatorTest, AllocatingOnTheCurrentDeviceMakesNoSetDeviceCall) {
  fake_.set_current_device(1);
  Result<void*> p = allocator_.allocate(64, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(fake_.device_of(*p), 1);
  EXPECT_EQ(fake_.calls(), (Calls{"get_device_count", "get_device", "malloc(64) on cuda:1"}));
  allocator_.deallocate(*p, 1);
}

TEST_F(CudaAllocatorTest, PlacesEachAllocationOnItsDeviceOfFour) {
  fake_.set_current_device(3);
  std::vector<void*> pointers;
  for (DeviceIndex d = 0; d < 4; ++d) {
    Result<void*> p = allocator_.allocate(100 + d, d);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(fake_.device_of(*p), d);
    EXPECT_EQ(fake_.current_device(), 3) << "after allocating on cuda:" << int(d);
    pointers.push_back(*p);
  }
  for (int d = 0; d < 4; ++d) EXPECT_EQ(fake_.live_bytes(d), size_t(100 + d));
  fake_.clear_calls();
  for (DeviceIndex d = 0; d < 4; ++d) allocator_.deallocate(pointers[d], d);
  EXPECT_EQ(
      fake_.calls(),
      (Calls{"get_device_count", "get_device", "set_device(0)", "free on cuda:0", "set_device(3)",
             "get_device_count", "get_device", "set_device(1)", "free on cuda:1", "set_device(3)",
             "get_device_count", "get_device", "set_device(2)", "free on cuda:2", "set_device(3)",
             "get_device_count", "get_device", "free on cuda:3"}));
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(fake_.current_device(), 3);
  EXPECT_EQ(allocator_.deallocation_errors(), 0u);
  EXPECT_TRUE(allocator_.last_deallocation_error().ok());
}

TEST_F(CudaAllocatorTest, NegativeIndexIsInvalidArgumentAndCallsNothing) {
  Result<void*> p = allocator_.allocate(64, -1);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(
      p.error().message(),
      "CudaAllocator::allocate: invalid device cuda:-1: a CUDA device index is never negative");
  EXPECT_TRUE(fake_.calls().empty());
}

TEST_F(CudaAllocatorTest, IndexPastTheDeviceCountIsInvalidArgumentAndAllocatesNothing) {
  fake_.set_current_device(1);
  for (DeviceIndex index : {DeviceIndex{4}, DeviceIndex{5}, kMaxDeviceIndex}) {
    fake_.clear_calls();
    Result<void*> p = allocator_.allocate(64, index);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(p.error().message(),
              "CudaAllocator::allocate: invalid device cuda:" + std::to_string(index) +
                  ": 4 CUDA devices are visible (cuda:0 to cuda:3)");
    EXPECT_EQ(fake_.calls(), (Calls{"get_device_count"}));
  }
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(fake_.current_device(), 1);
}

TEST_F(CudaAllocatorTest, FailingSetDeviceIsAnErrorNeverAnAllocationElsewhere) {
  fake_.set_device_status[2] = kCudaErrorInvalidDevice;
  Result<void*> p = allocator_.allocate(64, 2);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(p.error().message(),
            "CudaAllocator::allocate: cudaSetDevice for cuda:2 failed: invalid device ordinal "
            "(CUDA error 101)");
  EXPECT_EQ(fake_.calls(),
            (Calls{"get_device_count", "get_device", "set_device(2)", "get_error_string(101)"}));
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(fake_.current_device(), 0);
}

TEST_F(CudaAllocatorTest, FailingSetDeviceWithAnotherStatusIsInternal) {
  fake_.set_device_status[1] = kCudaErrorUnknown;
  Result<void*> p = allocator_.allocate(64, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::Internal);
  EXPECT_EQ(
      p.error().message(),
      "CudaAllocator::allocate: cudaSetDevice for cuda:1 failed: unknown error (CUDA error 999)");
  EXPECT_EQ(fake_.live_allocations(), 0u);
}

TEST_F(CudaAllocatorTest, FailingDeviceQueriesAreMapped) {
  fake_.get_device_count_status = kCudaErrorNoDevice;
  Result<void*> p = allocator_.allocate(64, 0);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(p.error().message(),
            "CudaAllocator::allocate: cudaGetDeviceCount for cuda:0 failed: no CUDA-capable "
            "device is detected (CUDA error 100)");

  fake_.get_device_count_status = kCudaSuccess;
  fake_.get_device_status = kCudaErrorInitializationError;
  Result<void*> q = allocator_.allocate(64, 3);
  ASSERT_FALSE(q.ok());
  EXPECT_EQ(q.code(), ErrorCode::Internal);
  EXPECT_EQ(q.error().message(),
            "CudaAllocator::allocate: cudaGetDevice while selecting cuda:3 failed: "
            "initialization error (CUDA error 3)");
  EXPECT_EQ(fake_.live_allocations(), 0u);
}

// ---- allocation failures ----

TEST_F(CudaAllocatorTest, FailingMallocIsMemoryAllocationFailedWithTheCudaText) {
  fake_.malloc_status = kCudaErrorMemoryAllocation;
  Result<void*> p = allocator_.allocate(1024, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(p.error().message(),
            "CudaAllocator::allocate: cudaMalloc of 1024 bytes on cuda:1 failed: out of memory "
            "(CUDA error 2)");
  EXPECT_EQ(fake_.calls(),
            (Calls{"get_device_count", "get_device", "set_device(1)", "malloc(1024) on cuda:1",
                   "get_error_string(2)", "set_device(0)"}));
  EXPECT_EQ(fake_.current_device(), 0);
}

TEST_F(CudaAllocatorTest, ExhaustingTheDeviceIsMemoryAllocationFailed) {
  const size_t too_much = FakeCudaRuntime::kDefaultCapacity + 1;
  Result<void*> p = allocator_.allocate(too_much, 3);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(p.error().message(), "CudaAllocator::allocate: cudaMalloc of " +
                                     std::to_string(too_much) +
                                     " bytes on cuda:3 failed: out of memory (CUDA error 2)");
  EXPECT_EQ(fake_.current_device(), 0);
}

TEST_F(CudaAllocatorTest, FailingMallocWithAnotherStatusIsInternal) {
  fake_.malloc_status = kCudaErrorIllegalAddress;
  Result<void*> p = allocator_.allocate(8, 0);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::Internal);
  EXPECT_EQ(p.error().message(),
            "CudaAllocator::allocate: cudaMalloc of 8 bytes on cuda:0 failed: an illegal memory "
            "access was encountered (CUDA error 700)");
}

TEST_F(CudaAllocatorTest, FailingRestoreAfterMallocFreesTheBlockAndReportsIt) {
  fake_.set_device_status[0] = kCudaErrorUnknown;
  Result<void*> p = allocator_.allocate(64, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::Internal);
  EXPECT_EQ(p.error().message(),
            "CudaAllocator::allocate: cudaSetDevice restoring cuda:0 after cuda:1 failed: "
            "unknown error (CUDA error 999)");
  EXPECT_EQ(fake_.live_allocations(), 0u);
}

// ---- alignment ----

TEST_F(CudaAllocatorTest, AlignmentThatIsNotAPowerOfTwoIsInvalidArgument) {
  for (size_t alignment : {size_t{0}, size_t{3}, size_t{24}, size_t{257}}) {
    Result<void*> p = allocator_.allocate(1024, 0, alignment);
    ASSERT_FALSE(p.ok());
    EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(p.error().message(), "CudaAllocator::allocate: alignment " +
                                       std::to_string(alignment) +
                                       " is not a power of two (allocating 1024 bytes on cuda:0)");
  }
  EXPECT_TRUE(fake_.calls().empty());
}

TEST_F(CudaAllocatorTest, AlignmentsUpTo256AskCudaMallocForExactlyTheRequest) {
  fake_.malloc_offset = 256;  // memory meets CUDA's guarantee and no more
  for (size_t alignment : {size_t{1}, size_t{8}, size_t{16}, size_t{256}}) {
    fake_.clear_calls();
    Result<void*> p = allocator_.allocate(100, 1, alignment);
    ASSERT_TRUE(p.ok()) << p.error();
    EXPECT_EQ(fake_.size_of(*p), 100u) << "the block starts at the returned pointer";
    EXPECT_EQ(fake_.calls()[3], "malloc(100) on cuda:1");
    allocator_.deallocate(*p, 1);
  }
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 0u);
}

TEST_F(CudaAllocatorTest, LargerAlignmentIsHonouredByOverAllocating) {
  fake_.malloc_offset = 256;  // base = 4096k + 256: never 4096-aligned
  Result<void*> p = allocator_.allocate(100, 1, 4096);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_TRUE(is_aligned(*p, 4096));
  EXPECT_EQ(fake_.calls()[3], "malloc(3940) on cuda:1");  // 100 + 4096 - 256
  const void* base = fake_.block_of(*p);
  ASSERT_NE(base, nullptr);
  EXPECT_NE(base, *p);
  EXPECT_EQ(static_cast<const char*>(*p) - static_cast<const char*>(base), 3840);
  EXPECT_EQ(fake_.device_of(static_cast<char*>(*p) + 99), 1) << "the request fits in the block";
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 1u);

  fake_.clear_calls();
  allocator_.deallocate(*p, 1);
  EXPECT_EQ(fake_.calls(), (Calls{"get_device_count", "get_device", "set_device(1)",
                                  "free on cuda:1", "set_device(0)"}));
  EXPECT_EQ(fake_.live_allocations(), 0u) << "the base pointer was freed";
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 0u);
  EXPECT_EQ(allocator_.deallocation_errors(), 0u);
}

TEST_F(CudaAllocatorTest, LargerAlignmentOfAnAlreadyAlignedBaseNeedsNoBookkeeping) {
  fake_.malloc_offset = 0;  // blocks are 4096-aligned
  Result<void*> p = allocator_.allocate(100, 0, 1024);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(fake_.block_of(*p), *p);
  EXPECT_EQ(fake_.size_of(*p), 868u);  // 100 + 1024 - 256
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 0u);
  allocator_.deallocate(*p, 0);
  EXPECT_EQ(fake_.live_allocations(), 0u);
}

TEST_F(CudaAllocatorTest, PaddingThatOverflowsIsInvalidArgument) {
  const size_t huge = SIZE_MAX - 100;
  Result<void*> p = allocator_.allocate(huge, 0, 4096);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(p.error().message(), "CudaAllocator::allocate: " + std::to_string(huge) +
                                     " bytes on cuda:0 aligned to 4096 overflows size_t");
  EXPECT_TRUE(fake_.calls().empty());
}

TEST_F(CudaAllocatorTest, MemoryBreakingCudasAlignmentGuaranteeIsFreedAndInternal) {
  fake_.malloc_offset = 8;
  Result<void*> p = allocator_.allocate(64, 2, 16);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::Internal);
  EXPECT_EQ(p.error().message(),
            "CudaAllocator::allocate: cudaMalloc on cuda:2 returned memory that cannot hold 64 "
            "bytes aligned to 16 (expected 256-byte alignment)");
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(fake_.current_device(), 0);
}

TEST_F(CudaAllocatorTest, FirstAlignmentAbove256PadsByTheDifference) {
  fake_.malloc_offset = 256;  // base = 4096k + 256: the padding of 256 is all used
  Result<void*> p = allocator_.allocate(100, 1, 512);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(fake_.calls()[3], "malloc(356) on cuda:1");  // 100 + 512 - 256
  EXPECT_TRUE(is_aligned(*p, 512));
  EXPECT_EQ(static_cast<const char*>(*p) - static_cast<const char*>(fake_.block_of(*p)), 256);
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 1u);
  allocator_.deallocate(*p, 1);
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 0u);
}

TEST_F(CudaAllocatorTest, MemoryBreakingTheGuaranteeUnderAnAlignmentAbove256IsInternal) {
  fake_.malloc_offset = 8;  // base = 4096k + 8: reaching 512 needs 504 bytes, 256 were added
  Result<void*> p = allocator_.allocate(64, 2, 512);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::Internal);
  EXPECT_EQ(p.error().message(),
            "CudaAllocator::allocate: cudaMalloc on cuda:2 returned memory that cannot hold 64 "
            "bytes aligned to 512 (expected 256-byte alignment)");
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(allocator_.outstanding_over_aligned(), 0u);
  EXPECT_EQ(fake_.current_device(), 0);
}

TEST(CudaAllocatorCapacityTest, PaddingCountsAgainstTheDeviceCapacityAndIsNamed) {
  FakeCudaRuntime fake(4, 1024);
  fake.malloc_offset = 256;
  CudaAllocator allocator(fake);
  Result<void*> fits = allocator.allocate(768, 1, 512);  // 768 + 256 = exactly 1024
  ASSERT_TRUE(fits.ok()) << fits.error();
  EXPECT_EQ(fake.live_bytes(1), 1024u);
  allocator.deallocate(*fits, 1);
  EXPECT_EQ(fake.live_allocations(), 0u);

  Result<void*> over = allocator.allocate(769, 1, 512);
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(over.error().message(),
            "CudaAllocator::allocate: cudaMalloc of 1025 bytes (769 bytes aligned to 512) on "
            "cuda:1 failed: out of memory (CUDA error 2)");
  EXPECT_EQ(fake.live_allocations(), 0u);
  EXPECT_EQ(fake.current_device(), 0);
}

TEST(CudaAllocatorCapacityTest, WithoutPaddingTheMessageGivesOnlyTheRequest) {
  FakeCudaRuntime fake(4, 1024);
  CudaAllocator allocator(fake);
  Result<void*> full = allocator.allocate(1024, 2);
  ASSERT_TRUE(full.ok()) << full.error();
  Result<void*> one_more = allocator.allocate(1, 2);
  ASSERT_FALSE(one_more.ok());
  EXPECT_EQ(one_more.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(one_more.error().message(),
            "CudaAllocator::allocate: cudaMalloc of 1 bytes on cuda:2 failed: out of memory "
            "(CUDA error 2)");
  allocator.deallocate(*full, 2);
  EXPECT_EQ(fake.live_allocations(), 0u);
}

TEST_F(CudaAllocatorTest, PaddingOverflowBoundaryIsTheLastSizeThatFitsSizeT) {
  // SIZE_MAX - 3840 plus the padding of 4096 - 256 is exactly SIZE_MAX: it passes the check
  // and cudaMalloc is asked for it (and fails).
  const size_t largest = SIZE_MAX - 3840;
  Result<void*> passes = allocator_.allocate(largest, 0, 4096);
  ASSERT_FALSE(passes.ok());
  EXPECT_EQ(passes.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(passes.error().message(),
            "CudaAllocator::allocate: cudaMalloc of 18446744073709551615 bytes "
            "(18446744073709547775 bytes aligned to 4096) on cuda:0 failed: out of memory (CUDA "
            "error 2)");

  fake_.clear_calls();
  Result<void*> overflows = allocator_.allocate(largest + 1, 0, 4096);
  ASSERT_FALSE(overflows.ok());
  EXPECT_EQ(overflows.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(overflows.error().message(),
            "CudaAllocator::allocate: 18446744073709547776 bytes on cuda:0 aligned to 4096 "
            "overflows size_t");
  EXPECT_TRUE(fake_.calls().empty());
}

// ---- zero bytes ----

TEST_F(CudaAllocatorTest, ZeroBytesReturnsNullAfterCheckingTheRequest) {
  Result<void*> p = allocator_.allocate(0, 2);
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(*p, nullptr);
  EXPECT_EQ(fake_.calls(), (Calls{"get_device_count"}));
  fake_.clear_calls();
  allocator_.deallocate(*p, 2);
  EXPECT_TRUE(fake_.calls().empty());
  EXPECT_EQ(allocator_.deallocation_errors(), 0u);

  EXPECT_EQ(allocator_.allocate(0, 4).code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(allocator_.allocate(0, -1).code(), ErrorCode::InvalidArgument);
  Result<void*> bad_alignment = allocator_.allocate(0, 0, 24);
  EXPECT_EQ(bad_alignment.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bad_alignment.error().message(),
            "CudaAllocator::allocate: alignment 24 is not a power of two (allocating 0 bytes on "
            "cuda:0)");
  EXPECT_TRUE(allocator_.allocate(0, 1, 8192).ok());
  EXPECT_EQ(fake_.live_allocations(), 0u);
}

// ---- copies ----

TEST_F(CudaAllocatorTest, CopiesRoundTripOnTheRightDevice) {
  Result<void*> p = allocator_.allocate(256, 2);
  ASSERT_TRUE(p.ok()) << p.error();
  std::vector<uint8_t> host(256), back(256, 0);
  for (size_t i = 0; i < host.size(); ++i) host[i] = static_cast<uint8_t>(i * 7 + 3);

  fake_.clear_calls();
  ASSERT_TRUE(allocator_.copy_host_to_device(*p, host.data(), 256, 2).ok());
  EXPECT_EQ(fake_.calls(), (Calls{"get_device_count", "get_device", "set_device(2)",
                                  "memcpy host to device 256 bytes on cuda:2", "set_device(0)"}));
  fake_.clear_calls();
  ASSERT_TRUE(allocator_.copy_device_to_host(back.data(), *p, 256, 2).ok());
  EXPECT_EQ(fake_.calls(), (Calls{"get_device_count", "get_device", "set_device(2)",
                                  "memcpy device to host 256 bytes on cuda:2", "set_device(0)"}));
  EXPECT_EQ(back, host);
  EXPECT_EQ(fake_.current_device(), 0);
  allocator_.deallocate(*p, 2);
}

TEST_F(CudaAllocatorTest, ZeroByteCopyIsANoOpThatCallsNothing) {
  EXPECT_TRUE(allocator_.copy_host_to_device(nullptr, nullptr, 0, 3).ok());
  EXPECT_TRUE(allocator_.copy_device_to_host(nullptr, nullptr, 0, 3).ok());
  EXPECT_TRUE(allocator_.copy_host_to_device(nullptr, nullptr, 0, 9).ok());
  EXPECT_TRUE(fake_.calls().empty());
  Error negative = allocator_.copy_device_to_host(nullptr, nullptr, 0, -2);
  EXPECT_EQ(negative.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(negative.message(),
            "CudaAllocator::copy_device_to_host: invalid device cuda:-2: a CUDA device index is "
            "never negative");
  EXPECT_TRUE(fake_.calls().empty());
}

TEST_F(CudaAllocatorTest, NullPointersWithBytesAreInvalidArgument) {
  uint8_t host[16] = {};
  Error to_device = allocator_.copy_host_to_device(nullptr, host, 16, 1);
  EXPECT_EQ(to_device.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(to_device.message(),
            "CudaAllocator::copy_host_to_device: null destination for 16 bytes on cuda:1");
  Error from_device = allocator_.copy_device_to_host(host, nullptr, 16, 1);
  EXPECT_EQ(from_device.message(),
            "CudaAllocator::copy_device_to_host: null source for 16 bytes on cuda:1");
  EXPECT_TRUE(fake_.calls().empty());
}

TEST_F(CudaAllocatorTest, CopyOneBytePastTheBlockIsRefusedByTheRuntime) {
  Result<void*> p = allocator_.allocate(16, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  uint8_t host[17] = {};
  ASSERT_TRUE(allocator_.copy_host_to_device(*p, host, 16, 1).ok());
  Error to_device = allocator_.copy_host_to_device(*p, host, 17, 1);
  EXPECT_EQ(to_device.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(to_device.message(),
            "CudaAllocator::copy_host_to_device: cudaMemcpy host to device of 17 bytes on "
            "cuda:1 failed: invalid argument (CUDA error 1)");
  EXPECT_EQ(fake_.current_device(), 0);

  ASSERT_TRUE(allocator_.copy_device_to_host(host, *p, 16, 1).ok());
  Error to_host = allocator_.copy_device_to_host(host, *p, 17, 1);
  EXPECT_EQ(to_host.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(to_host.message(),
            "CudaAllocator::copy_device_to_host: cudaMemcpy device to host of 17 bytes on "
            "cuda:1 failed: invalid argument (CUDA error 1)");
  EXPECT_EQ(fake_.current_device(), 0);
  allocator_.deallocate(*p, 1);
}

TEST_F(CudaAllocatorTest, CopyFromAnInteriorPointerFitsOnlyTheRestOfTheBlock) {
  Result<void*> p = allocator_.allocate(16, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  uint8_t* interior = static_cast<uint8_t*>(*p) + 1;
  uint8_t host[16] = {};
  EXPECT_TRUE(allocator_.copy_host_to_device(interior, host, 15, 1).ok());
  Error to_device = allocator_.copy_host_to_device(interior, host, 16, 1);
  EXPECT_EQ(to_device.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(to_device.message(),
            "CudaAllocator::copy_host_to_device: cudaMemcpy host to device of 16 bytes on "
            "cuda:1 failed: invalid argument (CUDA error 1)");
  EXPECT_TRUE(allocator_.copy_device_to_host(host, interior, 15, 1).ok());
  Error to_host = allocator_.copy_device_to_host(host, interior, 16, 1);
  EXPECT_EQ(to_host.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(to_host.message(),
            "CudaAllocator::copy_device_to_host: cudaMemcpy device to host of 16 bytes on "
            "cuda:1 failed: invalid argument (CUDA error 1)");
  EXPECT_EQ(fake_.current_device(), 0);
  allocator_.deallocate(*p, 1);
}

TEST_F(CudaAllocatorTest, NullHostSideOfACopyIsInvalidArgument) {
  Result<void*> p = allocator_.allocate(16, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  Error to_device = allocator_.copy_host_to_device(*p, nullptr, 16, 1);
  EXPECT_EQ(to_device.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(to_device.message(),
            "CudaAllocator::copy_host_to_device: null source for 16 bytes on cuda:1");
  Error to_host = allocator_.copy_device_to_host(nullptr, *p, 16, 1);
  EXPECT_EQ(to_host.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(to_host.message(),
            "CudaAllocator::copy_device_to_host: null destination for 16 bytes on cuda:1");
  allocator_.deallocate(*p, 1);
}

TEST_F(CudaAllocatorTest, CopyToABadDeviceCopiesNothing) {
  uint8_t host[16] = {1};
  uint8_t other[16] = {};
  Error error = allocator_.copy_host_to_device(other, host, 16, 4);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "CudaAllocator::copy_host_to_device: invalid device cuda:4: 4 CUDA devices are "
            "visible (cuda:0 to cuda:3)");
  EXPECT_EQ(fake_.calls(), (Calls{"get_device_count"}));
  EXPECT_EQ(other[0], 0);
}

TEST_F(CudaAllocatorTest, CopyWithFailingSetDeviceCopiesNothing) {
  Result<void*> p = allocator_.allocate(16, 3);
  ASSERT_TRUE(p.ok()) << p.error();
  fake_.set_device_status[3] = kCudaErrorUnknown;
  fake_.clear_calls();
  uint8_t host[16] = {};
  Error error = allocator_.copy_device_to_host(host, *p, 16, 3);
  EXPECT_EQ(error.code(), ErrorCode::Internal);
  EXPECT_EQ(error.message(),
            "CudaAllocator::copy_device_to_host: cudaSetDevice for cuda:3 failed: unknown error "
            "(CUDA error 999)");
  EXPECT_EQ(fake_.calls(),
            (Calls{"get_device_count", "get_device", "set_device(3)", "get_error_string(999)"}));
  fake_.set_device_status.clear();
  allocator_.deallocate(*p, 3);
}

TEST_F(CudaAllocatorTest, FailingCopiesAreMappedAndRestoreTheDevice) {
  Result<void*> p = allocator_.allocate(16, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  uint8_t host[16] = {};
  fake_.memcpy_status = kCudaErrorIllegalAddress;
  Error to_device = allocator_.copy_host_to_device(*p, host, 16, 1);
  EXPECT_EQ(to_device.code(), ErrorCode::Internal);
  EXPECT_EQ(to_device.message(),
            "CudaAllocator::copy_host_to_device: cudaMemcpy host to device of 16 bytes on "
            "cuda:1 failed: an illegal memory access was encountered (CUDA error 700)");
  EXPECT_EQ(fake_.current_device(), 0);

  fake_.memcpy_status = kCudaErrorInvalidValue;
  fake_.clear_calls();
  Error to_host = allocator_.copy_device_to_host(host, *p, 16, 1);
  EXPECT_EQ(to_host.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(to_host.message(),
            "CudaAllocator::copy_device_to_host: cudaMemcpy device to host of 16 bytes on "
            "cuda:1 failed: invalid argument (CUDA error 1)");
  EXPECT_EQ(fake_.calls(), (Calls{"get_device_count", "get_device", "set_device(1)",
                                  "memcpy device to host 16 bytes on cuda:1", "get_error_string(1)",
                                  "set_device(0)"}));
  EXPECT_EQ(fake_.current_device(), 0);
  fake_.memcpy_status = kCudaSuccess;
  allocator_.deallocate(*p, 1);
}

TEST_F(CudaAllocatorTest, CopyIntoHostMemoryPosingAsDeviceMemoryFails) {
  uint8_t host[16] = {};
  uint8_t not_device[16] = {};
  Error error = allocator_.copy_host_to_device(not_device, host, 16, 0);
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(),
            "CudaAllocator::copy_host_to_device: cudaMemcpy host to device of 16 bytes on "
            "cuda:0 failed: invalid argument (CUDA error 1)");
}

TEST_F(CudaAllocatorTest, FailingRestoreAfterACopyIsReported) {
  Result<void*> p = allocator_.allocate(16, 2);
  ASSERT_TRUE(p.ok()) << p.error();
  uint8_t host[16] = {};
  fake_.set_device_status[0] = kCudaErrorUnknown;
  Error error = allocator_.copy_host_to_device(*p, host, 16, 2);
  EXPECT_EQ(error.code(), ErrorCode::Internal);
  EXPECT_EQ(error.message(),
            "CudaAllocator::copy_host_to_device: cudaSetDevice restoring cuda:0 after cuda:2 "
            "failed: unknown error (CUDA error 999)");
  fake_.set_device_status.clear();
  fake_.set_current_device(0);
  allocator_.deallocate(*p, 2);
}

// ---- deallocation ----

TEST_F(CudaAllocatorTest, DeallocateWithABadIndexRecordsTheMisuseAndStillFrees) {
  Result<void*> p = allocator_.allocate(32, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  allocator_.deallocate(*p, -1);
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(allocator_.deallocation_errors(), 1u);
  EXPECT_EQ(allocator_.last_deallocation_error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(allocator_.last_deallocation_error().message(),
            "CudaAllocator::deallocate: invalid device cuda:-1: a CUDA device index is never "
            "negative");
}

TEST_F(CudaAllocatorTest, DeallocateOnAnIndexPastTheDeviceCountRecordsItAndStillFrees) {
  Result<void*> p = allocator_.allocate(32, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  allocator_.deallocate(*p, 4);
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(allocator_.deallocation_errors(), 1u);
  EXPECT_EQ(allocator_.last_deallocation_error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(allocator_.last_deallocation_error().message(),
            "CudaAllocator::deallocate: invalid device cuda:4: 4 CUDA devices are visible "
            "(cuda:0 to cuda:3)");
  EXPECT_EQ(fake_.current_device(), 0);
}

// A runtime whose cudaMalloc succeeds without memory.
class NullMallocRuntime : public FakeCudaRuntime {
 public:
  using FakeCudaRuntime::FakeCudaRuntime;
  int malloc(void** ptr, size_t) override {
    *ptr = nullptr;
    return kCudaSuccess;
  }
};

TEST(CudaAllocatorNullMallocTest, NullFromASuccessfulMallocIsMemoryAllocationFailed) {
  NullMallocRuntime fake(4);
  CudaAllocator allocator(fake);
  Result<void*> p = allocator.allocate(64, 1);
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(p.error().message(),
            "CudaAllocator::allocate: cudaMalloc returned null for 64 bytes on cuda:1");
  EXPECT_EQ(fake.current_device(), 0);
  EXPECT_EQ(allocator.outstanding_over_aligned(), 0u);
}

TEST_F(CudaAllocatorTest, FailingFreeIsRecordedAndTheDeviceRestored) {
  Result<void*> p = allocator_.allocate(32, 1);
  ASSERT_TRUE(p.ok()) << p.error();
  fake_.free_status = kCudaErrorInvalidValue;
  allocator_.deallocate(*p, 1);
  EXPECT_EQ(allocator_.deallocation_errors(), 1u);
  EXPECT_EQ(
      allocator_.last_deallocation_error().message(),
      "CudaAllocator::deallocate: cudaFree on cuda:1 failed: invalid argument (CUDA error 1)");
  EXPECT_EQ(fake_.current_device(), 0);
  fake_.free_status = kCudaSuccess;
  allocator_.deallocate(*p, 1);
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(allocator_.deallocation_errors(), 1u);
}

TEST_F(CudaAllocatorTest, DoubleFreeIsRecorded) {
  Result<void*> p = allocator_.allocate(32, 0);
  ASSERT_TRUE(p.ok()) << p.error();
  allocator_.deallocate(*p, 0);
  EXPECT_EQ(allocator_.deallocation_errors(), 0u);
  allocator_.deallocate(*p, 0);
  EXPECT_EQ(allocator_.deallocation_errors(), 1u);
  EXPECT_EQ(
      allocator_.last_deallocation_error().message(),
      "CudaAllocator::deallocate: cudaFree on cuda:0 failed: invalid argument (CUDA error 1)");
}

TEST_F(CudaAllocatorTest, FailingRestoreAfterFreeIsRecorded) {
  Result<void*> p = allocator_.allocate(32, 2);
  ASSERT_TRUE(p.ok()) << p.error();
  fake_.set_device_status[0] = kCudaErrorUnknown;
  allocator_.deallocate(*p, 2);
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(allocator_.deallocation_errors(), 1u);
  EXPECT_EQ(allocator_.last_deallocation_error().message(),
            "CudaAllocator::deallocate: cudaSetDevice restoring cuda:0 after cuda:2 failed: "
            "unknown error (CUDA error 999)");
}

// ---- integration and threads ----

TEST_F(CudaAllocatorTest, ServesDeviceMemoryBuffersThroughARegistry) {
  DeviceAllocatorRegistry registry;
  ASSERT_TRUE(registry.register_allocator(&allocator_).ok());
  {
    Result<DeviceMemoryBuffer> buffer =
        DeviceMemoryBuffer::create(48, DeviceType::CUDA, 3, kDefaultAlignment, registry);
    ASSERT_TRUE(buffer.ok()) << buffer.error();
    EXPECT_EQ(fake_.device_of(buffer->data()), 3);
    EXPECT_EQ(buffer->device(), Device::cuda(3));
    Result<DeviceMemoryBuffer> bad =
        DeviceMemoryBuffer::create(48, DeviceType::CUDA, 7, kDefaultAlignment, registry);
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error().message(),
              "allocating 48 bytes on cuda:7: CudaAllocator::allocate: invalid device cuda:7: 4 "
              "CUDA devices are visible (cuda:0 to cuda:3)");
  }
  EXPECT_EQ(fake_.live_allocations(), 0u);
  EXPECT_EQ(fake_.current_device(), 0);
}

TEST(CudaAllocatorThreadsTest, ConcurrentOverAlignedAllocationsAllComeBack) {
  FakeCudaRuntime fake(4, size_t{64} << 20);
  fake.malloc_offset = 256;
  CudaAllocator allocator(fake);
  constexpr int kThreads = 8;
  constexpr int kRounds = 100;
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      const DeviceIndex device = static_cast<DeviceIndex>(t % 4);
      for (int r = 0; r < kRounds; ++r) {
        Result<void*> p = allocator.allocate(64 + r, device, 2048);
        if (!p.ok() || !is_aligned(*p, 2048) || fake.device_of(*p) != device) {
          ++failures[t];
          continue;
        }
        allocator.deallocate(*p, device);
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(failures[t], 0) << "thread " << t;
  EXPECT_EQ(fake.live_allocations(), 0u);
  EXPECT_EQ(allocator.outstanding_over_aligned(), 0u);
  EXPECT_EQ(allocator.deallocation_errors(), 0u);
}

}  // namespace
}  // namespace devplan
