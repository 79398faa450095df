// ProgramSummary: what `devplan inspect` reports about a program, computed from the loaded
// Program: per method its planned buffers (size, device, planned tensors, highest end offset),
// operators, delegates, inputs and outputs.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <runtime_ext/program/data_file.h>
#include <runtime_ext/program/program.h>

namespace devplan::harness {

struct BufferSummary {
  size_t index = 0;
  uint64_t size = 0;
  Device device;
  size_t planned_tensors = 0;
  uint64_t max_end = 0;  // highest offset + nbytes of a tensor planned in it
};

struct ValueSummary {
  int32_t value_index = 0;
  ValueTag tag = ValueTag::None;
  // Tensors only.
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  uint64_t nbytes = 0;
  Device device;
  std::string storage;  // "planned", "runtime-bound", ...
  // Planned tensors: the buffer; legacy_host when the tensor is tagged for a device but planned
  // in a host buffer (a legacy device program: host memory, as ExecuTorch loads it).
  uint32_t buffer_index = 0;
  bool legacy_host = false;
  std::string fully_qualified_name;  // may be empty
  // External tensors, when data files were given: where the data is ("in w.ptd, 48 B") or why
  // it cannot be used (resolve_external_tensor's message); else empty.
  std::string external_data;
  bool external_found = false;
};

struct MethodSummary {
  std::string name;
  size_t num_values = 0;
  size_t num_instructions = 0;
  std::vector<BufferSummary> buffers;
  std::vector<std::string> operators;  // "aten::add.out", in the file's order
  std::vector<std::string> delegates;  // backend ids, in the file's order
  std::vector<ValueSummary> inputs;
  std::vector<ValueSummary> outputs;
  // Tensors whose data is in a separate .ptd file (location EXTERNAL), in value order.
  std::vector<ValueSummary> external;
  // What the parser read leniently, as ExecuTorch does (MethodPlan::notes).
  std::vector<std::string> notes;
};

// The device memory a method holds while it is loaded, per device: its planned buffers on that
// device, summed (every device but the CPU; a method without device buffers gives none). The
// loader allocates them all at load_method and frees them at unload, so this is the peak.
std::map<Device, uint64_t> peak_device_bytes(const MethodSummary& method);

// Summaries of every method, or the first method's validation error (naming the method). With
// `data` (--data), each external tensor says where its data is.
Result<std::vector<MethodSummary>> summarize_program(const Program& program,
                                                     const DataFiles* data = nullptr);

// "planned", "planned-with-initial-value", "runtime-bound", "constant".
const char* tensor_storage_name(TensorStorage storage);

// "float32[2, 2] on cpu:0 (16 B)" for tensors; the tag name otherwise.
std::string describe_value(const ValueSummary& value);

}  // namespace devplan::harness
