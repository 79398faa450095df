#include <mocks/simulated_device_backend.h>

#include <string_view>
#include <vector>

#include <runtime_ext/executor/kernels/builtin_kernels.h>

namespace devplan {
namespace {

// A host copy of a device tensor's metadata and bytes.
struct Staged {
  std::vector<uint64_t> storage;
  EValue value;
};

// The op chosen at init for a FromProcessed delegate.
class ElementwiseHandle final : public DelegateHandle {
 public:
  explicit ElementwiseHandle(SimulatedDeviceBackend::Op op) : op(op) {}
  SimulatedDeviceBackend::Op op;
};

}  // namespace

Result<SimulatedDeviceBackend::Op> elementwise_op_from_processed(Span<const uint8_t> processed,
                                                                 const std::string& delegate) {
  const std::string_view text(reinterpret_cast<const char*>(processed.data()), processed.size());
  if (text == "add") return SimulatedDeviceBackend::Op::Add;
  if (text == "mul") return SimulatedDeviceBackend::Op::Mul;
  std::string shown(text.substr(0, 32));
  for (char& c : shown) {
    if (c < 0x20 || c > 0x7e) c = '?';
  }
  return Error(ErrorCode::InvalidProgram,
               delegate +
                   ": processed data names no elementwise op (expected \"add\" or \"mul\", got \"" +
                   shown + "\")");
}

Error run_simulated_elementwise(SimulatedDeviceBackend::Op op, const std::string& name,
                                DeviceAllocator* allocator, const Tensor* const tensors[3],
                                const std::string arg_names[3], Span<const int32_t> value_indices,
                                const SimulatedDeviceBackend::DeviceElementwise* on_device) {
  // All three in host memory (a legacy device program plans the delegate's tensors in host
  // buffers, with no copies around it): the backend moves the data itself, so the result is
  // what the host kernel computes in place.
  if (tensors[0]->device.is_cpu() && tensors[1]->device.is_cpu() && tensors[2]->device.is_cpu()) {
    EValue a = EValue::from_tensor(*tensors[0]);
    EValue b = EValue::from_tensor(*tensors[1]);
    EValue out = EValue::from_tensor(*tensors[2]);
    EValue alpha = EValue::from_int(1);
    KernelContext host_ctx;
    if (op == SimulatedDeviceBackend::Op::Add) {
      host_ctx.op_name = name + " (add, host memory)";
      std::vector<EValue*> args = {&a, &b, &alpha, &out};
      return add_out_kernel(host_ctx, Span<EValue*>(args.data(), args.size()));
    }
    host_ctx.op_name = name + " (mul, host memory)";
    std::vector<EValue*> args = {&a, &b, &out};
    return mul_out_kernel(host_ctx, Span<EValue*>(args.data(), args.size()));
  }
  Device device;
  for (size_t i = 0; i < 3; ++i) {
    const Device d = tensors[i]->device;
    if (d.is_cpu()) {
      return Error(ErrorCode::InvalidArgument,
                   name + ": " + arg_names[i] +
                       " is on cpu:0 and the others are not; this backend "
                       "runs on one device (or, for a legacy program, all in host memory)");
    }
    if (i > 0 && d != device) {
      return Error(ErrorCode::InvalidArgument, name + ": " + arg_names[i] + " is on " +
                                                   d.to_string() + ", the others on " +
                                                   device.to_string());
    }
    device = d;
  }
  if (allocator == nullptr) {
    return Error(ErrorCode::NotFound,
                 name + ": no device allocator registered for " + device.to_string());
  }
  if (on_device != nullptr && *on_device) {
    std::optional<Error> done = (*on_device)(op, *tensors[0], *tensors[1], *tensors[2], device);
    if (done) return done->ok() ? *done : done->with_context(name);
  }
  Staged staged[3];
  for (size_t i = 0; i < 3; ++i) {
    const Tensor& t = *tensors[i];
    staged[i].storage.assign((t.nbytes + 7) / 8, 0);
    staged[i].value = EValue::from_tensor(t);
    staged[i].value.tensor.device = Device::cpu();
    staged[i].value.tensor.data = staged[i].storage.data();
    if (i < 2 && t.nbytes > 0) {
      Error err =
          allocator->copy_device_to_host(staged[i].storage.data(), t.data, t.nbytes, device.index);
      if (!err.ok()) return err.with_context(name + ": reading " + arg_names[i]);
    }
  }
  EValue alpha = EValue::from_int(1);
  std::vector<EValue*> kernel_args;
  std::vector<int32_t> indices(value_indices.begin(), value_indices.end());
  KernelContext kernel_ctx;
  Error err;
  if (op == SimulatedDeviceBackend::Op::Add) {
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
  const Tensor& out = *tensors[2];
  if (out.nbytes > 0) {
    err = allocator->copy_host_to_device(out.data, staged[2].storage.data(), out.nbytes,
                                         device.index);
    if (!err.ok()) return err.with_context(name + ": writing " + arg_names[2]);
  }
  return Error::success();
}

Result<std::unique_ptr<DelegateHandle>> SimulatedDeviceBackend::init(const DelegateInfo& delegate,
                                                                     const BackendContext& ctx) {
  if (op_ != Op::FromProcessed) return std::unique_ptr<DelegateHandle>();
  DEVPLAN_ASSIGN_OR_RETURN(
      Op op, elementwise_op_from_processed(delegate.processed,
                                           ctx.method_name + ": delegate " + delegate.id));
  return std::unique_ptr<DelegateHandle>(new ElementwiseHandle(op));
}

Error SimulatedDeviceBackend::execute(DelegateHandle* handle, const BackendContext& ctx,
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
  const Tensor* tensors[3];
  std::string names[3];
  for (size_t i = 0; i < 3; ++i) {
    names[i] = arg_name(i);
    if (!args[i]->is_tensor()) {
      return Error(ErrorCode::InvalidType, name + ": " + names[i] + " is " +
                                               value_tag_name(args[i]->tag) + ", not a Tensor");
    }
    tensors[i] = &args[i]->tensor;
  }
  Op op = op_;
  if (op == Op::FromProcessed) {
    const auto* chosen = dynamic_cast<const ElementwiseHandle*>(handle);
    if (chosen == nullptr) {
      return Error(ErrorCode::DelegateInvalidHandle, name + ": not initialised by this backend");
    }
    op = chosen->op;
  }
  DeviceAllocator* allocator =
      ctx.allocators ? ctx.allocators->get(tensors[0]->device.type) : nullptr;
  DEVPLAN_RETURN_IF_ERROR(run_simulated_elementwise(op, name, allocator, tensors, names,
                                                    ctx.value_indices, &on_device_));
  ++executions_;
  return Error::success();
}

}  // namespace devplan
