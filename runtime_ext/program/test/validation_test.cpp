// Every validation rule of Program::load, each with its own invalid program, exact error code
// and full message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/schema/program_generated.h>
#include <runtime_ext/writer/program_builder.h>

#include <functional>
#include <utility>

#include "program_test_util.h"

namespace devplan {
namespace {

namespace fb = devplan_flatbuffer;
using testing_util::float_bytes;

const TensorSpec kF4 = TensorSpec::of(ScalarType::Float, {2, 2});  // 16 bytes
TensorSpec f4_on(Device d) { return TensorSpec::of(ScalarType::Float, {2, 2}, d); }

// The status of method "forward" built by `fill` (Ok when it loads), or the program's own
// load error.
Error forward_status(const std::function<void(MethodBuilder&)>& fill,
                     ProgramBuilderOptions options = {}) {
  ProgramBuilder builder(std::move(options));
  fill(builder.add_method("forward"));
  Result<Program> program = Program::load_from_bytes(builder.build());
  if (!program.ok()) return program.error();
  return program->method_status("forward");
}

// Expects method "forward" built by `fill` to fail with InvalidProgram and
// "method 'forward': <message>".
void expect_invalid(const std::function<void(MethodBuilder&)>& fill, const std::string& message,
                    ProgramBuilderOptions options = {}) {
  const Error e = forward_status(fill, std::move(options));
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << e;
  EXPECT_EQ(e.message(), "method 'forward': " + message);
}

void expect_valid(const std::function<void(MethodBuilder&)>& fill,
                  ProgramBuilderOptions options = {}) {
  const Error e = forward_status(fill, std::move(options));
  EXPECT_TRUE(e.ok()) << e;
}

// Two buffers (file entries 1 and 2): cpu:0 32 bytes and cuda:0 48 bytes.
void two_buffers(MethodBuilder& m) {
  m.add_buffer(32);
  m.add_buffer(48, Device::cuda(0));
}

// ---- non_const_buffer_device ------------------------------------------------------------------
// ExecuTorch scans the list for the first entry naming each buffer and checks nothing else
// (MethodMeta::memory_planned_buffer_device); devplan reads it the same way and notes every
// entry that has no effect or that ExecuTorch reads oddly.

// The plan of method "forward" built by `fill`; it must load. Its spans (constant data, initial
// values, delegate data) pointed into the program's bytes, which are gone on return: read only
// sizes, devices and notes from it.
MethodPlan forward_plan(const std::function<void(MethodBuilder&)>& fill) {
  ProgramBuilder builder;
  fill(builder.add_method("forward"));
  Result<Program> program = Program::load_from_bytes(builder.build());
  EXPECT_TRUE(program.ok()) << program.error();
  if (!program.ok()) return {};
  Result<const MethodPlan*> plan = program->method_plan("forward");
  EXPECT_TRUE(plan.ok()) << plan.error();
  return plan.ok() ? **plan : MethodPlan{};
}

// The two buffers' devices and the notes of two_buffers() with `entries` as the device list.
std::pair<std::vector<Device>, std::vector<std::string>> read_device_list(
    std::vector<RawBufferDevice> entries) {
  const MethodPlan plan = forward_plan([&](MethodBuilder& m) {
    two_buffers(m);
    m.set_raw_buffer_devices(entries);
  });
  return {plan.buffer_devices, plan.notes};
}

using Devices = std::vector<Device>;
using Notes = std::vector<std::string>;

TEST(BufferDeviceReadingTest, EntriesNamingNoBufferAreIgnoredWithANote) {
  EXPECT_EQ(read_device_list({{2, 1, 0}, {0, 1, 1}}),
            std::make_pair(Devices{Device::cpu(), Device::cuda(0)},
                           Notes{"non_const_buffer_device entry 1: buffer_idx 0 is the reserved "
                                 "slot; ignored, as ExecuTorch ignores it"}));
  EXPECT_EQ(read_device_list({{-1, 1, 0}}),
            std::make_pair(Devices{Device::cpu(), Device::cpu()},
                           Notes{"non_const_buffer_device entry 0: buffer_idx -1 is negative; "
                                 "ignored, as ExecuTorch ignores it"}));
  EXPECT_EQ(read_device_list({{3, 1, 0}}),
            std::make_pair(Devices{Device::cpu(), Device::cpu()},
                           Notes{"non_const_buffer_device entry 0: buffer_idx 3 is past the last "
                                 "buffer (non_const_buffer_sizes has 3 entries); ignored, as "
                                 "ExecuTorch ignores it"}));
  // No sizes list at all: no buffer, nothing to name.
  const MethodPlan none = forward_plan([](MethodBuilder& m) {
    m.set_raw_buffer_sizes({});
    m.set_raw_buffer_devices({{1, 1, 0}});
  });
  EXPECT_TRUE(none.buffer_devices.empty());
  EXPECT_EQ(none.notes, Notes{"non_const_buffer_device entry 0: buffer_idx 1 is past the last "
                              "buffer (non_const_buffer_sizes has 0 entries); ignored, as "
                              "ExecuTorch ignores it"});
}

TEST(BufferDeviceReadingTest, TheFirstEntryForABufferWins) {
  EXPECT_EQ(read_device_list({{2, 1, 0}, {2, 1, 1}}),
            std::make_pair(Devices{Device::cpu(), Device::cuda(0)},
                           Notes{"non_const_buffer_device entry 1: buffer_idx 2 repeats entry 0; "
                                 "ignored, as ExecuTorch uses the first"}));
  // Even when both say the same thing; an entry for another buffer between them counts.
  EXPECT_EQ(read_device_list({{2, 1, 3}, {1, 1, 2}, {2, 1, 3}}),
            std::make_pair(Devices{Device::cuda(2), Device::cuda(3)},
                           Notes{"non_const_buffer_device entry 2: buffer_idx 2 repeats entry 0; "
                                 "ignored, as ExecuTorch uses the first"}));
}

TEST(BufferDeviceReadingTest, AnUnknownDeviceTypeIsKeptForTheLoadToRefuse) {
  EXPECT_EQ(read_device_list({{2, 7, 0}}),
            std::make_pair(Devices{Device::cpu(), Device(static_cast<DeviceType>(7), 0)},
                           Notes{"non_const_buffer_device entry 0: unknown device type 7 (no "
                                 "allocator serves it: loading fails with NotFound, as in "
                                 "ExecuTorch)"}));
  const auto [devices, notes] = read_device_list({{2, -3, 1}});
  EXPECT_EQ(devices[1], Device(static_cast<DeviceType>(-3), 1));
  EXPECT_EQ(devices[1].to_string(), "unknown(-3):1");
  EXPECT_EQ(notes, Notes{"non_const_buffer_device entry 0: unknown device type -3 (no allocator "
                         "serves it: loading fails with NotFound, as in ExecuTorch)"});
}

TEST(BufferDeviceReadingTest, ANegativeDeviceIndexIsKeptForTheAllocator) {
  for (const int8_t index : {int8_t{-1}, int8_t{-128}}) {
    EXPECT_EQ(read_device_list({{2, 1, index}}),
              std::make_pair(
                  Devices{Device::cpu(), Device(DeviceType::CUDA, static_cast<DeviceIndex>(index))},
                  Notes{"non_const_buffer_device entry 0: negative device index " +
                        std::to_string(index) +
                        " (passed to the allocator as ExecuTorch passes it; its CUDA "
                        "allocator reads -1 as the current device)"}));
  }
}

TEST(BufferDeviceReadingTest, NotesStopAtAHundredAndCountTheRest) {
  // A file may repeat one ignored entry any number of times; the notes stay bounded.
  std::vector<RawBufferDevice> entries(150, RawBufferDevice{0, 1, 0});
  entries.push_back({2, 1, 0});
  const auto [devices, notes] = read_device_list(entries);
  EXPECT_EQ(devices, (Devices{Device::cpu(), Device::cuda(0)}));
  ASSERT_EQ(notes.size(), 101u);
  EXPECT_EQ(notes[99],
            "non_const_buffer_device entry 99: buffer_idx 0 is the reserved slot; "
            "ignored, as ExecuTorch ignores it");
  EXPECT_EQ(notes[100], "... and 50 more notes of these kinds");
}

TEST(BufferDeviceReadingTest, ACpuEntryOfAnyIndexIsHostMemory) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  two_buffers(m);
  m.set_raw_buffer_devices({{1, 0, 0}, {2, 1, 0}});
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.error();
  EXPECT_EQ(*meta->memory_planned_buffer_device(0), Device::cpu());
  EXPECT_EQ(*meta->memory_planned_buffer_device(1), Device::cuda(0));
  EXPECT_TRUE((*program->method_plan("forward"))->notes.empty());

