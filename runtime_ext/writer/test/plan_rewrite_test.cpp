// rewrite_memory_plan and with_replaced_program over programs written by hand with the
// generated builders, so the layouts a writer may choose are all covered: offsets stored in the
// file, offsets left out at their default, AllocationDetails tables and sizes vectors that two
// tensors or two methods share. Each rewritten file is read back by the runtime's Program.
#include <gtest/gtest.h>

#include <memory>

#include <runtime_ext/program/bundled_program.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/schema/bundled_program_generated.h>
#include <runtime_ext/schema/program_generated.h>
#include <runtime_ext/writer/bundled_program_rewrite.h>
#include <runtime_ext/writer/plan_rewrite.h>

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;
namespace bp = devplan_bundled_flatbuffer;

// Two methods over one 64-byte host buffer each, float32[4] tensors:
// - method 0: value 0 and value 1 share one AllocationDetails {buffer 0, offset 16}; value 2 has
//   its own at offset 48; value 3 its own at offset 0 (the offset fields left out); value 4 is
//   an Int.
// - method 1: value 0 at offset 16 (its own table).
// Both methods share one non_const_buffer_sizes vector [0, 64].
std::vector<uint8_t> hand_written_program() {
  flatbuffers::FlatBufferBuilder fbb;
  auto sizes = fbb.CreateVector<int64_t>({0, 64});
  auto tensor = [&](flatbuffers::Offset<fb::AllocationDetails> at) {
    return fb::CreateEValue(
        fbb, fb::KernelTypes::Tensor,
        fb::CreateTensor(fbb, fb::ScalarType::FLOAT, 0, fbb.CreateVector<int32_t>({4}),
                         fbb.CreateVector<uint8_t>({0}), false, 0, at)
            .Union());
  };
  auto method = [&](const char* name, std::vector<flatbuffers::Offset<fb::EValue>> values) {
    return fb::CreateExecutionPlan(
        fbb, fbb.CreateString(name), 0, fbb.CreateVector(values), fbb.CreateVector<int32_t>({}),
        fbb.CreateVector<int32_t>({}),
        fbb.CreateVector<flatbuffers::Offset<fb::Chain>>(
            {fb::CreateChain(fbb, fbb.CreateVector<int32_t>({}), fbb.CreateVector<int32_t>({}),
                             fbb.CreateVector<flatbuffers::Offset<fb::Instruction>>({}))}),
        fbb.CreateVector<flatbuffers::Offset<fb::Operator>>({}),
        fbb.CreateVector<flatbuffers::Offset<fb::BackendDelegate>>({}), sizes);
  };
  auto shared = fb::CreateAllocationDetails(fbb, 1, 16, 0);
  auto forward =
      method("forward",
             {tensor(shared), tensor(shared), tensor(fb::CreateAllocationDetails(fbb, 1, 48, 0)),
              tensor(fb::CreateAllocationDetails(fbb, 1, 0, 0)),
              fb::CreateEValue(fbb, fb::KernelTypes::Int, fb::CreateInt(fbb, 7).Union())});
  auto other = method("other", {tensor(fb::CreateAllocationDetails(fbb, 1, 16, 0))});
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans{forward, other};
  fbb.Finish(fb::CreateProgram(fbb, 0, fbb.CreateVector(plans)), fb::ProgramIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

struct Plans {
  std::vector<std::vector<uint64_t>> offsets;  // [method][value], tensors only (else 0)
  std::vector<std::vector<uint64_t>> sizes;    // [method][buffer]
};

Plans read_back(const std::vector<uint8_t>& bytes) {
  Plans out;
  Result<Program> program = Program::load_from_bytes(Span<const uint8_t>(bytes));
  EXPECT_TRUE(program.ok()) << program.error();
  if (!program.ok()) return out;
  for (size_t m = 0; m < program->num_methods(); ++m) {
    Result<const MethodPlan*> method = program->method_plan_at(m);
    EXPECT_TRUE(method.ok()) << method.error();
    if (!method.ok()) return out;
    const MethodPlan& plan = **method;
    std::vector<uint64_t> offsets;
    for (const ValueInfo& v : plan.values) {
      offsets.push_back(v.tag == ValueTag::Tensor ? v.tensor.offset : 0);
    }
    out.offsets.push_back(offsets);
    out.sizes.push_back(plan.buffer_sizes);
  }
  return out;
}

size_t differing_bytes(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
  size_t n = 0;
  for (size_t i = 0; i < std::min(a.size(), b.size()); ++i) n += a[i] != b[i];
  return n;
}

TEST(PlanRewriteTest, HandWrittenProgramReadsAsDescribed) {
  const Plans p = read_back(hand_written_program());
  EXPECT_EQ(p.offsets, (std::vector<std::vector<uint64_t>>{{16, 16, 48, 0, 0}, {16}}));
  EXPECT_EQ(p.sizes, (std::vector<std::vector<uint64_t>>{{64}, {64}}));
}

TEST(PlanRewriteTest, AStoredUnsharedOffsetChangesInPlace) {
  const std::vector<uint8_t> original = hand_written_program();
  std::vector<MethodPlanEdits> edits(1);
  edits[0].tensor_offsets = {{2, 32}};
  Result<RewrittenProgram> r = rewrite_memory_plan(original, edits);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->appended, 0u);
  ASSERT_EQ(r->bytes.size(), original.size());
  EXPECT_EQ(differing_bytes(r->bytes, original), 1u);  // 48 -> 32: one byte of the low half
  EXPECT_EQ(read_back(r->bytes).offsets,
            (std::vector<std::vector<uint64_t>>{{16, 16, 32, 0, 0}, {16}}));
}

TEST(PlanRewriteTest, AnOffsetLeftOutGetsAnAppendedTable) {
  const std::vector<uint8_t> original = hand_written_program();
  std::vector<MethodPlanEdits> edits(1);
  edits[0].tensor_offsets = {{3, 32}, {2, uint64_t{5} << 32}};  // the high half is left out too
  Result<RewrittenProgram> r = rewrite_memory_plan(original, edits);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->appended, 2u);
  EXPECT_EQ(r->bytes.size(), (original.size() + 3) / 4 * 4 + 2 * 28);
  // Offsets past the buffer do not load; the tables are checked as written instead.
  const fb::Program* root = fb::GetProgram(r->bytes.data());
  flatbuffers::Verifier verifier(r->bytes.data(), r->bytes.size());
  ASSERT_TRUE(fb::VerifyProgramBuffer(verifier));
  const auto* values = root->execution_plan()->Get(0)->values();
  const fb::AllocationDetails* three = values->Get(3)->val_as_Tensor()->allocation_info();
  EXPECT_EQ(three->memory_id(), 1u);
  EXPECT_EQ(three->memory_offset_low(), 32u);
  EXPECT_EQ(three->memory_offset_high(), 0u);
  const fb::AllocationDetails* two = values->Get(2)->val_as_Tensor()->allocation_info();
  EXPECT_EQ(two->memory_offset_low(), 0u);
  EXPECT_EQ(two->memory_offset_high(), 5u);
}

