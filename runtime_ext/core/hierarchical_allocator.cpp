#include <runtime_ext/core/hierarchical_allocator.h>

#include <string>
#include <utility>

namespace devplan {

Result<HierarchicalAllocator> HierarchicalAllocator::create(std::vector<Span<uint8_t>> buffers,
                                                            std::vector<Device> devices) {
  if (buffers.size() != devices.size()) {
    return Error(ErrorCode::InvalidArgument, "planned memory has " +
                                                 std::to_string(buffers.size()) + " buffers but " +
                                                 std::to_string(devices.size()) + " devices");
  }
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].data() == nullptr && buffers[i].size() != 0) {
      return Error(ErrorCode::InvalidArgument, "planned buffer " + std::to_string(i) + " has " +
                                                   std::to_string(buffers[i].size()) +
                                                   " bytes but no memory");
    }
  }
  return HierarchicalAllocator(std::move(buffers), std::move(devices));
}

Result<void*> HierarchicalAllocator::get_offset_address(uint32_t buffer_id, uint64_t offset,
                                                        uint64_t nbytes) const {
  if (buffer_id >= buffers_.size()) {
    return Error(ErrorCode::InvalidArgument, "planned buffer " + std::to_string(buffer_id) +
                                                 " does not exist (" +
                                                 std::to_string(buffers_.size()) + " buffers)");
  }
  const Span<uint8_t> buffer = buffers_[buffer_id];
  const uint64_t size = buffer.size();
  if (offset > size || nbytes > size - offset) {
    return Error(ErrorCode::InvalidArgument,
                 "bytes [" + std::to_string(offset) + ", " + std::to_string(offset) + "+" +
                     std::to_string(nbytes) + ") do not fit in planned buffer " +
                     std::to_string(buffer_id) + " of " + std::to_string(size) + " bytes on " +
                     devices_[buffer_id].to_string());
  }
  if (size == 0) return static_cast<void*>(nullptr);
  return static_cast<void*>(buffer.data() + offset);
}

}  // namespace devplan
