#include <runtime_ext/planning/memory_plan.h>

#include <gtest/gtest.h>

#include <functional>

#include <runtime_ext/planning/graph_gen.h>
#include <runtime_ext/planning/plan_verifier.h>
#include <runtime_ext/planning/program_emitter.h>

#include "test_graphs.h"

namespace devplan {
namespace {

const PlannedTensor& tensor(const MethodMemoryPlan& plan, const std::string& id) {
  return plan.tensors.at(static_cast<size_t>(plan.graph.find_tensor(id)));
}

TEST(MemoryPlanTest, ReferenceProgramWithGreedyAndBest) {
  for (PlannerAlgorithm a : {PlannerAlgorithm::Greedy, PlannerAlgorithm::Best}) {
    PlanOptions opts;
    opts.algorithm = a;
    Result<MethodMemoryPlan> plan = plan_method(testing_graphs::reference_add(), opts);
    ASSERT_TRUE(plan.ok()) << plan.error();
    EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 32, 48}));
    EXPECT_EQ(plan->non_const_buffer_devices(),
              (std::vector<BufferDeviceEntry>{{2, Device::cuda(0)}}));
    ASSERT_EQ(plan->buffers.size(), 2u);
    EXPECT_EQ(plan->buffers[0].device, Device::cpu());
    EXPECT_EQ(plan->buffers[0].size, 32u);
    EXPECT_EQ(plan->buffers[0].lower_bound, 32u);
    EXPECT_EQ(plan->buffers[0].num_tensors, 3u);
    EXPECT_EQ(plan->buffers[0].algorithm, PlannerAlgorithm::Greedy);
    EXPECT_EQ(plan->buffers[1].device, Device::cuda(0));
    EXPECT_EQ(plan->buffers[1].size, 48u);
    EXPECT_EQ(plan->buffers[1].lower_bound, 48u);
    EXPECT_EQ(plan->buffers[1].num_tensors, 3u);
    EXPECT_EQ(plan->total_bytes(), 80u);
    EXPECT_EQ(plan->buffer_index_for(Device::cuda(0)), 1);
    EXPECT_EQ(plan->buffer_index_for(Device::cuda(1)), -1);
    EXPECT_EQ(plan->num_h2d_copies, 2u);
    EXPECT_EQ(plan->num_d2h_copies, 1u);
    EXPECT_EQ(plan->alignment, 16u);
    EXPECT_EQ(plan->method(), "forward");
    // Host: a and b side by side; the output copy reuses a's slot (a dies at step 0).
    EXPECT_EQ(tensor(*plan, "a").buffer_index, 0u);
    EXPECT_EQ(tensor(*plan, "a").offset, 0u);
    EXPECT_EQ(tensor(*plan, "b").offset, 16u);
    EXPECT_EQ(tensor(*plan, "z@cpu:0").offset, 0u);
    EXPECT_EQ(tensor(*plan, "z@cpu:0").lifetime, (Lifetime{3, 3}));
    // Device: three tensors alive together at step 2.
    EXPECT_EQ(tensor(*plan, "z").buffer_index, 1u);
    EXPECT_EQ(tensor(*plan, "z").device, Device::cuda(0));
    EXPECT_EQ(tensor(*plan, "z").offset, 0u);
    EXPECT_EQ(tensor(*plan, "a@cuda:0").offset, 16u);
    EXPECT_EQ(tensor(*plan, "b@cuda:0").offset, 32u);
    EXPECT_EQ(tensor(*plan, "b@cuda:0").nbytes, 16u);
    EXPECT_TRUE(verify_plan(*plan).empty());
  }
}

// A DeviceGraph built by hand may leave copy_of short: the tensors it does not cover copy
// nothing (-1), and the entries it has are kept.
TEST(MemoryPlanTest, ShortCopyOfIsCompletedWithNoCopy) {
  DeviceGraph dg;
  dg.graph = testing_graphs::reference_add();
  dg.tensor_devices.assign(dg.graph.tensors.size(), Device::cpu());
  dg.copy_of = {-1, 0};
  Result<MethodMemoryPlan> plan = plan_device_graph(dg);
  ASSERT_TRUE(plan.ok()) << plan.error();
  std::vector<int32_t> expected(dg.graph.tensors.size(), -1);
  expected[1] = 0;
  EXPECT_EQ(plan->copy_of, expected);
}

