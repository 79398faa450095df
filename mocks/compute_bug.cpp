#include <mocks/compute_bug.h>

#include <vector>

namespace devplan {

const char* compute_bug_name(ComputeBug bug) {
  switch (bug) {
    case ComputeBug::None:
      return "none";
    case ComputeBug::UnwrittenOutput:
      return "unwritten-output";
    case ComputeBug::MergedOutputs:
      return "merged-outputs";
    case ComputeBug::ReadBeforeWrite:
      return "read-before-write";
  }
  return "unknown";
}

Result<ComputeBug> parse_compute_bug(const std::string& text) {
  for (ComputeBug bug : {ComputeBug::None, ComputeBug::UnwrittenOutput, ComputeBug::MergedOutputs,
                         ComputeBug::ReadBeforeWrite}) {
    if (text == compute_bug_name(bug)) return bug;
  }
  return Error(ErrorCode::InvalidArgument,
               "unknown compute bug '" + text +
                   "' (choose none, unwritten-output, merged-outputs or read-before-write)");
}

ComputeBugInjector::ComputeBugInjector(ComputeBug bug, DeviceAllocator* allocator,
                                       SimulatedDeviceBackend::DeviceElementwise inner)
    : bug_(bug), allocator_(allocator), inner_(std::move(inner)) {}

SimulatedDeviceBackend::DeviceElementwise ComputeBugInjector::hook() {
  return [this](SimulatedDeviceBackend::Op op, const Tensor& a, const Tensor& b, const Tensor& out,
                Device device) { return call(op, a, b, out, device); };
}

Error ComputeBugInjector::compute(SimulatedDeviceBackend::Op op, const Tensor& a, const Tensor& b,
                                  const Tensor& out) const {
  const Tensor* tensors[3] = {&a, &b, &out};
  const std::string names[3] = {"a", "b", "out"};
  return run_simulated_elementwise(op, "injected bug", allocator_, tensors, names,
                                   Span<const int32_t>(), &inner_);
}

std::optional<Error> ComputeBugInjector::call(SimulatedDeviceBackend::Op op, const Tensor& a,
                                              const Tensor& b, const Tensor& out, Device device) {
  switch (bug_) {
    case ComputeBug::None:
      return inner_ ? inner_(op, a, b, out, device) : std::nullopt;
    case ComputeBug::UnwrittenOutput:
      return Error::success();
    case ComputeBug::MergedOutputs: {
      if (!pending_output_ || pending_output_->nbytes != out.nbytes ||
          pending_output_->device != out.device) {
        pending_output_ = out;
        return compute(op, a, b, out);
      }
      const Tensor first = *pending_output_;
      pending_output_.reset();
      return compute(op, a, b, first);
    }
    case ComputeBug::ReadBeforeWrite: {
      std::vector<uint8_t> before(out.nbytes), after(out.nbytes);
      if (out.nbytes == 0) return compute(op, a, b, out);
      DEVPLAN_RETURN_IF_ERROR(
          allocator_->copy_device_to_host(before.data(), out.data, out.nbytes, device.index));
      DEVPLAN_RETURN_IF_ERROR(compute(op, a, b, out));
      DEVPLAN_RETURN_IF_ERROR(
          allocator_->copy_device_to_host(after.data(), out.data, out.nbytes, device.index));
      // A sum, not a XOR: two such calls in a row must not cancel out.
      for (size_t i = 0; i < after.size(); ++i)
        after[i] = static_cast<uint8_t>(after[i] + before[i]);
      return allocator_->copy_host_to_device(out.data, after.data(), out.nbytes, device.index);
    }
  }
  return std::nullopt;
}

}  // namespace devplan
