#include <runtime_ext/planning/memory_plan.h>

#include <map>
#include <set>

namespace devplan {

std::vector<int64_t> MethodMemoryPlan::non_const_buffer_sizes() const {
  std::vector<int64_t> sizes{0};
  for (const PlannedBuffer& b : buffers) sizes.push_back(static_cast<int64_t>(b.size));
  return sizes;
}

std::vector<BufferDeviceEntry> MethodMemoryPlan::non_const_buffer_devices() const {
  std::vector<BufferDeviceEntry> entries;
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (!buffers[i].device.is_cpu()) {
      entries.push_back(BufferDeviceEntry{static_cast<int32_t>(i + 1), buffers[i].device});
    }
  }
  return entries;
}

int32_t MethodMemoryPlan::buffer_index_for(Device device) const {
  for (size_t i = 0; i < buffers.size(); ++i) {
    if (buffers[i].device == device) return static_cast<int32_t>(i);
  }
  return -1;
}

uint64_t MethodMemoryPlan::total_bytes() const {
  uint64_t total = 0;
  for (const PlannedBuffer& b : buffers) total += b.size;
  return total;
}

namespace {

// Checks a device graph from the caller: a valid graph and one device per tensor.
Error check_device_graph(const DeviceGraph& dg) {
  const Graph& g = dg.graph;
  DEVPLAN_RETURN_IF_ERROR(validate_graph(g));
  if (dg.tensor_devices.size() != g.tensors.size()) {
    return Error(ErrorCode::InvalidArgument,
                 "method '" + g.name + "': " + std::to_string(dg.tensor_devices.size()) +
                     " tensor devices for " + std::to_string(g.tensors.size()) + " tensors");
  }
  return Error::success();
}

// The plan of `dg` (checked) without its graph, which the caller copies or moves in.
Result<MethodMemoryPlan> plan_all_but_graph(const DeviceGraph& dg, const PlanOptions& options) {
  const Graph& g = dg.graph;
  MethodMemoryPlan plan;
  plan.copy_of = dg.copy_of;
  plan.copy_of.resize(g.tensors.size(), -1);
  plan.num_h2d_copies = dg.num_h2d_copies;
  plan.num_d2h_copies = dg.num_d2h_copies;
  plan.alignment = options.alignment != 0 ? options.alignment : g.alignment;
  if (!is_power_of_two(plan.alignment)) {
    return Error(ErrorCode::InvalidArgument, "method '" + g.name + "': alignment " +
                                                 std::to_string(plan.alignment) +
                                                 " is not a power of two");
  }
  const std::vector<Lifetime> life = compute_lifetimes(g);
  plan.tensors.resize(g.tensors.size());
  // Partition planned tensors by device; std::map orders CPU first, then (type, index).
  std::map<Device, std::vector<int32_t>> partitions;
  for (size_t t = 0; t < g.tensors.size(); ++t) {
    PlannedTensor& pt = plan.tensors[t];
    pt.device = dg.tensor_devices[t];
    pt.nbytes = g.tensors[t].nbytes;
    pt.lifetime = life[t];
    pt.planned = life[t].planned();
    if (pt.planned) partitions[pt.device].push_back(static_cast<int32_t>(t));
  }
  if (partitions.empty()) {
    plan.buffers.push_back(PlannedBuffer{Device::cpu(), 0, 0, 0, options.algorithm, 0});
    return plan;
  }
  OffsetPlannerOptions offset_options;
  offset_options.alignment = plan.alignment;
  offset_options.seed = options.seed;
  offset_options.search_iterations = options.search_iterations;
  offset_options.budget_steps = options.budget_steps;
  for (const auto& [device, members] : partitions) {
    std::vector<PlanItem> items;
    items.reserve(members.size());
    for (int32_t t : members)
      items.push_back(PlanItem{g.tensors[t].nbytes, life[t].first, life[t].last});
    Result<OffsetPlan> op = plan_offsets(items, options.algorithm, offset_options);
    if (!op.ok()) {
      return op.error().with_context("method '" + g.name + "', device " + device.to_string());
    }
    const uint32_t index = static_cast<uint32_t>(plan.buffers.size());
    PlannedBuffer buffer;
    buffer.device = device;
    buffer.size = op->size;
    buffer.lower_bound = live_bytes_lower_bound(items, plan.alignment);
    buffer.proven_bound = op->lower_bound;
    buffer.algorithm = op->algorithm;
    buffer.num_tensors = members.size();
    plan.buffers.push_back(buffer);
    for (size_t k = 0; k < members.size(); ++k) {
      PlannedTensor& pt = plan.tensors[members[k]];
      pt.buffer_index = index;
      pt.offset = op->offsets[k];
    }
  }
  return plan;
}

}  // namespace

Result<MethodMemoryPlan> plan_device_graph(const DeviceGraph& dg, const PlanOptions& options) {
  DEVPLAN_RETURN_IF_ERROR(check_device_graph(dg));
  DEVPLAN_ASSIGN_OR_RETURN(MethodMemoryPlan plan, plan_all_but_graph(dg, options));
  plan.graph = dg.graph;
  return plan;
}

Result<MethodMemoryPlan> plan_method(const Graph& graph, const PlanOptions& options) {
  // propagate_devices validated `graph` and gives one device per tensor; the copies it inserts
  // keep the graph valid (its tests check that), so its result is not validated a second time.
  DEVPLAN_ASSIGN_OR_RETURN(DeviceGraph dg, propagate_devices(graph, options.propagation));
  DEVPLAN_ASSIGN_OR_RETURN(MethodMemoryPlan plan, plan_all_but_graph(dg, options));
  plan.graph = std::move(dg.graph);  // not copied: a million-tensor graph is costly to copy
  return plan;
}

Result<std::vector<MethodMemoryPlan>> plan_methods(const std::vector<Graph>& graphs,
                                                   const PlanOptions& options) {
  std::set<std::string> names;
  for (const Graph& g : graphs) {
    if (!names.insert(g.name).second) {
      return Error(ErrorCode::InvalidArgument, "method '" + g.name + "' is defined twice");
    }
  }
  std::vector<MethodMemoryPlan> plans;
  for (const Graph& g : graphs) {
    DEVPLAN_ASSIGN_OR_RETURN(MethodMemoryPlan plan, plan_method(g, options));
    plans.push_back(std::move(plan));
  }
  return plans;
}

}  // namespace devplan
