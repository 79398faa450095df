// Planned memory for executor tests: host vectors for CPU buffers, TrackingDeviceAllocator
// allocations for device buffers (freed at destruction), and the HierarchicalAllocator over
// them. (Module's PlannedMemory is tested in runtime_ext/module.)
#pragma once

#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/hierarchical_allocator.h>
#include <runtime_ext/program/method_plan.h>

#include <gtest/gtest.h>

#include <vector>

namespace devplan::testing {

class TestPlannedMemory {
 public:
  TestPlannedMemory(const MethodPlan& plan, TrackingDeviceAllocator& device) : device_(device) {
    std::vector<Span<uint8_t>> spans;
    for (size_t i = 0; i < plan.buffer_sizes.size(); ++i) {
      const size_t size = plan.buffer_sizes[i];
      if (plan.buffer_devices[i].is_cpu()) {
        host_.emplace_back((size + 7) / 8 + 1, 0);
        spans.emplace_back(reinterpret_cast<uint8_t*>(host_.back().data()), size);
      } else {
        Result<void*> p = device.allocate(size, plan.buffer_devices[i].index, 16);
        EXPECT_TRUE(p.ok()) << p.error();
        device_ptrs_.emplace_back(*p, plan.buffer_devices[i].index);
        spans.emplace_back(static_cast<uint8_t*>(*p), size);
      }
    }
    auto a = HierarchicalAllocator::create(spans, plan.buffer_devices);
    EXPECT_TRUE(a.ok()) << a.error();
    allocator_ = std::move(a).value();
  }
  ~TestPlannedMemory() {
    for (auto& [ptr, index] : device_ptrs_) device_.deallocate(ptr, index);
  }
  HierarchicalAllocator* get() { return &allocator_; }

 private:
  TrackingDeviceAllocator& device_;
  std::vector<std::vector<uint64_t>> host_;
  std::vector<std::pair<void*, DeviceIndex>> device_ptrs_;
  HierarchicalAllocator allocator_;
};

}  // namespace devplan::testing
