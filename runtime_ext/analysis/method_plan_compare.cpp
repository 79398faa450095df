#include <runtime_ext/analysis/method_plan_compare.h>

#include <algorithm>

#include <cstring>
#include <sstream>

namespace devplan {
namespace {

std::string entries(size_t n) { return n == 1 ? "1 entry" : std::to_string(n) + " entries"; }

std::string str(const std::string& s) { return "'" + s + "'"; }
std::string str(int64_t v) { return std::to_string(v); }
std::string str(uint64_t v) { return std::to_string(v); }
std::string str(int32_t v) { return std::to_string(v); }
std::string str(uint32_t v) { return std::to_string(v); }
std::string str(uint8_t v) { return std::to_string(static_cast<int>(v)); }
std::string str(bool v) { return v ? "true" : "false"; }
std::string str(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}
std::string str(Device d) { return d.to_string(); }
std::string str(ScalarType t) { return scalar_type_name(t); }
std::string str(ValueTag t) { return value_tag_name(t); }
std::string str(InstructionKind k) { return instruction_kind_name(k); }
std::string str(TensorShapeDynamism d) { return std::to_string(static_cast<int>(d)); }
std::string str(TensorStorage s) {
  switch (s) {
    case TensorStorage::Constant:
      return "Constant";
    case TensorStorage::Planned:
      return "Planned";
    case TensorStorage::RuntimeBound:
      return "RuntimeBound";
    case TensorStorage::PlannedWithInitial:
      return "PlannedWithInitial";
    case TensorStorage::External:
      return "External";
  }
  return "unknown(" + std::to_string(static_cast<int>(s)) + ")";
}

// Each compare_* returns "" when equal, else "<path>: <a> vs <b>".
template <typename T>
std::string compare(const std::string& path, const T& a, const T& b) {
  if (a == b) return "";
  return path + ": " + str(a) + " vs " + str(b);
}

std::string compare_bytes(const std::string& path, Span<const uint8_t> a, Span<const uint8_t> b) {
  if (a.size() != b.size()) {
    return path + ": " + std::to_string(a.size()) + " bytes vs " + std::to_string(b.size()) +
           " bytes";
  }
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i] != b[i]) {
      return path + "[" + std::to_string(i) + "]: " + str(a[i]) + " vs " + str(b[i]);
    }
  }
  return "";
}

#define DEVPLAN_DIFF_(expr)                     \
  do {                                          \
    std::string devplan_d_ = (expr);            \
    if (!devplan_d_.empty()) return devplan_d_; \
  } while (0)

// Two lists: their counts ("<path>: 1 entry vs 2 entries"), then item by item, the first
// difference compare_item(<item_prefix><i><item_suffix>, a[i], b[i]) finds.
template <typename T, typename CompareItem>
std::string compare_each(const std::string& path, const std::vector<T>& a, const std::vector<T>& b,
                         const std::string& item_prefix, const char* item_suffix,
                         CompareItem compare_item) {
  if (a.size() != b.size()) {
    return path + ": " + entries(a.size()) + " vs " + entries(b.size());
  }
  for (size_t i = 0; i < a.size(); ++i) {
    DEVPLAN_DIFF_(compare_item(item_prefix + std::to_string(i) + item_suffix, a[i], b[i]));
  }
  return "";
}

// Lists of plain values, an item's path "<path>[<i>]".
template <typename T>
std::string compare_vector(const std::string& path, const std::vector<T>& a,
                           const std::vector<T>& b) {
  return compare_each(path, a, b, path + "[", "]", compare<T>);
}

std::string compare_tensor(const std::string& p, const TensorInfo& a, const TensorInfo& b) {
  DEVPLAN_DIFF_(compare(p + "dtype", a.dtype, b.dtype));
  DEVPLAN_DIFF_(compare_vector(p + "sizes", a.sizes, b.sizes));
  DEVPLAN_DIFF_(compare_vector(p + "dim_order", a.dim_order, b.dim_order));
  DEVPLAN_DIFF_(compare(p + "dynamism", a.dynamism, b.dynamism));
  DEVPLAN_DIFF_(compare(p + "storage", a.storage, b.storage));
  DEVPLAN_DIFF_(compare(p + "nbytes", a.nbytes, b.nbytes));
  DEVPLAN_DIFF_(compare(p + "device", a.device, b.device));
  DEVPLAN_DIFF_(compare(p + "buffer_index", a.buffer_index, b.buffer_index));
  DEVPLAN_DIFF_(compare(p + "offset", a.offset, b.offset));
  DEVPLAN_DIFF_(compare_bytes(p + "data", a.data, b.data));
  DEVPLAN_DIFF_(
      compare(p + "fully_qualified_name", a.fully_qualified_name, b.fully_qualified_name));
  return "";
}

