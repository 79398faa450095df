#include <harness/scenario/corruption.h>

#include <gtest/gtest.h>

#include <runtime_ext/program/program.h>

#include "example_scenario.h"

namespace devplan {
namespace {

using testing::example_scenario;

// The program after writing `c` into the example; the other method loads.
Result<Program> corrupted_example(const Corruption& c, const std::string& name) {
  const ProgramScenario s = example_scenario();
  Result<std::vector<uint8_t>> bytes = build_corrupted_program(s, c);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  if (!bytes.ok()) return bytes.error();
  Result<Program> program =
      Program::load_from_bytes(Span<const uint8_t>(bytes->data(), bytes->size()));
  EXPECT_TRUE(program.ok()) << program.error();
  EXPECT_TRUE(program->method_status(name == "forward" ? "encode" : "forward").ok());
  return program;
}

// What the reader says about method `name` after writing `c` into the example: its error for a
// refused kind, its first note for the others.
std::string what_the_reader_says(const Corruption& c, const std::string& name) {
  Result<Program> program = corrupted_example(c, name);
  if (!program.ok()) return program.error().to_string();
  if (corruption_is_refused(c.kind)) {
    const Error status = program->method_status(name);
    EXPECT_EQ(status.code(), ErrorCode::InvalidProgram) << corruption_kind_name(c.kind);
    return status.message();
  }
  Result<const MethodPlan*> plan = program->method_plan(name);
  if (!plan.ok()) return plan.error().to_string();
  return (*plan)->notes.empty() ? "no note" : (*plan)->notes[0];
}

TEST(CorruptionTest, KindsAndNames) {
  const std::vector<CorruptionKind> kinds = all_corruption_kinds();
  ASSERT_EQ(kinds.size(), 11u);
  std::vector<std::string> names;
  for (CorruptionKind k : kinds) names.emplace_back(corruption_kind_name(k));
  EXPECT_EQ(names, (std::vector<std::string>{
                       "duplicate_device_entry", "buffer_idx_zero", "buffer_idx_negative",
                       "buffer_idx_past_end", "unknown_device_type", "negative_device_index",
                       "tensor_device_mismatch", "offset_past_end", "memory_id_zero",
                       "memory_id_past_end", "negative_buffer_size"}));
  std::vector<std::string> refused;
  for (CorruptionKind k : kinds) {
    if (corruption_is_refused(k)) refused.emplace_back(corruption_kind_name(k));
  }
  EXPECT_EQ(refused, (std::vector<std::string>{"offset_past_end", "memory_id_zero",
                                               "memory_id_past_end", "negative_buffer_size"}));
  EXPECT_TRUE(corruption_targets_tensor(CorruptionKind::OffsetPastEnd));
  EXPECT_FALSE(corruption_targets_tensor(CorruptionKind::NegativeBufferSize));
}

TEST(CorruptionTest, Describe) {
  const ProgramScenario s = example_scenario();
  EXPECT_EQ(describe_corruption(s, {CorruptionKind::NegativeDeviceIndex, 2, 4, 5}),
            "negative_device_index in method forward, buffer 1, amount 5");
  EXPECT_EQ(describe_corruption(s, {CorruptionKind::OffsetPastEnd, 0, 6, 0}),
            "offset_past_end in method forward, tensor 2, amount 0");
  EXPECT_EQ(describe_corruption(s, {CorruptionKind::BufferIdxZero, 1, 0, 0}),
            "buffer_idx_zero in method encode, amount 0");
}

TEST(CorruptionTest, AppliesOnlyWhereThereIsATarget) {
  const ProgramScenario s = example_scenario();
  for (CorruptionKind k : all_corruption_kinds()) {
    EXPECT_TRUE(corruption_applies(s, {k, 0, 0, 0})) << corruption_kind_name(k);
  }
  // Method 1 ("encode") has no buffers and no tensors.
  EXPECT_TRUE(corruption_applies(s, {CorruptionKind::BufferIdxZero, 1, 0, 0}));
  EXPECT_TRUE(corruption_applies(s, {CorruptionKind::BufferIdxNegative, 1, 0, 0}));
  EXPECT_TRUE(corruption_applies(s, {CorruptionKind::BufferIdxPastEnd, 1, 0, 0}));
  EXPECT_FALSE(corruption_applies(s, {CorruptionKind::DuplicateDeviceEntry, 1, 0, 0}));
  EXPECT_FALSE(corruption_applies(s, {CorruptionKind::NegativeBufferSize, 1, 0, 0}));
  EXPECT_FALSE(corruption_applies(s, {CorruptionKind::MemoryIdZero, 1, 0, 0}));
  EXPECT_FALSE(corruption_applies(ProgramScenario(), {CorruptionKind::BufferIdxZero, 0, 0, 0}));
  Result<std::vector<uint8_t>> bytes =
      build_corrupted_program(s, {CorruptionKind::OffsetPastEnd, 1, 0, 0});
  ASSERT_FALSE(bytes.ok());
  EXPECT_EQ(bytes.error().code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(bytes.error().message(),
            "corruption offset_past_end in method encode, amount 0 does not apply: the method has "
            "no tensors");
}

TEST(CorruptionTest, EveryKindIsRefusedOrReadAsExecutorchReadsIt) {
  // `says`: the error of a refused kind; the first note of the others.
  const struct {
    Corruption c;
    const char* name;
    const char* says;
  } cases[] = {
      {{CorruptionKind::DuplicateDeviceEntry, 0, 1, 0},
       "forward",
       "non_const_buffer_device entry 1: buffer_idx 2 repeats entry 0; ignored, as ExecuTorch "
       "uses the first"},
      {{CorruptionKind::DuplicateDeviceEntry, 0, 0, 0},
       "forward",
       "non_const_buffer_device entry 2: buffer_idx 1 repeats entry 1; ignored, as ExecuTorch "
       "uses the first"},
      {{CorruptionKind::BufferIdxZero, 0, 0, 0},
       "forward",
       "non_const_buffer_device entry 1: buffer_idx 0 is the reserved slot; ignored, as "
       "ExecuTorch ignores it"},
      {{CorruptionKind::BufferIdxNegative, 0, 0, 4},
       "forward",
       "non_const_buffer_device entry 1: buffer_idx -5 is negative; ignored, as ExecuTorch "
       "ignores it"},
      {{CorruptionKind::BufferIdxPastEnd, 0, 0, 0},
       "forward",
       "non_const_buffer_device entry 1: buffer_idx 4 is past the last buffer "
       "(non_const_buffer_sizes has 4 entries); ignored, as ExecuTorch ignores it"},
      {{CorruptionKind::BufferIdxPastEnd, 1, 0, 2},
       "encode",
       "non_const_buffer_device entry 0: buffer_idx 3 is past the last buffer "
       "(non_const_buffer_sizes has 1 entry); ignored, as ExecuTorch ignores it"},
      {{CorruptionKind::UnknownDeviceType, 0, 1, 0},
       "forward",
       "non_const_buffer_device entry 0: unknown device type 2 (no allocator serves it: loading "
       "fails with NotFound, as in ExecuTorch)"},
      {{CorruptionKind::UnknownDeviceType, 0, 0, 500},
       "forward",
       "non_const_buffer_device entry 1: unknown device type 127 (no allocator serves it: "
       "loading fails with NotFound, as in ExecuTorch)"},
      {{CorruptionKind::NegativeDeviceIndex, 0, 1, 5},
       "forward",
       "non_const_buffer_device entry 0: negative device index -6 (passed to the allocator as "
       "ExecuTorch passes it; its CUDA allocator reads -1 as the current device)"},
      {{CorruptionKind::NegativeDeviceIndex, 0, 2, 1000},
       "forward",
       "non_const_buffer_device entry 1: negative device index -128 (passed to the allocator as "
       "ExecuTorch passes it; its CUDA allocator reads -1 as the current device)"},
      // Targets are the tensors in device buffers (t1, t3): a device tag on a tensor in a host
      // buffer is a legacy program.
      {{CorruptionKind::TensorDeviceMismatch, 0, 1, 0},
       "forward",
       "value 3: tagged cpu:0, planned in buffer 1 on cuda:2; its bytes are the buffer's"},
      {{CorruptionKind::TensorDeviceMismatch, 0, 1, 1},
       "forward",
       "value 3: tagged cuda:3, planned in buffer 1 on cuda:2; its bytes are the buffer's"},
      {{CorruptionKind::TensorDeviceMismatch, 0, 2, 3},
       "forward",
       "value 1: tagged cuda:4, planned in buffer 1 on cuda:2; its bytes are the buffer's"},
      {{CorruptionKind::OffsetPastEnd, 0, 3, 0},
       "forward",
       "value 3: 16 bytes at offset 48 run past the end of buffer 1 (48 bytes)"},
      {{CorruptionKind::OffsetPastEnd, 0, 0, 2},
       "forward",
       "value 0: 16 bytes at offset 96 run past the end of buffer 0 (64 bytes)"},
      {{CorruptionKind::MemoryIdZero, 0, 0, 0},
       "forward",
       "value 0: memory_id 0 is invalid (memory ids are 1-based)"},
      {{CorruptionKind::MemoryIdPastEnd, 0, 1, 0},
       "forward",
       "value 1: memory_id 4 is past the last buffer (the method has 3 planned "
       "buffers)"},
      {{CorruptionKind::NegativeBufferSize, 0, 2, 9},
       "forward",
       "non_const_buffer_sizes entry 3 (buffer 2): negative size -10"},
  };
  for (const auto& c : cases) {
    const std::string says = what_the_reader_says(c.c, c.name);
    if (corruption_is_refused(c.c.kind)) {
      EXPECT_EQ(says, "method '" + std::string(c.name) + "': " + c.says);
    } else {
      EXPECT_EQ(says, c.says) << corruption_kind_name(c.c.kind);
    }
  }
}

}  // namespace
}  // namespace devplan
