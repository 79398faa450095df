#include <runtime_ext/module/planned_memory.h>

#include <cstdlib>
#include <cstring>
#include <optional>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan {

void PlannedMemory::HostFree::operator()(uint8_t* p) const { std::free(p); }

Result<std::unique_ptr<PlannedMemory>> PlannedMemory::allocate(
    const MethodPlan& plan, const PlannedMemoryOptions& options) {
  std::unique_ptr<PlannedMemory> memory(new PlannedMemory());
  std::vector<Span<uint8_t>> spans;
  spans.reserve(plan.buffer_sizes.size());
  size_t num_device_buffers = 0;
  for (size_t i = 0; i < plan.buffer_sizes.size() && i < plan.buffer_devices.size(); ++i) {
    num_device_buffers += plan.buffer_devices[i].is_cpu() ? 0 : 1;
  }
  memory->host_buffers_.reserve(plan.buffer_sizes.size() - num_device_buffers);
  memory->device_buffers_.reserve(num_device_buffers);
  // One owner label for the method; each device buffer only sets its number (no string per
  // buffer).
  std::optional<ScopedAllocationOwner> owner;
  if (num_device_buffers > 0) owner.emplace(AllocationOwner::label_of(plan.name));
  uint64_t host_bytes = 0;
  for (size_t i = 0; i < plan.buffer_sizes.size(); ++i) {
    const uint64_t size = plan.buffer_sizes[i];
    const Device device = plan.buffer_devices[i];
    auto fail = [&](const Error& e) {
      return e.with_context("method '" + plan.name + "': buffer " + std::to_string(i) + " (" +
                            std::to_string(size) + " bytes on " + device.to_string() + ")");
    };
    if (device.is_cpu()) {
      if (size > options.max_host_bytes - host_bytes) {
        return fail(Error(ErrorCode::MemoryAllocationFailed,
                          "host buffers would exceed the limit of " +
                              std::to_string(options.max_host_bytes) + " bytes"));
      }
      uint8_t* data = nullptr;
      if (size > 0) {
        uint64_t rounded = 0;
        if (!align_up(size, kDefaultAlignment, &rounded) || rounded > SIZE_MAX) {
          return fail(Error(ErrorCode::MemoryAllocationFailed, "size does not fit in memory"));
        }
        data = static_cast<uint8_t*>(std::aligned_alloc(kDefaultAlignment, rounded));
        if (data == nullptr) {
          return fail(Error(ErrorCode::MemoryAllocationFailed, "no host memory"));
        }
        std::memset(data, 0, size);
      }
      host_bytes += size;
      memory->host_buffers_.emplace_back(data);
      spans.emplace_back(data, size);
      continue;
    }
    if (size > SIZE_MAX) {
      return fail(Error(ErrorCode::MemoryAllocationFailed, "size does not fit in memory"));
    }
    owner->set_buffer(static_cast<int64_t>(i));
    Result<DeviceMemoryBuffer> buffer =
        DeviceMemoryBuffer::create(static_cast<size_t>(size), device.type, device.index,
                                   kDefaultAlignment, *options.allocators);
    if (!buffer.ok()) return fail(buffer.error());
    spans.push_back(buffer->as_span());
    memory->device_buffers_.push_back(std::move(buffer).value());
  }
  Result<HierarchicalAllocator> allocator =
      HierarchicalAllocator::create(std::move(spans), plan.buffer_devices);
  if (!allocator.ok()) return allocator.error().with_context("method '" + plan.name + "'");
  memory->allocator_ = std::move(allocator).value();
  return memory;
}

size_t PlannedMemory::num_device_allocations() const {
  size_t n = 0;
  for (const DeviceMemoryBuffer& b : device_buffers_) n += b.data() != nullptr ? 1 : 0;
  return n;
}

}  // namespace devplan