TEST(MemoryPlanTest, NaiveGivesEveryTensorItsOwnBytes) {
  PlanOptions opts;
  opts.algorithm = PlannerAlgorithm::Naive;
  Result<MethodMemoryPlan> plan = plan_method(testing_graphs::reference_add(), opts);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 48, 48}));
  EXPECT_EQ(plan->buffers[0].algorithm, PlannerAlgorithm::Naive);
  EXPECT_TRUE(verify_plan(*plan).empty());
}

TEST(MemoryPlanTest, WithoutHostTensorsTheFirstDeviceBufferIsSlotOne) {
  PlanOptions opts;
  opts.propagation.skip_h2d_for_method_inputs = true;
  opts.propagation.skip_d2h_for_method_outputs = true;
  Result<MethodMemoryPlan> plan = plan_method(testing_graphs::reference_add(), opts);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 48}));
  EXPECT_EQ(plan->non_const_buffer_devices(),
            (std::vector<BufferDeviceEntry>{{1, Device::cuda(0)}}));
  EXPECT_EQ(tensor(*plan, "a").buffer_index, 0u);
  EXPECT_EQ(tensor(*plan, "a").device, Device::cuda(0));
  EXPECT_TRUE(verify_plan(*plan).empty());
}

TEST(MemoryPlanTest, HostOnlyMethodHasNoDeviceList) {
  Result<MethodMemoryPlan> plan = plan_method(testing_graphs::reference_add(Device::cpu()));
  ASSERT_TRUE(plan.ok());
  // a, b at step 0 and z produced at step 0: all three overlap.
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 48}));
  EXPECT_TRUE(plan->non_const_buffer_devices().empty());
}

TEST(MemoryPlanTest, EmptyMethodGetsOneZeroSizeHostBuffer) {
  Graph empty;
  empty.name = "nothing";
  Result<MethodMemoryPlan> plan = plan_method(empty);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 0}));
  EXPECT_TRUE(plan->non_const_buffer_devices().empty());
  ASSERT_EQ(plan->buffers.size(), 1u);
  EXPECT_EQ(plan->buffers[0].device, Device::cpu());
  EXPECT_EQ(plan->buffers[0].num_tensors, 0u);
  EXPECT_TRUE(verify_plan(*plan).empty());

  // Tensors that are never defined or used are not planned: still [0, 0].
  empty.add_tensor("ghost", ScalarType::Float, {4});
  plan = plan_method(empty);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 0}));
  EXPECT_FALSE(plan->tensors[0].planned);
  EXPECT_TRUE(verify_plan(*plan).empty());
}

TEST(MemoryPlanTest, MethodWithoutNodes) {
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {3});
  g.inputs = {x};
  g.outputs = {x};
  Result<MethodMemoryPlan> plan = plan_method(g);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 16}));
  EXPECT_EQ(plan->tensors[0].nbytes, 12u);
}

TEST(MemoryPlanTest, BuffersOrderedCpuThenDevicesByIndex) {
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {8});   // 32 bytes
  const int32_t p = g.add_tensor("p", ScalarType::Float, {16});  // 64 bytes
  const int32_t q = g.add_tensor("q", ScalarType::Float, {32});  // 128 bytes
  g.inputs = {x};
  g.add_delegate("B", Device::cuda(3), {x}, {p});
  g.add_delegate("B", Device::cuda(1), {p}, {q});
  g.outputs = {q};
  PlanOptions opts;
  opts.propagation.skip_h2d_for_method_inputs = true;
  opts.propagation.skip_d2h_for_method_outputs = true;
  Result<MethodMemoryPlan> plan = plan_method(g, opts);
  ASSERT_TRUE(plan.ok());
  // cpu: p@cpu:0 (64); cuda:1: p@cuda:1 (64) + q (128) alive at step 3; cuda:3: x + p (96).
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 64, 192, 96}));
  EXPECT_EQ(plan->non_const_buffer_devices(),
            (std::vector<BufferDeviceEntry>{{2, Device::cuda(1)}, {3, Device::cuda(3)}}));
  EXPECT_EQ(tensor(*plan, "q").buffer_index, 1u);
  EXPECT_EQ(tensor(*plan, "x").buffer_index, 2u);
  EXPECT_TRUE(verify_plan(*plan).empty());
}

