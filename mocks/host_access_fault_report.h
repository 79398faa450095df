// ScopedHostAccessFaultReport: names the device block behind a host access that faults on
// unbacked simulated device memory. Unbacked blocks (DeviceBacking::Unbacked) are inaccessible
// address ranges: the allocator's copies back the pages they touch, but code that reads or
// writes a device pointer directly on the host (a kernel running on the wrong side, a runtime
// that memcpys an initial value into device memory) gets SIGSEGV, as it would on a real GPU.
// While this object lives, such a fault first prints one line to stderr:
//
//   devplan: host access to unbacked device memory at 0x7f3a00001000: byte 4096 of
//   #1 cuda:0 17179869184 B (16.0 GiB) align 16 owner forward/buffer 1; device memory is
//   reachable only through the allocator's copies (--backing host lets host accesses through)
//
// (one line), then lets the fault proceed to the previous handler (the default action kills
// the process with SIGSEGV; a parent sees the signal and the line). Faults elsewhere print
// nothing. One report is active at a time per process; the previous SIGSEGV action is restored
// by the destructor.
#pragma once

#include <signal.h>

#include <mocks/tracking_device_allocator.h>

namespace devplan {

class ScopedHostAccessFaultReport {
 public:
  explicit ScopedHostAccessFaultReport(const TrackingDeviceAllocator* allocator);
  ~ScopedHostAccessFaultReport();
  ScopedHostAccessFaultReport(const ScopedHostAccessFaultReport&) = delete;
  ScopedHostAccessFaultReport& operator=(const ScopedHostAccessFaultReport&) = delete;

 private:
  struct sigaction previous_ {};
  bool installed_ = false;
};

}  // namespace devplan
