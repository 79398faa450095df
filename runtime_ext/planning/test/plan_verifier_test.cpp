#include <runtime_ext/planning/plan_verifier.h>

#include <gtest/gtest.h>

#include "test_graphs.h"

namespace devplan {
namespace {

// The reference program planned with greedy: host a@0 b@16 z@cpu:0@0 (32 bytes), device
// z@0 a@cuda:0@16 b@cuda:0@32 (48 bytes). Tensor indices: a 0, b 1, z 2, a@cuda:0 3,
// b@cuda:0 4, z@cpu:0 5.
MethodMemoryPlan reference_plan() {
  PlanOptions opts;
  opts.algorithm = PlannerAlgorithm::Greedy;
  return *plan_method(testing_graphs::reference_add(), opts);
}

TEST(PlanVerifierTest, ValidPlanHasNoViolations) {
  EXPECT_TRUE(verify_plan(reference_plan()).empty());
}

TEST(PlanVerifierTest, OutputReusingAnInputSlotIsLegal) {
  // linear_no_constant_segment.pte: t = mul(x), out = add(t); out reuses x's offset 0.
  Graph g;
  const int32_t x = g.add_tensor("x", ScalarType::Float, {2, 2});
  const int32_t t = g.add_tensor("t", ScalarType::Float, {2, 2});
  const int32_t out = g.add_tensor("out", ScalarType::Float, {2, 2});
  g.inputs = {x};
  g.add_kernel("aten::mul.out", {x}, {t});
  g.add_kernel("aten::add.out", {t}, {out});
  g.outputs = {out};
  Result<MethodMemoryPlan> plan = plan_method(g);
  ASSERT_TRUE(plan.ok());
  EXPECT_EQ(plan->non_const_buffer_sizes(), (std::vector<int64_t>{0, 32}));
  EXPECT_EQ(plan->tensors[out].offset, plan->tensors[x].offset);
  EXPECT_TRUE(verify_plan(*plan).empty());
}

TEST(PlanVerifierTest, FindsAPlantedOverlap) {
  MethodMemoryPlan plan = reference_plan();
  plan.tensors[1].offset = 0;  // b on top of a; both live at step 0
  std::vector<PlanViolation> v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::Overlap);
  EXPECT_EQ(v[0].tensor, 0);
  EXPECT_EQ(v[0].other, 1);
  EXPECT_EQ(v[0].message,
            "method 'forward': tensors 'a' and 'b' share bytes [0, 16) of buffer 0 (cpu:0) at "
            "steps 0..0: 'a' [0, 16) steps 0..0, 'b' [0, 16) steps 0..1");
}

TEST(PlanVerifierTest, ReportsEveryOverlappingPair) {
  MethodMemoryPlan plan = reference_plan();
  for (int t : {2, 3, 4}) plan.tensors[t].offset = 16;  // all three device tensors at 16
  std::vector<PlanViolation> v = verify_plan(plan);
  ASSERT_EQ(v.size(), 3u);
  for (const PlanViolation& x : v) EXPECT_EQ(x.kind, PlanViolationKind::Overlap);
  // Ordered by the later tensor's start: a@cuda:0 (step 0), b@cuda:0 (1), z (2).
  EXPECT_EQ(v[0].tensor, 3);
  EXPECT_EQ(v[0].other, 4);
  EXPECT_EQ(v[1].other, 2);
  EXPECT_EQ(v[2].other, 2);
  EXPECT_EQ(v[1].tensor + v[2].tensor, 7);  // a@cuda:0 and b@cuda:0, in either order
  EXPECT_EQ(v[0].message,
            "method 'forward': tensors 'a@cuda:0' and 'b@cuda:0' share bytes [16, 32) of buffer 1 "
            "(cuda:0) at steps 1..2: 'a@cuda:0' [16, 32) steps 0..2, 'b@cuda:0' [16, 32) steps "
            "1..2");
}

TEST(PlanVerifierTest, FindsMisalignedAndOutOfBuffer) {
  MethodMemoryPlan plan = reference_plan();
  plan.tensors[4].offset = 40;  // b@cuda:0: misaligned and past the 48-byte buffer
  std::vector<PlanViolation> v = verify_plan(plan);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::Misaligned);
  EXPECT_EQ(v[0].tensor, 4);
  EXPECT_EQ(v[0].message,
            "method 'forward': tensor 'b@cuda:0' at offset 40 in buffer 1 (cuda:0) is not aligned "
            "to 16");
  EXPECT_EQ(v[1].kind, PlanViolationKind::OutOfBuffer);
  EXPECT_EQ(v[1].message,
            "method 'forward': tensor 'b@cuda:0' at [40, 56) ends past in buffer 1 (cuda:0) of 48 "
            "bytes");