  // ExecuTorch's Module allocates every CPU buffer in host memory, whatever its index.
  EXPECT_EQ(read_device_list({{1, 0, 1}, {2, 0, 5}}),
            std::make_pair(Devices{Device::cpu(), Device::cpu()},
                           Notes{"non_const_buffer_device entry 0: cpu index 1 read as cpu:0 "
                                 "(ExecuTorch keeps every CPU buffer in host memory)",
                                 "non_const_buffer_device entry 1: cpu index 5 read as cpu:0 "
                                 "(ExecuTorch keeps every CPU buffer in host memory)"}));
}

TEST(BufferDeviceValidationTest, CpuFirstNumberingIsNotEnforced) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(48, Device::cuda(1));
  m.add_buffer(16);
  m.add_buffer(32, Device::cuda(0));
  m.add_planned_tensor(f4_on(Device::cuda(1)), 0, 32);
  m.add_planned_tensor(kF4, 1, 0);
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.error();
  EXPECT_EQ(*meta->memory_planned_buffer_device(0), Device::cuda(1));
  EXPECT_EQ(*meta->memory_planned_buffer_device(1), Device::cpu());
  EXPECT_EQ(*meta->memory_planned_buffer_device(2), Device::cuda(0));
}

TEST(BufferSizeValidationTest, NegativeBufferSize) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.set_raw_buffer_sizes({0, 32, -5});
      },
      "non_const_buffer_sizes entry 2 (buffer 1): negative size -5");
}

TEST(BufferSizeValidationTest, ReservedEntryZeroIsIgnored) {
  ProgramBuilder builder;
  builder.add_method("forward").set_raw_buffer_sizes({-7, 32});
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  Result<MethodMeta> meta = program->method_meta("forward");
  ASSERT_TRUE(meta.ok()) << meta.error();
  EXPECT_EQ(meta->num_memory_planned_buffers(), 1u);
  EXPECT_EQ(*meta->memory_planned_buffer_size(0), 32);
}

// ---- tensors ------------------------------------------------------------------------------------

TEST(TensorValidationTest, UnknownScalarType) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_runtime_tensor(TensorSpec::of(static_cast<ScalarType>(30), {2}));
      },
      "value 0: unknown scalar type 30");
}

// ExecuTorch reads every scalar type 0..29 (complex and the sub-byte bits types too): so does
// devplan, and a planned complex tensor takes its element size.
TEST(TensorValidationTest, ComplexAndBitsTypesAreRead) {
  for (ScalarType t :
       {ScalarType::ComplexHalf, ScalarType::ComplexFloat, ScalarType::ComplexDouble,
        ScalarType::Bits1x8, ScalarType::Bits2x4, ScalarType::Bits4x2, ScalarType::Bits8}) {
    SCOPED_TRACE(scalar_type_name(t));
    expect_valid([t](MethodBuilder& m) { m.add_runtime_tensor(TensorSpec::of(t, {2})); });
  }
}

TEST(TensorValidationTest, NegativeSize) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_int(1);
        m.add_runtime_tensor(TensorSpec::of(ScalarType::Float, {2, -1}));
      },
      "value 1: negative size -1 in dimension 1");
}

TEST(TensorValidationTest, ByteSizeOverflow) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_runtime_tensor(
            TensorSpec::of(ScalarType::Double, {2147483647, 2147483647, 2147483647}));
      },
      "value 0: tensor byte size overflows (sizes [2147483647, 2147483647, 2147483647])");
}

TEST(TensorValidationTest, EmptyShapeIsOneElement) {
  ProgramBuilder builder;
  builder.add_method("forward").add_runtime_tensor(TensorSpec::of(ScalarType::Long, {}));
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok());
  EXPECT_EQ((*program->method_plan("forward"))->values[0].tensor.nbytes, 8u);
}

TEST(TensorValidationTest, DimOrderMustBeAPermutation) {
  expect_invalid(
      [](MethodBuilder& m) {
        TensorSpec spec = kF4;
        spec.dim_order = {0};
        m.add_runtime_tensor(spec);
      },
      "value 0: dim_order [0] has 1 entry, sizes has 2");
  expect_invalid(
      [](MethodBuilder& m) {
        TensorSpec spec = kF4;
        spec.dim_order = {1, 1};
        m.add_runtime_tensor(spec);
      },
      "value 0: dim_order [1, 1] is not a permutation of the 2 dimensions");
  expect_invalid(
      [](MethodBuilder& m) {
        TensorSpec spec = kF4;
        spec.dim_order = {0, 2};
        m.add_runtime_tensor(spec);
      },
      "value 0: dim_order [0, 2] is not a permutation of the 2 dimensions");
  expect_valid([](MethodBuilder& m) {
    TensorSpec spec = kF4;
    spec.dim_order = {1, 0};
    m.add_runtime_tensor(spec);
  });
}

