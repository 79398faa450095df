// Properties of the memory planner (runtime_ext/planning) over graphs from its own seeded
// generator (graph_gen.h: chains, fan-out, residuals, U-Nets, attention, random DAGs, with
// delegates on random devices), and of the offset planners over arbitrary items.
#include <algorithm>
#include <map>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <runtime_ext/module/module.h>
#include <runtime_ext/planning/graph_gen.h>
#include <runtime_ext/planning/memory_plan.h>
#include <runtime_ext/planning/plan_verifier.h>
#include <runtime_ext/planning/program_emitter.h>
#include <runtime_ext/program/program.h>

#include "property.h"
#include "simulated_devices.h"

namespace devplan {

struct PlannerCase {
  GraphGenOptions graph;
  bool skip_h2d_for_method_inputs = false;
  bool skip_d2h_for_method_outputs = false;
  uint64_t alignment = kDefaultAlignment;
  // The local search's budget. Small: the properties hold for any budget, and the default one
  // (thousands of iterations on small partitions) would make a case cost seconds.
  int64_t search_iterations = 0;

  PlanOptions plan_options(PlannerAlgorithm algorithm) const {
    PlanOptions o;
    o.algorithm = algorithm;
    o.alignment = alignment;
    o.search_iterations = search_iterations;
    o.budget_steps = 5000;  // exact and best alike: exact <= best holds at equal budgets
    o.propagation.skip_h2d_for_method_inputs = skip_h2d_for_method_inputs;
    o.propagation.skip_d2h_for_method_outputs = skip_d2h_for_method_outputs;
    return o;
  }
};

void showValue(const PlannerCase& c, std::ostream& os) {
  os << "graph " << graph_family_name(c.graph.family) << ", " << c.graph.num_tensors
     << " tensors, seed " << c.graph.seed << ", " << c.graph.num_devices
     << " devices, delegate fraction " << c.graph.delegate_fraction << "; alignment " << c.alignment
     << ", " << c.search_iterations << " search iterations"
     << (c.skip_h2d_for_method_inputs ? ", skip_h2d_for_method_inputs" : "")
     << (c.skip_d2h_for_method_outputs ? ", skip_d2h_for_method_outputs" : "");
}

void showValue(const PlanItem& item, std::ostream& os) {
  os << "{" << item.size << " B, steps " << item.first << ".." << item.last << "}";
}

namespace testing {
namespace {

rc::Gen<PlannerCase> gen_planner_case() {
  return rc::gen::build<PlannerCase>(
      rc::gen::set(
          &PlannerCase::graph,
          rc::gen::build<GraphGenOptions>(
              rc::gen::set(&GraphGenOptions::family, rc::gen::elementOf(all_graph_families())),
              rc::gen::set(&GraphGenOptions::num_tensors, rc::gen::inRange<size_t>(2, 201)),
              rc::gen::set(&GraphGenOptions::seed, rc::gen::inRange<uint64_t>(0, 1u << 30)),
              rc::gen::set(&GraphGenOptions::num_devices, rc::gen::inRange(0, 5)),
              rc::gen::set(&GraphGenOptions::delegate_fraction,
                           rc::gen::element(0.3, 0.1, 0.6, 1.0)))),
      rc::gen::set(&PlannerCase::skip_h2d_for_method_inputs, rc::gen::arbitrary<bool>()),
      rc::gen::set(&PlannerCase::skip_d2h_for_method_outputs, rc::gen::arbitrary<bool>()),
      rc::gen::set(&PlannerCase::alignment, rc::gen::element<uint64_t>(16, 1, 8, 64, 256)),
      rc::gen::set(&PlannerCase::search_iterations, rc::gen::inRange<int64_t>(0, 257)));
}

MethodMemoryPlan plan_or_fail(const Graph& graph, const PlannerCase& c,
                              PlannerAlgorithm algorithm) {
  Result<MethodMemoryPlan> plan = plan_method(graph, c.plan_options(algorithm));
  if (!plan.ok())
    RC_FAIL(std::string(planner_algorithm_name(algorithm)) + ": " + plan.error().to_string());
  return std::move(plan).value();
}

uint64_t aligned(uint64_t n, uint64_t alignment) {
  uint64_t out = 0;
  RC_ASSERT(align_up(n, alignment, &out));
  return out;
}

// Largest total of aligned sizes of the tensors of buffer `b` live at one step, computed
// directly from the plan's lifetimes.
uint64_t lower_bound_of(const MethodMemoryPlan& plan, size_t b) {
  int32_t last_step = 0;
  for (const PlannedTensor& t : plan.tensors) last_step = std::max(last_step, t.lifetime.last);
  uint64_t best = 0;
  for (int32_t step = 0; step <= last_step; ++step) {
    uint64_t live = 0;
    for (const PlannedTensor& t : plan.tensors) {
      if (t.planned && t.buffer_index == b && t.lifetime.first <= step && step <= t.lifetime.last) {
        live += aligned(t.nbytes, plan.alignment);
      }
    }
    best = std::max(best, live);
  }
  return best;
}

// Every field of a plan, as bytes.
std::string plan_bytes(const MethodMemoryPlan& plan) {
  std::ostringstream os;
  os << plan.method() << "|" << plan.alignment << "|" << plan.num_h2d_copies << "|"
     << plan.num_d2h_copies << "\n";
  for (const GraphTensor& t : plan.graph.tensors) {
    os << t.id << ":" << static_cast<int>(t.dtype) << ":" << t.nbytes << ";";
  }
  os << "\n";
  for (const Node& n : plan.graph.nodes) {
    os << n.label() << "(";
    for (int32_t i : n.inputs) os << i << ",";
    os << ")->(";
    for (int32_t o : n.outputs) os << o << ",";
    os << ");";
  }
  os << "\n";
  for (size_t t = 0; t < plan.tensors.size(); ++t) {
    const PlannedTensor& p = plan.tensors[t];
    os << t << ":" << p.device << ":" << p.planned << ":" << p.buffer_index << ":" << p.offset
       << ":" << p.nbytes << ":" << p.lifetime.first << ".." << p.lifetime.last << ":"
       << plan.copy_of[t] << ";";
  }
  os << "\n";
  for (const PlannedBuffer& b : plan.buffers) {
    os << b.device << ":" << b.size << ":" << b.lower_bound << ":"
       << planner_algorithm_name(b.algorithm) << ":" << b.num_tensors << ";";
  }
  for (int64_t s : plan.non_const_buffer_sizes()) os << s << ",";
  for (const BufferDeviceEntry& e : plan.non_const_buffer_devices())
    os << e.buffer_idx << "@" << e.device << ",";
  return os.str();
}

// Every plan, whatever the algorithm, passes the independent plan verifier.
DEVPLAN_PROP(Planner, EveryPlanPassesTheVerifier, ()) {
  const PlannerCase c = *gen_planner_case();
  const Graph graph = generate_graph(c.graph);
  for (PlannerAlgorithm algorithm : all_planner_algorithms()) {
    const MethodMemoryPlan plan = plan_or_fail(graph, c, algorithm);
    const std::vector<PlanViolation> violations = verify_plan(plan);
    if (!violations.empty()) {
      RC_FAIL(std::string(planner_algorithm_name(algorithm)) + ": " +
              std::to_string(violations.size()) + " violations, first: " + violations[0].message);
    }
  }
}

// No buffer mixes devices: one buffer per device (CPU first, then by type and index), every
// planned tensor in the buffer of its device, every node's operands on the device it runs on,
// and the file's device list naming exactly the non-CPU buffers.
DEVPLAN_PROP(Planner, NoBufferMixesDevices, ()) {
  const PlannerCase c = *gen_planner_case();
  const MethodMemoryPlan plan = plan_or_fail(generate_graph(c.graph), c, PlannerAlgorithm::Best);
  RC_ASSERT(!plan.buffers.empty());
  for (size_t b = 1; b < plan.buffers.size(); ++b)
    RC_ASSERT(plan.buffers[b - 1].device < plan.buffers[b].device);
  std::vector<size_t> count(plan.buffers.size(), 0);
  for (const PlannedTensor& t : plan.tensors) {
    if (!t.planned) continue;
    RC_ASSERT(t.buffer_index < plan.buffers.size());
    RC_ASSERT(plan.buffers[t.buffer_index].device == t.device);
    ++count[t.buffer_index];
  }
  for (size_t b = 0; b < plan.buffers.size(); ++b)
    RC_ASSERT(plan.buffers[b].num_tensors == count[b]);
  for (const Node& n : plan.graph.nodes) {
    const Device runs_on = n.execution_device();
    if (n.kind == NodeKind::Kernel && n.op == kH2dCopyOp) {
      RC_ASSERT(plan.tensors[n.inputs[0]].device.is_cpu());
      RC_ASSERT(!plan.tensors[n.outputs[0]].device.is_cpu());
      continue;
    }
    if (n.kind == NodeKind::Kernel && n.op == kD2hCopyOp) {
      RC_ASSERT(!plan.tensors[n.inputs[0]].device.is_cpu());
      RC_ASSERT(plan.tensors[n.outputs[0]].device.is_cpu());
      continue;
    }
    for (int32_t t : n.inputs) RC_ASSERT(plan.tensors[t].device == runs_on);
    for (int32_t t : n.outputs) RC_ASSERT(plan.tensors[t].device == runs_on);
  }
  if (!c.skip_d2h_for_method_outputs) {
    for (int32_t t : plan.graph.outputs) RC_ASSERT(plan.tensors[t].device.is_cpu());
  }
  std::vector<BufferDeviceEntry> expected;
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    if (!plan.buffers[b].device.is_cpu())
      expected.push_back({static_cast<int32_t>(b + 1), plan.buffers[b].device});
  }
  RC_ASSERT(plan.non_const_buffer_devices() == expected);
}

// Every buffer is at least its lower bound (the most aligned bytes live at one step, computed
// here from the plan's lifetimes), and reports that bound.
DEVPLAN_PROP(Planner, EveryBufferIsAtLeastItsLowerBound, ()) {
  const PlannerCase c = *gen_planner_case();
  const Graph graph = generate_graph(c.graph);
  for (PlannerAlgorithm algorithm : all_planner_algorithms()) {
    const MethodMemoryPlan plan = plan_or_fail(graph, c, algorithm);
    for (size_t b = 0; b < plan.buffers.size(); ++b) {
      const uint64_t bound = lower_bound_of(plan, b);
      RC_ASSERT(plan.buffers[b].lower_bound == bound);
      RC_ASSERT(plan.buffers[b].size >= bound);
    }
  }
}

// best <= greedy <= naive, buffer by buffer; best is also no larger than any other algorithm,
// and naive is exactly the sum of the aligned sizes (no reuse).
DEVPLAN_PROP(Planner, BestNoLargerThanGreedyNoLargerThanNaive, ()) {
  const PlannerCase c = *gen_planner_case();
  const Graph graph = generate_graph(c.graph);
  std::map<PlannerAlgorithm, MethodMemoryPlan> plans;
  for (PlannerAlgorithm algorithm : all_planner_algorithms())
    plans.emplace(algorithm, plan_or_fail(graph, c, algorithm));
  const MethodMemoryPlan& naive = plans.at(PlannerAlgorithm::Naive);
  const MethodMemoryPlan& greedy = plans.at(PlannerAlgorithm::Greedy);
  const MethodMemoryPlan& best = plans.at(PlannerAlgorithm::Best);
  const MethodMemoryPlan& exact = plans.at(PlannerAlgorithm::Exact);
  for (const auto& [algorithm, plan] : plans)
    RC_ASSERT(plan.buffers.size() == naive.buffers.size());
  for (size_t b = 0; b < naive.buffers.size(); ++b) {
    RC_ASSERT(best.buffers[b].device == naive.buffers[b].device);
    // exact <= best <= greedy <= naive; best no larger than any heuristic; every bound below
    // every plan.
    RC_ASSERT(exact.buffers[b].size <= best.buffers[b].size);
    RC_ASSERT(best.buffers[b].size <= greedy.buffers[b].size);
    RC_ASSERT(greedy.buffers[b].size <= naive.buffers[b].size);
    for (const auto& [algorithm, plan] : plans) {
      if (algorithm != PlannerAlgorithm::Exact) {
        RC_ASSERT(best.buffers[b].size <= plan.buffers[b].size);
      }
      RC_ASSERT(plan.buffers[b].proven_bound >= plan.buffers[b].lower_bound);
      RC_ASSERT(plan.buffers[b].proven_bound <= exact.buffers[b].size);
    }
    uint64_t sum = 0;
    for (const PlannedTensor& t : naive.tensors) {
      if (t.planned && t.buffer_index == b) sum += aligned(t.nbytes, naive.alignment);
    }
    RC_ASSERT(naive.buffers[b].size == sum);
  }
  RC_ASSERT(best.total_bytes() <= greedy.total_bytes());
  RC_ASSERT(greedy.total_bytes() <= naive.total_bytes());
}

std::vector<uint8_t> emit_or_fail(const MethodMemoryPlan& plan) {
  Result<std::vector<uint8_t>> bytes = emit_program({plan});
  if (!bytes.ok()) RC_FAIL("emit_program: " + bytes.error().to_string());
  return std::move(bytes).value();
}

// The same graph planned twice, or generated again from the same options and planned, gives
// an identical plan and identical program bytes.
DEVPLAN_PROP(Planner, SameGraphTwiceGivesIdenticalBytes, ()) {
  const PlannerCase c = *gen_planner_case();
  const PlannerAlgorithm algorithm = *rc::gen::elementOf(all_planner_algorithms());
  const Graph graph = generate_graph(c.graph);
  const MethodMemoryPlan plan = plan_or_fail(graph, c, algorithm);
  const std::string first = plan_bytes(plan);
  const std::vector<uint8_t> program = emit_or_fail(plan);
  const MethodMemoryPlan again = plan_or_fail(graph, c, algorithm);
  RC_ASSERT(plan_bytes(again) == first);
  RC_ASSERT(emit_or_fail(again) == program);
  const MethodMemoryPlan regenerated = plan_or_fail(generate_graph(c.graph), c, algorithm);
  RC_ASSERT(plan_bytes(regenerated) == first);
  RC_ASSERT(emit_or_fail(regenerated) == program);
}

// An emitted plan reads back with the planned buffer sizes and devices, its tensors where the
// plan put them, and load_method allocates exactly the plan's non-CPU, non-empty buffers.
DEVPLAN_PROP(Planner, EmittedProgramLoadsWithThePlannedBuffers, ()) {
  const PlannerCase c = *gen_planner_case();
  const MethodMemoryPlan plan = plan_or_fail(generate_graph(c.graph), c, PlannerAlgorithm::Best);
  const std::vector<uint8_t> bytes = emit_or_fail(plan);
  Result<Program> program =
      Program::load_from_bytes(Span<const uint8_t>(bytes.data(), bytes.size()));
  RC_ASSERT(program.ok());
  Result<MethodMeta> meta = program->method_meta(plan.method());
  RC_ASSERT(meta.ok());
  RC_ASSERT(meta->num_memory_planned_buffers() == plan.buffers.size());
  std::multiset<AllocationKey> expected;
  for (size_t b = 0; b < plan.buffers.size(); ++b) {
    RC_ASSERT(meta->memory_planned_buffer_size(b).value() ==
              static_cast<int64_t>(plan.buffers[b].size));
    RC_ASSERT(meta->memory_planned_buffer_device(b).value() == plan.buffers[b].device);
    if (!plan.buffers[b].device.is_cpu() && plan.buffers[b].size > 0) {
      expected.emplace(plan.method() + "/buffer " + std::to_string(b),
                       plan.buffers[b].device.to_string(), plan.buffers[b].size);
    }
  }
  // Every planned tensor of the program sits where the plan put it.
  std::multiset<std::tuple<uint32_t, uint64_t, uint64_t, std::string>> planned, read;
  for (const PlannedTensor& t : plan.tensors) {
    if (t.planned) planned.emplace(t.buffer_index, t.offset, t.nbytes, t.device.to_string());
  }
  for (const ValueInfo& v : meta->plan().values) {
    if (v.tag == ValueTag::Tensor && v.tensor.is_planned()) {
      read.emplace(v.tensor.buffer_index, v.tensor.offset, v.tensor.nbytes,
                   v.tensor.device.to_string());
    }
  }
  RC_ASSERT(read == planned);
  SimulatedDevices dev;
  Module module(bytes);
  RC_ASSERT(module.load_method(plan.method()).ok());
  RC_ASSERT(live_allocations(dev.cuda) == expected);
  RC_ASSERT(module.unload_method(plan.method()).ok());
  RC_ASSERT(dev.cuda.live_count() == 0u);
  RC_ASSERT(!dev.cuda.has_misuse());
}

rc::Gen<PlanItem> gen_item() {
  return rc::gen::mapcat(rc::gen::inRange<int32_t>(-1, 24), [](int32_t first) {
    return rc::gen::map(
        rc::gen::pair(rc::gen::weightedOneOf<uint64_t>({{6, rc::gen::inRange<uint64_t>(1, 4097)},
                                                        {1, rc::gen::just<uint64_t>(0)}}),
                      rc::gen::inRange<int32_t>(0, 12)),
        [first](const std::pair<uint64_t, int32_t>& p) {
          return PlanItem{p.first, first, first < 0 ? -1 : first + p.second};
        });
  });
}

// The offset planners on arbitrary items: every plan passes verify_offsets, is at least the
// lower bound, and best <= greedy <= naive.
DEVPLAN_PROP(OffsetPlanner, ArbitraryItemsGetValidCompactPlans, ()) {
  const std::vector<PlanItem> items = *rc::gen::container<std::vector<PlanItem>>(gen_item());
  OffsetPlannerOptions options;
  options.alignment = *rc::gen::element<uint64_t>(16, 1, 8, 256);
  options.search_iterations = *rc::gen::inRange<int64_t>(0, 257);
  options.budget_steps = *rc::gen::inRange<int64_t>(0, 3001);
  const uint64_t bound = live_bytes_lower_bound(items, options.alignment);
  std::map<PlannerAlgorithm, uint64_t> sizes;
  for (PlannerAlgorithm algorithm : all_planner_algorithms()) {
    Result<OffsetPlan> plan = plan_offsets(items, algorithm, options);
    RC_ASSERT(plan.ok());
    RC_ASSERT(plan->offsets.size() == items.size());
    const std::vector<PlanViolation> violations =
        verify_offsets(items, plan->offsets, plan->size, options.alignment);
    if (!violations.empty())
      RC_FAIL(std::string(planner_algorithm_name(algorithm)) + ": " + violations[0].message);
    RC_ASSERT(plan->size >= bound);
    RC_ASSERT(plan->lower_bound >= bound);
    RC_ASSERT(plan->lower_bound <= plan->size);
    sizes[algorithm] = plan->size;
  }
  RC_ASSERT(sizes[PlannerAlgorithm::Exact] <= sizes[PlannerAlgorithm::Best]);
  RC_ASSERT(sizes[PlannerAlgorithm::Best] <= sizes[PlannerAlgorithm::Greedy]);
  RC_ASSERT(sizes[PlannerAlgorithm::Greedy] <= sizes[PlannerAlgorithm::Naive]);
  for (const auto& [algorithm, size] : sizes) {
    if (algorithm != PlannerAlgorithm::Exact) RC_ASSERT(sizes[PlannerAlgorithm::Best] <= size);
  }
}

// The overlap search reports exactly the pairs that share a step and a byte, against every
// pair checked by hand. The items mix shapes the sweep must not lose: a few long-lived large
// items beside many short small ones, byte ranges that touch (one starts where another ends)
// and lifetimes that touch (one starts at the step another ends: they share that step).
DEVPLAN_PROP(Verifier, OverlapsAreExactlyThePairsSharingAStepAndAByte, ()) {
  const size_t n = *rc::gen::inRange<size_t>(1, 40);
  std::vector<PlanItem> items(n);
  std::vector<uint64_t> offsets(n);
  const uint64_t unit = *rc::gen::element<uint64_t>(1, 16);
  for (size_t i = 0; i < n; ++i) {
    const bool long_lived = *rc::gen::inRange(0, 8) == 0;
    PlanItem& it = items[i];
    it.first = *rc::gen::inRange<int32_t>(0, 30);
    it.last = it.first +
              (long_lived ? *rc::gen::inRange<int32_t>(10, 40) : *rc::gen::inRange<int32_t>(0, 3));
    it.size = unit *
              (long_lived ? *rc::gen::inRange<uint64_t>(8, 64) : *rc::gen::inRange<uint64_t>(0, 6));
    if (i > 0 && *rc::gen::inRange(0, 3) == 0) {
      // Touch an earlier item: start where its bytes end, or at its last step.
      const size_t j = *rc::gen::inRange<size_t>(0, i);
      offsets[i] = offsets[j] + items[j].size;
      if (*rc::gen::arbitrary<bool>()) it.first = items[j].last;
      it.last = std::max(it.last, it.first);
    } else {
      offsets[i] = unit * *rc::gen::inRange<uint64_t>(0, 64);
    }
  }
  std::set<std::pair<int32_t, int32_t>> expected;
  for (size_t a = 0; a < n; ++a) {
    for (size_t b = a + 1; b < n; ++b) {
      const PlanItem& x = items[a];
      const PlanItem& y = items[b];
      const bool bytes = x.size > 0 && y.size > 0 && offsets[a] < offsets[b] + y.size &&
                         offsets[b] < offsets[a] + x.size;
      const bool steps = x.first <= y.last && y.first <= x.last;
      if (bytes && steps) expected.emplace(int32_t(a), int32_t(b));
    }
  }
  uint64_t buffer = 0;
  for (size_t i = 0; i < n; ++i) buffer = std::max(buffer, offsets[i] + items[i].size);
  std::set<std::pair<int32_t, int32_t>> found;
  int32_t previous_start = -1;
  for (const PlanViolation& v : verify_offsets(items, offsets, buffer, unit)) {
    RC_ASSERT(v.kind == PlanViolationKind::Overlap);
    // In the order the header promises: by the start of the later item.
    RC_ASSERT(items[size_t(v.other)].first >= previous_start);
    previous_start = items[size_t(v.other)].first;
    const std::pair<int32_t, int32_t> pair{std::min(v.tensor, v.other),
                                           std::max(v.tensor, v.other)};
    RC_ASSERT(found.insert(pair).second);  // each pair once
    // The later-starting item is `other`.
    RC_ASSERT(items[size_t(v.tensor)].first <= items[size_t(v.other)].first);
  }
  RC_ASSERT(found == expected);
}

}  // namespace
}  // namespace testing
}  // namespace devplan
