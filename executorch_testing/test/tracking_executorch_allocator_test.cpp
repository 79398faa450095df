// TrackingExecutorchAllocator through ExecuTorch's DeviceAllocator interface: the ledger, faults,
// misuse and the report lines, with exact values.
#include <executorch_testing/tracking_executorch_allocator.h>

#include <gtest/gtest.h>

namespace devplan::executorch_testing {
namespace {

TEST(TrackingExecutorchAllocator, RecordsWhatExecutorchAsksFor) {
  TrackingExecutorchAllocator cuda;
  EXPECT_EQ(cuda.device_type(), EtDeviceType::CUDA);
  et::DeviceAllocator& as_executorch = cuda;
  et::Result<void*> p = as_executorch.allocate(384, 0, 8);
  ASSERT_TRUE(p.ok());
  et::Result<void*> q = as_executorch.allocate(48, 1, 8);
  ASSERT_TRUE(q.ok());
  const float in[4] = {1, 2, 3, 4};
  float out[4] = {};
  EXPECT_EQ(as_executorch.copy_host_to_device(*p, in, sizeof(in), 0), et::Error::Ok);
  EXPECT_EQ(as_executorch.copy_device_to_host(out, *p, sizeof(out), 0), et::Error::Ok);
  EXPECT_EQ(out[3], 4.0f);
  as_executorch.deallocate(*p, 0);
  EXPECT_EQ(cuda.ledger_report(),
            "#1 cuda:0 384 B align 8 owner -  freed\n"
            "#2 cuda:1 48 B align 8 owner -  LIVE\n");
  EXPECT_EQ(cuda.tracking().leak_report(), "#2 cuda:1 48 B align 8 owner -\n");
  as_executorch.deallocate(*q, 1);
  EXPECT_FALSE(cuda.tracking().has_leaks());
  EXPECT_EQ(cuda.last_error(), "");
}

TEST(TrackingExecutorchAllocator, AnInjectedFaultIsExecutorchsMemoryAllocationFailed) {
  TrackingExecutorchAllocator cuda;
  cuda.tracking().fail_allocation_at(2);
  et::Result<void*> first = cuda.allocate(16, 0, 8);
  ASSERT_TRUE(first.ok());
  et::Result<void*> second = cuda.allocate(32, 0, 8);
  EXPECT_EQ(second.error(), et::Error::MemoryAllocationFailed);
  EXPECT_EQ(cuda.last_error(),
            "devplan allocator: TrackingDeviceAllocator::allocate: injected fault: allocation #2 "
            "of 32 bytes on cuda:0 fails (fail_allocation_at 2)");
  cuda.deallocate(*first, 0);
  EXPECT_EQ(cuda.ledger_report(),
            "#1 cuda:0 16 B align 8 owner -  freed\n"
            "#2 cuda:0 32 B align 8 owner -  FAILED MemoryAllocationFailed: "
            "TrackingDeviceAllocator::allocate: injected fault: allocation #2 of 32 bytes on "
            "cuda:0 fails (fail_allocation_at 2)\n");
}

TEST(TrackingExecutorchAllocator, MisuseIsRecordedNotCrashed) {
  TrackingExecutorchAllocator cuda;
  et::Result<void*> p = cuda.allocate(48, 0, 8);
  ASSERT_TRUE(p.ok());
  cuda.deallocate(*p, 1);  // wrong device index (still freed)
  cuda.deallocate(*p, 0);  // double free
  const std::vector<std::string> lines = cuda.tracking().misuse_report_lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], "free on cuda:1 of #1 cuda:0 48 B owner -");
  EXPECT_EQ(lines[1], "double free of #1 cuda:0 48 B owner -");
  int host = 0;
  EXPECT_EQ(cuda.copy_host_to_device(*p, &host, sizeof(host), 0), et::Error::InvalidArgument);
  EXPECT_EQ(cuda.last_error(),
            "devplan allocator: TrackingDeviceAllocator::copy_host_to_device: copy_host_to_device "
            "of 4 B at offset 0 into freed #1 cuda:0 48 B owner -");
}

TEST(TrackingExecutorchAllocator, CapacityAndErrorCodesPassThrough) {
  TrackingExecutorchAllocator cuda;
  ASSERT_TRUE(cuda.tracking().set_capacity(0, 64).ok());
  EXPECT_EQ(cuda.allocate(65, 0, 8).error(), et::Error::MemoryAllocationFailed);
  EXPECT_EQ(cuda.allocate(8, 0, 3).error(), et::Error::InvalidArgument);
  EXPECT_EQ(cuda.allocate(8, -1, 8).error(), et::Error::InvalidArgument);
  EXPECT_EQ(cuda.tracking().failed_allocations().size(), 3u);
  EXPECT_EQ(cuda.tracking().ledger_size(), 0u);
}

}  // namespace
}  // namespace devplan::executorch_testing
