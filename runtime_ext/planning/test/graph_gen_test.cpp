#include <runtime_ext/planning/graph_gen.h>

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace devplan {
namespace {

bool same_graph(const Graph& a, const Graph& b) {
  if (a.tensors.size() != b.tensors.size() || a.nodes.size() != b.nodes.size() ||
      a.inputs != b.inputs || a.outputs != b.outputs) {
    return false;
  }
  for (size_t i = 0; i < a.tensors.size(); ++i) {
    if (a.tensors[i].id != b.tensors[i].id || a.tensors[i].shape != b.tensors[i].shape)
      return false;
  }
  for (size_t i = 0; i < a.nodes.size(); ++i) {
    const Node& x = a.nodes[i];
    const Node& y = b.nodes[i];
    if (x.kind != y.kind || x.op != y.op || x.device != y.device || x.inputs != y.inputs ||
        x.outputs != y.outputs) {
      return false;
    }
  }
  return true;
}

// A 64-bit FNV-1a digest of everything a planner sees in a graph: shapes, nodes, devices,
// inputs and outputs.
uint64_t graph_digest(const Graph& g) {
  uint64_t h = 1469598103934665603ull;
  auto mix = [&h](int64_t v) {
    for (int i = 0; i < 8; ++i) {
      h ^= static_cast<uint64_t>(v >> (8 * i)) & 0xff;
      h *= 1099511628211ull;
    }
  };
  for (const GraphTensor& t : g.tensors) {
    mix(static_cast<int64_t>(t.shape.size()));
    for (int64_t d : t.shape) mix(d);
  }
  for (const Node& n : g.nodes) {
    mix(static_cast<int64_t>(n.kind));
    for (char c : n.op) mix(c);
    mix(static_cast<int64_t>(n.device.type) * 1000 + n.device.index);
    for (int32_t i : n.inputs) mix(i);
    mix(-1);
    for (int32_t o : n.outputs) mix(o);
    mix(-2);
  }
  for (int32_t i : g.inputs) mix(i);
  for (int32_t o : g.outputs) mix(o);
  return h;
}

// The graphs are part of the benchmarks' published figures, so each family's graph for a fixed
// seed is pinned: a change to a generator's shapes, choices or random draws shows here.
TEST(GraphGenTest, EachFamilysGraphForAFixedSeedIsPinned) {
  const std::map<std::string, std::pair<size_t, uint64_t>> expected = {
      {"chain", {300, 11389048099029299536ull}},    {"fan_out", {302, 16904930038517469603ull}},
      {"residual", {300, 47329961968192097ull}},    {"unet", {301, 14587438078595190362ull}},
      {"attention", {309, 1957175286422277230ull}}, {"random_dag", {300, 7384081724329334640ull}},
  };
  for (GraphFamily f : all_graph_families()) {
    GraphGenOptions o;
    o.family = f;
    o.num_tensors = 300;
    o.seed = 7;
    o.num_devices = 2;
    const Graph g = generate_graph(o);
    const auto& [tensors, digest] = expected.at(graph_family_name(f));
    EXPECT_EQ(g.tensors.size(), tensors) << graph_family_name(f);
    EXPECT_EQ(graph_digest(g), digest) << graph_family_name(f);
  }
}

// A delegate fraction of 0 gives the kernels-only graph, exactly as without devices.
TEST(GraphGenTest, ZeroDelegateFractionIsTheKernelsOnlyGraph) {
  for (GraphFamily f : all_graph_families()) {
    GraphGenOptions o;
    o.family = f;
    o.num_tensors = 200;
    o.seed = 3;
    const Graph kernels_only = generate_graph(o);
    o.num_devices = 2;
    o.delegate_fraction = 0.0;
    const Graph g = generate_graph(o);
    EXPECT_TRUE(same_graph(g, kernels_only)) << graph_family_name(f);
    o.delegate_fraction = 0.3;
    EXPECT_FALSE(same_graph(generate_graph(o), kernels_only)) << graph_family_name(f);
  }
}

TEST(GraphGenTest, FamilyNamesRoundTrip) {
  for (GraphFamily f : all_graph_families()) {
    Result<GraphFamily> parsed = parse_graph_family(graph_family_name(f));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, f);
  }
  Result<GraphFamily> bad = parse_graph_family("tree");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message(),
            "unknown graph family 'tree' (expected chain, fan_out, residual, unet, attention or "
            "random_dag)");
}

TEST(GraphGenTest, ValidDeterministicAndSized) {
  for (GraphFamily f : all_graph_families()) {
    for (size_t n : {1u, 10u, 100u, 2000u}) {
      GraphGenOptions o;
      o.family = f;
      o.num_tensors = n;
      o.seed = 42;
      o.num_devices = 2;
      o.name = "m";
      Graph g = generate_graph(o);
      EXPECT_TRUE(validate_graph(g).ok()) << graph_family_name(f) << " " << n;
      EXPECT_GE(g.tensors.size(), std::max<size_t>(n, 2)) << graph_family_name(f);
      EXPECT_LT(g.tensors.size(), std::max<size_t>(n, 2) + 40) << graph_family_name(f);
      EXPECT_EQ(g.name, "m");
      EXPECT_FALSE(g.inputs.empty());
      EXPECT_FALSE(g.outputs.empty());
      EXPECT_TRUE(same_graph(g, generate_graph(o))) << graph_family_name(f);
      for (const Node& node : g.nodes) {
        if (node.kind == NodeKind::Delegate) {
          EXPECT_TRUE(node.device == Device::cuda(0) || node.device == Device::cuda(1));
        }
      }
    }
  }
}

TEST(GraphGenTest, SeedsAndDevicesChangeTheGraph) {
  GraphGenOptions o;
  o.family = GraphFamily::kRandomDag;
  o.num_tensors = 300;
  Graph a = generate_graph(o);
  o.seed = 2;
  Graph b = generate_graph(o);
  EXPECT_FALSE(same_graph(a, b));
  for (const Node& node : a.nodes) EXPECT_EQ(node.kind, NodeKind::Kernel);  // num_devices 0

  o.num_devices = 3;
  o.delegate_fraction = 0.5;
  Graph c = generate_graph(o);
  size_t delegates = 0;
  bool seen[3] = {false, false, false};
  for (const Node& node : c.nodes) {
    if (node.kind != NodeKind::Delegate) continue;
    ++delegates;
    ASSERT_EQ(node.device.type, DeviceType::CUDA);
    ASSERT_LT(node.device.index, 3);
    seen[node.device.index] = true;
  }
  // About half the nodes; loose bounds, the runs make it vary.
  EXPECT_GT(delegates, c.nodes.size() / 5);
  EXPECT_LT(delegates, c.nodes.size() * 4 / 5);
  EXPECT_TRUE(seen[0] && seen[1] && seen[2]);
}

TEST(GraphGenTest, RandomDagReachBoundsLifetimes) {
  GraphGenOptions o;
  o.family = GraphFamily::kRandomDag;
  o.num_tensors = 2000;
  o.random_dag_reach = 4;
  Graph g = generate_graph(o);
  // With reach 4 (and the usual window of 8), an input is at most 8 tensors back.
  std::vector<int64_t> produced_at(g.tensors.size(), -1);
  for (size_t k = 0; k < g.nodes.size(); ++k) {
    for (int32_t t : g.nodes[k].outputs) produced_at[t] = static_cast<int64_t>(k);
    for (int32_t t : g.nodes[k].inputs) {
      if (produced_at[t] >= 0) {
        EXPECT_LE(static_cast<int64_t>(k) - produced_at[t], 8);
      }
    }
  }
}

}  // namespace
}  // namespace devplan
