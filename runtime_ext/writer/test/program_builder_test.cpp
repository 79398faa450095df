// ProgramBuilder: what it writes (checked with the flatbuffer API) and that it reads back.
#include <gtest/gtest.h>
#include <runtime_ext/analysis/method_plan_compare.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/schema/program_generated.h>
#include <runtime_ext/writer/program_builder.h>

#include <cmath>
#include <limits>

#include <runtime_ext/program/test/program_test_util.h>

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;
using testing_util::float_bytes;

const fb::ExecutionPlan* raw_plan(const std::vector<uint8_t>& bytes, size_t i = 0) {
  return fb::GetProgram(bytes.data())
      ->execution_plan()
      ->Get(static_cast<flatbuffers::uoffset_t>(i));
}

// Loads `builder`'s output and expects every method to read back as the builder's plan.
void expect_round_trip(const ProgramBuilder& builder) {
  const std::vector<uint8_t> bytes = builder.build();
  Result<Program> program = Program::load_from_bytes(bytes);
  ASSERT_TRUE(program.ok()) << program.error();
  ASSERT_EQ(program->num_methods(), builder.num_methods());
  for (size_t i = 0; i < builder.num_methods(); ++i) {
    Result<const MethodPlan*> plan = program->method_plan_at(i);
    ASSERT_TRUE(plan.ok()) << plan.error();
    EXPECT_EQ(method_plan_difference(builder.method(i).plan(), **plan), "") << "method " << i;
  }
}

TEST(ProgramBuilderTest, EveryValueKindRoundTrips) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("values");
  m.add_buffer(64);
  m.add_buffer(48, Device::cuda(3));
  ValueInfo none;
  none.tag = ValueTag::None;
  m.add_value(none);
  m.add_null();
  m.add_int(std::numeric_limits<int64_t>::min());
  m.add_int(-5);
  m.add_bool(true);
  m.add_bool(false);
  m.add_double(-2.5);
  m.add_double(std::numeric_limits<double>::infinity());
  m.add_string("hello");
  m.add_string("");
  m.add_int_list({1, -2, std::numeric_limits<int64_t>::max()});
  m.add_int_list({});
  m.add_double_list({0.5, -1e300});
  m.add_bool_list({true, false, true});
  const int32_t t0 = m.add_runtime_tensor(TensorSpec::of(ScalarType::Int, {3}));
  TensorSpec dyn = TensorSpec::of(ScalarType::BFloat16, {2, 3, 4}, Device::cuda(3));
  dyn.dynamism = TensorShapeDynamism::DynamicBound;
  dyn.dim_order = {2, 0, 1};
  dyn.fully_qualified_name = "layer.weight";
  const int32_t t1 = m.add_planned_tensor(dyn, 1, 0);
  const int32_t t2 = m.add_constant_tensor(TensorSpec::of(ScalarType::Byte, {5}), {1, 2, 3, 4, 5});
  const int32_t t3 = m.add_planned_tensor_with_initial_value(TensorSpec::of(ScalarType::Long, {2}),
                                                             0, 48, std::vector<uint8_t>(16, 0xAB));
  TensorSpec unbound = TensorSpec::of(ScalarType::Float, {});
  unbound.dynamism = TensorShapeDynamism::DynamicUnbound;
  m.add_planned_tensor(unbound, 0, 60);
  const int32_t null_index = 1;
  m.add_tensor_list({t0, t1, t2, t3});
  m.add_optional_tensor_list({t0, null_index, t3});
  expect_round_trip(builder);
}

TEST(ProgramBuilderTest, EveryInstructionKindRoundTrips) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("control");
  const int32_t a = m.add_runtime_tensor(TensorSpec::of(ScalarType::Float, {4}));
  const int32_t b = m.add_runtime_tensor(TensorSpec::of(ScalarType::Float, {4}));
  const int32_t cond = m.add_bool(true);
  const int32_t alpha = m.add_int(1);
  m.add_delegate("Backend", {0xde, 0xad}, {{"key1", {1, 2}}, {"key2", {}}});
  m.add_chain({a}, {b});
  m.add_kernel_call("aten::add", "out", {a, a, alpha, b, b});
  m.add_delegate_call(0, {a, b});
  m.add_jump_false(cond, 0);
  m.add_move(a, b);
  m.add_free(a);
  m.add_chain();
  m.add_kernel_call("aten::mul", "out", {a, b, b, b});
  m.add_kernel_call("aten::add", "out", {a, b, alpha, b, b});
  m.set_inputs({a, b});
  m.set_outputs({b});
  const MethodPlan& plan = m.plan();
  ASSERT_EQ(plan.operators.size(), 2u) << "operators are added once";
  EXPECT_EQ(plan.chains[1].instructions[1].op_index, 0);
  expect_round_trip(builder);
}

