// Device memory a caller supplies to a method: skip-copy programs leave their device inputs and
// outputs unplanned (runtime-bound), and whoever runs the method allocates them. The harness
// does it the way a caller would, through the device's allocator, with the owner
// "<method>/input <i>" or "<method>/output <i>", so they appear in the ledger like every other
// allocation; the DeviceMemoryBuffer frees it.
//
//   Result<DeviceMemoryBuffer> m = allocate_caller_memory(env.allocators(), 64, Device::cuda(0),
//                                                         "forward/input 0");
//   fill_caller_memory(*m, host_bytes.data(), host_bytes.size());
#pragma once

#include <cstddef>
#include <string>

#include <runtime_ext/core/device_memory_buffer.h>

namespace devplan::harness {

// `nbytes` on `device` through `registry`'s allocator, recorded with `owner`; errors name it.
Result<DeviceMemoryBuffer> allocate_caller_memory(const DeviceAllocatorRegistry& registry,
                                                  size_t nbytes, Device device,
                                                  const std::string& owner);

// Copies `nbytes` (at most memory.size()) of host memory in through its allocator.
Error fill_caller_memory(const DeviceMemoryBuffer& memory, const void* host, size_t nbytes);

}  // namespace devplan::harness