TEST(MemoryPlanTest, AlignmentOverrideAndErrors) {
  PlanOptions opts;
  opts.alignment = 64;
  Result<MethodMemoryPlan> plan = plan_method(testing_graphs::reference_add(), opts);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 128, 192}));
  EXPECT_EQ(plan->alignment, 64u);
  EXPECT_TRUE(verify_plan(*plan).empty());

  Graph g = testing_graphs::reference_add();
  g.alignment = 8;
  plan = plan_method(g);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->alignment, 8u);
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 32, 48}));

  opts.alignment = 48;
  plan = plan_method(testing_graphs::reference_add(), opts);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(plan.error().message(), "method 'forward': alignment 48 is not a power of two");
}

TEST(MemoryPlanTest, PartitionOverflowNamesMethodAndDevice) {
  Graph g;
  const int32_t a = g.add_tensor("a", ScalarType::Byte, {kMaxTensorDim, kMaxTensorDim, 4});
  const int32_t b = g.add_tensor("b", ScalarType::Byte, {kMaxTensorDim, kMaxTensorDim, 4});
  const int32_t c = g.add_tensor("c", ScalarType::Byte, {kMaxTensorDim, kMaxTensorDim, 4});
  g.inputs = {a, b};
  g.add_kernel("aten::add.out", {a, b}, {c});
  g.outputs = {c};
  Result<MethodMemoryPlan> plan = plan_method(g);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.code(), ErrorCode::OutOfResources);
  EXPECT_EQ(
      plan.error().message(),
      "method 'forward', device cpu:0: the planned sizes (aligned to 16) sum past 2^64 bytes");
}

TEST(MemoryPlanTest, SameGraphTwiceGivesTheSamePlan) {
  GraphGenOptions o;
  o.family = GraphFamily::kRandomDag;
  o.num_tensors = 500;
  o.seed = 5;
  o.num_devices = 2;
  Graph g = generate_graph(o);
  Result<MethodMemoryPlan> p1 = plan_method(g);
  Result<MethodMemoryPlan> p2 = plan_method(generate_graph(o));
  ASSERT_TRUE(p1.ok());
  ASSERT_TRUE(p2.ok());
  ASSERT_EQ(p1->tensors.size(), p2->tensors.size());
  for (size_t t = 0; t < p1->tensors.size(); ++t) {
    EXPECT_EQ(p1->tensors[t].offset, p2->tensors[t].offset);
    EXPECT_EQ(p1->tensors[t].buffer_index, p2->tensors[t].buffer_index);
    EXPECT_EQ(p1->tensors[t].device, p2->tensors[t].device);
  }
  EXPECT_EQ(p1->non_const_buffer_sizes(), p2->non_const_buffer_sizes());
  EXPECT_EQ(p1->non_const_buffer_devices(), p2->non_const_buffer_devices());
  EXPECT_TRUE(verify_plan(*p1).empty());
}

TEST(MemoryPlanTest, PlanMethodsRejectsDuplicateNames) {
  Graph a = testing_graphs::reference_add();
  Graph b = testing_graphs::reference_add();
  Result<std::vector<MethodMemoryPlan>> plans = plan_methods({a, b});
  ASSERT_FALSE(plans.ok());
  EXPECT_EQ(plans.error().message(), "method 'forward' is defined twice");
  b.name = "encode";
  plans = plan_methods({a, b});
  ASSERT_TRUE(plans.ok());
  ASSERT_EQ(plans->size(), 2u);
  EXPECT_EQ((*plans)[1].method(), "encode");
}

TEST(MemoryPlanTest, PlanDeviceGraphChecksItsInput) {
  Result<DeviceGraph> dg = propagate_devices(testing_graphs::reference_add());
  ASSERT_TRUE(dg.ok());
  dg->tensor_devices.pop_back();
  Result<MethodMemoryPlan> plan = plan_device_graph(*dg);
  ASSERT_FALSE(plan.ok());
  EXPECT_EQ(plan.error().message(), "method 'forward': 5 tensor devices for 6 tensors");
}

