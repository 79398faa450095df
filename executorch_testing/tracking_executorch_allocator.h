// TrackingExecutorchAllocator: devplan's tracking allocator behind ExecuTorch's DeviceAllocator
// interface, for ExecuTorch's own tests. Everything TrackingDeviceAllocator does applies to
// what ExecuTorch's runtime allocates through it: the ledger of every call, leaks, double,
// wrong-device, interior and unknown frees, stale and out-of-range copies, fault injection at
// the k-th call, capacities, unbacked memory, per-device statistics, and the same report lines
// as the rest of devplan ("#1 cuda:0 48 B align 8 owner -").
//
//   devplan::executorch_testing::TrackingExecutorchAllocator cuda;   // CUDA, indices 0..127
//   devplan::executorch_testing::ScopedExecutorchAllocator scoped(cuda);
//   cuda.tracking().fail_allocation_at(2);            // the 2nd allocate() call fails
//   cuda.tracking().set_capacity(0, 1 << 20);         // cuda:0 holds 1 MiB
//   ... ExecuTorch's Module loads and runs methods ...
//   EXPECT_EQ(cuda.tracking().live_count(), 0u) << cuda.ledger_report();
//
// ExecuTorch asks with its own device index type and alignment (8 for planned buffers in
// 1.5.1); both are recorded as asked. A failed call's message goes to ExecuTorch's log as
// "devplan allocator: <message>" (ExecutorchAllocatorAdapter) and is kept as last_error().
//
// Threading: every call is thread-safe, as TrackingDeviceAllocator's are.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include <executorch_testing/executorch_allocator_adapter.h>
#include <mocks/tracking_device_allocator.h>

namespace devplan::executorch_testing {

class TrackingExecutorchAllocator final : public et::DeviceAllocator {
 public:
  explicit TrackingExecutorchAllocator(EtDeviceType type = EtDeviceType::CUDA);

  et::Result<void*> allocate(size_t nbytes, EtDeviceIndex index, size_t alignment) override;
  void deallocate(void* ptr, EtDeviceIndex index) override;
  et::Error copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                EtDeviceIndex index) override;
  et::Error copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                EtDeviceIndex index) override;
  EtDeviceType device_type() const override { return adapter_.device_type(); }

  // The tracking stack: settings (faults, capacities, devices, backing, quarantine), the
  // ledger, misuse, failed calls, statistics and report lines.
  TrackingDeviceAllocator& tracking() { return tracking_; }
  const TrackingDeviceAllocator& tracking() const { return tracking_; }

  // Every allocate() call in order, one line each (ledger_report_lines in mocks/ledger_text.h),
  // each followed by '\n'; "" before the first call.
  std::string ledger_report() const;
  // The line of the most recent failed call, "devplan allocator: <message>" ("" when none
  // failed).
  std::string last_error() const;

 private:
  TrackingDeviceAllocator tracking_;
  ExecutorchAllocatorAdapter adapter_;
  mutable std::mutex last_error_mu_;
  std::string last_error_;
};

}  // namespace devplan::executorch_testing