TEST(PlanRewriteTest, ASharedTableMovesOnlyTheTensorEdited) {
  std::vector<MethodPlanEdits> edits(1);
  edits[0].tensor_offsets = {{1, 32}};
  Result<RewrittenProgram> r = rewrite_memory_plan(hand_written_program(), edits);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->appended, 1u);
  EXPECT_EQ(read_back(r->bytes).offsets,
            (std::vector<std::vector<uint64_t>>{{16, 32, 48, 0, 0}, {16}}));
}

TEST(PlanRewriteTest, ASharedSizesVectorChangesOnlyForTheMethodEdited) {
  std::vector<MethodPlanEdits> edits(2);
  edits[1].buffer_sizes = {{0, 32}};
  Result<RewrittenProgram> r = rewrite_memory_plan(hand_written_program(), edits);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->appended, 1u);
  EXPECT_EQ(read_back(r->bytes).sizes, (std::vector<std::vector<uint64_t>>{{64}, {32}}));
  // Both edited: each method its own vector, one of them appended.
  edits[0].buffer_sizes = {{0, 80}};
  r = rewrite_memory_plan(hand_written_program(), edits);
  ASSERT_TRUE(r.ok()) << r.error();
  EXPECT_EQ(r->appended, 2u);
  EXPECT_EQ(read_back(r->bytes).sizes, (std::vector<std::vector<uint64_t>>{{80}, {32}}));
}

