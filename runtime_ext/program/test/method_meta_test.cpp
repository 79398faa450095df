#include <gtest/gtest.h>
#include <runtime_ext/program/method_meta.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/writer/program_builder.h>

namespace devplan {
namespace {

// Buffers: 0 cpu:0 32, 1 cuda:0 48, 2 cuda:1 0, 3 cpu:0 8. Inputs: a (tensor), k (Int).
std::vector<uint8_t> sample_program() {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(32);
  m.add_buffer(48, Device::cuda(0));
  m.add_buffer(0, Device::cuda(1));
  m.add_buffer(8);
  const int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Half, {3, 4}), 0, 0);
  const int32_t k = m.add_int(7);
  const int32_t d =
      m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(0)), 1, 16);
  m.add_delegate("BackendA", {1, 2, 3});
  m.add_delegate("BackendB", {});
  m.add_delegate_call(0, {a, d});
  m.add_delegate_call(1, {d, d});
  m.set_inputs({a, k});
  m.set_outputs({d});
  return builder.build();
}

class MethodMetaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    bytes_ = sample_program();
    Result<Program> program = Program::load_from_bytes(bytes_);
    ASSERT_TRUE(program.ok()) << program.error();
    program_.emplace(std::move(*program));
    Result<MethodMeta> meta = program_->method_meta("forward");
    ASSERT_TRUE(meta.ok()) << meta.error();
    meta_.emplace(*meta);
  }

  std::vector<uint8_t> bytes_;
  std::optional<Program> program_;
  std::optional<MethodMeta> meta_;
};

TEST_F(MethodMetaTest, BufferSizesAndDevicesByUserFacingIndex) {
  ASSERT_EQ(meta_->num_memory_planned_buffers(), 4u);
  EXPECT_EQ(*meta_->memory_planned_buffer_size(0), 32);
  EXPECT_EQ(*meta_->memory_planned_buffer_size(1), 48);
  EXPECT_EQ(*meta_->memory_planned_buffer_size(2), 0);
  EXPECT_EQ(*meta_->memory_planned_buffer_size(3), 8);
  EXPECT_EQ(*meta_->memory_planned_buffer_device(0), Device::cpu());
  EXPECT_EQ(*meta_->memory_planned_buffer_device(1), Device::cuda(0));
  EXPECT_EQ(*meta_->memory_planned_buffer_device(2), Device::cuda(1));
  EXPECT_EQ(*meta_->memory_planned_buffer_device(3), Device::cpu());
  EXPECT_TRUE(meta_->has_device_buffers());
}

