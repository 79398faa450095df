// ProgramScenario: a program described as plain C++ data (methods, their planned buffers and
// devices, tensors planned into the buffers, values, and an instruction chain), small enough to
// print, compare and shrink, and complete enough to be written with ProgramBuilder
// (writer.h) and executed with the simulated device backend.
//
//   ProgramScenario s;
//   MethodScenario& m = s.methods.emplace_back();
//   m.name = "forward";
//   m.buffers = {{64, Device::cpu()}, {48, Device::cuda(2)}};
//   m.tensors = {{ScalarType::Float, {2, 2}, 0, 0}, {ScalarType::Float, {2, 2}, 1, 16}};
//   m.instructions = {{ScenarioOp::CopyH2D, {0, 1}, {}}};
//   Error err = validate_program_scenario(s);   // ok
//   describe_program_scenario(s);
//   // "method forward: buffer 0 64 B cpu:0, buffer 1 48 B cuda:2\n"
//   // "  tensors: t0 float32[2, 2] in buffer 0 at 0, t1 float32[2, 2] in buffer 1 at 16\n"
//   // "  instructions: h2d(t0) -> t1\n"
//
// Value numbering in the written program: tensor i is value i, scenario value j is value
// (number of tensors + j). Every tensor is planned; its device is its buffer's device.
//
// A scenario is valid (validate_program_scenario) when the written program loads, every method
// loads on the simulated devices, and every instruction executes: the rules are listed at
// validate_program_scenario. Scenarios from generate_program_scenario and resolve_program_draft
// (seeded_generator.h) are always valid.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/core/error.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan {

// The backend id the scenario's delegate calls use (SimulatedDeviceBackend's add).
constexpr const char* kScenarioDelegateBackend = "DeviceAddBackend";

// One planned buffer of a method.
struct ScenarioBuffer {
  uint64_t size = 0;
  Device device;

  friend bool operator==(const ScenarioBuffer& a, const ScenarioBuffer& b) {
    return a.size == b.size && a.device == b.device;
  }
};

// One planned tensor: `dtype` and `shape`, at byte `offset` of user-facing buffer `buffer`.
struct ScenarioTensor {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> shape;  // empty: a scalar (one element)
  uint32_t buffer = 0;
  uint64_t offset = 0;
  // Planned with an initial value (scenario_initial_value), which load_method copies into the
  // buffer (through the device's allocator on a device), in tensor order.
  bool initial = false;

  friend bool operator==(const ScenarioTensor& a, const ScenarioTensor& b) {
    return a.dtype == b.dtype && a.shape == b.shape && a.buffer == b.buffer &&
           a.offset == b.offset && a.initial == b.initial;
  }
};

enum class ScenarioValueKind : uint8_t {
  Null,
  Int,
  Bool,
  Double,
  IntList,
  DoubleList,
  BoolList,
  TensorList,
};

// "Null", "Int", ... (the program format's names).
const char* scenario_value_kind_name(ScenarioValueKind kind);

// A non-tensor value; only the fields of its kind are used.
struct ScenarioValue {
  ScenarioValueKind kind = ScenarioValueKind::Int;
  int64_t int_value = 0;
  bool bool_value = false;
  double double_value = 0.0;
  std::vector<int64_t> int_list;
  std::vector<double> double_list;
  std::vector<bool> bool_list;
  std::vector<int32_t> tensor_list;  // tensor indices

  friend bool operator==(const ScenarioValue& a, const ScenarioValue& b);
};

enum class ScenarioOp : uint8_t {
  Add,          // aten::add.out on host tensors: tensors {a, b, out}, values {alpha}
  Mul,          // aten::mul.out on host tensors: tensors {a, b, out}
  CopyH2D,      // et_copy::_h2d_copy.out: tensors {self (host), out (device)}
  CopyD2H,      // et_copy::_d2h_copy.out: tensors {self (device), out (host)}
  DelegateAdd,  // a DeviceAddBackend delegate call: tensors {a, b, out}, all on one device
  Move,         // MoveCall: values {from, to}, of one kind
  Free,         // FreeCall: tensors {t} or values {v}
};

