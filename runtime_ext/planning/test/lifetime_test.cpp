#include <runtime_ext/planning/lifetime.h>

#include <gtest/gtest.h>

#include "test_graphs.h"

namespace devplan {
namespace {

TEST(LifetimeTest, InputsFromStepZeroOutputsToTheEnd) {
  // x (input) -> relu -> t -> add(t, x) -> u -> relu -> y (output); w produced, never used.
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {4});
  const int32_t t = g.add_tensor("t", ScalarType::Float, {4});
  const int32_t u = g.add_tensor("u", ScalarType::Float, {4});
  const int32_t y = g.add_tensor("y", ScalarType::Float, {4});
  const int32_t w = g.add_tensor("w", ScalarType::Float, {4});
  const int32_t unused = g.add_tensor("unused", ScalarType::Float, {4});
  g.inputs = {x};
  g.add_kernel("aten::relu.out", {x}, {t});
  g.add_kernel("aten::add.out", {t, x}, {u, w});
  g.add_kernel("aten::relu.out", {u}, {y});
  g.add_kernel("aten::relu.out", {u}, {});
  g.outputs = {y};
  ASSERT_TRUE(validate_graph(g).ok());
  std::vector<Lifetime> life = compute_lifetimes(g);
  EXPECT_EQ(num_steps(g), 4);
  EXPECT_EQ(life[x], (Lifetime{0, 1}));
  EXPECT_EQ(life[t], (Lifetime{0, 1}));
  EXPECT_EQ(life[u], (Lifetime{1, 3}));
  EXPECT_EQ(life[y], (Lifetime{2, 3}));  // an output lives to the last step
  EXPECT_EQ(life[w], (Lifetime{1, 1}));  // produced, never used: its producing step only
  EXPECT_EQ(life[unused], (Lifetime{-1, -1}));
  EXPECT_FALSE(life[unused].planned());
  EXPECT_TRUE(life[x].overlaps(life[t]));  // an instruction's inputs and outputs overlap
  EXPECT_TRUE(life[t].overlaps(life[u]));
  EXPECT_FALSE(life[x].overlaps(life[y]));
  EXPECT_FALSE(life[unused].overlaps(life[x]));
}

TEST(LifetimeTest, UnusedInputLivesAtStepZero) {
  Graph g = testing_graphs::host_chain({4, 4, 4});
  g.add_tensor("spare", ScalarType::Float, {1});
  g.inputs.push_back(3);
  std::vector<Lifetime> life = compute_lifetimes(g);
  EXPECT_EQ(life[3], (Lifetime{0, 0}));
  EXPECT_EQ(life[2], (Lifetime{1, 1}));  // the output, produced at the last step
}

TEST(LifetimeTest, MethodWithoutNodesHasOneStep) {
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {4});
  g.inputs = {x};
  g.outputs = {x};
  EXPECT_EQ(num_steps(g), 1);
  EXPECT_EQ(compute_lifetimes(g)[x], (Lifetime{0, 0}));
}

}  // namespace
}  // namespace devplan
