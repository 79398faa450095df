// Values between devplan and ExecuTorch's Module, for the ExecuTorch engine
// (executorch_session.cpp): an input tensor built from `devplan run --input` numbers, and an
// output read back to the host as OutputValues.
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include <executorch/extension/module/module.h>
#include <executorch/runtime/core/exec_aten/exec_aten.h>

#include <harness/values/output_values.h>
#include <runtime_ext/core/device_allocator.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness::executorch_engine {

// Host storage for one input tensor of ExecuTorch's kind.
struct InputTensor {
  std::vector<uint8_t> bytes;
  std::vector<::executorch::aten::SizesType> sizes;
  std::vector<::executorch::aten::DimOrderType> dim_order;
  std::vector<::executorch::aten::StridesType> strides;
  std::unique_ptr<::executorch::aten::TensorImpl> impl;
};

// Fills `t` with input `i` of the method `meta` describes, its elements `values`. `usage_error`
// is set when the values do not fit the input's dtype (the caller's mistake).
Error make_input(const ::executorch::runtime::MethodMeta& meta, size_t i,
                 const std::vector<double>& values, InputTensor* t, bool* usage_error);

// Output `i` read back to the host: a device tensor's bytes are copied through `target`.
Result<OutputValues> read_output(const ::executorch::runtime::EValue& value, size_t i,
                                 DeviceAllocator& target);

}  // namespace devplan::harness::executorch_engine
