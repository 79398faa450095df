#include <harness/engine/executorch/executorch_device_backend.h>

#include <string>

#include <executorch/runtime/backend/interface.h>

#include <harness/engine/executorch/executorch_hooks.h>
#include <mocks/simulated_device_backend.h>

namespace devplan::harness::executorch_bridge {
namespace et = ::executorch::runtime;
namespace {

constexpr SimulatedDeviceBackend::Op kOps[] = {SimulatedDeviceBackend::Op::Add,
                                               SimulatedDeviceBackend::Op::Mul};

et::Error fail(const Error& e) {
  record_error(e.message());
  return static_cast<et::Error>(static_cast<uint32_t>(e.code()));
}

// ExecuTorch's view of a tensor as a devplan Tensor over the same bytes.
Tensor devplan_view(const ::executorch::aten::Tensor& t) {
  Tensor view;
  view.dtype = static_cast<ScalarType>(static_cast<int8_t>(t.scalar_type()));
  for (ssize_t d = 0; d < t.dim(); ++d) view.sizes.push_back(static_cast<int32_t>(t.size(d)));
  view.data = t.mutable_data_ptr();
  view.nbytes = t.nbytes();
  view.device = t.device_type() == et::etensor::DeviceType::CPU
                    ? Device::cpu()
                    : Device{DeviceType::CUDA, static_cast<DeviceIndex>(t.device_index())};
  return view;
}

class ExecutorchDeviceBackend final : public et::BackendInterface {
 public:
  // `fixed`: the op every delegate of this backend runs (DeviceAddBackend: add, whatever its
  // processed bytes); FromProcessed reads it from the processed bytes (DevplanDeviceBackend).
  explicit ExecutorchDeviceBackend(SimulatedDeviceBackend::Op fixed) : fixed_(fixed) {}

  bool is_available() const override { return true; }

  et::Result<et::DelegateHandle*> init(et::BackendInitContext&, et::FreeableBuffer* processed,
                                       et::ArrayRef<et::CompileSpec>) const override {
    if (fixed_ != SimulatedDeviceBackend::Op::FromProcessed) {
      if (processed != nullptr) processed->Free();
      const SimulatedDeviceBackend::Op* chosen = fixed_ == kOps[0] ? &kOps[0] : &kOps[1];
      return reinterpret_cast<et::DelegateHandle*>(const_cast<SimulatedDeviceBackend::Op*>(chosen));
    }
    if (processed == nullptr) {
      return fail(
          Error(ErrorCode::InvalidProgram,
                std::string(SimulatedDeviceBackend::kDevplanBackendId) + ": no processed data"));
    }
    Result<SimulatedDeviceBackend::Op> op = elementwise_op_from_processed(
        Span<const uint8_t>(static_cast<const uint8_t*>(processed->data()), processed->size()),
        std::string("delegate ") + SimulatedDeviceBackend::kDevplanBackendId);
    processed->Free();
    if (!op.ok()) return fail(op.error());
    const SimulatedDeviceBackend::Op* chosen = *op == kOps[0] ? &kOps[0] : &kOps[1];
    return reinterpret_cast<et::DelegateHandle*>(const_cast<SimulatedDeviceBackend::Op*>(chosen));
  }

  et::Error execute(et::BackendExecutionContext&, et::DelegateHandle* handle,
                    et::Span<et::EValue*> args) const override {
    const std::string name = fixed_ == SimulatedDeviceBackend::Op::FromProcessed
                                 ? SimulatedDeviceBackend::kDevplanBackendId
                                 : SimulatedDeviceBackend::kAddBackendId;
    if (args.size() != 3) {
      return fail(
          Error(ErrorCode::InvalidProgram,
                name + ": expected 3 arguments (a, b, out), got " + std::to_string(args.size())));
    }
    Tensor views[3];
    const Tensor* tensors[3];
    std::string names[3];
    for (size_t i = 0; i < 3; ++i) {
      names[i] = "argument " + std::to_string(i);
      if (!args[i]->isTensor()) {
        return fail(Error(ErrorCode::InvalidType, name + ": " + names[i] + " is not a Tensor"));
      }
      views[i] = devplan_view(args[i]->toTensor());
      tensors[i] = &views[i];
    }
    const auto op = *reinterpret_cast<const SimulatedDeviceBackend::Op*>(handle);
    Error e = run_simulated_elementwise(op, name, current_target(), tensors, names, {},
                                        current_device_elementwise());
    return e.ok() ? et::Error::Ok : fail(e);
  }

 private:
  SimulatedDeviceBackend::Op fixed_;
};

}  // namespace

void register_executorch_device_backend() {
  // The same two backends runtime_ext's simulated environment has (device_environment.cpp):
  // DevplanDeviceBackend reads its op from the processed bytes, DeviceAddBackend always adds.
  static ExecutorchDeviceBackend devplan_backend(SimulatedDeviceBackend::Op::FromProcessed);
  static ExecutorchDeviceBackend add_backend(SimulatedDeviceBackend::Op::Add);
  const std::pair<const char*, ExecutorchDeviceBackend*> backends[] = {
      {SimulatedDeviceBackend::kDevplanBackendId, &devplan_backend},
      {SimulatedDeviceBackend::kAddBackendId, &add_backend}};
  for (const auto& [id, backend] : backends) {
    if (et::get_backend_class(id) != nullptr) continue;
    if (et::register_backend(et::Backend{id, backend}) != et::Error::Ok) {
      record_error(std::string("cannot register ") + id + " with ExecuTorch");
    }
  }
}

}  // namespace devplan::harness::executorch_bridge