TEST(TensorValidationTest, UnknownShapeDynamism) {
  expect_invalid(
      [](MethodBuilder& m) {
        TensorSpec spec = kF4;
        spec.dynamism = static_cast<TensorShapeDynamism>(5);
        m.add_runtime_tensor(spec);
      },
      "value 0: unknown shape dynamism 5");
}

TEST(TensorValidationTest, LastShapeDynamismIsDynamicUnbound) {
  expect_valid([](MethodBuilder& m) {
    TensorSpec spec = kF4;
    spec.dynamism = TensorShapeDynamism::DynamicUnbound;
    m.add_runtime_tensor(spec);
  });
  expect_invalid(
      [](MethodBuilder& m) {
        TensorSpec spec = kF4;
        spec.dynamism = static_cast<TensorShapeDynamism>(3);
        m.add_runtime_tensor(spec);
      },
      "value 0: unknown shape dynamism 3");
}

TEST(TensorValidationTest, OddTensorDevicesAreReadAsExecutorchReadsThem) {
  const MethodPlan plan = forward_plan([](MethodBuilder& m) {
    m.add_runtime_tensor(f4_on(Device(static_cast<DeviceType>(9), 0)));
    m.add_runtime_tensor(f4_on(Device(DeviceType::CUDA, -2)));
    m.add_runtime_tensor(f4_on(Device(DeviceType::CPU, 3)));
    m.add_runtime_tensor(f4_on(Device::cuda(5)));  // a runtime-bound tensor may live on a device
  });
  ASSERT_EQ(plan.values.size(), 4u);
  EXPECT_EQ(plan.values[0].tensor.device, Device(static_cast<DeviceType>(9), 0));
  EXPECT_EQ(plan.values[1].tensor.device, Device(DeviceType::CUDA, -2));
  EXPECT_EQ(plan.values[2].tensor.device, Device::cpu());
  EXPECT_EQ(plan.values[3].tensor.device, Device::cuda(5));
  EXPECT_EQ(plan.notes,
            (Notes{"value 0: unknown device type 9 (kept as the tensor's tag, as ExecuTorch "
                   "keeps it)",
                   "value 1: negative device index -2 (kept as the tensor's tag, as ExecuTorch "
                   "keeps it)",
                   "value 2: cpu index 3 read as cpu:0 (host memory; ExecuTorch keeps the index "
                   "in the tag only)"}));
}

TEST(TensorValidationTest, AConstantTaggedForADeviceIsHostData) {
  const MethodPlan plan = forward_plan([](MethodBuilder& m) {
    m.add_constant_tensor(f4_on(Device::cuda(0)), float_bytes({1, 2, 3, 4}));
  });
  ASSERT_EQ(plan.values.size(), 1u);
  EXPECT_EQ(plan.values[0].tensor.device, Device::cuda(0));
  EXPECT_EQ(plan.values[0].tensor.memory_device(), Device::cpu());
  EXPECT_EQ(plan.notes, Notes{"value 0: constant tagged cuda:0; its data are the program's host "
                              "bytes"});
}

TEST(TensorValidationTest, ADeviceTaggedTensorInAHostBufferIsLegacyHostMemory) {
  // As programs exported with enable_non_cpu_memory_planning=False have it, and as ExecuTorch
  // loads it: the tag stays, the memory is host memory.
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  two_buffers(m);
  m.add_planned_tensor(kF4, 0, 0);
  m.add_planned_tensor(f4_on(Device::cuda(0)), 1, 0);
  m.add_planned_tensor(f4_on(Device::cuda(3)), 0, 16);
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  Result<const MethodPlan*> plan = program->method_plan("forward");
  ASSERT_TRUE(plan.ok()) << plan.error();
  const TensorInfo& host = (*plan)->values[0].tensor;
  const TensorInfo& device = (*plan)->values[1].tensor;
  const TensorInfo& legacy = (*plan)->values[2].tensor;
  EXPECT_FALSE(host.legacy_host);
  EXPECT_FALSE(device.legacy_host);
  EXPECT_EQ(device.memory_device(), Device::cuda(0));
  EXPECT_TRUE(legacy.legacy_host);
  EXPECT_EQ(legacy.device, Device::cuda(3));
  EXPECT_EQ(legacy.memory_device(), Device::cpu());
}

TEST(TensorValidationTest, APlannedTensorTaggedOtherwiseLivesInItsDeviceBuffer) {
  const MethodPlan plan = forward_plan([](MethodBuilder& m) {
    two_buffers(m);
    m.add_planned_tensor(kF4, 1, 0);
    m.add_planned_tensor(f4_on(Device::cuda(1)), 1, 16);
  });
  ASSERT_EQ(plan.values.size(), 2u);
  for (const ValueInfo& v : plan.values) {
    EXPECT_FALSE(v.tensor.legacy_host);
    EXPECT_EQ(v.tensor.memory_device(), Device::cuda(0));
  }
  EXPECT_EQ(plan.values[0].tensor.device, Device::cpu());
  EXPECT_EQ(plan.values[1].tensor.device, Device::cuda(1));
  EXPECT_EQ(plan.notes,
            (Notes{"value 0: tagged cpu:0, planned in buffer 1 on cuda:0; its bytes are the "
                   "buffer's",
                   "value 1: tagged cuda:1, planned in buffer 1 on cuda:0; its bytes are the "
                   "buffer's"}));
}

TEST(TensorValidationTest, MemoryIdZeroIsInvalid) {
  expect_invalid(
      [](MethodBuilder& m) {
        two_buffers(m);
        const int32_t v = m.add_planned_tensor(kF4, 0, 0);
        RawTensorFields raw;
        raw.memory_id = 0;
        m.set_raw_tensor_fields(v, raw);
      },
      "value 0: memory_id 0 is invalid (memory ids are 1-based)");
}

TEST(TensorValidationTest, MemoryIdPastTheLastBuffer) {
  expect_invalid(
      [](MethodBuilder& m) {
        two_buffers(m);
        m.add_planned_tensor(kF4, 2, 0);  // memory_id 3
      },
      "value 0: memory_id 3 is past the last buffer (the method has 2 planned buffers)");
  expect_invalid([](MethodBuilder& m) { m.add_planned_tensor(kF4, 0, 0); },
                 "value 0: memory_id 1 is past the last buffer (the method has 0 planned "
                 "buffers)");
}

