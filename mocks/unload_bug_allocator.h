// UnloadBugAllocator: a forwarding DeviceAllocator that frees wrongly on purpose, the way a bug
// in a runtime's unload path would. It is the leak hunter's self-test (`devplan simulate
// --inject-bug`, `devplan fuzz --inject-bug`): placed in front of a TrackingDeviceAllocator, a
// correct runtime then shows a leak, a double free or a wrong-device free, and the harness must
// report it. The runtime itself has no bug switches; the bug lives here, between it and the
// device.
//
//   TrackingDeviceAllocator tracking;
//   UnloadBugAllocator buggy(&tracking, UnloadBug::SkipFree);
//   registry.register_allocator(&buggy);   // every free through the registry is now skipped
//
// Allocations and copies are forwarded unchanged. Every deallocate() of a non-null pointer
// misbehaves as `bug` says; deallocate(nullptr) is forwarded as it is. Not thread-safe beyond
// what the upstream allocator is (it keeps no state of its own). The upstream allocator must
// outlive this one.
#pragma once

#include <cstdint>
#include <string>

#include <mocks/forwarding_device_allocator.h>

namespace devplan {

enum class UnloadBug : uint8_t {
  None,            // frees are forwarded as they are
  SkipFree,        // frees are dropped (a leak)
  DoubleFree,      // each free is forwarded twice
  WrongIndexFree,  // each free is forwarded with the next device index (index + 1, mod 128)
};

// "none", "skip-free", "double-free", "wrong-index-free".
const char* unload_bug_name(UnloadBug bug);
// The bug named `text` (one of the names above); InvalidArgument naming them otherwise.
Result<UnloadBug> parse_unload_bug(const std::string& text);

class UnloadBugAllocator final : public ForwardingDeviceAllocator {
 public:
  UnloadBugAllocator(DeviceAllocator* upstream, UnloadBug bug);

  // Allocations, copies and device_type() are forwarded unchanged.
  void deallocate(void* ptr, DeviceIndex index) override;

  UnloadBug bug() const { return bug_; }

 private:
  const UnloadBug bug_;
};

}  // namespace devplan
