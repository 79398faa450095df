#include <runtime_ext/planning/graph.h>

#include <gtest/gtest.h>

#include "test_graphs.h"

namespace devplan {
namespace {

TEST(TensorNbytesTest, ProductOfShapeTimesElementSize) {
  EXPECT_EQ(*tensor_nbytes(ScalarType::Float, {2, 2}), 16u);
  EXPECT_EQ(*tensor_nbytes(ScalarType::Long, {3}), 24u);
  EXPECT_EQ(*tensor_nbytes(ScalarType::Half, {5, 1, 3}), 30u);
  EXPECT_EQ(*tensor_nbytes(ScalarType::Bool, {7}), 7u);
  EXPECT_EQ(*tensor_nbytes(ScalarType::Float, {}), 4u);  // a scalar is one element
  EXPECT_EQ(*tensor_nbytes(ScalarType::Float, {4, 0, 9}), 0u);
}

TEST(TensorNbytesTest, RejectsBadShapesAndTypes) {
  Result<uint64_t> neg = tensor_nbytes(ScalarType::Float, {2, -1});
  ASSERT_FALSE(neg.ok());
  EXPECT_EQ(neg.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(neg.error().message(), "negative dimension -1 in shape float32[2, -1]");

  Result<uint64_t> big = tensor_nbytes(ScalarType::Float, {int64_t{1} << 31});
  ASSERT_FALSE(big.ok());
  EXPECT_EQ(big.error().message(),
            "dimension 2147483648 exceeds 2147483647 in shape float32[2147483648]");

  Result<uint64_t> overflow =
      tensor_nbytes(ScalarType::Double, {kMaxTensorDim, kMaxTensorDim, kMaxTensorDim});
  ASSERT_FALSE(overflow.ok());
  EXPECT_EQ(overflow.error().message(),
            "size of float64[2147483647, 2147483647, 2147483647] overflows uint64");

  Result<uint64_t> unknown = tensor_nbytes(static_cast<ScalarType>(99), {1});
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.error().message(), "unknown dtype unknown(99)");
}

TEST(TensorNbytesTest, LargestDimensionIsAcceptedAndProductUpToUint64MaxFits) {
  Result<uint64_t> largest_dim = tensor_nbytes(ScalarType::Float, {kMaxTensorDim});
  ASSERT_TRUE(largest_dim.ok()) << largest_dim.error();
  EXPECT_EQ(*largest_dim, 8589934588u);
  // 65535 * 65537 * 641 * 6700417 is exactly 2^64 - 1.
  Result<uint64_t> all_of_uint64 = tensor_nbytes(ScalarType::Bool, {65535, 65537, 641, 6700417});
  ASSERT_TRUE(all_of_uint64.ok()) << all_of_uint64.error();
  EXPECT_EQ(*all_of_uint64, UINT64_MAX);
  Result<uint64_t> one_more = tensor_nbytes(ScalarType::Bool, {65536, 65537, 641, 6700417});
  ASSERT_FALSE(one_more.ok());
  EXPECT_EQ(one_more.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(one_more.error().message(),
            "size of bool[65536, 65537, 641, 6700417] overflows uint64");
}

TEST(GraphTest, BuildersAndLookup) {
  Graph g = testing_graphs::reference_add();
  ASSERT_EQ(g.tensors.size(), 3u);
  EXPECT_EQ(g.tensors[2].nbytes, 16u);
  EXPECT_EQ(g.find_tensor("b"), 1);
  EXPECT_EQ(g.find_tensor("nope"), -1);
  ASSERT_EQ(g.nodes.size(), 1u);
  EXPECT_EQ(g.nodes[0].kind, NodeKind::Delegate);
  EXPECT_EQ(g.nodes[0].label(), "delegate DeviceAddBackend on cuda:0");
  EXPECT_EQ(g.nodes[0].execution_device(), Device::cuda(0));
  g.add_kernel("aten::relu.out", {2}, {});
  EXPECT_EQ(g.nodes[1].label(), "aten::relu.out");
  EXPECT_EQ(g.nodes[1].execution_device(), Device::cpu());
  EXPECT_STREQ(node_kind_name(NodeKind::Kernel), "kernel");
  EXPECT_STREQ(node_kind_name(NodeKind::Delegate), "delegate");
  EXPECT_TRUE(validate_graph(g).ok());
}

// Expects validate_graph(g) to fail with InvalidArgument and exactly `message`.
void expect_invalid(const Graph& g, const std::string& message) {
  Error err = validate_graph(g);
  EXPECT_EQ(err.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(err.message(), message);
}

TEST(ValidateGraphTest, AcceptsReferenceAndEmpty) {
  EXPECT_TRUE(validate_graph(testing_graphs::reference_add()).ok());
  EXPECT_TRUE(validate_graph(Graph{}).ok());
}

TEST(ValidateGraphTest, FirstIndexPastTheTensorsIsOutOfRangeAtAnyPosition) {
  Graph g = testing_graphs::reference_add();
  g.inputs = {0, 3};
  expect_invalid(g, "method 'forward': input 1 refers to tensor index 3, outside [0, 3)");

  g = testing_graphs::reference_add();
  g.outputs = {2, 3};
  expect_invalid(g, "method 'forward': output 1 refers to tensor index 3, outside [0, 3)");
}

TEST(ValidateGraphTest, DuplicateOrEmptyIdNamesTheLaterTensor) {
  Graph g = testing_graphs::reference_add();
  g.tensors[2].id = "a";
  expect_invalid(g, "method 'forward': tensor id 'a' is used by tensors 0 and 2");

  g = testing_graphs::reference_add();
  g.tensors[2].id = "";
  expect_invalid(g, "method 'forward': tensor 2 has an empty id");
}

TEST(ValidateGraphTest, TensorErrors) {
  Graph g = testing_graphs::reference_add();
  g.tensors[1].id = "a";
  expect_invalid(g, "method 'forward': tensor id 'a' is used by tensors 0 and 1");

  g = testing_graphs::reference_add();
  g.tensors[0].id = "";
  expect_invalid(g, "method 'forward': tensor 0 has an empty id");

  g = testing_graphs::reference_add();
  g.tensors[2].shape = {2, -3};
  expect_invalid(g, "method 'forward': tensor 'z': negative dimension -3 in shape float32[2, -3]");

  g = testing_graphs::reference_add();
  g.tensors[2].dtype = static_cast<ScalarType>(30);
  expect_invalid(g, "method 'forward': tensor 'z': unknown dtype unknown(30)");

  g = testing_graphs::reference_add();
  g.tensors[2].nbytes = 8;
  expect_invalid(g,
                 "method 'forward': tensor 'z': nbytes 8 does not match float32[2, 2] (16 bytes)");

  g = testing_graphs::reference_add();
  g.alignment = 24;
  expect_invalid(g, "method 'forward': alignment 24 is not a power of two");
}

TEST(ValidateGraphTest, InputAndOutputErrors) {
  Graph g = testing_graphs::reference_add();
  g.inputs = {0, 0};
  expect_invalid(g, "method 'forward': tensor 'a' is listed twice as a method input");

  g = testing_graphs::reference_add();
  g.inputs = {0, 7};
  expect_invalid(g, "method 'forward': input 1 refers to tensor index 7, outside [0, 3)");

  g = testing_graphs::reference_add();
  g.outputs = {2, 2};
  expect_invalid(g, "method 'forward': tensor 'z' is listed twice as a method output");

  g = testing_graphs::reference_add();
  g.outputs = {-1};
  expect_invalid(g, "method 'forward': output 0 refers to tensor index -1, outside [0, 3)");

  g = testing_graphs::reference_add();
  g.add_tensor("lonely", ScalarType::Float, {1});
  g.outputs.push_back(3);
  expect_invalid(g,
                 "method 'forward': output 'lonely' is never defined (not a method input and "
                 "produced by no node)");
}

TEST(ValidateGraphTest, NodeErrorsNameTheNode) {
  Graph g = testing_graphs::reference_add();
  g.nodes[0].inputs = {0, 9};
  expect_invalid(g,
                 "method 'forward': node 0 (delegate DeviceAddBackend on cuda:0): input 1 refers "
                 "to tensor index 9, outside [0, 3)");

  g = testing_graphs::reference_add();
  g.nodes[0].outputs = {2, 12};
  expect_invalid(g,
                 "method 'forward': node 0 (delegate DeviceAddBackend on cuda:0): output 1 "
                 "refers to tensor index 12, outside [0, 3)");

  // Produced twice.
  g = testing_graphs::reference_add();
  g.add_kernel("aten::add.out", {0, 1}, {2});
  expect_invalid(g,
                 "method 'forward': node 1 (aten::add.out): output 'z' is produced twice (already "
                 "by node 0 (delegate DeviceAddBackend on cuda:0))");

  // Producing a method input.
  g = testing_graphs::reference_add();
  g.add_kernel("aten::relu.out", {2}, {0});
  expect_invalid(g,
                 "method 'forward': node 1 (aten::relu.out): output 'a' is a method input; a "
                 "method input cannot be produced");

  // A cycle: t1 = f(t2), t2 = g(t1).
  Graph c;
  c.name = "loop";
  const int32_t x = c.add_tensor("x", ScalarType::Float, {1});
  const int32_t t1 = c.add_tensor("t1", ScalarType::Float, {1});
  const int32_t t2 = c.add_tensor("t2", ScalarType::Float, {1});
  c.inputs = {x};
  c.add_kernel("aten::add.out", {x, t2}, {t1});
  c.add_kernel("aten::relu.out", {t1}, {t2});
  c.outputs = {t2};
  expect_invalid(c,
                 "method 'loop': node 0 (aten::add.out): input 't2' is used before it is defined "
                 "(produced by node 1 (aten::relu.out); a cycle or a node out of order)");

  // A node reading its own output.
  Graph self;
  const int32_t s = self.add_tensor("s", ScalarType::Float, {1});
  self.add_kernel("aten::relu.out", {s}, {s});
  expect_invalid(self,
                 "method 'forward': node 0 (aten::relu.out): input 's' is used before it is "
                 "defined (produced by node 0 (aten::relu.out); a cycle or a node out of order)");

  // Never defined.
  Graph undefined;
  const int32_t u = undefined.add_tensor("u", ScalarType::Float, {1});
  const int32_t v = undefined.add_tensor("v", ScalarType::Float, {1});
  undefined.add_kernel("aten::relu.out", {u}, {v});
  expect_invalid(undefined,
                 "method 'forward': node 0 (aten::relu.out): input 'u' is never defined (not a "
                 "method input and produced by no node)");

  g = testing_graphs::reference_add();
  g.nodes[0].op = "";
  expect_invalid(g, "method 'forward': node 0 (delegate  on cuda:0): delegate has no backend id");

  g = testing_graphs::reference_add();
  g.add_kernel("", {2}, {});
  expect_invalid(g, "method 'forward': node 1 (): kernel has no operator name");

  g = testing_graphs::reference_add();
  g.add_kernel("aten::relu.out", {2}, {});
  g.nodes[1].device = Device::cuda(1);
  expect_invalid(g,
                 "method 'forward': node 1 (aten::relu.out): a kernel runs on cpu:0, not cuda:1");
}

TEST(ValidateGraphTest, UnusedTensorsAndRepeatedInputsAreFine) {
  Graph g = testing_graphs::reference_add();
  g.add_tensor("unused", ScalarType::Long, {3});
  g.add_kernel("aten::add.out", {0, 0}, {});  // the same tensor twice as input
  EXPECT_TRUE(validate_graph(g).ok());
}

}  // namespace
}  // namespace devplan
