// Host tensors backed by vectors, for kernel tests.
#pragma once

#include <runtime_ext/executor/evalue.h>

#include <cstring>
#include <vector>

namespace devplan::testing {

template <typename T>
struct ScalarTypeOf;
template <>
struct ScalarTypeOf<float> {
  static constexpr ScalarType value = ScalarType::Float;
};
template <>
struct ScalarTypeOf<double> {
  static constexpr ScalarType value = ScalarType::Double;
};
template <>
struct ScalarTypeOf<int32_t> {
  static constexpr ScalarType value = ScalarType::Int;
};
template <>
struct ScalarTypeOf<int64_t> {
  static constexpr ScalarType value = ScalarType::Long;
};

// Owns the bytes of one tensor and an EValue viewing them.
template <typename T>
struct HostTensor {
  std::vector<T> data;
  EValue value;
  HostTensor(std::vector<int32_t> sizes, std::vector<T> values) : data(std::move(values)) {
    Tensor t;
    t.dtype = ScalarTypeOf<T>::value;
    t.sizes = std::move(sizes);
    t.data = data.data();
    t.nbytes = data.size() * sizeof(T);
    value = EValue::from_tensor(t);
  }
};

}  // namespace devplan::testing
