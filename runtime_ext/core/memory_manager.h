// MemoryManager: the memory a Method runs with. It bundles, without owning any of them, the
// method allocator (host memory for the method's own structures), the planned memory (the
// HierarchicalAllocator over the method's planned buffers, host or device) and the temp
// allocator (kernels' scratch space). Any of the allocators may be null when unused.
//
//   MemoryManager mm(&method_alloc, &planned, &temp);
//   mm.planned_buffer_device(1);   // Device::cuda(0)
#pragma once

#include <runtime_ext/core/hierarchical_allocator.h>
#include <runtime_ext/core/memory_allocator.h>

namespace devplan {

class MemoryManager {
 public:
  MemoryManager() = default;
  MemoryManager(MemoryAllocator* method_allocator, HierarchicalAllocator* planned_memory,
                MemoryAllocator* temp_allocator = nullptr)
      : method_allocator_(method_allocator),
        planned_memory_(planned_memory),
        temp_allocator_(temp_allocator) {}

  MemoryAllocator* method_allocator() const { return method_allocator_; }
  HierarchicalAllocator* planned_memory() const { return planned_memory_; }
  MemoryAllocator* temp_allocator() const { return temp_allocator_; }

  size_t num_planned_buffers() const {
    return planned_memory_ == nullptr ? 0 : planned_memory_->num_buffers();
  }
  // Device of planned buffer `id`; cpu:0 when there is no such buffer.
  Device planned_buffer_device(size_t id) const {
    return id < num_planned_buffers() ? planned_memory_->device(id) : Device::cpu();
  }

 private:
  MemoryAllocator* method_allocator_ = nullptr;
  HierarchicalAllocator* planned_memory_ = nullptr;
  MemoryAllocator* temp_allocator_ = nullptr;
};

}  // namespace devplan