TEST(ProgramBuilderTest, BufferListsAsWritten) {
  ProgramBuilder builder;
  builder.add_method("none");
  MethodBuilder& cpu = builder.add_method("cpu");
  cpu.add_buffer(32);
  cpu.add_buffer(0);
  MethodBuilder& dev = builder.add_method("dev");
  dev.add_buffer(32);
  dev.add_buffer(48, Device::cuda(0));
  dev.add_buffer(16);
  dev.add_buffer(8, Device::cuda(2));
  const std::vector<uint8_t> bytes = builder.build();

  const fb::ExecutionPlan* none = raw_plan(bytes, 0);
  ASSERT_NE(none->non_const_buffer_sizes(), nullptr);
  EXPECT_EQ(std::vector<int64_t>(none->non_const_buffer_sizes()->begin(),
                                 none->non_const_buffer_sizes()->end()),
            std::vector<int64_t>({0}));
  EXPECT_EQ(none->non_const_buffer_device(), nullptr);

  const fb::ExecutionPlan* c = raw_plan(bytes, 1);
  EXPECT_EQ(std::vector<int64_t>(c->non_const_buffer_sizes()->begin(),
                                 c->non_const_buffer_sizes()->end()),
            std::vector<int64_t>({0, 32, 0}));
  EXPECT_EQ(c->non_const_buffer_device(), nullptr) << "CPU-only: no device list";

  const fb::ExecutionPlan* d = raw_plan(bytes, 2);
  EXPECT_EQ(std::vector<int64_t>(d->non_const_buffer_sizes()->begin(),
                                 d->non_const_buffer_sizes()->end()),
            std::vector<int64_t>({0, 32, 48, 16, 8}));
  ASSERT_NE(d->non_const_buffer_device(), nullptr);
  ASSERT_EQ(d->non_const_buffer_device()->size(), 2u);
  EXPECT_EQ(d->non_const_buffer_device()->Get(0)->buffer_idx(), 2);
  EXPECT_EQ(d->non_const_buffer_device()->Get(0)->device_type(), fb::DeviceType::CUDA);
  EXPECT_EQ(d->non_const_buffer_device()->Get(0)->device_index(), 0);
  EXPECT_EQ(d->non_const_buffer_device()->Get(1)->buffer_idx(), 4);
  EXPECT_EQ(d->non_const_buffer_device()->Get(1)->device_index(), 2);
  expect_round_trip(builder);
}

TEST(ProgramBuilderTest, RawOverridesAreWrittenAsGiven) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("raw");
  m.add_buffer(32, Device::cuda(0));
  const int32_t t = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2}), 0, 8);
  m.set_raw_buffer_sizes({5, -1, 7});
  m.set_raw_buffer_devices({{0, 9, -3}, {-2, 1, 0}});
  RawTensorFields raw;
  raw.memory_id = 0;
  raw.data_buffer_idx = 42;
  raw.mutable_data_segments_idx = 3;
  m.set_raw_tensor_fields(t, raw);
  const std::vector<uint8_t> bytes = builder.build();
  const fb::ExecutionPlan* p = raw_plan(bytes);
  EXPECT_EQ(std::vector<int64_t>(p->non_const_buffer_sizes()->begin(),
                                 p->non_const_buffer_sizes()->end()),
            std::vector<int64_t>({5, -1, 7}));
  ASSERT_EQ(p->non_const_buffer_device()->size(), 2u);
  EXPECT_EQ(p->non_const_buffer_device()->Get(0)->buffer_idx(), 0);
  EXPECT_EQ(static_cast<int>(p->non_const_buffer_device()->Get(0)->device_type()), 9);
  EXPECT_EQ(p->non_const_buffer_device()->Get(0)->device_index(), -3);
  EXPECT_EQ(p->non_const_buffer_device()->Get(1)->buffer_idx(), -2);
  const fb::Tensor* tensor = p->values()->Get(0)->val_as_Tensor();
  ASSERT_NE(tensor, nullptr);
  ASSERT_NE(tensor->allocation_info(), nullptr);
  EXPECT_EQ(tensor->allocation_info()->memory_id(), 0u);
  EXPECT_EQ(tensor->allocation_info()->memory_offset_low(), 8u);
  EXPECT_EQ(tensor->data_buffer_idx(), 42u);
  ASSERT_NE(tensor->extra_tensor_info(), nullptr);
  EXPECT_EQ(tensor->extra_tensor_info()->mutable_data_segments_idx(), 3u);
  // An empty raw device list is written as an empty list, not left out.
  ProgramBuilder empty_list;
  MethodBuilder& e = empty_list.add_method("m");
  e.add_buffer(16);
  e.set_raw_buffer_devices({});
  const std::vector<uint8_t> eb = empty_list.build();
  ASSERT_NE(raw_plan(eb)->non_const_buffer_device(), nullptr);
  EXPECT_EQ(raw_plan(eb)->non_const_buffer_device()->size(), 0u);
}