TEST(TensorValidationTest, BytesPastTheEndOfTheBuffer) {
  expect_invalid(
      [](MethodBuilder& m) {
        two_buffers(m);
        m.add_planned_tensor(f4_on(Device::cuda(0)), 1, 40);
      },
      "value 0: 16 bytes at offset 40 run past the end of buffer 1 (48 bytes)");
  expect_invalid(
      [](MethodBuilder& m) {
        two_buffers(m);
        m.add_planned_tensor(kF4, 0, 33);
      },
      "value 0: 16 bytes at offset 33 run past the end of buffer 0 (32 bytes)");
  // offset + nbytes overflows 64 bits.
  expect_invalid(
      [](MethodBuilder& m) {
        two_buffers(m);
        m.add_planned_tensor(kF4, 0, UINT64_MAX - 3);
      },
      "value 0: 16 bytes at offset 18446744073709551612 run past the end of buffer 0 (32 "
      "bytes)");
  // Ending exactly at the end is fine.
  expect_valid([](MethodBuilder& m) {
    two_buffers(m);
    m.add_planned_tensor(kF4, 0, 16);
  });
}

TEST(TensorValidationTest, EndingOneBytePastTheBufferIsRefusedInEachBuffer) {
  expect_invalid(
      [](MethodBuilder& m) {
        two_buffers(m);
        m.add_planned_tensor(kF4, 0, 17);
      },
      "value 0: 16 bytes at offset 17 run past the end of buffer 0 (32 bytes)");
  expect_valid([](MethodBuilder& m) {
    two_buffers(m);
    m.add_planned_tensor(f4_on(Device::cuda(0)), 1, 32);
  });
  expect_invalid(
      [](MethodBuilder& m) {
        two_buffers(m);
        m.add_planned_tensor(f4_on(Device::cuda(0)), 1, 33);
      },
      "value 0: 16 bytes at offset 33 run past the end of buffer 1 (48 bytes)");
  // A tensor without bytes may sit at the very end, not past it.
  const TensorSpec empty = TensorSpec::of(ScalarType::Float, {0});
  expect_valid([&](MethodBuilder& m) {
    two_buffers(m);
    m.add_planned_tensor(empty, 0, 32);
  });
  expect_invalid(
      [&](MethodBuilder& m) {
        two_buffers(m);
        m.add_planned_tensor(empty, 0, 33);
      },
      "value 0: 0 bytes at offset 33 run past the end of buffer 0 (32 bytes)");
}

TEST(TensorValidationTest, OffsetsUseBothWords) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer((uint64_t{1} << 33));
  m.add_planned_tensor(kF4, 0, (uint64_t{1} << 32) + 16);
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  const TensorInfo& t = (*program->method_plan("forward"))->values[0].tensor;
  EXPECT_EQ(t.offset, (uint64_t{1} << 32) + 16);
  EXPECT_EQ(t.buffer_index, 0u);
}

TEST(TensorValidationTest, OverlappingLiveTensorsStillLoad) {
  // Checking lifetimes is the plan verifier's job, not the reader's.
  expect_valid([](MethodBuilder& m) {
    m.add_buffer(32);
    const int32_t a = m.add_planned_tensor(kF4, 0, 0);
    const int32_t b = m.add_planned_tensor(kF4, 0, 8);
    const int32_t alpha = m.add_int(1);
    m.add_kernel_call("aten::add", "out", {a, b, alpha, b, b});
    m.set_inputs({a});
    m.set_outputs({b});
  });
}

// ---- constants ----------------------------------------------------------------------------------

ProgramBuilderOptions inline_constants() {
  ProgramBuilderOptions options;
  options.constant_storage = ProgramBuilderOptions::ConstantStorage::InlineBuffer;
  return options;
}

TEST(ConstantValidationTest, SegmentIndexOutOfRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        const int32_t c = m.add_constant_tensor(kF4, float_bytes({1, 2, 3, 4}));
        RawTensorFields raw;
        raw.data_buffer_idx = 5;
        m.set_raw_tensor_fields(c, raw);
      },
      "value 0: constant data_buffer_idx 5 is out of range (constant_segment has 2 offsets)");
}

TEST(ConstantValidationTest, DataBufferIdxOnePastTheLastOffset) {
  auto constant_at = [](uint32_t data_buffer_idx) {
    return [data_buffer_idx](MethodBuilder& m) {
      const int32_t c = m.add_constant_tensor(kF4, float_bytes({1, 2, 3, 4}));
      RawTensorFields raw;
      raw.data_buffer_idx = data_buffer_idx;
      m.set_raw_tensor_fields(c, raw);
    };
  };
  expect_valid(constant_at(1));
  expect_invalid(constant_at(2),
                 "value 0: constant data_buffer_idx 2 is out of range (constant_segment has 2 "
                 "offsets)");
  expect_valid(constant_at(1), inline_constants());
  expect_invalid(
      constant_at(2),
      "value 0: constant data_buffer_idx 2 is out of range (constant_buffer has 2 entries)",
      inline_constants());
}

TEST(ConstantValidationTest, SegmentDataShorterThanTheTensor) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_constant_tensor(kF4, float_bytes({1, 2}));
      },
      "value 0: constant data (16 bytes at offset 0) runs past the end of segment 0 "
      "(8 bytes)");
}

TEST(ConstantValidationTest, InlineIndexOutOfRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        const int32_t c = m.add_constant_tensor(kF4, float_bytes({1, 2, 3, 4}));
        RawTensorFields raw;
        raw.data_buffer_idx = 4;
        m.set_raw_tensor_fields(c, raw);
      },
      "value 0: constant data_buffer_idx 4 is out of range (constant_buffer has 2 entries)",
      inline_constants());
}

TEST(ConstantValidationTest, InlineDataShorterThanTheTensor) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_constant_tensor(kF4, float_bytes({1, 2}));
      },
      "value 0: constant_buffer 1 holds 8 bytes, the tensor needs 16", inline_constants());
}

TEST(ConstantValidationTest, ConstantWithoutAnyConstantData) {
  expect_invalid(
      [](MethodBuilder& m) {
        const int32_t v = m.add_runtime_tensor(kF4);
        RawTensorFields raw;
        raw.data_buffer_idx = 1;
        m.set_raw_tensor_fields(v, raw);
      },
      "value 0: constant data_buffer_idx 1 is out of range (constant_buffer has 0 entries)");
}

