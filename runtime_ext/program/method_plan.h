// MethodPlan: one method of a program, parsed out of the flatbuffer and validated once when the
// Program is loaded. Everything the executor and the tools need is here in plain C++ types;
// every index in it has been range-checked, so users never check again.
//
// The spans in it (constant data, initial values, delegate data) point into the Program's
// bytes and live as long as the Program.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/span.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan {

enum class TensorShapeDynamism : uint8_t { Static = 0, DynamicBound = 1, DynamicUnbound = 2 };

// Where a tensor's bytes come from (the file's data_buffer_idx / allocation_info pair).
enum class TensorStorage : uint8_t {
  Constant,            // data_buffer_idx > 0, no allocation_info
  Planned,             // data_buffer_idx == 0, allocation_info
  RuntimeBound,        // neither: the caller binds memory (a method input)
  PlannedWithInitial,  // both: planned, with an initial value copied in at init
  External,            // location EXTERNAL, no allocation_info: data in a separate .ptd file,
                       // found by fully_qualified_name (weights kept out of the program)
};

struct TensorInfo {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;
  TensorShapeDynamism dynamism = TensorShapeDynamism::Static;
  TensorStorage storage = TensorStorage::RuntimeBound;
  uint64_t nbytes = 0;  // product(sizes) * element_size(dtype); an empty shape is one element
  Device device;        // from extra_tensor_info; cpu:0 when absent
  // Planned tensors only: user-facing buffer index (file memory_id - 1) and byte offset.
  uint32_t buffer_index = 0;
  uint64_t offset = 0;
  // Constant tensors: their bytes. PlannedWithInitial: the initial value's bytes.
  Span<const uint8_t> data;
  std::string fully_qualified_name;  // from extra_tensor_info, may be empty
  // A device-tagged tensor planned in a host buffer, as programs exported with
  // enable_non_cpu_memory_planning=False have them: its memory is host memory (ExecuTorch loads
  // it so); `device` keeps the tag.
  bool legacy_host = false;
  // A planned tensor tagged for another device than its (non-host) buffer's: the buffer's
  // device, where its bytes live. ExecuTorch checks nothing; the parser notes it.
  std::optional<Device> other_buffer_device;

  bool is_planned() const {
    return storage == TensorStorage::Planned || storage == TensorStorage::PlannedWithInitial;
  }
  // Where the tensor's bytes live: host memory for constants, external data and legacy tensors,
  // the buffer's device for a planned tensor, `device` otherwise (memory the caller supplies).
  Device memory_device() const {
    if (storage == TensorStorage::Constant || storage == TensorStorage::External || legacy_host) {
      return Device::cpu();
    }
    return other_buffer_device.value_or(device);
  }
};

// An OptionalTensorList item that is None rather than a value index (ExecuTorch's parser reads
// -1 so; the exporter writes it for a missing optional tensor).
constexpr int32_t kNoneListItem = -1;

enum class ValueTag : uint8_t {
  None,  // the union's NONE
  Null,
  Int,
  Bool,
  Double,
  Tensor,
  String,
  IntList,
  DoubleList,
  BoolList,
  TensorList,
  OptionalTensorList,
};

const char* value_tag_name(ValueTag tag);

// A value of `tag` holding `content` in `field`, its other fields at their defaults: how a
// ValueInfo (here) or an EValue (executor) of one item is made.
//
//   ValueInfo v = tagged_value(ValueTag::Int, &ValueInfo::int_value, int64_t{3});
template <typename Value, typename Field>
Value tagged_value(ValueTag tag, Field Value::*field, Field content) {
  Value value;
  value.tag = tag;
  value.*field = std::move(content);
  return value;
}

struct ValueInfo {
  ValueTag tag = ValueTag::None;
  int64_t int_value = 0;            // Int
  bool bool_value = false;          // Bool
  double double_value = 0.0;        // Double
  std::string string_value;         // String
  std::vector<int64_t> int_list;    // IntList
  std::vector<double> double_list;  // DoubleList
  std::vector<bool> bool_list;      // BoolList
  // TensorList / OptionalTensorList: value indices (checked in range; for TensorList each names
  // a Tensor, for OptionalTensorList a Tensor or Null, or is kNoneListItem).
  std::vector<int32_t> value_list;
  TensorInfo tensor;  // Tensor
};

enum class InstructionKind : uint8_t { KernelCall, DelegateCall, Move, JumpFalse, Free };

const char* instruction_kind_name(InstructionKind kind);

struct InstructionInfo {
  InstructionKind kind = InstructionKind::KernelCall;
  int32_t op_index = -1;        // KernelCall: index into MethodPlan::operators
  int32_t delegate_index = -1;  // DelegateCall: index into MethodPlan::delegates
  std::vector<int32_t> args;    // KernelCall / DelegateCall: value indices
  int32_t move_from = -1;       // Move
  int32_t move_to = -1;         // Move
  int32_t cond_value = -1;  // JumpFalse: value index of a Bool or a bool tensor (checked when run)
  int32_t destination =
      -1;                   // JumpFalse: instruction index in the chain; at or past its end ends it
  int32_t free_value = -1;  // Free
};

struct ChainInfo {
  std::vector<int32_t> inputs;
  std::vector<int32_t> outputs;
  std::vector<InstructionInfo> instructions;
};

struct OperatorInfo {
  std::string name;      // "aten::add"
  std::string overload;  // "out"
  std::string full_name() const { return overload.empty() ? name : name + "." + overload; }
};

struct CompileSpecInfo {
  std::string key;
  Span<const uint8_t> value;
};

struct DelegateInfo {
  std::string id;                 // backend id
  Span<const uint8_t> processed;  // the delegate's data, inline or from a segment
  std::vector<CompileSpecInfo> compile_specs;
};

struct MethodPlan {
  std::string name;
  // User-facing planned buffers: buffer i is entry i + 1 of the file's non_const_buffer_sizes.
  std::vector<uint64_t> buffer_sizes;
  std::vector<Device> buffer_devices;  // same length as buffer_sizes
  std::vector<ValueInfo> values;
  std::vector<int32_t> inputs;   // value indices
  std::vector<int32_t> outputs;  // value indices
  std::vector<ChainInfo> chains;
  std::vector<OperatorInfo> operators;
  std::vector<DelegateInfo> delegates;
  // What the file states that has no effect or is read leniently, as ExecuTorch reads it (an
  // ignored device entry, a tag that disagrees with the buffer): "non_const_buffer_device entry
  // 2: buffer_idx 0 is the reserved slot; ignored, as ExecuTorch ignores it". Never findings.
  std::vector<std::string> notes;

  bool has_device_buffers() const {
    for (const Device& d : buffer_devices) {
      if (!d.is_cpu()) return true;
    }
    return false;
  }
};

}  // namespace devplan