TEST(PlanRewriteTest, BadEditsAreInvalidArgumentAndBadFilesInvalidProgram) {
  const std::vector<uint8_t> original = hand_written_program();
  auto message = [&](std::vector<MethodPlanEdits> edits) {
    Result<RewrittenProgram> r = rewrite_memory_plan(original, edits);
    EXPECT_FALSE(r.ok());
    EXPECT_EQ(r.ok() ? ErrorCode::Ok : r.error().code(), ErrorCode::InvalidArgument);
    return r.ok() ? std::string() : r.error().message();
  };
  std::vector<MethodPlanEdits> edits(3);
  EXPECT_EQ(message(edits), "plan edit for method 2: the program has 2 methods");
  edits.resize(1);
  edits[0].tensor_offsets = {{9, 0}};
  EXPECT_EQ(message(edits), "plan edit for method 0: value 9 is out of range (5 values)");
  edits[0].tensor_offsets = {{4, 0}};
  EXPECT_EQ(message(edits), "plan edit for method 0: value 4 is not a planned tensor");
  edits[0].tensor_offsets = {};
  edits[0].buffer_sizes = {{1, 8}};
  EXPECT_EQ(message(edits), "plan edit for method 0: buffer 1 is out of range (1 buffers)");
  std::vector<uint8_t> cut(original.begin(), original.begin() + 40);
  Result<RewrittenProgram> r = rewrite_memory_plan(cut, {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().code(), ErrorCode::InvalidProgram);
}

// A bundle around `program` with one test suite whose one case has no inputs.
std::vector<uint8_t> bundle_of(const std::vector<uint8_t>& program) {
  bp::BundledProgramT object;
  object.version = 2;
  object.program = program;
  auto suite = std::make_unique<bp::BundledMethodTestSuiteT>();
  suite->method_name = "forward";
  suite->test_cases.push_back(std::make_unique<bp::BundledMethodTestCaseT>());
  object.method_test_suites.push_back(std::move(suite));
  flatbuffers::FlatBufferBuilder fbb;
  bp::FinishBundledProgramBuffer(fbb, bp::BundledProgram::Pack(fbb, &object));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(BundledProgramRewriteTest, ASmallerProgramIsWrittenInPlaceALargerOneAppended) {
  const std::vector<uint8_t> program = hand_written_program();
  const std::vector<uint8_t> bundle = bundle_of(program);
  const std::vector<uint8_t> smaller(program.begin(), program.end() - 8);
  Result<std::vector<uint8_t>> in_place = with_replaced_program(bundle, smaller);
  ASSERT_TRUE(in_place.ok()) << in_place.error();
  EXPECT_EQ(in_place->size(), bundle.size());
  Result<BundledProgram> a = BundledProgram::parse(*in_place);
  ASSERT_TRUE(a.ok()) << a.error();
  EXPECT_EQ(std::vector<uint8_t>(a->program.begin(), a->program.end()), smaller);
  EXPECT_EQ(a->program_offset, BundledProgram::parse(bundle)->program_offset);

  std::vector<uint8_t> larger = program;
  larger.resize(program.size() + 100, 0xAB);
  Result<std::vector<uint8_t>> appended = with_replaced_program(bundle, larger);
  ASSERT_TRUE(appended.ok()) << appended.error();
  Result<BundledProgram> b = BundledProgram::parse(*appended);
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(std::vector<uint8_t>(b->program.begin(), b->program.end()), larger);
  EXPECT_EQ(b->program_offset % 32, 0u);
  EXPECT_GE(b->program_offset, bundle.size());
  // Everything else reads as before: one suite, its one case with no inputs.
  ASSERT_EQ(b->suites.size(), 1u);
  EXPECT_EQ(b->suites[0].method_name, "forward");
  ASSERT_EQ(b->suites[0].cases.size(), 1u);
  EXPECT_TRUE(b->suites[0].cases[0].inputs.empty());

  Result<std::vector<uint8_t>> not_a_bundle = with_replaced_program(program, program);
  ASSERT_FALSE(not_a_bundle.ok());
  EXPECT_EQ(not_a_bundle.error().message(), "not a bundled program: file identifier is not BP08");
}

}  // namespace
}  // namespace devplan
