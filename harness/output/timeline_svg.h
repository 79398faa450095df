// The allocation timeline of `devplan simulate --timeline-svg`: live device bytes over the
// allocation sequence, one line per device; each leaked allocation marked where it was made
// (a red circle, <circle class="leak">, with a <title> giving its report line) and failed
// allocations marked with a cross (<path class="failed">). Each device's line is
// <polyline class="device-line" data-device="cuda:0">.
#pragma once

#include <string>
#include <vector>

#include <mocks/recording_device_allocator.h>
#include <mocks/tracking_device_allocator.h>

namespace devplan::harness {

std::string timeline_svg(const std::string& title, const std::vector<AllocationEvent>& events,
                         const std::vector<AllocationRecord>& leaks);

}  // namespace devplan::harness
