// EValue: one value of a method at run time, tagged like the program's EValue union.
// Scalars and strings are held by value; a Tensor by its (non-owning) view; tensor lists by
// the value indices of their items.
//
//   EValue v = EValue::from_int(1);
//   if (v.is_tensor()) use(v.tensor);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/executor/tensor.h>
#include <runtime_ext/program/method_plan.h>

namespace devplan {

struct EValue {
  ValueTag tag = ValueTag::None;
  int64_t int_value = 0;
  double double_value = 0.0;
  bool bool_value = false;
  std::string string_value;
  std::vector<int64_t> int_list;
  std::vector<double> double_list;
  std::vector<bool> bool_list;
  std::vector<int32_t> value_list;  // TensorList / OptionalTensorList items (value indices)
  Tensor tensor;

  static EValue from_int(int64_t v);
  static EValue from_double(double v);
  static EValue from_bool(bool v);
  static EValue from_tensor(Tensor t);

  bool is_tensor() const { return tag == ValueTag::Tensor; }
  bool is_int() const { return tag == ValueTag::Int; }
  bool is_double() const { return tag == ValueTag::Double; }
  bool is_bool() const { return tag == ValueTag::Bool; }
  // Int or Double as a double (e.g. a kernel's alpha); false for other tags.
  bool to_scalar(double* out) const;
};

}  // namespace devplan