TEST(ConstantValidationTest, BothStoragesReadBackTheData) {
  for (bool in_segment : {true, false}) {
    ProgramBuilderOptions options = in_segment ? ProgramBuilderOptions() : inline_constants();
    ProgramBuilder builder(options);
    MethodBuilder& m = builder.add_method("forward");
    m.add_constant_tensor(kF4, float_bytes({1, 2, 3, 4}));
    m.add_constant_tensor(TensorSpec::of(ScalarType::Float, {3}), float_bytes({5, 6, 7}));
    m.add_constant_tensor(TensorSpec::of(ScalarType::Float, {0}), {});
    Result<Program> program = Program::load_from_bytes(builder.build());
    ASSERT_TRUE(program.ok()) << program.error();
    const MethodPlan& plan = **program->method_plan("forward");
    EXPECT_EQ(testing_util::as_floats(plan.values[0].tensor.data),
              std::vector<float>({1, 2, 3, 4}));
    EXPECT_EQ(testing_util::as_floats(plan.values[1].tensor.data), std::vector<float>({5, 6, 7}));
    EXPECT_EQ(plan.values[2].tensor.data.size(), 0u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(plan.values[1].tensor.data.data()) % 16, 0u);
    EXPECT_EQ(program->extended_header().has_value(), in_segment);
  }
}

// ---- initial values of planned tensors ---------------------------------------------------------

TEST(InitialValueValidationTest, ReadsBackTheInitialValue) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(32);
  m.add_planned_tensor_with_initial_value(kF4, 0, 16, float_bytes({9, 8, 7, 6}));
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  const TensorInfo& t = (*program->method_plan("forward"))->values[0].tensor;
  EXPECT_EQ(t.storage, TensorStorage::PlannedWithInitial);
  EXPECT_TRUE(t.is_planned());
  EXPECT_EQ(t.offset, 16u);
  EXPECT_EQ(testing_util::as_floats(t.data), std::vector<float>({9, 8, 7, 6}));
}

TEST(InitialValueValidationTest, MutableDataSegmentsIdxOutOfRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_buffer(32);
        const int32_t v =
            m.add_planned_tensor_with_initial_value(kF4, 0, 0, float_bytes({1, 2, 3, 4}));
        RawTensorFields raw;
        raw.mutable_data_segments_idx = 1;
        m.set_raw_tensor_fields(v, raw);
      },
      "value 0: mutable_data_segments_idx 1 is out of range (the program has 1 mutable data "
      "segment)");
}

TEST(InitialValueValidationTest, DataBufferIdxOutOfRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_buffer(32);
        const int32_t v =
            m.add_planned_tensor_with_initial_value(kF4, 0, 0, float_bytes({1, 2, 3, 4}));
        RawTensorFields raw;
        raw.data_buffer_idx = 7;
        m.set_raw_tensor_fields(v, raw);
      },
      "value 0: data_buffer_idx 7 is out of range (mutable_data_segments 0 has 2 offsets)");
}

TEST(InitialValueValidationTest, DataBufferIdxOnePastTheLastOffset) {
  auto initial_at = [](uint32_t data_buffer_idx) {
    return [data_buffer_idx](MethodBuilder& m) {
      m.add_buffer(32);
      const int32_t v =
          m.add_planned_tensor_with_initial_value(kF4, 0, 0, float_bytes({1, 2, 3, 4}));
      RawTensorFields raw;
      raw.data_buffer_idx = data_buffer_idx;
      m.set_raw_tensor_fields(v, raw);
    };
  };
  expect_valid(initial_at(1));
  expect_invalid(
      initial_at(2),
      "value 0: data_buffer_idx 2 is out of range (mutable_data_segments 0 has 2 offsets)");
}

TEST(InitialValueValidationTest, InitialValueShorterThanTheTensor) {
  // ExecuTorch reads an initial value at its file offset, checking only the file's end. The
  // 8-byte mutable segment is the file's last: 16 bytes run past the file.
  const Error e = forward_status([](MethodBuilder& m) {
    m.add_buffer(32);
    m.add_planned_tensor_with_initial_value(kF4, 0, 0, float_bytes({1, 2}));
  });
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_THAT(e.message(), ::testing::MatchesRegex(
                               "method 'forward': value 0: initial value \\(16 bytes at offset 0 "
                               "of segment 0\\) runs past the end of the file \\(segment data "
                               "from offset [0-9]+, 8 bytes\\)"));
  // With a delegate's segment after it, the bytes are there: read from them, with a note. (The
  // plan's data points into the program's bytes: the program stays loaded while it is read.)
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(32);
  m.add_planned_tensor_with_initial_value(kF4, 0, 0, float_bytes({1, 2}));
  m.add_delegate("SomeBackend", std::vector<uint8_t>(64, 0));
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  Result<const MethodPlan*> loaded = program->method_plan("forward");
  ASSERT_TRUE(loaded.ok()) << loaded.error();
  const MethodPlan& plan = **loaded;
  ASSERT_EQ(plan.values.size(), 1u);
  const std::vector<float> initial = testing_util::as_floats(plan.values[0].tensor.data);
  ASSERT_EQ(initial.size(), 4u);
  EXPECT_EQ(initial[0], 1.0f);
  EXPECT_EQ(initial[1], 2.0f);
  EXPECT_EQ(plan.notes, Notes{"value 0: initial value (16 bytes at offset 0 of segment 0) runs "
                              "past the end of the segment; read from the file's following "
                              "bytes, as ExecuTorch reads them"});
}

TEST(InitialValueValidationTest, NoMutableDataSegmentsAtAll) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_buffer(32);
        const int32_t v = m.add_planned_tensor(kF4, 0, 0);
        RawTensorFields raw;
        raw.data_buffer_idx = 1;
        m.set_raw_tensor_fields(v, raw);
      },
      "value 0: mutable_data_segments_idx 0 is out of range (the program has 0 mutable data "
      "segments)");
}

// ---- other values -------------------------------------------------------------------------------

TEST(ValueValidationTest, TensorListItems) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_runtime_tensor(kF4);
        m.add_tensor_list({0, 9});
      },
      "value 1: TensorList item 1: value index 9 is out of range (2 values)");
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_int(3);
        m.add_tensor_list({0});
      },
      "value 1: TensorList item 0: value 0 is Int, not a Tensor");
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_null();
        m.add_tensor_list({0});
      },
      "value 1: TensorList item 0: value 0 is Null, not a Tensor");
  // Items may name later values.
  expect_valid([](MethodBuilder& m) {
    m.add_tensor_list({1, 2});
    m.add_runtime_tensor(kF4);
    m.add_runtime_tensor(kF4);
  });
}

