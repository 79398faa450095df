// DeviceAllocatorRegistry: one DeviceAllocator slot per DeviceType.
//
//   DEVPLAN_RETURN_IF_ERROR(register_device_allocator(&cuda_allocator));
//   DeviceAllocator* a = get_device_allocator(DeviceType::CUDA);   // nullptr when none
//
//   {  // in a test: install for a scope, restore whatever was there before
//     ScopedDeviceAllocator scoped(&tracking);
//     ...
//   }
//
// Ownership: the registry stores pointers and owns nothing; an allocator must outlive every
// registration of it and every buffer it allocated.
//
// Threading contract: get() may be called from any number of threads at once, also while
// another thread registers, unregisters or swaps a slot (ScopedDeviceAllocator). Each slot is
// one atomic pointer: a lookup returns either the allocator installed before the change or the
// one after it, never a torn value. Which of the two a racing lookup sees is unspecified, so a
// test that swaps allocators must keep both alive until its other threads have stopped looking.
// Buffers remember the allocator that made them, so a swap never redirects a free.
#pragma once

#include <atomic>

#include <runtime_ext/core/device_allocator.h>

namespace devplan {

class DeviceAllocatorRegistry {
 public:
  DeviceAllocatorRegistry();
  DeviceAllocatorRegistry(const DeviceAllocatorRegistry&) = delete;
  DeviceAllocatorRegistry& operator=(const DeviceAllocatorRegistry&) = delete;

  // The process-wide registry used by DeviceMemoryBuffer::create and Module.
  static DeviceAllocatorRegistry& global();

  // Installs `allocator` for its device_type(). InvalidArgument for nullptr or an unknown
  // device type; AlreadyRegistered when the slot holds another allocator (registering the
  // same allocator twice is also AlreadyRegistered).
  Error register_allocator(DeviceAllocator* allocator);

  // Clears the slot of `type` if it holds `allocator`. NotFound otherwise.
  Error unregister_allocator(DeviceAllocator* allocator);

  // The allocator for `type`, or nullptr when none is registered or the type is unknown.
  DeviceAllocator* get(DeviceType type) const;

  // Replaces the slot of `type` unconditionally and returns what was there (nullptr allowed
  // both ways). Used by ScopedDeviceAllocator; prefer register_allocator elsewhere.
  DeviceAllocator* exchange(DeviceType type, DeviceAllocator* allocator);

 private:
  std::atomic<DeviceAllocator*> slots_[kNumDeviceTypes];
};

// Shorthands for the global registry.
Error register_device_allocator(DeviceAllocator* allocator);
DeviceAllocator* get_device_allocator(DeviceType type);

// Installs an allocator in a registry for the lifetime of this object and then restores the
// previous one (which may be none). Not copyable or movable.
class ScopedDeviceAllocator {
 public:
  explicit ScopedDeviceAllocator(DeviceAllocator* allocator, DeviceAllocatorRegistry& registry =
                                                                 DeviceAllocatorRegistry::global());
  // Installs `allocator` (may be nullptr, to hide a registered one) for `type`.
  ScopedDeviceAllocator(DeviceType type, DeviceAllocator* allocator,
                        DeviceAllocatorRegistry& registry = DeviceAllocatorRegistry::global());
  ~ScopedDeviceAllocator();
  ScopedDeviceAllocator(const ScopedDeviceAllocator&) = delete;
  ScopedDeviceAllocator& operator=(const ScopedDeviceAllocator&) = delete;

  DeviceAllocator* previous() const { return previous_; }

 private:
  DeviceAllocatorRegistry& registry_;
  DeviceType type_;
  DeviceAllocator* previous_;
};

}  // namespace devplan