TEST(ProgramBuilderTest, LayoutOfSegmentsAndHeader) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(64);
  m.add_constant_tensor(TensorSpec::of(ScalarType::Byte, {3}), {1, 2, 3});
  m.add_constant_tensor(TensorSpec::of(ScalarType::Byte, {2}), {4, 5});
  m.add_planned_tensor_with_initial_value(TensorSpec::of(ScalarType::Byte, {4}), 0, 0,
                                          {6, 7, 8, 9});
  m.add_delegate("Seg", {10, 11}, {}, DelegateDataLocation::Segment);
  m.add_delegate("Inl", {12}, {}, DelegateDataLocation::Inline);
  const std::vector<uint8_t> bytes = builder.build();
  Result<Program> program = Program::load_from_bytes(bytes);
  ASSERT_TRUE(program.ok()) << program.error();
  const ExtendedHeader& h = *program->extended_header();
  EXPECT_EQ(h.length, 32u);
  EXPECT_EQ(h.segment_base_offset % 16, 0u);
  // Segments: 0 constants (3 bytes, pad, 2 bytes = 18), 1 initial values (4), 2 delegate (2),
  // each starting at a multiple of 16 from the base.
  const fb::Program* root = fb::GetProgram(bytes.data());
  ASSERT_EQ(root->segments()->size(), 3u);
  EXPECT_EQ(root->segments()->Get(0)->offset(), 0u);
  EXPECT_EQ(root->segments()->Get(0)->size(), 18u);
  EXPECT_EQ(root->segments()->Get(1)->offset(), 32u);
  EXPECT_EQ(root->segments()->Get(1)->size(), 4u);
  EXPECT_EQ(root->segments()->Get(2)->offset(), 48u);
  EXPECT_EQ(root->segments()->Get(2)->size(), 2u);
  EXPECT_EQ(h.segment_data_size, 50u);
  EXPECT_EQ(bytes.size(), h.segment_base_offset + 50);
  EXPECT_EQ(std::vector<uint64_t>(root->constant_segment()->offsets()->begin(),
                                  root->constant_segment()->offsets()->end()),
            std::vector<uint64_t>({0, 0, 16}));
  EXPECT_EQ(root->constant_segment()->segment_index(), 0u);
  ASSERT_EQ(root->mutable_data_segments()->size(), 1u);
  EXPECT_EQ(root->mutable_data_segments()->Get(0)->segment_index(), 1u);
  EXPECT_EQ(root->backend_delegate_data()->size(), 1u);
  EXPECT_EQ(root->version(), 0u);
  expect_round_trip(builder);

  // Without segment data: no header, unless asked for.
  ProgramBuilder plain;
  plain.add_method("forward");
  EXPECT_NE(std::string(reinterpret_cast<const char*>(plain.build().data()) + 8, 4), "eh00");
  ProgramBuilderOptions options;
  options.always_write_extended_header = true;
  options.version = 7;
  ProgramBuilder forced(options);
  forced.add_method("forward");
  Result<Program> fp = Program::load_from_bytes(forced.build());
  ASSERT_TRUE(fp.ok()) << fp.error();
  ASSERT_TRUE(fp->extended_header().has_value());
  EXPECT_EQ(fp->extended_header()->segment_base_offset, 0u);
  EXPECT_EQ(fp->extended_header()->program_size, fp->bytes().size());
  EXPECT_EQ(fp->version(), 7u);
}