// "add", "mul", "h2d", "d2h", "delegate", "move", "free".
const char* scenario_op_name(ScenarioOp op);

struct ScenarioInstruction {
  ScenarioOp op = ScenarioOp::Add;
  std::vector<int32_t> tensors;  // tensor indices, in argument order
  std::vector<int32_t> values;   // value indices (scenario numbering)

  friend bool operator==(const ScenarioInstruction& a, const ScenarioInstruction& b) {
    return a.op == b.op && a.tensors == b.tensors && a.values == b.values;
  }
};

struct MethodScenario {
  std::string name;
  std::vector<ScenarioBuffer> buffers;
  std::vector<ScenarioTensor> tensors;
  std::vector<ScenarioValue> values;
  std::vector<ScenarioInstruction> instructions;  // one chain, in order
  std::vector<int32_t> inputs;                    // tensor indices
  std::vector<int32_t> outputs;                   // tensor indices

  // The program value index of tensor `t` / of scenario value `v`.
  int32_t tensor_value_index(size_t t) const { return static_cast<int32_t>(t); }
  int32_t value_value_index(size_t v) const { return static_cast<int32_t>(tensors.size() + v); }

  // The device of tensor `t` (its buffer's); cpu:0 when its buffer does not exist.
  Device tensor_device(size_t t) const;

  // Buffers that load_method allocates through a device allocator: not on the CPU, size > 0.
  size_t num_device_allocations() const;

  friend bool operator==(const MethodScenario& a, const MethodScenario& b);
};

struct ProgramScenario {
  std::vector<MethodScenario> methods;

  // The method named `name`, or nullptr.
  const MethodScenario* find_method(const std::string& name) const;

  friend bool operator==(const ProgramScenario& a, const ProgramScenario& b) {
    return a.methods == b.methods;
  }
  friend bool operator!=(const ProgramScenario& a, const ProgramScenario& b) { return !(a == b); }
};

// Bytes of `tensor`: product(shape) * element_size(dtype); 0 for an unknown dtype or a
// negative dimension; saturates at UINT64_MAX.
uint64_t scenario_tensor_nbytes(const ScenarioTensor& tensor);

// Deterministic bytes for tensor `t` of `method` (exactly its size; small numbers, no float
// NaNs), varied by `salt`: the inputs the properties feed and the initial values.
std::vector<uint8_t> scenario_tensor_pattern(const MethodScenario& method, size_t t, uint32_t salt);
// The initial value of tensor `t` (used when it has one): its pattern with salt 1000.
std::vector<uint8_t> scenario_initial_value(const MethodScenario& method, size_t t);

// True for the dtypes the add and mul kernels (and so the delegate) compute on: float32,
// float64, int32, int64.
bool is_kernel_dtype(ScalarType dtype);

// Ok, or InvalidArgument naming the method and the buffer, tensor, value or instruction at
// fault. The rules:
//   - at least one method; names non-empty and unique;
//   - buffers on cpu:0 or on a CUDA device with index >= 0;
//   - tensors: known dtype, dimensions >= 0, an existing buffer, offset a multiple of 16,
//     offset + nbytes within the buffer; an initial value only when nbytes > 0;
//   - TensorList items, instruction operands, inputs and outputs name existing tensors/values;
//   - add/mul: three host tensors of one kernel dtype and one shape; add's alpha an Int value,
//     or a Double value when the dtype is float32/float64;
//   - h2d: a host tensor and a device tensor of one dtype and shape (d2h the reverse);
//   - delegate: three tensors of one kernel dtype and shape on one non-CPU device;
//   - move: two values of one kind; free: exactly one tensor or one value.
Error validate_program_scenario(const ProgramScenario& scenario);

// The readable form used in counterexamples: per method one header line
// "method NAME: buffer 0 48 B cuda:2, buffer 1 0 B cpu:0" ("method NAME: no buffers"), then
// indented lines "tensors: ...", "values: ...", "instructions: ...", "inputs: ...",
// "outputs: ..." (each only when not empty); every line ends with '\n'.
std::string describe_program_scenario(const ProgramScenario& scenario);
std::string describe_method_scenario(const MethodScenario& method);

}  // namespace devplan