TEST_F(MethodMetaTest, OutOfRangeBufferIndexIsInvalidArgument) {
  Result<int64_t> size = meta_->memory_planned_buffer_size(4);
  ASSERT_FALSE(size.ok());
  EXPECT_EQ(size.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(size.error().message(),
            "method 'forward': planned buffer index 4 is out of range (the method has 4 "
            "planned buffers)");
  Result<Device> device = meta_->memory_planned_buffer_device(4);
  ASSERT_FALSE(device.ok());
  EXPECT_EQ(device.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(device.error().message(), size.error().message());
  EXPECT_EQ(meta_->memory_planned_buffer_device(static_cast<size_t>(-1)).code(),
            ErrorCode::InvalidArgument);
}

TEST_F(MethodMetaTest, InputsAndOutputs) {
  EXPECT_EQ(meta_->num_inputs(), 2u);
  EXPECT_EQ(meta_->num_outputs(), 1u);
  EXPECT_EQ(*meta_->input_tag(0), ValueTag::Tensor);
  EXPECT_EQ(*meta_->input_tag(1), ValueTag::Int);
  EXPECT_EQ(*meta_->output_tag(0), ValueTag::Tensor);

  Result<TensorMeta> in = meta_->input_tensor_meta(0);
  ASSERT_TRUE(in.ok()) << in.error();
  EXPECT_EQ(in->dtype, ScalarType::Half);
  ASSERT_EQ(in->sizes.size(), 2u);
  EXPECT_EQ(in->sizes[0], 3);
  EXPECT_EQ(in->sizes[1], 4);
  ASSERT_EQ(in->dim_order.size(), 2u);
  EXPECT_EQ(in->dim_order[1], 1);
  EXPECT_EQ(in->nbytes, 24u);
  EXPECT_EQ(in->device, Device::cpu());

  Result<TensorMeta> out = meta_->output_tensor_meta(0);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(out->device, Device::cuda(0));
  EXPECT_EQ(out->nbytes, 16u);
  EXPECT_EQ(out->storage, TensorStorage::Planned);
}

TEST_F(MethodMetaTest, InputErrorsNameTheMethodAndIndex) {
  Result<TensorMeta> not_tensor = meta_->input_tensor_meta(1);
  ASSERT_FALSE(not_tensor.ok());
  EXPECT_EQ(not_tensor.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(not_tensor.error().message(),
            "method 'forward': input 1 (value 1) is Int, not a Tensor");
  Result<TensorMeta> past = meta_->input_tensor_meta(2);
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.error().message(),
            "method 'forward': input index 2 is out of range (the method has 2 inputs)");
  Result<ValueTag> tag = meta_->output_tag(1);
  ASSERT_FALSE(tag.ok());
  EXPECT_EQ(tag.error().message(),
            "method 'forward': output index 1 is out of range (the method has 1 output)");
  EXPECT_EQ(meta_->output_tensor_meta(1).code(), ErrorCode::InvalidArgument);
}

TEST_F(MethodMetaTest, Backends) {
  EXPECT_EQ(meta_->num_backends(), 2u);
  EXPECT_STREQ(*meta_->backend_name(0), "BackendA");
  EXPECT_STREQ(*meta_->backend_name(1), "BackendB");
  EXPECT_EQ(meta_->backend_name(2).code(), ErrorCode::InvalidArgument);
  EXPECT_TRUE(meta_->uses_backend("BackendA"));
  EXPECT_TRUE(meta_->uses_backend("BackendB"));
  EXPECT_FALSE(meta_->uses_backend("Backend"));
  EXPECT_FALSE(meta_->uses_backend(""));
  EXPECT_EQ(meta_->num_instructions(), 2u);
}

TEST(MethodMetaEmptyTest, AMethodWithoutBuffers) {
  ProgramBuilder builder;
  builder.add_method("empty");
  const std::vector<uint8_t> bytes = builder.build();
  Result<Program> program = Program::load_from_bytes(bytes);
  ASSERT_TRUE(program.ok()) << program.error();
  Result<MethodMeta> meta = program->method_meta("empty");
  ASSERT_TRUE(meta.ok()) << meta.error();
  EXPECT_EQ(meta->num_memory_planned_buffers(), 0u);
  EXPECT_FALSE(meta->has_device_buffers());
  EXPECT_EQ(meta->memory_planned_buffer_size(0).error().message(),
            "method 'empty': planned buffer index 0 is out of range (the method has 0 planned "
            "buffers)");
  EXPECT_EQ(meta->num_inputs(), 0u);
  EXPECT_EQ(meta->num_instructions(), 0u);
}

TEST(MethodMetaIndexTest, InputAndOutputIndicesAreNotValueIndices) {
  // Value 0 is the tensor, value 1 the Int; inputs and outputs list them the other way round.
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(32);
  const int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Half, {3, 4}), 0, 0);
  const int32_t k = m.add_int(7);
  m.set_inputs({k, a});
  m.set_outputs({k, a});
  const std::vector<uint8_t> bytes = builder.build();
  Result<Program> program = Program::load_from_bytes(bytes);
  ASSERT_TRUE(program.ok()) << program.error();
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.error();

  EXPECT_EQ(*meta->input_tag(0), ValueTag::Int);
  EXPECT_EQ(*meta->input_tag(1), ValueTag::Tensor);
  Result<TensorMeta> in = meta->input_tensor_meta(1);
  ASSERT_TRUE(in.ok()) << in.error();
  EXPECT_EQ(in->dtype, ScalarType::Half);
  EXPECT_EQ(in->nbytes, 24u);
  Result<TensorMeta> not_tensor = meta->input_tensor_meta(0);
  ASSERT_FALSE(not_tensor.ok());
  EXPECT_EQ(not_tensor.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(not_tensor.error().message(),
            "method 'forward': input 0 (value 1) is Int, not a Tensor");

  EXPECT_EQ(*meta->output_tag(0), ValueTag::Int);
  EXPECT_EQ(*meta->output_tag(1), ValueTag::Tensor);
  Result<TensorMeta> out = meta->output_tensor_meta(1);
  ASSERT_TRUE(out.ok()) << out.error();
  EXPECT_EQ(out->dtype, ScalarType::Half);
  EXPECT_EQ(out->nbytes, 24u);
  not_tensor = meta->output_tensor_meta(0);
  ASSERT_FALSE(not_tensor.ok());
  EXPECT_EQ(not_tensor.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(not_tensor.error().message(),
            "method 'forward': output 0 (value 1) is Int, not a Tensor");
}

}  // namespace
}  // namespace devplan
