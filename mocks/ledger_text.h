// The whole ledger of a TrackingDeviceAllocator as text: every allocate() call in sequence
// order, successful and failed, for the failure messages of test fixtures.
//
//   #1 cuda:0 48 B align 8 owner -  freed
//   #2 cuda:0 32 B align 8 owner forward/buffer 2  LIVE
//   #3 cuda:0 16 B align 8 owner -  FAILED MemoryAllocationFailed: <reason>
//
// (a success is format_allocation()'s line and its state; a failure the same fields, its code
// and allocate()'s message).
#pragma once

#include <string>
#include <vector>

#include <mocks/tracking_device_allocator.h>

namespace devplan {

std::vector<std::string> ledger_report_lines(const TrackingDeviceAllocator& tracking);

}  // namespace devplan
