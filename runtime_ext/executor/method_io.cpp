// A Method's inputs and outputs (method.h): set_input, the caller's memory for runtime-bound
// outputs, and outputs read back to the host.
#include <runtime_ext/executor/method.h>

#include <cmath>
#include <cstdio>
#include <cstring>

namespace devplan {
namespace {

// ExecuTorch's Method::set_input takes a primitive input only when it equals the value the
// program records: Int, Bool and String exactly, a Double within 1e-4 + 1e-5 * |recorded| (NaN
// equals NaN, an infinity the infinity of its sign). Other tags cannot be set at all.
bool same_primitive(const EValue& recorded, const EValue& given) {
  switch (recorded.tag) {
    case ValueTag::Int:
      return given.int_value == recorded.int_value;
    case ValueTag::Bool:
      return given.bool_value == recorded.bool_value;
    case ValueTag::String:
      return given.string_value == recorded.string_value;
    case ValueTag::Double: {
      const double a = given.double_value, b = recorded.double_value;
      if (std::isnan(a) && std::isnan(b)) return true;
      if (!std::isfinite(a) && !std::isfinite(b) && (a > 0) == (b > 0)) return true;
      const double error = std::abs(a - b);
      return std::isfinite(error) && error <= 1e-4 + std::abs(1e-5 * b);
    }
    default:
      return false;
  }
}

std::string primitive_text(const EValue& v) {
  switch (v.tag) {
    case ValueTag::Int:
      return std::to_string(v.int_value);
    case ValueTag::Bool:
      return v.bool_value ? "true" : "false";
    case ValueTag::String:
      return "'" + v.string_value + "'";
    case ValueTag::Double: {
      char text[32];
      std::snprintf(text, sizeof(text), "%.17g", v.double_value);
      return text;
    }
    default:
      return value_tag_name(v.tag);
  }
}

}  // namespace

Error Method::set_input(size_t i, const EValue& input) {
  const std::string name = "method '" + plan_.name + "': input " + std::to_string(i);
  if (i >= plan_.inputs.size()) {
    return Error(ErrorCode::InvalidArgument,
                 name + " does not exist (" + std::to_string(plan_.inputs.size()) + " inputs)");
  }
  EValue& target = values_[plan_.inputs[i]];
  if (!target.is_tensor()) {
    if (input.tag != target.tag) {
      return Error(ErrorCode::InvalidType, name + " is " + value_tag_name(target.tag) + ", given " +
                                               value_tag_name(input.tag));
    }
    // As ExecuTorch: a primitive input is fixed at export, and only its recorded value is taken.
    if (!same_primitive(target, input)) {
      return Error(ErrorCode::InvalidArgument,
                   name + " is " + value_tag_name(target.tag) + " " + primitive_text(target) +
                       ", fixed when the program was exported; given " + primitive_text(input));
    }
    return Error::success();
  }
  if (!input.is_tensor()) {
    return Error(ErrorCode::InvalidType,
                 name + " is a Tensor, given " + std::string(value_tag_name(input.tag)));
  }
  const Tensor& src = input.tensor;
  Tensor& dst = target.tensor;
  const TensorInfo& info = plan_.values[plan_.inputs[i]].tensor;
  if (info.storage == TensorStorage::RuntimeBound && !info.device.is_cpu()) {
    // A skip-copy device input: the caller's device memory is used as it is.
    if (src.device != dst.device || src.dtype != dst.dtype || src.sizes != dst.sizes) {
      return Error(ErrorCode::InvalidArgument,
                   name + " is a runtime-bound " + dst.describe() +
                       ": it takes the caller's memory on that device, given " + src.describe());
    }
    // The method uses dst.nbytes of that memory: a caller tensor of another byte count (the
    // same shape and dtype, but not the memory they need) is refused, as a host input is.
    if (src.nbytes != dst.nbytes) {
      return Error(ErrorCode::InvalidArgument, name + " is a runtime-bound " + dst.describe() +
                                                   " of " + std::to_string(dst.nbytes) +
                                                   " bytes, given one of " +
                                                   std::to_string(src.nbytes) + " bytes");
    }
    dst.data = src.data;
    unbound_[plan_.inputs[i]] = src.data == nullptr && dst.nbytes > 0;
    return Error::success();
  }
  if (!src.device.is_cpu()) {
    return Error(ErrorCode::InvalidArgument,
                 name + ": the given tensor must be host memory, found " + src.device.to_string());
  }
  if (src.dtype != dst.dtype || src.sizes != dst.sizes || src.nbytes != dst.nbytes) {
    return Error(ErrorCode::InvalidArgument, name + " expects " + dst.describe() + " (" +
                                                 std::to_string(dst.nbytes) + " bytes), given " +
                                                 src.describe() + " (" +
                                                 std::to_string(src.nbytes) + " bytes)");
  }
  if (dst.nbytes == 0) return Error::success();
  if (dst.device.is_cpu()) {
    std::memcpy(dst.data, src.data, dst.nbytes);
    return Error::success();
  }
  DeviceAllocator* allocator = runtime_.allocators->get(dst.device.type);
  if (allocator == nullptr) {
    return Error(ErrorCode::NotFound,
                 name + ": no device allocator registered for " + dst.device.to_string());
  }
  Error err = allocator->copy_host_to_device(dst.data, src.data, dst.nbytes, dst.device.index);
  return err.ok() ? err : err.with_context(name);
}

Error Method::set_output_data(size_t i, void* data, size_t nbytes) {
  const std::string name = "method '" + plan_.name + "': output " + std::to_string(i);
  if (i >= plan_.outputs.size()) {
    return Error(ErrorCode::InvalidArgument,
                 name + " does not exist (" + std::to_string(plan_.outputs.size()) + " outputs)");
  }
  const int32_t index = plan_.outputs[i];
  EValue& target = values_[index];
  const ValueInfo& info = plan_.values[index];
  if (!target.is_tensor() || info.tensor.storage != TensorStorage::RuntimeBound) {
    return Error(ErrorCode::InvalidArgument,
                 name + " is not a runtime-bound tensor: its memory is the program's");
  }
  if (nbytes != target.tensor.nbytes) {
    return Error(ErrorCode::InvalidArgument, name + " has " + std::to_string(target.tensor.nbytes) +
                                                 " bytes, given " + std::to_string(nbytes));
  }
  target.tensor.data = data;
  unbound_[index] = data == nullptr && nbytes > 0;
  return Error::success();
}

bool Method::needs_caller_memory(size_t index) const {
  return index < unbound_.size() && unbound_[index] != 0;
}

Result<const EValue*> Method::get_output(size_t i) const {
  if (i >= plan_.outputs.size()) {
    return Error(ErrorCode::InvalidArgument,
                 "method '" + plan_.name + "': output " + std::to_string(i) + " does not exist (" +
                     std::to_string(plan_.outputs.size()) + " outputs)");
  }
  return &values_[plan_.outputs[i]];
}

Error Method::copy_output_to_host(size_t i, void* dst, size_t nbytes) const {
  DEVPLAN_ASSIGN_OR_RETURN(const EValue* out, get_output(i));
  const std::string name = "method '" + plan_.name + "': output " + std::to_string(i);
  if (!out->is_tensor()) {
    return Error(ErrorCode::InvalidType,
                 name + " is " + std::string(value_tag_name(out->tag)) + ", not a Tensor");
  }
  const Tensor& t = out->tensor;
  if (nbytes != t.nbytes) {
    return Error(ErrorCode::InvalidArgument, name + " has " + std::to_string(t.nbytes) +
                                                 " bytes, the destination " +
                                                 std::to_string(nbytes));
  }
  if (nbytes == 0) return Error::success();
  if (t.device.is_cpu()) {
    std::memcpy(dst, t.data, nbytes);
    return Error::success();
  }
  DeviceAllocator* allocator = runtime_.allocators->get(t.device.type);
  if (allocator == nullptr) {
    return Error(ErrorCode::NotFound,
                 name + ": no device allocator registered for " + t.device.to_string());
  }
  Error err = allocator->copy_device_to_host(dst, t.data, nbytes, t.device.index);
  return err.ok() ? err : err.with_context(name);
}

}  // namespace devplan