TEST(ProgramBuilderTest, SegmentAndConstantAlignmentOptionsPlaceTheData) {
  ProgramBuilderOptions options;
  options.segment_alignment = 64;
  options.constant_alignment = 4;
  ProgramBuilder builder(options);
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(64);
  m.add_constant_tensor(TensorSpec::of(ScalarType::Byte, {3}), {1, 2, 3});
  m.add_constant_tensor(TensorSpec::of(ScalarType::Byte, {2}), {4, 5});
  m.add_planned_tensor_with_initial_value(TensorSpec::of(ScalarType::Byte, {4}), 0, 0,
                                          {6, 7, 8, 9});
  m.add_delegate("Seg", {10, 11}, {}, DelegateDataLocation::Segment);
  const std::vector<uint8_t> bytes = builder.build();
  Result<Program> program = Program::load_from_bytes(bytes);
  ASSERT_TRUE(program.ok()) << program.error();
  const ExtendedHeader& h = *program->extended_header();
  EXPECT_EQ(h.segment_base_offset % 64, 0u);
  // Constants: 3 bytes, 1 byte of padding to 4, 2 bytes (6); then segments at multiples of 64.
  const fb::Program* root = fb::GetProgram(bytes.data());
  EXPECT_EQ(std::vector<uint64_t>(root->constant_segment()->offsets()->begin(),
                                  root->constant_segment()->offsets()->end()),
            std::vector<uint64_t>({0, 0, 4}));
  ASSERT_EQ(root->segments()->size(), 3u);
  EXPECT_EQ(root->segments()->Get(0)->offset(), 0u);
  EXPECT_EQ(root->segments()->Get(0)->size(), 6u);
  EXPECT_EQ(root->segments()->Get(1)->offset(), 64u);
  EXPECT_EQ(root->segments()->Get(1)->size(), 4u);
  EXPECT_EQ(root->segments()->Get(2)->offset(), 128u);
  EXPECT_EQ(root->segments()->Get(2)->size(), 2u);
  EXPECT_EQ(h.segment_data_size, 130u);
  EXPECT_EQ(bytes.size(), h.segment_base_offset + 130);
  EXPECT_EQ(bytes[h.segment_base_offset + 4], 4);  // the second constant, after one pad byte
  EXPECT_EQ(bytes[h.segment_base_offset + 128], 10);
  expect_round_trip(builder);
}

TEST(ProgramBuilderTest, FileIdentifierIsPaddedOrCutToFourBytes) {
  ProgramBuilderOptions short_id;
  short_id.file_identifier = "ET1";
  ProgramBuilder padded(short_id);
  padded.add_method("forward");
  const std::vector<uint8_t> padded_bytes = padded.build();
  ASSERT_GE(padded_bytes.size(), 8u);
  EXPECT_EQ(std::vector<uint8_t>(padded_bytes.begin() + 4, padded_bytes.begin() + 8),
            (std::vector<uint8_t>{'E', 'T', '1', 0}));

  ProgramBuilderOptions long_id;
  long_id.file_identifier = "ET12XY";
  ProgramBuilder cut(long_id);
  cut.add_method("forward");
  const std::vector<uint8_t> cut_bytes = cut.build();
  ASSERT_GE(cut_bytes.size(), 8u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(cut_bytes.data()) + 4, 4), "ET12");
  Result<Program> program = Program::load_from_bytes(cut_bytes);
  EXPECT_TRUE(program.ok()) << program.error();
}

TEST(ProgramBuilderTest, RealFilesRewrittenReadBackEqual) {
  for (const char* name : {"add.pte", "linear_no_constant_segment.pte"}) {
    const std::vector<uint8_t> original =
        read_file(testing_util::executorch_fixture_path(name)).value();
    Result<Program> program = Program::load_from_bytes(original);
    ASSERT_TRUE(program.ok()) << name << ": " << program.error();
    ProgramBuilder builder;
    builder.add_method(**program->method_plan("forward"));
    Result<Program> again = Program::load_from_bytes(builder.build());
    ASSERT_TRUE(again.ok()) << name << ": " << again.error();
    EXPECT_EQ(
        method_plan_difference(**program->method_plan("forward"), **again->method_plan("forward")),
        "")
        << name;
  }
}

TEST(ProgramBuilderTest, MovedBuilderStillBuildsTheSameBytes) {
  ProgramBuilder a;
  MethodBuilder& m = a.add_method("forward");
  m.add_constant_tensor(TensorSpec::of(ScalarType::Float, {2}), float_bytes({1, 2}));
  m.add_delegate("B", {1, 2, 3}, {{"k", {4}}});
  const std::vector<uint8_t> before = a.build();
  ProgramBuilder b = std::move(a);
  EXPECT_EQ(b.build(), before);
  EXPECT_EQ(&b.method(0), &m);
}

}  // namespace
}  // namespace devplan
