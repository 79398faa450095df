// MethodBuilder: one method of a program being written by ProgramBuilder (program_builder.h).
//
//   MethodBuilder& m = builder.add_method("forward");
//   uint32_t host = m.add_buffer(32);                       // user-facing buffer 0, cpu:0
//   uint32_t dev = m.add_buffer(48, Device::cuda(0));       // buffer 1; file entry 2
//   int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), host, 0);
//   int32_t a_dev = m.add_planned_tensor(
//       TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(0)), dev, 0);
//   m.add_kernel_call("et_copy::_h2d_copy", "out", {a, a_dev, a_dev});
//   m.set_inputs({a});
//   m.set_outputs({a_dev});
//
// The builder writes what it is told and checks nothing, so it can also write invalid
// programs on purpose: any Device or ScalarType value (static_cast from a raw number), planned
// tensors whose device differs from their buffer's or that run past its end, and the raw
// overrides below (the buffer size and device lists as written, memory_id 0, data indices,
// delegate references, unknown instruction or value kinds).
//
// plan() is the MethodPlan that Program::load reads back from the written bytes when the method
// is valid and no raw override is set. Not thread-safe; owned by its ProgramBuilder.
#pragma once

#include <runtime_ext/core/device.h>
#include <runtime_ext/program/method_plan.h>
#include <runtime_ext/program/scalar_type.h>

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace devplan {

// A tensor's type, shape and device, as the builder takes them.
struct TensorSpec {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  std::vector<uint8_t> dim_order;  // written as given (empty: none written)
  TensorShapeDynamism dynamism = TensorShapeDynamism::Static;
  Device device;  // written to extra_tensor_info unless cpu:0
  std::string fully_qualified_name;

  // A contiguous tensor (dim_order 0, 1, ..., n-1) of `dtype` and `sizes` on `device`.
  static TensorSpec of(ScalarType dtype, std::vector<int32_t> sizes, Device device = Device::cpu());
};

// One non_const_buffer_device entry exactly as written (any values, for invalid programs).
struct RawBufferDevice {
  int32_t buffer_idx = 0;
  int8_t device_type = 0;
  int8_t device_index = 0;
};

// Tensor fields written as given instead of as the builder would compute them.
struct RawTensorFields {
  std::optional<uint32_t> memory_id;                  // instead of buffer_index + 1
  std::optional<uint32_t> data_buffer_idx;            // instead of the assigned data index
  std::optional<uint64_t> mutable_data_segments_idx;  // instead of 0
};

// Where a delegate's processed data is written.
enum class DelegateDataLocation : uint8_t {
  Inline,   // Program.backend_delegate_data
  Segment,  // its own segment after the program data (the default, as the exporter writes)
};

class MethodBuilder {
 public:
  explicit MethodBuilder(std::string name);
  // A builder that writes `plan` (its spans are copied).
  explicit MethodBuilder(MethodPlan plan);

  MethodBuilder(const MethodBuilder&) = delete;
  MethodBuilder& operator=(const MethodBuilder&) = delete;

  // ---- planned buffers ----------------------------------------------------------------------

  // Adds a planned buffer of `size` bytes on `device`; returns its user-facing index (the file
  // entry is index + 1; entry 0 is written by the builder).
  uint32_t add_buffer(uint64_t size, Device device = Device::cpu());

  // ---- values: each add_* returns the new value's index ---------------------------------------

  int32_t add_null();
  int32_t add_int(int64_t value);
  int32_t add_bool(bool value);
  int32_t add_double(double value);
  int32_t add_string(std::string value);
  int32_t add_int_list(std::vector<int64_t> items);
  int32_t add_double_list(std::vector<double> items);
  int32_t add_bool_list(std::vector<bool> items);
  int32_t add_tensor_list(std::vector<int32_t> value_indices);
  int32_t add_optional_tensor_list(std::vector<int32_t> value_indices);

  // A tensor whose memory the caller binds at run time (no data, no allocation info).
  int32_t add_runtime_tensor(const TensorSpec& spec);
  // A tensor whose data lives in a separate .ptd file (location EXTERNAL), found by the spec's
  // fully_qualified_name.
  int32_t add_external_tensor(const TensorSpec& spec);
  // A tensor planned in user-facing buffer `buffer` at byte `offset`.
  int32_t add_planned_tensor(const TensorSpec& spec, uint32_t buffer, uint64_t offset);
  // A planned tensor whose `initial` bytes are copied in at init (a mutable data segment).
  int32_t add_planned_tensor_with_initial_value(const TensorSpec& spec, uint32_t buffer,
                                                uint64_t offset, std::vector<uint8_t> initial);
  // A constant tensor holding `data` (in the constant segment or the inline constant_buffer,
  // as ProgramBuilderOptions says).
  int32_t add_constant_tensor(const TensorSpec& spec, std::vector<uint8_t> data);
  // Any value as given (a copy; spans in it are copied too). The tag and kinds may be raw.
  int32_t add_value(const ValueInfo& value);

  void set_inputs(std::vector<int32_t> value_indices);
  void set_outputs(std::vector<int32_t> value_indices);

  // ---- operators and delegates --------------------------------------------------------------

  // The index of operator name.overload, added when not yet present.
  int32_t add_operator(const std::string& name, const std::string& overload);

  // Adds a delegate to backend `backend_id`; returns its index.
  int32_t add_delegate(std::string backend_id, std::vector<uint8_t> processed,
                       std::vector<std::pair<std::string, std::vector<uint8_t>>> compile_specs = {},
                       DelegateDataLocation location = DelegateDataLocation::Segment);

  // ---- chains and instructions ----------------------------------------------------------------

  // Starts a new chain; later instructions go into it. Returns its index. A method that adds
  // an instruction before any chain gets chain 0 implicitly.
  size_t add_chain(std::vector<int32_t> inputs = {}, std::vector<int32_t> outputs = {});

  void add_kernel_call(int32_t op_index, std::vector<int32_t> args);
  // add_kernel_call(add_operator(name, overload), args).
  void add_kernel_call(const std::string& name, const std::string& overload,
                       std::vector<int32_t> args);
  void add_delegate_call(int32_t delegate_index, std::vector<int32_t> args);
  void add_move(int32_t from, int32_t to);
  void add_jump_false(int32_t cond_value, int32_t destination);
  void add_free(int32_t value);
  // Any instruction as given; a kind outside InstructionKind writes union type kind + 1.
  void add_instruction(const InstructionInfo& instruction);

  // ---- raw overrides, for invalid programs ----------------------------------------------------

  // Writes `entries` as non_const_buffer_sizes (entry 0 included) instead of [0, sizes...].
  void set_raw_buffer_sizes(std::vector<int64_t> entries);
  // Writes `entries` as non_const_buffer_device instead of the list derived from the buffers
  // (an empty vector writes an empty list).
  void set_raw_buffer_devices(std::vector<RawBufferDevice> entries);
  // Writes the given fields of tensor value `value_index` as they are.
  void set_raw_tensor_fields(int32_t value_index, RawTensorFields fields);
  // Writes delegate `delegate_index`'s processed reference as {location, index}, and none of
  // its data.
  void set_raw_delegate_reference(int32_t delegate_index, uint8_t location, uint32_t index);

  // ---- reading back ---------------------------------------------------------------------------

  const std::string& name() const { return plan_.name; }
  // The method as a reader sees it (see the overview).
  const MethodPlan& plan() const { return plan_; }

 private:
  friend class ProgramWriter;  // program_builder.cpp: writes the plan and the raw overrides

  struct RawDelegateReference {
    uint8_t location;
    uint32_t index;
  };

  Span<const uint8_t> own(std::vector<uint8_t> bytes);
  int32_t push_value(ValueInfo value);
  int32_t add_tensor(const TensorSpec& spec, TensorStorage storage);
  ChainInfo& current_chain();

  MethodPlan plan_;
  std::deque<std::vector<uint8_t>> owned_;  // bytes the plan's spans point into
  std::vector<DelegateDataLocation> delegate_locations_;
  std::optional<std::vector<int64_t>> raw_buffer_sizes_;
  std::optional<std::vector<RawBufferDevice>> raw_buffer_devices_;
  std::map<int32_t, RawTensorFields> raw_tensor_fields_;
  std::map<int32_t, RawDelegateReference> raw_delegate_references_;
};

}  // namespace devplan
