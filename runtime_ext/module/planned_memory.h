// PlannedMemory: owns the planned buffers of one loaded method, wherever they live, and the
// HierarchicalAllocator that points into them.
//
//   Result<std::unique_ptr<PlannedMemory>> memory = PlannedMemory::allocate(plan, options);
//   Method::load(plan, MemoryManager(nullptr, (*memory)->hierarchical_allocator()));
//
// CPU buffers are host memory; each device buffer is a DeviceMemoryBuffer created through the
// allocator registered for its device type, under the owner label "<method>/buffer <i>". When
// every buffer is on the CPU no device allocator is called. A zero-size buffer makes no
// allocator call and has an empty span. Allocation failure at any buffer frees everything
// allocated before it. Destruction frees every buffer exactly once.
//
// Not thread-safe; owned by one Module.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <runtime_ext/core/device_memory_buffer.h>
#include <runtime_ext/core/hierarchical_allocator.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan {

struct PlannedMemoryOptions {
  const DeviceAllocatorRegistry* allocators = &DeviceAllocatorRegistry::global();
  // Cap on the host bytes of one method's CPU buffers (MemoryAllocationFailed beyond it).
  uint64_t max_host_bytes = UINT64_MAX;
};

class PlannedMemory {
 public:
  static Result<std::unique_ptr<PlannedMemory>> allocate(const MethodPlan& plan,
                                                         const PlannedMemoryOptions& options);
  // The buffers free themselves, each exactly once.
  ~PlannedMemory() = default;
  PlannedMemory(const PlannedMemory&) = delete;
  PlannedMemory& operator=(const PlannedMemory&) = delete;

  HierarchicalAllocator* hierarchical_allocator() { return &allocator_; }
  size_t num_buffers() const { return allocator_.num_buffers(); }
  Span<uint8_t> buffer(size_t i) const { return allocator_.buffer(i); }
  Device device(size_t i) const { return allocator_.device(i); }
  // Number of device allocations made (zero-size and CPU buffers make none).
  size_t num_device_allocations() const;

 private:
  struct HostFree {
    void operator()(uint8_t* p) const;
  };
  PlannedMemory() = default;

  std::vector<std::unique_ptr<uint8_t, HostFree>> host_buffers_;
  std::vector<DeviceMemoryBuffer> device_buffers_;
  HierarchicalAllocator allocator_;
};

}  // namespace devplan