TEST(ValueValidationTest, OptionalTensorListItems) {
  expect_valid([](MethodBuilder& m) {
    m.add_runtime_tensor(kF4);
    m.add_null();
    m.add_optional_tensor_list({0, 1, 0});
  });
  // -1 is None, as ExecuTorch's parser reads it (the exporter's aten::index with a None index).
  expect_valid([](MethodBuilder& m) {
    m.add_runtime_tensor(kF4);
    m.add_optional_tensor_list({-1, 0, -1});
  });
  expect_valid([](MethodBuilder& m) { m.add_optional_tensor_list({-1}); });
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_double(1.5);
        m.add_optional_tensor_list({0});
      },
      "value 1: OptionalTensorList item 0: value 0 is Double, not a Tensor or Null");
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_null();
        m.add_optional_tensor_list({-1, -2});
      },
      "value 1: OptionalTensorList item 1: value index -2 is out of range (2 values)");
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_null();
        m.add_optional_tensor_list({2});
      },
      "value 1: OptionalTensorList item 0: value index 2 is out of range (2 values)");
  // A TensorList has no None: -1 is out of range there.
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_runtime_tensor(kF4);
        m.add_tensor_list({-1});
      },
      "value 1: TensorList item 0: value index -1 is out of range (2 values)");
}

TEST(ValueValidationTest, UnknownValueType) {
  expect_invalid(
      [](MethodBuilder& m) {
        ValueInfo v;
        v.tag = static_cast<ValueTag>(12);
        m.add_value(v);
      },
      "value 0: unknown value type 12");
}

// ---- plan inputs and outputs
// ---------------------------------------------------------------------

TEST(PlanValidationTest, InputsAndOutputsInRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_runtime_tensor(kF4);
        m.add_runtime_tensor(kF4);
        m.set_inputs({0, 5});
      },
      "input 1: value index 5 is out of range (2 values)");
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_runtime_tensor(kF4);
        m.set_outputs({-1});
      },
      "output 0: value index -1 is out of range (1 value)");
}

// ---- instructions
// --------------------------------------------------------------------------------

// Values: 0 a, 1 b (tensors), 2 alpha (Int 1); operator 0 aten::add.out.
void add_program(MethodBuilder& m) {
  m.add_runtime_tensor(kF4);
  m.add_runtime_tensor(kF4);
  m.add_int(1);
  m.add_operator("aten::add", "out");
  m.add_chain();
}

TEST(InstructionValidationTest, OpIndexOutOfRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_kernel_call(0, {0, 1, 2, 1, 1});
        m.add_kernel_call(3, {0, 1, 2, 1, 1});
      },
      "chain 0, instruction 1: op_index 3 is out of range (1 operator)");
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_kernel_call(-1, {});
      },
      "chain 0, instruction 0: op_index -1 is out of range (1 operator)");
}

TEST(InstructionValidationTest, OpIndexOnePastTheLastOperator) {
  expect_valid([](MethodBuilder& m) {
    add_program(m);
    m.add_kernel_call(0, {0, 1, 2, 1, 1});
  });
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_kernel_call(1, {0, 1, 2, 1, 1});
      },
      "chain 0, instruction 0: op_index 1 is out of range (1 operator)");
}

TEST(InstructionValidationTest, KernelArgumentsInRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_kernel_call(0, {0, 1, 7, 1, 1});
      },
      "chain 0, instruction 0: argument 2: value index 7 is out of range (3 values)");
}

TEST(InstructionValidationTest, DelegateIndexAndArguments) {
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_delegate("B", {});
        m.add_delegate_call(1, {0, 1});
      },
      "chain 0, instruction 0: delegate_index 1 is out of range (1 delegate)");
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_delegate("B", {});
        m.add_delegate_call(0, {0, -4});
      },
      "chain 0, instruction 0: argument 1: value index -4 is out of range (3 values)");
}

TEST(InstructionValidationTest, MoveOperands) {
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_move(5, 0);
      },
      "chain 0, instruction 0: move_from: value index 5 is out of range (3 values)");
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_move(0, 3);
      },
      "chain 0, instruction 0: move_to: value index 3 is out of range (3 values)");
}

TEST(InstructionValidationTest, JumpFalseOperands) {
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_jump_false(3, 0);
      },
      "chain 0, instruction 0: cond_value_index: value index 3 is out of range (3 values)");
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_jump_false(-1, 0);
      },
      "chain 0, instruction 0: cond_value_index: value index -1 is out of range (3 values)");
  // As in ExecuTorch, the condition's kind is checked when the jump runs (a Bool or a bool
  // tensor, torch.cond's predicate), not at load.
  expect_valid([](MethodBuilder& m) {
    add_program(m);
    m.add_jump_false(2, 0);  // an Int
  });
  expect_valid([](MethodBuilder& m) {
    add_program(m);
    m.add_jump_false(0, 0);  // a float tensor
  });
}

// ExecuTorch never checks a destination: one at the chain's length (what the exporter writes for
// a cond at the end of a chain), past it or negative ends the chain when the jump is taken.
TEST(InstructionValidationTest, JumpFalseDestinationsPastTheChainLoad) {
  for (int32_t destination : {1, 2, 3, 1000, -1}) {
    SCOPED_TRACE(destination);
    expect_valid([destination](MethodBuilder& m) {
      add_program(m);
      const int32_t cond = m.add_bool(false);
      m.add_kernel_call(0, {0, 1, 2, 1, 1});
      m.add_chain();
      m.add_jump_false(cond, destination);
    });
  }
}

TEST(InstructionValidationTest, FreeOperand) {
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_free(9);
      },
      "chain 0, instruction 0: value_index: value index 9 is out of range (3 values)");
}

TEST(InstructionValidationTest, UnknownInstructionType) {
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        InstructionInfo ins;
        ins.kind = static_cast<InstructionKind>(7);  // union type 8
        m.add_instruction(ins);
      },
      "chain 0, instruction 0: unknown instruction type 8");
}

