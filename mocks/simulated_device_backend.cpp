#include <mocks/simulated_device_backend.h>

#include <vector>

#include <runtime_ext/executor/kernels/builtin_kernels.h>

namespace devplan {
namespace {

// A host copy of a device tensor's metadata and bytes.
struct Staged {
  std::vector<uint64_t> storage;
  EValue value;
};

}  // namespace

Result<std::unique_ptr<DelegateHandle>> SimulatedDeviceBackend::init(const DelegateInfo&,
                                                                     const BackendContext&) {
  return std::unique_ptr<DelegateHandle>();
}

Error SimulatedDeviceBackend::execute(DelegateHandle*, const BackendContext& ctx,
                                      Span<EValue*> args) {
  const std::string name = ctx.delegate_id;
  auto arg_name = [&](size_t i) {
    return i < ctx.value_indices.size() ? "value " + std::to_string(ctx.value_indices[i])
                                        : "argument " + std::to_string(i);
  };
  if (args.size() != 3) {
    return Error(ErrorCode::InvalidProgram,
                 name + ": expected 3 arguments (a, b, out), got " + std::to_string(args.size()));
  }
  Device device;
  for (size_t i = 0; i < 3; ++i) {
    if (!args[i]->is_tensor()) {
      return Error(ErrorCode::InvalidType, name + ": " + arg_name(i) + " is " +
                                               value_tag_name(args[i]->tag) + ", not a Tensor");
    }
    const Device d = args[i]->tensor.device;
    if (d.is_cpu()) {
      return Error(ErrorCode::InvalidArgument,
                   name + ": " + arg_name(i) + " is on cpu:0; this backend runs on a device");
    }
    if (i > 0 && d != device) {
      return Error(ErrorCode::InvalidArgument, name + ": " + arg_name(i) + " is on " +
                                                   d.to_string() + ", the others on " +
                                                   device.to_string());
    }
    device = d;
  }
  DeviceAllocator* allocator = ctx.allocators ? ctx.allocators->get(device.type) : nullptr;
  if (allocator == nullptr) {
    return Error(ErrorCode::NotFound,
                 name + ": no device allocator registered for " + device.to_string());
  }
  Staged staged[3];
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& t = args[i]->tensor;
    staged[i].storage.assign((t.nbytes + 7) / 8, 0);
    staged[i].value = EValue::from_tensor(t);
    staged[i].value.tensor.device = Device::cpu();
    staged[i].value.tensor.data = staged[i].storage.data();
    if (i < 2 && t.nbytes > 0) {
      Error err = allocator->copy_device_to_host(staged[i].storage.data(), t.data, t.nbytes,
                                                 device.index);
      if (!err.ok()) return err.with_context(name + ": reading " + arg_name(i));
    }
  }
  EValue alpha = EValue::from_int(1);
  std::vector<EValue*> kernel_args;
  std::vector<int32_t> indices(ctx.value_indices.begin(), ctx.value_indices.end());
  KernelContext kernel_ctx;
  kernel_ctx.allocators = ctx.allocators;
  Error err;
  if (op_ == Op::Add) {
    kernel_ctx.op_name = name + " (add)";
    kernel_args = {&staged[0].value, &staged[1].value, &alpha, &staged[2].value};
    if (indices.size() == 3) indices = {indices[0], indices[1], -1, indices[2]};
    kernel_ctx.value_indices = Span<const int32_t>(indices.data(), indices.size());
    err = add_out_kernel(kernel_ctx, Span<EValue*>(kernel_args.data(), kernel_args.size()));
  } else {
    kernel_ctx.op_name = name + " (mul)";
    kernel_args = {&staged[0].value, &staged[1].value, &staged[2].value};
    kernel_ctx.value_indices = Span<const int32_t>(indices.data(), indices.size());
    err = mul_out_kernel(kernel_ctx, Span<EValue*>(kernel_args.data(), kernel_args.size()));
  }
  if (!err.ok()) return err;
  const Tensor& out = args[2]->tensor;
  if (out.nbytes > 0) {
    err = allocator->copy_host_to_device(out.data, staged[2].storage.data(), out.nbytes,
                                         device.index);
    if (!err.ok()) return err.with_context(name + ": writing " + arg_name(2));
  }
  ++executions_;
  return Error::success();
}

}  // namespace devplan