  plan = reference_plan();
  plan.tensors[5].offset = UINT64_MAX - 15;
  v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::OutOfBuffer);
  EXPECT_EQ(v[0].message,
            "method 'forward': tensor 'z@cpu:0' at offset 18446744073709551600 + 16 bytes "
            "(overflows) ends past in buffer 0 (cpu:0) of 32 bytes");

  plan = reference_plan();
  plan.buffers[1].size = 40;
  v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].tensor, 4);
  EXPECT_EQ(v[0].kind, PlanViolationKind::OutOfBuffer);
}

TEST(PlanVerifierTest, BufferOneByteShortOfItsLastTensorIsOutOfBuffer) {
  MethodMemoryPlan plan = reference_plan();
  ASSERT_EQ(plan.buffers[1].size, 48u);  // b@cuda:0 ends at exactly 48: no violation
  plan.buffers[1].size = 47;
  std::vector<PlanViolation> v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::OutOfBuffer);
  EXPECT_EQ(v[0].tensor, 4);
  EXPECT_EQ(v[0].message,
            "method 'forward': tensor 'b@cuda:0' at [32, 48) ends past in buffer 1 (cuda:0) of 47 "
            "bytes");
}

TEST(PlanVerifierTest, BufferIndexEqualToTheBufferCountIsBadBuffer) {
  MethodMemoryPlan plan = reference_plan();
  ASSERT_EQ(plan.buffers.size(), 2u);
  plan.tensors[2].buffer_index = 2;
  std::vector<PlanViolation> v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::BadBuffer);
  EXPECT_EQ(v[0].tensor, 2);
  EXPECT_EQ(v[0].other, -1);
  EXPECT_EQ(v[0].message,
            "method 'forward': tensor 'z' is in buffer 2 but the method has 2 buffers");
}

// An item that starts past the end of the buffer is out of it, whatever its size (the check
// must not wrap around when the offset exceeds the size).
TEST(VerifyOffsetsTest, AnItemStartingPastTheBufferIsOutOfIt) {
  const std::vector<PlanItem> items = {{16, 0, 1}, {0, 0, 1}};
  std::vector<PlanViolation> v = verify_offsets(items, {64, 0}, 48, 16);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::OutOfBuffer);
  EXPECT_EQ(v[0].tensor, 0);
  EXPECT_EQ(v[0].message, "item 0 of 16 bytes at offset 64 ends past the buffer of 48 bytes");
  v = verify_offsets(items, {0, 64}, 48, 16);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].tensor, 1);
  EXPECT_EQ(v[0].message, "item 1 of 0 bytes at offset 64 ends past the buffer of 48 bytes");
  // At the end exactly, a zero-size item is inside.
  EXPECT_TRUE(verify_offsets(items, {32, 48}, 48, 16).empty());
}

TEST(PlanVerifierTest, PlanWithoutBuffersIsMalformedFirst) {
  MethodMemoryPlan plan = reference_plan();
  plan.buffers.clear();
  std::vector<PlanViolation> v = verify_plan(plan);
  ASSERT_FALSE(v.empty());
  EXPECT_EQ(v[0].kind, PlanViolationKind::Malformed);
  EXPECT_EQ(v[0].tensor, -1);
  EXPECT_EQ(v[0].message, "method 'forward': the plan has no buffers (expected at least [0, 0])");
  // Then every planned tensor names a buffer that does not exist.
  ASSERT_EQ(v.size(), 7u);
  for (size_t i = 1; i < v.size(); ++i) EXPECT_EQ(v[i].kind, PlanViolationKind::BadBuffer);
  EXPECT_EQ(v[1].message,
            "method 'forward': tensor 'a' is in buffer 0 but the method has 0 buffers");
}

