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

EValue EValue::from_int(int64_t v) { return tagged_value(ValueTag::Int, &EValue::int_value, v); }

EValue EValue::from_double(double v) {
  return tagged_value(ValueTag::Double, &EValue::double_value, v);
}

EValue EValue::from_bool(bool v) { return tagged_value(ValueTag::Bool, &EValue::bool_value, v); }

EValue EValue::from_tensor(Tensor t) {
  return tagged_value(ValueTag::Tensor, &EValue::tensor, std::move(t));
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
