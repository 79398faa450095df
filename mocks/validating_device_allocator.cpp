#include <mocks/validating_device_allocator.h>

#include <utility>

#include <mocks/allocation_text.h>

namespace devplan {

ValidatingDeviceAllocator::ValidatingDeviceAllocator(DeviceAllocator* upstream, std::string name)
    : DeviceAllocatorAdaptor(upstream, std::move(name)) {
  available_.set();
}

Result<void*> ValidatingDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                  size_t alignment) {
  const Device device(device_type(), index);
  auto invalid = [&](const std::string& message) {
    return error("allocate", ErrorCode::InvalidArgument, message);
  };
  if (!is_power_of_two(alignment)) {
    return invalid("alignment " + std::to_string(alignment) + " for " +
                   bytes_on_device(nbytes, device) + " is not a power of two");
  }
  if (alignment > kMaxAlignment) {
    return invalid("alignment " + std::to_string(alignment) + " for " +
                   bytes_on_device(nbytes, device) + " exceeds the simulated maximum " +
                   std::to_string(kMaxAlignment));
  }
  if (index < 0) return invalid("device " + device.to_string() + " has a negative index");
  if (!available_[index]) {
    return invalid("device " + device.to_string() +
                   " is not simulated (simulated: " + available_list() + ")");
  }
  return upstream().allocate(nbytes, index, alignment);
}

Error ValidatingDeviceAllocator::restrict_devices(const std::vector<DeviceIndex>& indices) {
  std::bitset<kNumIndices> available;
  for (DeviceIndex index : indices) {
    if (index < 0) {
      return negative_index_error(name(), "restrict_devices", Device(device_type(), index));
    }
    available.set(index);
  }
  available_ = available;
  return Error::success();
}

Error ValidatingDeviceAllocator::set_device_count(int count) {
  if (count < 0 || count > kNumIndices) {
    return error("set_device_count", ErrorCode::InvalidArgument,
                 std::to_string(count) + " devices requested; the count must be from 0 to " +
                     std::to_string(kNumIndices));
  }
  std::bitset<kNumIndices> available;
  for (int i = 0; i < count; ++i) available.set(i);
  available_ = available;
  return Error::success();
}

std::string ValidatingDeviceAllocator::available_list() const {
  std::string list;
  for (int i = 0; i < kNumIndices; ++i) {
    if (!available_[i]) continue;
    if (!list.empty()) list += ", ";
    list += Device(device_type(), static_cast<DeviceIndex>(i)).to_string();
  }
  return list.empty() ? "none" : list;
}

}  // namespace devplan
