#include <runtime_ext/core/device_allocator_registry.h>

namespace devplan {
namespace {

int slot_of(DeviceType type) { return static_cast<int>(type); }

}  // namespace

DeviceAllocatorRegistry::DeviceAllocatorRegistry() {
  for (auto& slot : slots_) slot.store(nullptr, std::memory_order_relaxed);
}

DeviceAllocatorRegistry& DeviceAllocatorRegistry::global() {
  static DeviceAllocatorRegistry registry;
  return registry;
}

Error DeviceAllocatorRegistry::register_allocator(DeviceAllocator* allocator) {
  if (allocator == nullptr) {
    return Error(ErrorCode::InvalidArgument, "cannot register a null device allocator");
  }
  const DeviceType type = allocator->device_type();
  if (!is_known_device_type(static_cast<int>(type))) {
    return Error(ErrorCode::InvalidArgument,
                 "cannot register an allocator for device type " + device_type_name(type));
  }
  DeviceAllocator* expected = nullptr;
  if (!slots_[slot_of(type)].compare_exchange_strong(expected, allocator,
                                                     std::memory_order_acq_rel)) {
    return Error(ErrorCode::AlreadyRegistered,
                 "a device allocator is already registered for " + device_type_name(type));
  }
  return Error::success();
}

Error DeviceAllocatorRegistry::unregister_allocator(DeviceAllocator* allocator) {
  if (allocator == nullptr) {
    return Error(ErrorCode::InvalidArgument, "cannot unregister a null device allocator");
  }
  const DeviceType type = allocator->device_type();
  if (!is_known_device_type(static_cast<int>(type))) {
    return Error(ErrorCode::NotFound, "no slot for device type " + device_type_name(type));
  }
  DeviceAllocator* expected = allocator;
  if (!slots_[slot_of(type)].compare_exchange_strong(expected, nullptr,
                                                     std::memory_order_acq_rel)) {
    return Error(ErrorCode::NotFound,
                 "this allocator is not the one registered for " + device_type_name(type));
  }
  return Error::success();
}

DeviceAllocator* DeviceAllocatorRegistry::get(DeviceType type) const {
  if (!is_known_device_type(static_cast<int>(type))) return nullptr;
  return slots_[slot_of(type)].load(std::memory_order_acquire);
}

DeviceAllocator* DeviceAllocatorRegistry::exchange(DeviceType type, DeviceAllocator* allocator) {
  if (!is_known_device_type(static_cast<int>(type))) return nullptr;
  return slots_[slot_of(type)].exchange(allocator, std::memory_order_acq_rel);
}

Error register_device_allocator(DeviceAllocator* allocator) {
  return DeviceAllocatorRegistry::global().register_allocator(allocator);
}

DeviceAllocator* get_device_allocator(DeviceType type) {
  return DeviceAllocatorRegistry::global().get(type);
}

ScopedDeviceAllocator::ScopedDeviceAllocator(DeviceAllocator* allocator,
                                             DeviceAllocatorRegistry& registry)
    : ScopedDeviceAllocator(allocator ? allocator->device_type() : DeviceType::CUDA, allocator,
                            registry) {}

ScopedDeviceAllocator::ScopedDeviceAllocator(DeviceType type, DeviceAllocator* allocator,
                                             DeviceAllocatorRegistry& registry)
    : registry_(registry), type_(type), previous_(registry.exchange(type, allocator)) {}

ScopedDeviceAllocator::~ScopedDeviceAllocator() { registry_.exchange(type_, previous_); }

}  // namespace devplan
