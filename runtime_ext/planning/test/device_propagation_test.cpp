#include <runtime_ext/planning/device_propagation.h>

#include <gtest/gtest.h>

#include "test_graphs.h"

namespace devplan {
namespace {

// "op(in,...)->(out,...)" for each node, with tensor ids.
std::vector<std::string> describe(const Graph& g) {
  std::vector<std::string> out;
  for (const Node& n : g.nodes) {
    std::string s = n.label() + "(";
    for (size_t i = 0; i < n.inputs.size(); ++i) s += (i ? "," : "") + g.tensors[n.inputs[i]].id;
    s += ")->(";
    for (size_t i = 0; i < n.outputs.size(); ++i) s += (i ? "," : "") + g.tensors[n.outputs[i]].id;
    out.push_back(s + ")");
  }
  return out;
}

std::vector<std::string> ids(const Graph& g, const std::vector<int32_t>& list) {
  std::vector<std::string> out;
  for (int32_t t : list) out.push_back(g.tensors[t].id);
  return out;
}

std::string device_of(const DeviceGraph& dg, const std::string& id) {
  const int32_t t = dg.graph.find_tensor(id);
  return t < 0 ? "missing" : dg.tensor_devices[t].to_string();
}

TEST(DevicePropagationTest, ReferenceProgram) {
  Result<DeviceGraph> dg = propagate_devices(testing_graphs::reference_add());
  ASSERT_TRUE(dg.ok()) << dg.error();
  EXPECT_EQ(describe(dg->graph), (std::vector<std::string>{
                                     "et_copy::_h2d_copy.out(a)->(a@cuda:0)",
                                     "et_copy::_h2d_copy.out(b)->(b@cuda:0)",
                                     "delegate DeviceAddBackend on cuda:0(a@cuda:0,b@cuda:0)->(z)",
                                     "et_copy::_d2h_copy.out(z)->(z@cpu:0)",
                                 }));
  EXPECT_EQ(dg->num_h2d_copies, 2u);
  EXPECT_EQ(dg->num_d2h_copies, 1u);
  EXPECT_EQ(ids(dg->graph, dg->graph.inputs), (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(ids(dg->graph, dg->graph.outputs), (std::vector<std::string>{"z@cpu:0"}));
  EXPECT_EQ(device_of(*dg, "a"), "cpu:0");
  EXPECT_EQ(device_of(*dg, "b"), "cpu:0");
  EXPECT_EQ(device_of(*dg, "z"), "cuda:0");
  EXPECT_EQ(device_of(*dg, "a@cuda:0"), "cuda:0");
  EXPECT_EQ(device_of(*dg, "b@cuda:0"), "cuda:0");
  EXPECT_EQ(device_of(*dg, "z@cpu:0"), "cpu:0");
  EXPECT_EQ(dg->copy_of, (std::vector<int32_t>{-1, -1, -1, 0, 1, 2}));
  EXPECT_EQ(dg->graph.tensors[3].nbytes, 16u);
  EXPECT_TRUE(validate_graph(dg->graph).ok());
}

TEST(DevicePropagationTest, DelegatesOnOneDeviceShareOneCopy) {
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {8});
  const int32_t p = g.add_tensor("p", ScalarType::Float, {8});
  const int32_t q = g.add_tensor("q", ScalarType::Float, {8});
  const int32_t r = g.add_tensor("r", ScalarType::Float, {8});
  g.inputs = {x};
  g.add_delegate("B", Device::cuda(0), {x}, {p});
  g.add_delegate("B", Device::cuda(0), {x, p}, {q});  // p: device to same device, no copy
  g.add_delegate("B", Device::cuda(0), {p, q}, {r});
  g.outputs = {r};
  Result<DeviceGraph> dg = propagate_devices(g);
  ASSERT_TRUE(dg.ok()) << dg.error();
  EXPECT_EQ(describe(dg->graph), (std::vector<std::string>{
                                     "et_copy::_h2d_copy.out(x)->(x@cuda:0)",
                                     "delegate B on cuda:0(x@cuda:0)->(p)",
                                     "delegate B on cuda:0(x@cuda:0,p)->(q)",
                                     "delegate B on cuda:0(p,q)->(r)",
                                     "et_copy::_d2h_copy.out(r)->(r@cpu:0)",
                                 }));
  EXPECT_EQ(dg->num_h2d_copies, 1u);
  EXPECT_EQ(dg->num_d2h_copies, 1u);
}

TEST(DevicePropagationTest, DeviceToAnotherDeviceGoesThroughTheHost) {
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {8});
  const int32_t p = g.add_tensor("p", ScalarType::Float, {8});
  const int32_t q = g.add_tensor("q", ScalarType::Float, {8});
  const int32_t h = g.add_tensor("h", ScalarType::Float, {8});
  const int32_t r = g.add_tensor("r", ScalarType::Float, {8});
  g.inputs = {x};
  g.add_delegate("B", Device::cuda(0), {x}, {p});
  g.add_delegate("B", Device::cuda(1), {p}, {q});
  g.add_kernel("aten::relu.out", {p}, {h});           // shares p's host copy
  g.add_delegate("B", Device::cuda(1), {p, h}, {r});  // shares p's cuda:1 copy
  g.outputs = {q, r};
  Result<DeviceGraph> dg = propagate_devices(g);
  ASSERT_TRUE(dg.ok()) << dg.error();
  EXPECT_EQ(describe(dg->graph), (std::vector<std::string>{
                                     "et_copy::_h2d_copy.out(x)->(x@cuda:0)",
                                     "delegate B on cuda:0(x@cuda:0)->(p)",
                                     "et_copy::_d2h_copy.out(p)->(p@cpu:0)",
                                     "et_copy::_h2d_copy.out(p@cpu:0)->(p@cuda:1)",
                                     "delegate B on cuda:1(p@cuda:1)->(q)",
                                     "aten::relu.out(p@cpu:0)->(h)",
                                     "et_copy::_h2d_copy.out(h)->(h@cuda:1)",
                                     "delegate B on cuda:1(p@cuda:1,h@cuda:1)->(r)",
                                     "et_copy::_d2h_copy.out(q)->(q@cpu:0)",
                                     "et_copy::_d2h_copy.out(r)->(r@cpu:0)",
                                 }));
  EXPECT_EQ(dg->num_h2d_copies, 3u);
  EXPECT_EQ(dg->num_d2h_copies, 3u);
  EXPECT_EQ(device_of(*dg, "p"), "cuda:0");
  EXPECT_EQ(device_of(*dg, "p@cuda:1"), "cuda:1");
  EXPECT_EQ(device_of(*dg, "h"), "cpu:0");
  EXPECT_EQ(ids(dg->graph, dg->graph.outputs), (std::vector<std::string>{"q@cpu:0", "r@cpu:0"}));
  // The cuda:1 copy of p copies p (its source node reads p's host copy).
  EXPECT_EQ(dg->copy_of[dg->graph.find_tensor("p@cuda:1")], p);
}

TEST(DevicePropagationTest, OutputWithAHostCopyReusesIt) {
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {8});
  const int32_t p = g.add_tensor("p", ScalarType::Float, {8});
  const int32_t h = g.add_tensor("h", ScalarType::Float, {8});
  g.inputs = {x};
  g.add_delegate("B", Device::cuda(0), {x}, {p});
  g.add_kernel("aten::relu.out", {p}, {h});
  g.outputs = {p, h};
  Result<DeviceGraph> dg = propagate_devices(g);
  ASSERT_TRUE(dg.ok());
  EXPECT_EQ(dg->num_d2h_copies, 1u);
  EXPECT_EQ(ids(dg->graph, dg->graph.outputs), (std::vector<std::string>{"p@cpu:0", "h"}));
}

TEST(DevicePropagationTest, SkipOptionsForAllMethods) {
  PropagationOptions opts;
  opts.skip_h2d_for_method_inputs = true;
  opts.skip_d2h_for_method_outputs = true;
  Result<DeviceGraph> dg = propagate_devices(testing_graphs::reference_add(), opts);
  ASSERT_TRUE(dg.ok());
  EXPECT_EQ(describe(dg->graph),
            (std::vector<std::string>{"delegate DeviceAddBackend on cuda:0(a,b)->(z)"}));
  EXPECT_EQ(dg->tensor_devices,
            (std::vector<Device>{Device::cuda(0), Device::cuda(0), Device::cuda(0)}));
  EXPECT_EQ(ids(dg->graph, dg->graph.outputs), (std::vector<std::string>{"z"}));
  EXPECT_EQ(dg->num_h2d_copies + dg->num_d2h_copies, 0u);
}

TEST(DevicePropagationTest, PerMethodSettingAppliesToThatMethodOnly) {
  Graph forward = testing_graphs::reference_add();
  Graph encode = testing_graphs::reference_add();
  encode.name = "encode";
  PropagationOptions opts;
  opts.per_method["encode"].skip_h2d_for_method_inputs = true;
  Result<DeviceGraph> f = propagate_devices(forward, opts);
  Result<DeviceGraph> e = propagate_devices(encode, opts);
  ASSERT_TRUE(f.ok());
  ASSERT_TRUE(e.ok());
  EXPECT_EQ(f->num_h2d_copies, 2u);
  EXPECT_EQ(f->num_d2h_copies, 1u);
  EXPECT_EQ(e->num_h2d_copies, 0u);
  EXPECT_EQ(e->num_d2h_copies, 1u);  // only the h2d setting was overridden
  EXPECT_EQ(device_of(*e, "a"), "cuda:0");
  EXPECT_EQ(device_of(*f, "a"), "cpu:0");

  // A per-method false wins over a global true, for that method only.
  PropagationOptions all;
  all.skip_d2h_for_method_outputs = true;
  all.per_method["forward"].skip_d2h_for_method_outputs = false;
  EXPECT_EQ(propagate_devices(forward, all)->num_d2h_copies, 1u);
  EXPECT_EQ(propagate_devices(encode, all)->num_d2h_copies, 0u);
}

TEST(DevicePropagationTest, GraphOptionsSitBetweenGlobalAndPerMethod) {
  Graph g = testing_graphs::reference_add();
  g.options.skip_h2d_for_method_inputs = true;
  PropagationOptions opts;  // global false
  EXPECT_TRUE(opts.skip_h2d_for(g));
  EXPECT_EQ(propagate_devices(g, opts)->num_h2d_copies, 0u);
  opts.per_method["forward"].skip_h2d_for_method_inputs = false;
  EXPECT_FALSE(opts.skip_h2d_for(g));
  EXPECT_EQ(propagate_devices(g, opts)->num_h2d_copies, 2u);
  g.options.skip_d2h_for_method_outputs = false;
  PropagationOptions skip_all;
  skip_all.skip_d2h_for_method_outputs = true;
  EXPECT_FALSE(skip_all.skip_d2h_for(g));
}

TEST(DevicePropagationTest, SkippedInputFeedingTheHostGetsADeviceToHostCopy) {
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {8});
  const int32_t h = g.add_tensor("h", ScalarType::Float, {8});
  const int32_t p = g.add_tensor("p", ScalarType::Float, {8});
  g.inputs = {x};
  g.add_kernel("aten::relu.out", {x}, {h});
  g.add_delegate("B", Device::cuda(2), {x, h}, {p});
  g.add_delegate("B", Device::cuda(1), {x}, {});
  g.outputs = {p};
  PropagationOptions opts;
  opts.skip_h2d_for_method_inputs = true;
  opts.skip_d2h_for_method_outputs = true;
  Result<DeviceGraph> dg = propagate_devices(g, opts);
  ASSERT_TRUE(dg.ok());
  // x lives on the device of its first device consumer (cuda:2).
  EXPECT_EQ(describe(dg->graph), (std::vector<std::string>{
                                     "et_copy::_d2h_copy.out(x)->(x@cpu:0)",
                                     "aten::relu.out(x@cpu:0)->(h)",
                                     "et_copy::_h2d_copy.out(h)->(h@cuda:2)",
                                     "delegate B on cuda:2(x,h@cuda:2)->(p)",
                                     "et_copy::_h2d_copy.out(x@cpu:0)->(x@cuda:1)",
                                     "delegate B on cuda:1(x@cuda:1)->()",
                                 }));
  EXPECT_EQ(device_of(*dg, "x"), "cuda:2");
}

