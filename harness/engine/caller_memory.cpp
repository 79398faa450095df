#include <harness/engine/caller_memory.h>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan::harness {

Result<DeviceMemoryBuffer> allocate_caller_memory(const DeviceAllocatorRegistry& registry,
                                                  size_t nbytes, Device device,
                                                  const std::string& owner) {
  ScopedAllocationOwner scoped(owner);
  Result<DeviceMemoryBuffer> memory =
      DeviceMemoryBuffer::create(nbytes, device.type, device.index, kDefaultAlignment, registry);
  if (!memory.ok()) return memory.error().with_context(owner);
  return memory;
}

Error fill_caller_memory(const DeviceMemoryBuffer& memory, const void* host, size_t nbytes) {
  if (nbytes == 0) return Error::success();
  if (nbytes > memory.size()) {
    return Error(ErrorCode::InvalidArgument, std::to_string(nbytes) + " bytes do not fit in " +
                                                 std::to_string(memory.size()) +
                                                 " bytes of caller memory");
  }
  return memory.allocator()->copy_host_to_device(memory.data(), host, nbytes,
                                                 memory.device().index);
}

}  // namespace devplan::harness