std::string compare_value(const std::string& p, const ValueInfo& a, const ValueInfo& b) {
  DEVPLAN_DIFF_(compare(p + "tag", a.tag, b.tag));
  DEVPLAN_DIFF_(compare(p + "int_value", a.int_value, b.int_value));
  DEVPLAN_DIFF_(compare(p + "bool_value", a.bool_value, b.bool_value));
  // Bitwise on purpose: a NaN equals itself, -0.0 differs from 0.0 (a round trip keeps bits).
  // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
  if (std::memcmp(&a.double_value, &b.double_value, sizeof(double)) != 0) {
    return p + "double_value: " + str(a.double_value) + " vs " + str(b.double_value);
  }
  DEVPLAN_DIFF_(compare(p + "string_value", a.string_value, b.string_value));
  DEVPLAN_DIFF_(compare_vector(p + "int_list", a.int_list, b.int_list));
  DEVPLAN_DIFF_(compare_vector(p + "double_list", a.double_list, b.double_list));
  DEVPLAN_DIFF_(compare_vector(p + "bool_list", a.bool_list, b.bool_list));
  DEVPLAN_DIFF_(compare_vector(p + "value_list", a.value_list, b.value_list));
  DEVPLAN_DIFF_(compare_tensor(p + "tensor.", a.tensor, b.tensor));
  return "";
}

std::string compare_instruction(const std::string& p, const InstructionInfo& a,
                                const InstructionInfo& b) {
  DEVPLAN_DIFF_(compare(p + "kind", a.kind, b.kind));
  DEVPLAN_DIFF_(compare(p + "op_index", a.op_index, b.op_index));
  DEVPLAN_DIFF_(compare(p + "delegate_index", a.delegate_index, b.delegate_index));
  DEVPLAN_DIFF_(compare_vector(p + "args", a.args, b.args));
  DEVPLAN_DIFF_(compare(p + "move_from", a.move_from, b.move_from));
  DEVPLAN_DIFF_(compare(p + "move_to", a.move_to, b.move_to));
  DEVPLAN_DIFF_(compare(p + "cond_value", a.cond_value, b.cond_value));
  DEVPLAN_DIFF_(compare(p + "destination", a.destination, b.destination));
  DEVPLAN_DIFF_(compare(p + "free_value", a.free_value, b.free_value));
  return "";
}

std::string compare_operator(const std::string& p, const OperatorInfo& a, const OperatorInfo& b) {
  DEVPLAN_DIFF_(compare(p + "name", a.name, b.name));
  DEVPLAN_DIFF_(compare(p + "overload", a.overload, b.overload));
  return "";
}

std::string compare_compile_spec(const std::string& p, const CompileSpecInfo& a,
                                 const CompileSpecInfo& b) {
  DEVPLAN_DIFF_(compare(p + "key", a.key, b.key));
  DEVPLAN_DIFF_(compare_bytes(p + "value", a.value, b.value));
  return "";
}

std::string compare_delegate(const std::string& p, const DelegateInfo& a, const DelegateInfo& b) {
  DEVPLAN_DIFF_(compare(p + "id", a.id, b.id));
  DEVPLAN_DIFF_(compare_bytes(p + "processed", a.processed, b.processed));
  DEVPLAN_DIFF_(compare_each(p + "compile_specs", a.compile_specs, b.compile_specs,
                             p + "compile_spec ", ": ", compare_compile_spec));
  return "";
}

}  // namespace

std::string method_plan_difference(const MethodPlan& a, const MethodPlan& b) {
  DEVPLAN_DIFF_(compare("name", a.name, b.name));
  DEVPLAN_DIFF_(compare_vector("buffer_sizes", a.buffer_sizes, b.buffer_sizes));
  DEVPLAN_DIFF_(compare_vector("buffer_devices", a.buffer_devices, b.buffer_devices));
  DEVPLAN_DIFF_(compare_vector("inputs", a.inputs, b.inputs));
  DEVPLAN_DIFF_(compare_vector("outputs", a.outputs, b.outputs));
  DEVPLAN_DIFF_(compare_each("values", a.values, b.values, "value ", ": ", compare_value));
  // A plan with no chains is written with one empty chain (ProgramBuilder), so the two read
  // the same.
  auto empty_chain = [](const MethodPlan& p) {
    return p.chains.size() == 1 && p.chains[0].inputs.empty() && p.chains[0].outputs.empty() &&
           p.chains[0].instructions.empty();
  };
  if ((a.chains.empty() && empty_chain(b)) || (b.chains.empty() && empty_chain(a))) {
    // the same method
  } else if (a.chains.size() != b.chains.size()) {
    return "chains: " + entries(a.chains.size()) + " vs " + entries(b.chains.size());
  }
  for (size_t c = 0; c < std::min(a.chains.size(), b.chains.size()); ++c) {
    const ChainInfo& ca = a.chains[c];
    const ChainInfo& cb = b.chains[c];
    const std::string cp = "chain " + std::to_string(c);
    DEVPLAN_DIFF_(compare_vector(cp + ": inputs", ca.inputs, cb.inputs));
    DEVPLAN_DIFF_(compare_vector(cp + ": outputs", ca.outputs, cb.outputs));
    DEVPLAN_DIFF_(compare_each(cp + ": instructions", ca.instructions, cb.instructions,
                               cp + ", instruction ", ": ", compare_instruction));
  }
  DEVPLAN_DIFF_(
      compare_each("operators", a.operators, b.operators, "operator ", ": ", compare_operator));
  DEVPLAN_DIFF_(
      compare_each("delegates", a.delegates, b.delegates, "delegate ", ": ", compare_delegate));
  return "";
}

bool method_plans_equal(const MethodPlan& a, const MethodPlan& b) {
  return method_plan_difference(a, b).empty();
}

}  // namespace devplan