TEST(DevicePropagationTest, HostDelegatesAndKernelsNeedNoCopies) {
  Graph g = testing_graphs::reference_add(Device::cpu());
  Result<DeviceGraph> dg = propagate_devices(g);
  ASSERT_TRUE(dg.ok());
  EXPECT_EQ(dg->graph.nodes.size(), 1u);
  EXPECT_EQ(dg->tensor_devices, (std::vector<Device>(3, Device::cpu())));
}

TEST(DevicePropagationTest, CopyIdsAvoidTakenIds) {
  Graph g = testing_graphs::reference_add();
  g.add_tensor("a@cuda:0", ScalarType::Float, {1});
  g.add_tensor("a@cuda:0#2", ScalarType::Float, {1});
  Result<DeviceGraph> dg = propagate_devices(g);
  ASSERT_TRUE(dg.ok());
  EXPECT_EQ(dg->graph.tensors[5].id, "a@cuda:0#3");
  EXPECT_EQ(dg->graph.tensors[6].id, "b@cuda:0");
  EXPECT_TRUE(validate_graph(dg->graph).ok());
}

TEST(DevicePropagationTest, InvalidGraphIsRejected) {
  Graph g = testing_graphs::reference_add();
  g.nodes[0].inputs = {0, 5};
  Result<DeviceGraph> dg = propagate_devices(g);
  ASSERT_FALSE(dg.ok());
  EXPECT_EQ(dg.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(dg.error().message(),
            "method 'forward': node 0 (delegate DeviceAddBackend on cuda:0): input 1 refers to "
            "tensor index 5, outside [0, 3)");
}

}  // namespace
}  // namespace devplan