TEST(InstructionValidationTest, ChainInputsAndLaterChains) {
  // ExecuTorch never reads a chain's inputs and outputs: kept as written, noted when out of
  // range.
  const MethodPlan plan = forward_plan([](MethodBuilder& m) {
    m.add_runtime_tensor(kF4);
    m.add_chain({3, 0}, {0, -1});
  });
  ASSERT_EQ(plan.chains.size(), 1u);
  EXPECT_EQ(plan.chains[0].inputs, (std::vector<int32_t>{3, 0}));
  EXPECT_EQ(plan.chains[0].outputs, (std::vector<int32_t>{0, -1}));
  EXPECT_EQ(plan.notes, (Notes{"chain 0: input 0: value index 3 is out of range (1 value) (never "
                               "read)",
                               "chain 0: output 1: value index -1 is out of range (1 value) "
                               "(never read)"}));
  expect_invalid(
      [](MethodBuilder& m) {
        add_program(m);
        m.add_kernel_call(0, {0, 1, 2, 1, 1});
        m.add_chain();
        m.add_free(4);
      },
      "chain 1, instruction 0: value_index: value index 4 is out of range (3 values)");
}

// ---- delegates
// -----------------------------------------------------------------------------------

TEST(DelegateValidationTest, InlineIndexOutOfRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_delegate("A", {1, 2}, {}, DelegateDataLocation::Inline);
        m.add_delegate("B", {3}, {}, DelegateDataLocation::Inline);
        m.set_raw_delegate_reference(1, 0, 5);
      },
      "delegate 1: inline data index 5 is out of range (the program has 1 "
      "backend_delegate_data entry)");
}

TEST(DelegateValidationTest, SegmentIndexOutOfRange) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_delegate("A", {1, 2});
        m.set_raw_delegate_reference(0, 1, 2);
      },
      "delegate 0: segment index 2 is out of range (the program has 0 segments)");
}

TEST(DelegateValidationTest, UnknownDataLocation) {
  expect_invalid(
      [](MethodBuilder& m) {
        m.add_delegate("A", {1, 2});
        m.set_raw_delegate_reference(0, 7, 0);
      },
      "delegate 0: unknown data location 7");
}

TEST(DelegateValidationTest, SegmentDataReadsBack) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_delegate("Inline", {1, 2, 3}, {}, DelegateDataLocation::Inline);
  m.add_delegate("InSegment", {4, 5, 6, 7, 8}, {{"k", {9}}}, DelegateDataLocation::Segment);
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  const MethodPlan& plan = **program->method_plan("forward");
  ASSERT_EQ(plan.delegates.size(), 2u);
  EXPECT_EQ(
      std::vector<uint8_t>(plan.delegates[0].processed.begin(), plan.delegates[0].processed.end()),
      std::vector<uint8_t>({1, 2, 3}));
  EXPECT_EQ(
      std::vector<uint8_t>(plan.delegates[1].processed.begin(), plan.delegates[1].processed.end()),
      std::vector<uint8_t>({4, 5, 6, 7, 8}));
  EXPECT_EQ(plan.delegates[1].processed.data(), program->segments()[0].data());
  ASSERT_EQ(plan.delegates[1].compile_specs.size(), 1u);
  EXPECT_EQ(plan.delegates[1].compile_specs[0].key, "k");
  EXPECT_EQ(plan.delegates[1].compile_specs[0].value.size(), 1u);
}

// ---- tables the builder never leaves out, written by hand
// ----------------------------------------

using FbOffset = flatbuffers::Offset<fb::ExecutionPlan>;

// The status of the one method `plan` writes; its notes in `notes` when given and it loads.
Error raw_method_status(const std::function<FbOffset(flatbuffers::FlatBufferBuilder&)>& plan,
                        std::vector<std::string>* notes = nullptr) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<FbOffset> plans{plan(fbb)};
  fbb.Finish(fb::CreateProgram(fbb, 0, fbb.CreateVector(plans)), fb::ProgramIdentifier());
  Result<Program> program =
      Program::load_from_bytes(Span<const uint8_t>(fbb.GetBufferPointer(), fbb.GetSize()));
  if (!program.ok()) return program.error();
  Result<const MethodPlan*> p = program->method_plan_at(0);
  if (p.ok() && notes != nullptr) *notes = (*p)->notes;
  return p.ok() ? Error::success() : p.error();
}

TEST(RawTableValidationTest, MethodWithoutAName) {
  const Error e = raw_method_status(
      [](flatbuffers::FlatBufferBuilder& fbb) { return fb::CreateExecutionPlan(fbb); });
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "method 0: has no name");
}

TEST(RawTableValidationTest, TensorWithoutSizes) {
  const Error e = raw_method_status([](flatbuffers::FlatBufferBuilder& fbb) {
    auto t = fb::CreateTensor(fbb, fb::ScalarType::FLOAT);
    std::vector<flatbuffers::Offset<fb::EValue>> values{
        fb::CreateEValue(fbb, fb::KernelTypes::Tensor, t.Union())};
    return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, fbb.CreateVector(values));
  });
  EXPECT_EQ(e.message(), "method 'forward': value 0: tensor has no sizes");
}

TEST(RawTableValidationTest, UnionTypeWithoutItsTable) {
  const Error e = raw_method_status([](flatbuffers::FlatBufferBuilder& fbb) {
    std::vector<flatbuffers::Offset<fb::EValue>> values{
        fb::CreateEValue(fbb, fb::KernelTypes::Int, 0)};
    return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, fbb.CreateVector(values));
  });
  EXPECT_EQ(e.message(), "method 'forward': value 0: Int value has no table");
}

TEST(RawTableValidationTest, InstructionWithoutArguments) {
  const Error e = raw_method_status([](flatbuffers::FlatBufferBuilder& fbb) {
    std::vector<flatbuffers::Offset<fb::Instruction>> instructions{fb::CreateInstruction(fbb)};
    std::vector<flatbuffers::Offset<fb::Chain>> chains{
        fb::CreateChain(fbb, 0, 0, fbb.CreateVector(instructions))};
    return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, 0, 0, 0,
                                   fbb.CreateVector(chains));
  });
  EXPECT_EQ(e.message(),
            "method 'forward': chain 0, instruction 0: has no arguments (instruction type NONE)");
}

TEST(RawTableValidationTest, CallsWithoutTheirTables) {
  for (fb::InstructionArguments type :
       {fb::InstructionArguments::KernelCall, fb::InstructionArguments::DelegateCall}) {
    const Error e = raw_method_status([type](flatbuffers::FlatBufferBuilder& fbb) {
      std::vector<flatbuffers::Offset<fb::Instruction>> instructions{
          fb::CreateInstruction(fbb, type, 0)};
      std::vector<flatbuffers::Offset<fb::Chain>> chains{
          fb::CreateChain(fbb, 0, 0, fbb.CreateVector(instructions))};
      return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, 0, 0, 0,
                                     fbb.CreateVector(chains));
    });
    EXPECT_EQ(e.message(),
              std::string("method 'forward': chain 0, instruction 0: ") +
                  (type == fb::InstructionArguments::KernelCall ? "KernelCall" : "DelegateCall") +
                  " has no table");
  }
}

