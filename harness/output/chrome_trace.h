// Chrome trace-event JSON (the format chrome://tracing and Perfetto open) of the simulated
// allocations (`devplan simulate --trace OUT.json`) and of a memory plan's tensor lifetimes
// (`devplan plot --trace OUT.json`). The document, event by event: docs/chrome-trace.md.
#pragma once

#include <string>
#include <vector>

#include <harness/output/plan_svg.h>
#include <mocks/recording_device_allocator.h>
#include <mocks/tracking_device_allocator.h>

namespace devplan::harness {

std::string allocation_trace(const std::string& title, const std::vector<AllocationEvent>& events,
                             const std::vector<AllocationRecord>& leaks);

std::string plan_trace(const std::string& title, const std::vector<PlotMethod>& methods);

}  // namespace devplan::harness