TEST(PlanVerifierTest, FindsWrongDeviceBadBufferAndUnplanned) {
  MethodMemoryPlan plan = reference_plan();
  plan.tensors[3].buffer_index = 0;  // a@cuda:0 in the host buffer, at 16: overlaps b too
  plan.tensors[2].buffer_index = 7;
  plan.tensors[5].planned = false;
  std::vector<PlanViolation> v = verify_plan(plan);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::BadBuffer);
  EXPECT_EQ(v[0].message,
            "method 'forward': tensor 'z' is in buffer 7 but the method has 2 buffers");
  EXPECT_EQ(v[1].kind, PlanViolationKind::WrongDevice);
  EXPECT_EQ(v[1].message, "method 'forward': tensor 'a@cuda:0' on cuda:0 is in buffer 0 (cpu:0)");
  EXPECT_EQ(v[2].kind, PlanViolationKind::NotPlanned);
  EXPECT_EQ(v[2].message,
            "method 'forward': tensor 'z@cpu:0' lives at steps 3..3 but has no place");
  EXPECT_EQ(v[3].kind, PlanViolationKind::Overlap);
  EXPECT_EQ(v[3].tensor, 1);
  EXPECT_EQ(v[3].other, 3);
}

TEST(PlanVerifierTest, MalformedPlans) {
  MethodMemoryPlan plan = reference_plan();
  plan.tensors.pop_back();
  std::vector<PlanViolation> v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::Malformed);
  EXPECT_EQ(v[0].message, "method 'forward': 5 planned tensors for 6 graph tensors");
  EXPECT_EQ(v[0].tensor, -1);
  EXPECT_EQ(v[0].other, -1);

  plan = reference_plan();
  plan.tensors[0].nbytes = 8;
  v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message,
            "method 'forward': tensor 'a': planned nbytes 8 differ from the graph's 16");

  plan = reference_plan();
  plan.graph.nodes[0].inputs = {99};
  v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].kind, PlanViolationKind::Malformed);

  plan = reference_plan();
  plan.alignment = 3;
  v = verify_plan(plan);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "method 'forward': alignment 3 is not a power of two");
  EXPECT_EQ(v[0].tensor, -1);
  EXPECT_EQ(v[0].other, -1);

  EXPECT_STREQ(plan_violation_kind_name(PlanViolationKind::Overlap), "overlap");
  EXPECT_STREQ(plan_violation_kind_name(PlanViolationKind::OutOfBuffer), "out_of_buffer");
  EXPECT_STREQ(plan_violation_kind_name(PlanViolationKind::WrongDevice), "wrong_device");
}

TEST(VerifyOffsetsTest, ItemsLevelChecks) {
  std::vector<PlanItem> items = {{16, 0, 1}, {16, 1, 2}, {16, 2, 3}, {0, 0, 3}, {16, -1, -1}};
  EXPECT_TRUE(verify_offsets(items, {0, 16, 0, 0, 0}, 32, 16).empty());
  // Item 2 moved onto item 1 (steps 2..2); the zero-size item overlaps nothing.
  std::vector<PlanViolation> v = verify_offsets(items, {0, 16, 16, 16, 0}, 32, 16);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "items 1 and 2 share bytes [16, 32) at steps 2..2");
  v = verify_offsets(items, {0, 16, 8, 0, 0}, 32, 16);
  ASSERT_EQ(v.size(), 2u);  // misaligned, and [8, 24) overlaps item 1
  EXPECT_EQ(v[0].kind, PlanViolationKind::Misaligned);
  EXPECT_EQ(v[0].message, "item 2 at offset 8 is not aligned to 16");
  EXPECT_EQ(v[1].kind, PlanViolationKind::Overlap);
  v = verify_offsets(items, {0, 16, 32, 0, 0}, 32, 16);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "item 2 of 16 bytes at offset 32 ends past the buffer of 32 bytes");
  v = verify_offsets(items, {0}, 32, 16);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "1 offsets for 5 items");
  v = verify_offsets({{16, 2, 1}}, {0}, 32, 16);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].message, "item 0: lifetime 2..1 ends before it starts");
}

}  // namespace
}  // namespace devplan
