#include <runtime_ext/planning/graph_gen.h>

#include <gtest/gtest.h>

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
