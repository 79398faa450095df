// Tensor: a non-owning view of a tensor's data and metadata at run time, with the device its
// bytes live on. A tensor whose device is not the CPU holds a device pointer: host code passes
// it to the DeviceAllocator's copies or to a device backend, and never dereferences it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <runtime_ext/core/device.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan {

struct Tensor {
  ScalarType dtype = ScalarType::Float;
  std::vector<int32_t> sizes;
  void* data = nullptr;
  uint64_t nbytes = 0;
  Device device;

  // Number of elements; an empty shape is one element (a scalar tensor).
  int64_t numel() const {
    int64_t n = 1;
    for (int32_t s : sizes) n *= s;
    return n;
  }
  int dim() const { return static_cast<int>(sizes.size()); }

  // "float32[2, 2] on cuda:0".
  std::string describe() const;
};

}  // namespace devplan
