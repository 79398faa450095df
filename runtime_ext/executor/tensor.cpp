#include <runtime_ext/executor/evalue.h>
#include <runtime_ext/executor/tensor.h>

namespace devplan {

std::string Tensor::describe() const {
  std::string text = scalar_type_name(dtype) + "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(sizes[i]);
  }
  return text + "] on " + device.to_string();
}

EValue EValue::from_int(int64_t v) {
  EValue e;
  e.tag = ValueTag::Int;
  e.int_value = v;
  return e;
}

EValue EValue::from_double(double v) {
  EValue e;
  e.tag = ValueTag::Double;
  e.double_value = v;
  return e;
}

EValue EValue::from_bool(bool v) {
  EValue e;
  e.tag = ValueTag::Bool;
  e.bool_value = v;
  return e;
}

EValue EValue::from_tensor(Tensor t) {
  EValue e;
  e.tag = ValueTag::Tensor;
  e.tensor = std::move(t);
  return e;
}

bool EValue::to_scalar(double* out) const {
  if (tag == ValueTag::Int) {
    *out = static_cast<double>(int_value);
    return true;
  }
  if (tag == ValueTag::Double) {
    *out = double_value;
    return true;
  }
  return false;
}

}  // namespace devplan
