// Memory planning of one method: device propagation, lifetimes, then one offset plan per device
// partition, each in its own buffer. The result holds everything an emitter needs to write the
// method into a program file:
//   - the graph after copy insertion (tensors, inputs, outputs, nodes in execution order);
//   - per tensor: device, user-facing buffer index, byte offset, nbytes;
//   - per method: buffer sizes and devices in file order (non_const_buffer_sizes with the
//     reserved slot 0, and the sparse non_const_buffer_device list).
//
// Buffers are numbered CPU first, then devices by (type, index). File slot 0 is reserved, so
// user-facing buffer i is file slot i + 1; without CPU tensors the first device buffer is
// slot 1. A method without planned tensors gets one zero-size CPU buffer ([0, 0]).
//
//   Result<MethodMemoryPlan> plan = plan_method(graph);   // algorithm `best`
//   plan->non_const_buffer_sizes();    // [0, 32, 48]
//   plan->non_const_buffer_devices();  // [{2, cuda:0}]
//   plan->tensors[t].offset;
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/result.h>
#include <runtime_ext/planning/device_propagation.h>
#include <runtime_ext/planning/graph.h>
#include <runtime_ext/planning/lifetime.h>
#include <runtime_ext/planning/offset_planner.h>

namespace devplan {

struct PlanOptions {
  PlannerAlgorithm algorithm = PlannerAlgorithm::Best;
  uint64_t alignment = 0;  // 0: the graph's own Graph::alignment
  PropagationOptions propagation;
  uint64_t seed = kDefaultPlannerSeed;
  int64_t search_iterations = -1;  // per device partition; negative: default_search_iterations
  int64_t budget_steps = -1;       // exact search nodes per partition; negative: the default
};

struct PlannedTensor {
  Device device;              // where the tensor lives (its buffer's device)
  bool planned = false;       // false: the tensor has no lifetime and takes no bytes
  uint32_t buffer_index = 0;  // user-facing buffer (file memory_id - 1)
  uint64_t offset = 0;        // byte offset within the buffer, a multiple of the alignment
  uint64_t nbytes = 0;        // the tensor's bytes (unaligned)
  Lifetime lifetime;
};

struct PlannedBuffer {
  Device device;
  uint64_t size = 0;         // bytes
  uint64_t lower_bound = 0;  // largest total of aligned live bytes at one step on this device
  // Proven: no plan of this buffer's tensors is smaller (>= lower_bound; the exact search's
  // bound with exact and best). size == proven_bound: the plan is optimal.
  uint64_t proven_bound = 0;
  PlannerAlgorithm algorithm = PlannerAlgorithm::Naive;  // the algorithm whose plan was kept
  size_t num_tensors = 0;                                // planned tensors in this buffer
};

// One entry of the file's sparse non_const_buffer_device list.
struct BufferDeviceEntry {
  int32_t buffer_idx = 0;  // file slot (user-facing index + 1), >= 1
  Device device;
  friend bool operator==(const BufferDeviceEntry& a, const BufferDeviceEntry& b) {
    return a.buffer_idx == b.buffer_idx && a.device == b.device;
  }
};

struct MethodMemoryPlan {
  Graph graph;                   // after copy insertion
  std::vector<int32_t> copy_of;  // per tensor: the tensor it copies, or -1
  size_t num_h2d_copies = 0;
  size_t num_d2h_copies = 0;
  uint64_t alignment = kDefaultAlignment;
  std::vector<PlannedTensor> tensors;  // parallel to graph.tensors
  std::vector<PlannedBuffer> buffers;  // user-facing order; never empty

  const std::string& method() const { return graph.name; }

  // The file's non_const_buffer_sizes: 0 for the reserved slot, then each buffer's size.
  std::vector<int64_t> non_const_buffer_sizes() const;

  // The file's non_const_buffer_device list: one entry per non-CPU buffer, in slot order.
  // Empty when every buffer is on the CPU.
  std::vector<BufferDeviceEntry> non_const_buffer_devices() const;

  // The user-facing index of the buffer on `device`, or -1 when there is none.
  int32_t buffer_index_for(Device device) const;

  // Sum of buffer sizes.
  uint64_t total_bytes() const;
};

// Propagates devices (propagate_devices' errors), then plans. InvalidArgument when the
// alignment is not a power of two; OutOfResources when a partition's sizes overflow uint64.
// Deterministic: the same graph and options give the same plan.
Result<MethodMemoryPlan> plan_method(const Graph& graph, const PlanOptions& options = {});

// Plans a graph whose devices are already decided (a DeviceGraph from propagate_devices).
Result<MethodMemoryPlan> plan_device_graph(const DeviceGraph& graph,
                                           const PlanOptions& options = {});

// Plans each method; the error of the first method that fails, prefixed by nothing more (the
// messages name their method already). InvalidArgument when two methods share a name.
Result<std::vector<MethodMemoryPlan>> plan_methods(const std::vector<Graph>& graphs,
                                                   const PlanOptions& options = {});

}  // namespace devplan
