#include <gtest/gtest.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan {
namespace {

TEST(MethodPlanTest, ValueTagNames) {
  EXPECT_STREQ(value_tag_name(ValueTag::None), "None");
  EXPECT_STREQ(value_tag_name(ValueTag::Null), "Null");
  EXPECT_STREQ(value_tag_name(ValueTag::Int), "Int");
  EXPECT_STREQ(value_tag_name(ValueTag::Bool), "Bool");
  EXPECT_STREQ(value_tag_name(ValueTag::Double), "Double");
  EXPECT_STREQ(value_tag_name(ValueTag::Tensor), "Tensor");
  EXPECT_STREQ(value_tag_name(ValueTag::String), "String");
  EXPECT_STREQ(value_tag_name(ValueTag::IntList), "IntList");
  EXPECT_STREQ(value_tag_name(ValueTag::DoubleList), "DoubleList");
  EXPECT_STREQ(value_tag_name(ValueTag::BoolList), "BoolList");
  EXPECT_STREQ(value_tag_name(ValueTag::TensorList), "TensorList");
  EXPECT_STREQ(value_tag_name(ValueTag::OptionalTensorList), "OptionalTensorList");
  EXPECT_STREQ(value_tag_name(static_cast<ValueTag>(40)), "Unknown");
}

TEST(MethodPlanTest, ValueTagsUseTheFileUnionNumbering) {
  EXPECT_EQ(static_cast<int>(ValueTag::None), 0);
  EXPECT_EQ(static_cast<int>(ValueTag::Null), 1);
  EXPECT_EQ(static_cast<int>(ValueTag::Tensor), 5);
  EXPECT_EQ(static_cast<int>(ValueTag::OptionalTensorList), 11);
}

TEST(MethodPlanTest, InstructionKindNames) {
  EXPECT_STREQ(instruction_kind_name(InstructionKind::KernelCall), "KernelCall");
  EXPECT_STREQ(instruction_kind_name(InstructionKind::DelegateCall), "DelegateCall");
  EXPECT_STREQ(instruction_kind_name(InstructionKind::Move), "Move");
  EXPECT_STREQ(instruction_kind_name(InstructionKind::JumpFalse), "JumpFalse");
  EXPECT_STREQ(instruction_kind_name(InstructionKind::Free), "Free");
  EXPECT_STREQ(instruction_kind_name(static_cast<InstructionKind>(9)), "Unknown");
}

}  // namespace
}  // namespace devplan
