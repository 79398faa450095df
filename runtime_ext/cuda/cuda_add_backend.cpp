#include <runtime_ext/cuda/cuda_add_backend.h>
#include <runtime_ext/cuda/cuda_elementwise_add.h>
#include <runtime_ext/program/scalar_type.h>

#include <cstdint>
#include <string>

namespace devplan {
namespace {

constexpr char kName[] = "CudaAddBackend";

// The device a delegate targets.
class TargetHandle : public DelegateHandle {
 public:
  explicit TargetHandle(Device device) : device_(device) {}
  Device device() const { return device_; }

 private:
  Device device_;
};

std::string shape_text(const Tensor& t) {
  std::string text = "[";
  for (size_t i = 0; i < t.sizes.size(); ++i) {
    if (i > 0) text += ", ";
    text += std::to_string(t.sizes[i]);
  }
  return text + "]";
}

Error fail(ErrorCode code, const std::string& message) {
  return Error(code, std::string(kName) + ": " + message);
}

}  // namespace

Result<std::unique_ptr<DelegateHandle>> CudaAddBackend::init(const DelegateInfo& delegate,
                                                             const BackendContext&) {
  for (const CompileSpecInfo& spec : delegate.compile_specs) {
    if (spec.key != kTargetDeviceSpec) continue;
    const std::string text(reinterpret_cast<const char*>(spec.value.data()), spec.value.size());
    Result<Device> device = parse_device(text);
    if (!device.ok()) {
      return fail(ErrorCode::InvalidProgram, std::string("compile spec ") + kTargetDeviceSpec +
                                                 ": " + device.error().message());
    }
    if (device->type != DeviceType::CUDA) {
      return fail(ErrorCode::InvalidArgument, std::string("compile spec ") + kTargetDeviceSpec +
                                                  " is " + device->to_string() +
                                                  "; this backend runs on CUDA devices");
    }
    return std::unique_ptr<DelegateHandle>(new TargetHandle(*device));
  }
  return std::unique_ptr<DelegateHandle>();
}

Error CudaAddBackend::execute(DelegateHandle* handle, const BackendContext& ctx,
                              Span<EValue*> args) {
  auto arg_name = [&](size_t i) {
    return i < ctx.value_indices.size() ? "value " + std::to_string(ctx.value_indices[i])
                                        : "argument " + std::to_string(i);
  };
  if (args.size() != 3) {
    return fail(ErrorCode::InvalidProgram,
                "expected 3 arguments (a, b, out), got " + std::to_string(args.size()));
  }
  const auto* target = dynamic_cast<const TargetHandle*>(handle);
  for (size_t i = 0; i < 3; ++i) {
    if (args[i] == nullptr || !args[i]->is_tensor()) {
      return fail(ErrorCode::InvalidType,
                  arg_name(i) + " is " +
                      (args[i] == nullptr ? std::string("missing")
                                          : std::string(value_tag_name(args[i]->tag))) +
                      ", not a Tensor");
    }
  }
  const Tensor& a = args[0]->tensor;
  const Tensor& b = args[1]->tensor;
  const Tensor& out = args[2]->tensor;
  const Device device = target != nullptr ? target->device() : a.device;
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& t = args[i]->tensor;
    if (t.device.type != DeviceType::CUDA) {
      return fail(ErrorCode::InvalidArgument, arg_name(i) + " is on " + t.device.to_string() +
                                                  "; this backend runs on CUDA devices");
    }
    if (t.device != device) {
      return fail(ErrorCode::InvalidArgument, arg_name(i) + " is on " + t.device.to_string() +
                                                  ", but the delegate runs on " +
                                                  device.to_string());
    }
  }
  for (size_t i = 1; i < 3; ++i) {
    const Tensor& t = args[i]->tensor;
    if (t.dtype != a.dtype) {
      return fail(ErrorCode::InvalidArgument, arg_name(i) + " is " + scalar_type_name(t.dtype) +
                                                  ", " + arg_name(0) + " is " +
                                                  scalar_type_name(a.dtype));
    }
    if (t.sizes != a.sizes) {
      return fail(ErrorCode::NotSupported, arg_name(i) + " has shape " + shape_text(t) + ", " +
                                               arg_name(0) + " has " + shape_text(a) +
                                               "; this backend does not broadcast");
    }
  }
  const int64_t numel = a.numel();
  if (numel < 0) {
    return fail(ErrorCode::InvalidProgram, arg_name(0) + " has a negative size " + shape_text(a));
  }
  const uint64_t element = element_size(a.dtype);
  if (element != 0 && static_cast<uint64_t>(numel) > UINT64_MAX / element) {
    return fail(ErrorCode::InvalidProgram, arg_name(0) + " has too many elements " + shape_text(a));
  }
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& t = args[i]->tensor;
    // element is 0 for an unknown dtype; cuda_elementwise_add reports the dtype below.
    if (element != 0 && t.nbytes != static_cast<uint64_t>(numel) * element) {
      return fail(ErrorCode::InvalidProgram,
                  arg_name(i) + " " + t.describe() + " holds " + std::to_string(t.nbytes) +
                      " bytes, not " + std::to_string(static_cast<uint64_t>(numel) * element));
    }
  }
  Error err = cuda_elementwise_add(a.data, b.data, out.data, static_cast<size_t>(numel), a.dtype,
                                   device.index);
  if (!err.ok()) return err.with_context(kName);
  ++executions_;
  return Error::success();
}

CudaAddBackend& process_cuda_add_backend() {
  static CudaAddBackend* const backend = new CudaAddBackend();
  return *backend;
}

Error register_cuda_backend() { return register_cuda_backend(BackendRegistry::global()); }

Error register_cuda_backend(BackendRegistry& registry) {
  return registry.register_backend(CudaAddBackend::kBackendId, &process_cuda_add_backend())
      .with_context("register_cuda_backend");
}

}  // namespace devplan
