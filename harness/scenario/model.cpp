#include <harness/scenario/model.h>

#include <charconv>
#include <cstring>
#include <set>

#include <runtime_ext/core/alignment.h>
#include <runtime_ext/core/text_join.h>

namespace devplan {
namespace {

std::string format_double(double v) {
  char buf[64];
  const std::to_chars_result r = std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

std::string tensor_name(int32_t t) { return "t" + std::to_string(t); }
std::string value_name(int32_t v) { return "v" + std::to_string(v); }

std::string shape_text(const std::vector<int32_t>& shape) {
  return "[" + join(shape, ", ", [](int32_t d) { return std::to_string(d); }) + "]";
}

std::string describe_value(const ScenarioValue& v) {
  std::string s = scenario_value_kind_name(v.kind);
  switch (v.kind) {
    case ScenarioValueKind::Null:
      return s;
    case ScenarioValueKind::Int:
      return s + " " + std::to_string(v.int_value);
    case ScenarioValueKind::Bool:
      return s + (v.bool_value ? " true" : " false");
    case ScenarioValueKind::Double:
      return s + " " + format_double(v.double_value);
    case ScenarioValueKind::IntList:
      return s + " [" + join(v.int_list, ", ", [](int64_t x) { return std::to_string(x); }) + "]";
    case ScenarioValueKind::DoubleList:
      return s + " [" + join(v.double_list, ", ", format_double) + "]";
    case ScenarioValueKind::BoolList:
      return s + " [" +
             join(v.bool_list, ", ", [](bool b) { return std::string(b ? "true" : "false"); }) +
             "]";
    case ScenarioValueKind::TensorList:
      return s + " [" + join(v.tensor_list, ", ", tensor_name) + "]";
  }
  return s;
}

std::string describe_instruction(const ScenarioInstruction& in) {
  const std::vector<int32_t>& t = in.tensors;
  std::string op = scenario_op_name(in.op);
  switch (in.op) {
    case ScenarioOp::Add:
    case ScenarioOp::Mul:
    case ScenarioOp::DelegateAdd: {
      // (a, b[, alpha vN]) -> out, tolerating malformed operand lists.
      std::vector<int32_t> ins(t.begin(), t.end() - (t.empty() ? 0 : 1));
      std::string s = op + "(" + join(ins, ", ", tensor_name);
      for (int32_t v : in.values) s += ", alpha " + value_name(v);
      s += ")";
      if (!t.empty()) s += " -> " + tensor_name(t.back());
      return s;
    }
    case ScenarioOp::CopyH2D:
    case ScenarioOp::CopyD2H: {
      std::vector<int32_t> ins(t.begin(), t.end() - (t.empty() ? 0 : 1));
      std::string s = op + "(" + join(ins, ", ", tensor_name) + ")";
      if (!t.empty()) s += " -> " + tensor_name(t.back());
      return s;
    }
    case ScenarioOp::Move: {
      if (in.values.size() != 2) return op + " " + join(in.values, ", ", value_name);
      return op + " " + value_name(in.values[0]) + " -> " + value_name(in.values[1]);
    }
    case ScenarioOp::Free: {
      std::string s = op;
      for (int32_t x : t) s += " " + tensor_name(x);
      for (int32_t x : in.values) s += " " + value_name(x);
      return s;
    }
  }
  return op;
}

}  // namespace

const char* scenario_value_kind_name(ScenarioValueKind kind) {
  switch (kind) {
    case ScenarioValueKind::Null:
      return "Null";
    case ScenarioValueKind::Int:
      return "Int";
    case ScenarioValueKind::Bool:
      return "Bool";
    case ScenarioValueKind::Double:
      return "Double";
    case ScenarioValueKind::IntList:
      return "IntList";
    case ScenarioValueKind::DoubleList:
      return "DoubleList";
    case ScenarioValueKind::BoolList:
      return "BoolList";
    case ScenarioValueKind::TensorList:
      return "TensorList";
  }
  return "unknown";
}

const char* scenario_op_name(ScenarioOp op) {
  switch (op) {
    case ScenarioOp::Add:
      return "add";
    case ScenarioOp::Mul:
      return "mul";
    case ScenarioOp::CopyH2D:
      return "h2d";
    case ScenarioOp::CopyD2H:
      return "d2h";
    case ScenarioOp::DelegateAdd:
      return "delegate";
    case ScenarioOp::Move:
      return "move";
    case ScenarioOp::Free:
      return "free";
  }
  return "unknown";
}

bool operator==(const ScenarioValue& a, const ScenarioValue& b) {
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case ScenarioValueKind::Null:
      return true;
    case ScenarioValueKind::Int:
      return a.int_value == b.int_value;
    case ScenarioValueKind::Bool:
      return a.bool_value == b.bool_value;
    case ScenarioValueKind::Double:
      return a.double_value == b.double_value;
    case ScenarioValueKind::IntList:
      return a.int_list == b.int_list;
    case ScenarioValueKind::DoubleList:
      return a.double_list == b.double_list;
    case ScenarioValueKind::BoolList:
      return a.bool_list == b.bool_list;
    case ScenarioValueKind::TensorList:
      return a.tensor_list == b.tensor_list;
  }
  return false;
}

bool operator==(const MethodScenario& a, const MethodScenario& b) {
  return a.name == b.name && a.buffers == b.buffers && a.tensors == b.tensors &&
         a.values == b.values && a.instructions == b.instructions && a.inputs == b.inputs &&
         a.outputs == b.outputs;
}

Device MethodScenario::tensor_device(size_t t) const {
  if (t >= tensors.size() || tensors[t].buffer >= buffers.size()) return Device::cpu();
  return buffers[tensors[t].buffer].device;
}

size_t MethodScenario::num_device_allocations() const {
  size_t n = 0;
  for (const ScenarioBuffer& b : buffers) n += (!b.device.is_cpu() && b.size > 0) ? 1 : 0;
  return n;
}

const MethodScenario* ProgramScenario::find_method(const std::string& name) const {
  for (const MethodScenario& m : methods) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

uint64_t scenario_tensor_nbytes(const ScenarioTensor& tensor) {
  uint64_t n = element_size(tensor.dtype);
  if (n == 0) return 0;
  for (int32_t d : tensor.shape) {
    if (d < 0) return 0;
    const uint64_t dim = static_cast<uint64_t>(d);
    if (dim != 0 && n > UINT64_MAX / dim) return UINT64_MAX;
    n *= dim;
  }
  return n;
}

namespace {
template <typename T>
void store(uint8_t* p, size_t i, T x) {
  std::memcpy(p + i * sizeof(T), &x, sizeof(T));
}
}  // namespace

std::vector<uint8_t> scenario_tensor_pattern(const MethodScenario& method, size_t t,
                                             uint32_t salt) {
  const ScenarioTensor& x = method.tensors[t];
  std::vector<uint8_t> bytes(scenario_tensor_nbytes(x));
  const size_t elem = element_size(x.dtype);
  for (size_t i = 0; elem != 0 && i < bytes.size() / elem; ++i) {
    const int32_t small = static_cast<int32_t>((i * 7 + t * 13 + size_t{salt} * 29) % 19) - 9;
    switch (x.dtype) {
      case ScalarType::Float:
        store<float>(bytes.data(), i, static_cast<float>(small) * 0.5f);
        break;
      case ScalarType::Double:
        store<double>(bytes.data(), i, small * 0.25);
        break;
      case ScalarType::Int:
        store<int32_t>(bytes.data(), i, small * 1000003);
        break;
      case ScalarType::Long:
        store<int64_t>(bytes.data(), i, int64_t{small} * 1000000007);
        break;
      default:
        for (size_t k = 0; k < elem; ++k) bytes[i * elem + k] = static_cast<uint8_t>(small + k);
        break;
    }
  }
  return bytes;
}

std::vector<uint8_t> scenario_initial_value(const MethodScenario& method, size_t t) {
  return scenario_tensor_pattern(method, t, 1000);
}

bool is_kernel_dtype(ScalarType dtype) {
  return dtype == ScalarType::Float || dtype == ScalarType::Double || dtype == ScalarType::Int ||
         dtype == ScalarType::Long;
}

namespace {

// Checks one method; `fail` prefixes messages with the method.
class MethodValidator {
 public:
  explicit MethodValidator(const MethodScenario& m) : m_(m) {}

  Error run() {
    for (size_t b = 0; b < m_.buffers.size(); ++b) {
      const Device d = m_.buffers[b].device;
      const bool ok = (d.type == DeviceType::CPU && d.index == 0) ||
                      (d.type == DeviceType::CUDA && d.index >= 0);
      if (!ok)
        return fail("buffer " + std::to_string(b) + " is on unsupported device " + d.to_string());
    }
    for (size_t t = 0; t < m_.tensors.size(); ++t) DEVPLAN_RETURN_IF_ERROR(check_tensor(t));
    for (size_t v = 0; v < m_.values.size(); ++v) {
      for (int32_t item : m_.values[v].tensor_list) {
        if (m_.values[v].kind == ScenarioValueKind::TensorList && !is_tensor(item)) {
          return fail("value " + std::to_string(v) + ": TensorList item " + std::to_string(item) +
                      " is not a tensor (" + std::to_string(m_.tensors.size()) + " tensors)");
        }
      }
    }
    for (size_t i = 0; i < m_.instructions.size(); ++i) {
      Error err = check_instruction(m_.instructions[i]);
      if (!err.ok())
        return fail("instruction " + std::to_string(i) + " (" +
                    scenario_op_name(m_.instructions[i].op) + "): " + err.message());
    }
    for (int32_t t : m_.inputs) {
      if (!is_tensor(t)) return fail("input " + std::to_string(t) + " is not a tensor");
    }
    for (int32_t t : m_.outputs) {
      if (!is_tensor(t)) return fail("output " + std::to_string(t) + " is not a tensor");
    }
    return Error::success();
  }

 private:
  Error fail(const std::string& message) const {
    return Error(ErrorCode::InvalidArgument, "method '" + m_.name + "': " + message);
  }
  bool is_tensor(int32_t t) const { return t >= 0 && static_cast<size_t>(t) < m_.tensors.size(); }
  bool is_value(int32_t v) const { return v >= 0 && static_cast<size_t>(v) < m_.values.size(); }

  Error check_tensor(size_t t) const {
    const ScenarioTensor& x = m_.tensors[t];
    const std::string where = "tensor " + std::to_string(t) + ": ";
    if (element_size(x.dtype) == 0) {
      return fail(where + "unknown dtype " + std::to_string(static_cast<int>(x.dtype)));
    }
    for (int32_t d : x.shape) {
      if (d < 0) return fail(where + "negative dimension " + std::to_string(d));
    }
    if (x.buffer >= m_.buffers.size()) {
      return fail(where + "buffer " + std::to_string(x.buffer) + " does not exist (" +
                  std::to_string(m_.buffers.size()) + " buffers)");
    }
    if (x.offset % kDefaultAlignment != 0) {
      return fail(where + "offset " + std::to_string(x.offset) + " is not a multiple of " +
                  std::to_string(kDefaultAlignment));
    }
    const uint64_t nbytes = scenario_tensor_nbytes(x);
    const uint64_t size = m_.buffers[x.buffer].size;
    if (x.offset > size || nbytes > size - x.offset) {
      return fail(where + std::to_string(nbytes) + " bytes at offset " + std::to_string(x.offset) +
                  " run past the end of buffer " + std::to_string(x.buffer) + " (" +
                  std::to_string(size) + " bytes)");
    }
    if (x.initial && nbytes == 0) return fail(where + "an initial value needs at least one byte");
    return Error::success();
  }

  static Error bad(const std::string& message) {
    return Error(ErrorCode::InvalidArgument, message);
  }

  Error same_type(int32_t a, int32_t b) const {
    const ScenarioTensor& x = m_.tensors[a];
    const ScenarioTensor& y = m_.tensors[b];
    if (x.dtype != y.dtype || x.shape != y.shape) {
      return bad(tensor_name(a) + " is " + scalar_type_name(x.dtype) + shape_text(x.shape) +
                 " but " + tensor_name(b) + " is " + scalar_type_name(y.dtype) +
                 shape_text(y.shape));
    }
    return Error::success();
  }

  Error tensor_count(const ScenarioInstruction& in, size_t n) const {
    if (in.tensors.size() != n) {
      return bad("expected " + std::to_string(n) + " tensors, got " +
                 std::to_string(in.tensors.size()));
    }
    for (int32_t t : in.tensors) {
      if (!is_tensor(t)) return bad("tensor " + std::to_string(t) + " does not exist");
    }
    return Error::success();
  }

  Error check_instruction(const ScenarioInstruction& in) const {
    switch (in.op) {
      case ScenarioOp::Add:
      case ScenarioOp::Mul: {
        DEVPLAN_RETURN_IF_ERROR(tensor_count(in, 3));
        for (int32_t t : in.tensors) {
          if (!m_.tensor_device(t).is_cpu()) {
            return bad(tensor_name(t) + " is on " + m_.tensor_device(t).to_string() +
                       ", not the host");
          }
        }
        DEVPLAN_RETURN_IF_ERROR(same_type(in.tensors[0], in.tensors[1]));
        DEVPLAN_RETURN_IF_ERROR(same_type(in.tensors[0], in.tensors[2]));
        const ScalarType dtype = m_.tensors[in.tensors[0]].dtype;
        if (!is_kernel_dtype(dtype))
          return bad("dtype " + scalar_type_name(dtype) + " has no kernel");
        if (in.op == ScenarioOp::Mul) {
          if (!in.values.empty()) return bad("mul takes no values");
          return Error::success();
        }
        if (in.values.size() != 1 || !is_value(in.values[0]))
          return bad("add needs one alpha value");
        const ScenarioValueKind kind = m_.values[in.values[0]].kind;
        const bool floating = dtype == ScalarType::Float || dtype == ScalarType::Double;
        if (kind != ScenarioValueKind::Int && !(floating && kind == ScenarioValueKind::Double)) {
          return bad("alpha " + value_name(in.values[0]) + " is " + scenario_value_kind_name(kind) +
                     ", not usable for " + scalar_type_name(dtype));
        }
        return Error::success();
      }
      case ScenarioOp::CopyH2D:
      case ScenarioOp::CopyD2H: {
        DEVPLAN_RETURN_IF_ERROR(tensor_count(in, 2));
        if (!in.values.empty()) return bad("copies take no values");
        const bool h2d = in.op == ScenarioOp::CopyH2D;
        const int32_t host = in.tensors[h2d ? 0 : 1];
        const int32_t device = in.tensors[h2d ? 1 : 0];
        if (!m_.tensor_device(host).is_cpu()) {
          return bad(tensor_name(host) + " is on " + m_.tensor_device(host).to_string() +
                     ", not the host");
        }
        if (m_.tensor_device(device).is_cpu())
          return bad(tensor_name(device) + " is not on a device");
        return same_type(in.tensors[0], in.tensors[1]);
      }
      case ScenarioOp::DelegateAdd: {
        DEVPLAN_RETURN_IF_ERROR(tensor_count(in, 3));
        if (!in.values.empty()) return bad("delegate calls take no values");
        const Device d = m_.tensor_device(in.tensors[0]);
        if (d.is_cpu()) return bad(tensor_name(in.tensors[0]) + " is not on a device");
        for (int32_t t : in.tensors) {
          if (m_.tensor_device(t) != d) {
            return bad(tensor_name(t) + " is on " + m_.tensor_device(t).to_string() + ", not " +
                       d.to_string());
          }
        }
        DEVPLAN_RETURN_IF_ERROR(same_type(in.tensors[0], in.tensors[1]));
        DEVPLAN_RETURN_IF_ERROR(same_type(in.tensors[0], in.tensors[2]));
        const ScalarType dtype = m_.tensors[in.tensors[0]].dtype;
        if (!is_kernel_dtype(dtype))
          return bad("dtype " + scalar_type_name(dtype) + " has no kernel");
        return Error::success();
      }
      case ScenarioOp::Move: {
        if (!in.tensors.empty() || in.values.size() != 2 || !is_value(in.values[0]) ||
            !is_value(in.values[1])) {
          return bad("move needs two existing values");
        }
        if (m_.values[in.values[0]].kind != m_.values[in.values[1]].kind) {
          return bad("moves " +
                     std::string(scenario_value_kind_name(m_.values[in.values[0]].kind)) +
                     " into " + scenario_value_kind_name(m_.values[in.values[1]].kind));
        }
        return Error::success();
      }
      case ScenarioOp::Free: {
        const bool one_tensor =
            in.tensors.size() == 1 && in.values.empty() && is_tensor(in.tensors[0]);
        const bool one_value =
            in.values.size() == 1 && in.tensors.empty() && is_value(in.values[0]);
        if (!one_tensor && !one_value)
          return bad("free needs exactly one existing tensor or value");
        return Error::success();
      }
    }
    return bad("unknown op " + std::to_string(static_cast<int>(in.op)));
  }

  const MethodScenario& m_;
};

}  // namespace

Error validate_program_scenario(const ProgramScenario& scenario) {
  if (scenario.methods.empty())
    return Error(ErrorCode::InvalidArgument, "the program has no methods");
  std::set<std::string> names;
  for (size_t i = 0; i < scenario.methods.size(); ++i) {
    const MethodScenario& m = scenario.methods[i];
    if (m.name.empty()) {
      return Error(ErrorCode::InvalidArgument, "method " + std::to_string(i) + " has no name");
    }
    if (!names.insert(m.name).second) {
      return Error(ErrorCode::InvalidArgument, "two methods are named '" + m.name + "'");
    }
    DEVPLAN_RETURN_IF_ERROR(MethodValidator(m).run());
  }
  return Error::success();
}

std::string describe_method_scenario(const MethodScenario& m) {
  std::string s = "method " + m.name + ": ";
  if (m.buffers.empty()) {
    s += "no buffers";
  } else {
    for (size_t b = 0; b < m.buffers.size(); ++b) {
      if (b) s += ", ";
      s += "buffer " + std::to_string(b) + " " + std::to_string(m.buffers[b].size) + " B " +
           m.buffers[b].device.to_string();
    }
  }
  s += "\n";
  if (!m.tensors.empty()) {
    s += "  tensors: ";
    for (size_t t = 0; t < m.tensors.size(); ++t) {
      const ScenarioTensor& x = m.tensors[t];
      if (t) s += ", ";
      s += tensor_name(static_cast<int32_t>(t)) + " " + scalar_type_name(x.dtype) +
           shape_text(x.shape) + " in buffer " + std::to_string(x.buffer) + " at " +
           std::to_string(x.offset) + (x.initial ? " with its initial value" : "");
    }
    s += "\n";
  }
  if (!m.values.empty()) {
    s += "  values: ";
    for (size_t v = 0; v < m.values.size(); ++v) {
      if (v) s += ", ";
      s += value_name(static_cast<int32_t>(v)) + " " + describe_value(m.values[v]);
    }
    s += "\n";
  }
  if (!m.instructions.empty()) {
    s += "  instructions: " + join(m.instructions, ", ", describe_instruction) + "\n";
  }
  if (!m.inputs.empty()) s += "  inputs: " + join(m.inputs, ", ", tensor_name) + "\n";
  if (!m.outputs.empty()) s += "  outputs: " + join(m.outputs, ", ", tensor_name) + "\n";
  return s;
}

std::string describe_program_scenario(const ProgramScenario& scenario) {
  if (scenario.methods.empty()) return "no methods\n";
  std::string s;
  for (const MethodScenario& m : scenario.methods) s += describe_method_scenario(m);
  return s;
}

}  // namespace devplan
