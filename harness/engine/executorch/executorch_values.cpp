#include <harness/engine/executorch/executorch_values.h>

#include <cstring>

#include <harness/engine/executorch/executorch_errors.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness::executorch_engine {

namespace et = ::executorch::runtime;

Error make_input(const et::MethodMeta& meta, size_t i, const std::vector<double>& values,
                 InputTensor* t, bool* usage_error) {
  et::Result<et::TensorInfo> info = meta.input_tensor_meta(i);
  if (!info.ok()) return from_et(info.error(), "input_tensor_meta(" + std::to_string(i) + ")");
  const auto dtype = static_cast<ScalarType>(static_cast<int8_t>(info->scalar_type()));
  int64_t numel = 1;
  for (int32_t s : info->sizes()) {
    t->sizes.push_back(s);
    numel *= s;
  }
  for (uint8_t d : info->dim_order()) t->dim_order.push_back(d);
  if (t->dim_order.size() != t->sizes.size()) {
    t->dim_order.clear();
    for (size_t d = 0; d < t->sizes.size(); ++d) t->dim_order.push_back(static_cast<uint8_t>(d));
  }
  t->strides.assign(t->sizes.size(), 1);
  int64_t stride = 1;
  for (size_t k = t->dim_order.size(); k-- > 0;) {
    const size_t dim = t->dim_order[k];
    if (dim >= t->sizes.size())
      return Error(ErrorCode::InvalidProgram, "input " + std::to_string(i) + ": bad dim_order");
    t->strides[dim] = static_cast<::executorch::aten::StridesType>(stride);
    stride *= t->sizes[dim];
  }
  Result<std::vector<uint8_t>> encoded = encode_values(values, dtype, numel);
  if (!encoded.ok()) {
    *usage_error = encoded.code() == ErrorCode::InvalidArgument;
    return encoded.error().with_context("input " + std::to_string(i));
  }
  t->bytes = std::move(encoded).value();
  t->impl = std::make_unique<::executorch::aten::TensorImpl>(
      info->scalar_type(), static_cast<ssize_t>(t->sizes.size()), t->sizes.data(), t->bytes.data(),
      t->dim_order.data(), t->strides.data());
  return Error::success();
}

Result<OutputValues> read_output(const et::EValue& value, size_t i, DeviceAllocator& target) {
  OutputValues o;
  o.index = i;
  if (value.isTensor()) {
    const ::executorch::aten::Tensor t = value.toTensor();
    o.tag = ValueTag::Tensor;
    o.dtype = static_cast<ScalarType>(static_cast<int8_t>(t.scalar_type()));
    for (ssize_t d = 0; d < t.dim(); ++d) o.sizes.push_back(static_cast<int32_t>(t.size(d)));
    DEVPLAN_RETURN_IF_ERROR(check_decodable(o.dtype));
    std::vector<uint8_t>& bytes = o.bytes;
    bytes.resize(t.nbytes());
    if (t.device_type() == et::etensor::DeviceType::CPU) {
      if (!bytes.empty()) std::memcpy(bytes.data(), t.const_data_ptr(), bytes.size());
      o.device = Device::cpu();
    } else {
      o.device = Device{DeviceType::CUDA, static_cast<DeviceIndex>(t.device_index())};
      if (!bytes.empty()) {
        DEVPLAN_RETURN_IF_ERROR(target.copy_device_to_host(bytes.data(), t.const_data_ptr(),
                                                           bytes.size(), o.device.index));
      }
    }
  } else if (value.isInt()) {
    o.tag = ValueTag::Int;
    o.values = {std::to_string(value.toInt())};
  } else if (value.isDouble()) {
    o.tag = ValueTag::Double;
    o.values = {format_number(value.toDouble())};
  } else if (value.isBool()) {
    o.tag = ValueTag::Bool;
    o.values = {value.toBool() ? "true" : "false"};
  }
  return o;
}

}  // namespace devplan::harness::executorch_engine