// offset_planner_test.cpp's tricky_chain as a graph: host floats a[40], b[8], c[36], d[40] with
// lifetimes 0..1, 1..2, 2..3, 3..4 (the zero-element z0 and z4 take no bytes and only stretch
// a and d). The best greedy seed needs 336 bytes; the optimum, the lower bound, is 304.
Graph tricky_chain_graph() {
  Graph g;
  g.name = "forward";
  const int32_t a = g.add_tensor("a", ScalarType::Float, {40});
  const int32_t b = g.add_tensor("b", ScalarType::Float, {8});
  const int32_t c = g.add_tensor("c", ScalarType::Float, {36});
  const int32_t d = g.add_tensor("d", ScalarType::Float, {40});
  const int32_t z0 = g.add_tensor("z0", ScalarType::Float, {0});
  const int32_t z4 = g.add_tensor("z4", ScalarType::Float, {0});
  g.inputs = {a};
  g.add_kernel("aten::relu.out", {a}, {z0});
  g.add_kernel("aten::relu.out", {a}, {b});
  g.add_kernel("aten::relu.out", {b}, {c});
  g.add_kernel("aten::relu.out", {c}, {d});
  g.add_kernel("aten::relu.out", {d}, {z4});
  g.outputs = {z4};
  return g;
}

TEST(MemoryPlanTest, SearchIterationsReachTheOffsetPlanner) {
  const Graph g = tricky_chain_graph();
  PlanOptions no_search;
  no_search.algorithm = PlannerAlgorithm::Search;
  no_search.search_iterations = 0;
  Result<MethodMemoryPlan> seed_only = plan_method(g, no_search);
  ASSERT_TRUE(seed_only.ok()) << seed_only.error();
  EXPECT_EQ(tensor(*seed_only, "a").lifetime, (Lifetime{0, 1}));
  EXPECT_EQ(tensor(*seed_only, "d").lifetime, (Lifetime{3, 4}));
  ASSERT_EQ(seed_only->buffers.size(), 1u);
  EXPECT_EQ(seed_only->buffers[0].lower_bound, 304u);
  EXPECT_EQ(seed_only->buffers[0].size, 336u);

  PlanOptions default_search;
  default_search.algorithm = PlannerAlgorithm::Search;
  Result<MethodMemoryPlan> searched = plan_method(g, default_search);
  ASSERT_TRUE(searched.ok()) << searched.error();
  ASSERT_EQ(searched->buffers.size(), 1u);
  EXPECT_EQ(searched->buffers[0].size, 304u);
}

// emit_program over reference_add's plan with tensor 0 ('a') changed.
Error emit_with(const std::function<void(MethodMemoryPlan&)>& change) {
  Result<MethodMemoryPlan> plan = plan_method(testing_graphs::reference_add());
  if (!plan.ok()) return plan.error();
  change(*plan);
  Result<std::vector<uint8_t>> bytes = emit_program({*plan});
  return bytes.ok() ? Error::success() : bytes.error();
}

TEST(ProgramEmitterTest, LargestDimensionAnInt32HoldsIsEmitted) {
  Result<MethodMemoryPlan> plan = plan_method(testing_graphs::reference_add());
  ASSERT_TRUE(plan.ok()) << plan.error();
  ASSERT_EQ(plan->graph.tensors[0].id, "a");
  Error error = emit_with([](MethodMemoryPlan& p) { p.graph.tensors[0].shape = {2147483647}; });
  EXPECT_TRUE(error.ok()) << error;
}

TEST(ProgramEmitterTest, DimensionPastInt32IsInvalidArgument) {
  Error error = emit_with([](MethodMemoryPlan& p) { p.graph.tensors[0].shape = {2147483648}; });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "method 'forward': tensor 'a' has a dimension the file cannot hold");
}

TEST(ProgramEmitterTest, NegativeDimensionIsInvalidArgument) {
  Error error = emit_with([](MethodMemoryPlan& p) { p.graph.tensors[0].shape = {2, -1}; });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "method 'forward': tensor 'a' has a dimension the file cannot hold");
  Error zero = emit_with([](MethodMemoryPlan& p) { p.graph.tensors[0].shape = {0}; });
  EXPECT_TRUE(zero.ok()) << zero;
}

TEST(ProgramEmitterTest, UsedTensorThatIsNotPlannedIsInvalidArgument) {
  Error error = emit_with([](MethodMemoryPlan& p) { p.tensors[0].planned = false; });
  EXPECT_EQ(error.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(error.message(), "method 'forward': tensor 'a' is used but has no lifetime");
}

}  // namespace
}  // namespace devplan