TEST(RawTableValidationTest, AnOperatorWithoutANameIsReadUntilAnInstructionCallsIt) {
  // ExecuTorch reads an operator's name only to resolve the kernel an instruction calls.
  for (const bool called : {false, true}) {
    std::vector<std::string> notes;
    const Error e = raw_method_status(
        [called](flatbuffers::FlatBufferBuilder& fbb) {
          std::vector<flatbuffers::Offset<fb::Operator>> ops{fb::CreateOperator(fbb)};
          std::vector<flatbuffers::Offset<fb::Instruction>> instructions;
          if (called) {
            auto call = fb::CreateKernelCall(fbb, 0, fbb.CreateVector(std::vector<int32_t>{}));
            instructions.push_back(
                fb::CreateInstruction(fbb, fb::InstructionArguments::KernelCall, call.Union()));
          }
          std::vector<flatbuffers::Offset<fb::Chain>> chains{
              fb::CreateChain(fbb, 0, 0, fbb.CreateVector(instructions))};
          return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, 0, 0, 0,
                                         fbb.CreateVector(chains), fbb.CreateVector(ops));
        },
        &notes);
    if (called) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
      EXPECT_EQ(e.message(),
                "method 'forward': chain 0, instruction 0: calls operator 0, which has no name");
    } else {
      EXPECT_TRUE(e.ok()) << e;
      EXPECT_EQ(notes, std::vector<std::string>{"operator 0: has no name (no instruction may call "
                                                "it)"});
    }
  }
}

TEST(RawTableValidationTest, DelegateWithoutIdOrReference) {
  Error e = raw_method_status([](flatbuffers::FlatBufferBuilder& fbb) {
    std::vector<flatbuffers::Offset<fb::BackendDelegate>> ds{fb::CreateBackendDelegate(fbb)};
    return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, 0, 0, 0, 0, 0,
                                   fbb.CreateVector(ds));
  });
  EXPECT_EQ(e.message(), "method 'forward': delegate 0: has no backend id");
  e = raw_method_status([](flatbuffers::FlatBufferBuilder& fbb) {
    std::vector<flatbuffers::Offset<fb::BackendDelegate>> ds{
        fb::CreateBackendDelegate(fbb, fbb.CreateString("B"))};
    return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, 0, 0, 0, 0, 0,
                                   fbb.CreateVector(ds));
  });
  EXPECT_EQ(e.message(), "method 'forward': delegate 0: has no processed data reference");
}

TEST(RawTableValidationTest, AbsentListsAreEmpty) {
  // Every list but the chains may be absent; one empty chain is the least a method has.
  const Error e = raw_method_status([](flatbuffers::FlatBufferBuilder& fbb) {
    std::vector<flatbuffers::Offset<fb::Chain>> chains{fb::CreateChain(fbb)};
    return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, 0, 0, 0,
                                   fbb.CreateVector(chains));
  });
  EXPECT_TRUE(e.ok()) << e;
}

TEST(RawTableValidationTest, AMethodWithoutChainsIsInvalidAsInExecutorch) {
  for (bool empty_list : {false, true}) {
    const Error e = raw_method_status([&](flatbuffers::FlatBufferBuilder& fbb) {
      if (!empty_list) return fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"));
      return fb::CreateExecutionPlan(
          fbb, fbb.CreateString("forward"), 0, 0, 0, 0,
          fbb.CreateVector(std::vector<flatbuffers::Offset<fb::Chain>>()));
    });
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << empty_list;
    EXPECT_EQ(e.message(), "method 'forward': no chains (a method needs at least one)")
        << empty_list;
  }
}

// Moves the vector at `vector_in_bytes` (a pointer into `bytes`) 4 bytes later by patching the
// offset that points at it: its length is then read from its first element and its elements
// start 4 bytes off their alignment. Returns false when no offset points at it.
bool shift_vector(std::vector<uint8_t>* bytes, const void* vector_in_bytes) {
  const size_t target = static_cast<const uint8_t*>(vector_in_bytes) - bytes->data();
  for (size_t at = 0; at + 4 <= target; at += 4) {
    if (at + testing_util::read_u32_le(*bytes, at) == target) {
      testing_util::write_u32_le(bytes, at, testing_util::read_u32_le(*bytes, at) + 4);
      return true;
    }
  }
  return false;
}

TEST(AlignmentValidationTest, MisalignedEightByteVectorsAreRejected) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(32);
  // Entry 0 (reserved, ignored) is 1 so that the vector shifted by 4 bytes below reads a
  // length of 1, not an empty vector (which is accepted wherever it sits).
  m.set_raw_buffer_sizes({1, 32});
  m.add_int_list({1, 2});
  std::vector<uint8_t> bytes = builder.build();
  ASSERT_TRUE(Program::load_from_bytes(bytes).ok());
  {
    std::vector<uint8_t> patched = bytes;
    const fb::ExecutionPlan* plan = fb::GetProgram(patched.data())->execution_plan()->Get(0);
    const void* items = plan->values()->Get(0)->val_as_IntList()->items();
    ASSERT_TRUE(shift_vector(&patched, items));
    Result<Program> program = Program::load_from_bytes(patched);
    ASSERT_TRUE(program.ok()) << program.error();
    const Error e = program->method_status("forward");
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
    EXPECT_EQ(e.message(), "method 'forward': value 0: IntList items are misaligned");
  }
  {
    std::vector<uint8_t> patched = bytes;
    const fb::ExecutionPlan* plan = fb::GetProgram(patched.data())->execution_plan()->Get(0);
    ASSERT_TRUE(shift_vector(&patched, plan->non_const_buffer_sizes()));
    Result<Program> program = Program::load_from_bytes(patched);
    ASSERT_TRUE(program.ok()) << program.error();
    EXPECT_EQ(program->method_status("forward").message(),
              "method 'forward': non_const_buffer_sizes is misaligned");
  }
}

TEST(AlignmentValidationTest, EmptyEightByteVectorsAreAcceptedWhereverTheySit) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_int_list({});
  m.add_double_list({});
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  ASSERT_TRUE(program->method_status("forward").ok()) << program->method_status("forward");
  Result<const MethodPlan*> plan = program->method_plan("forward");
  EXPECT_TRUE((*plan)->values[0].int_list.empty());
  EXPECT_TRUE((*plan)->values[1].double_list.empty());
}

}  // namespace
}  // namespace devplan
