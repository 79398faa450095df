// check_devices (plan_check.h): the instructions that touch memory on the wrong device.
#include <runtime_ext/analysis/plan_check.h>

#include <cctype>
#include <optional>
#include <utility>

namespace devplan {
namespace {

// The device a delegate's `target_device` compile spec names ("cuda:0", "CUDA", "cuda"), or
// nullopt when it has none or it does not parse.
std::optional<Device> delegate_target(const DelegateInfo& delegate) {
  for (const CompileSpecInfo& spec : delegate.compile_specs) {
    if (spec.key != "target_device") continue;
    std::string text(spec.value.begin(), spec.value.end());
    for (char& c : text) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (text.find(':') == std::string::npos) text += ":0";
    Result<Device> device = parse_device(text);
    if (device.ok()) return *device;
  }
  return std::nullopt;
}

// The tensors an argument names: itself, or a tensor list's items.
std::vector<int32_t> tensors_of(const MethodPlan& plan, int32_t arg) {
  const ValueInfo& v = plan.values[arg];
  if (v.tag == ValueTag::Tensor) return {arg};
  std::vector<int32_t> out;
  if (v.tag == ValueTag::TensorList || v.tag == ValueTag::OptionalTensorList) {
    for (int32_t item : v.value_list) {
      if (item >= 0 && plan.values[item].tag == ValueTag::Tensor) out.push_back(item);
    }
  }
  return out;
}

}  // namespace

std::vector<DeviceViolation> check_devices(const MethodPlan& plan) {
  std::vector<DeviceViolation> found;
  std::vector<bool> io(plan.values.size(), false);
  for (int32_t v : plan.inputs) io[v] = true;
  for (int32_t v : plan.outputs) io[v] = true;
  int32_t step = -1;
  for (const ChainInfo& chain : plan.chains) {
    for (const InstructionInfo& ins : chain.instructions) {
      ++step;
      auto violation = [&](const std::string& what, int32_t value, const std::string& text) {
        DeviceViolation d;
        d.step = step;
        d.instruction = what;
        d.value = value;
        d.message = "instruction " + std::to_string(step) + " (" + what + "): " + text;
        found.push_back(std::move(d));
      };
      auto where = [&](int32_t v) { return plan.values[v].tensor.memory_device(); };
      if (ins.kind == InstructionKind::KernelCall) {
        const std::string op = plan.operators[ins.op_index].full_name();
        const bool h2d = op == "et_copy::_h2d_copy.out";
        const bool d2h = op == "et_copy::_d2h_copy.out";
        if (h2d || d2h) {
          if (ins.args.size() < 2 || plan.values[ins.args[0]].tag != ValueTag::Tensor ||
              plan.values[ins.args[1]].tag != ValueTag::Tensor) {
            continue;  // the loader rejects malformed copies
          }
          const int32_t self = ins.args[0], out = ins.args[1];
          const TensorInfo& a = plan.values[self].tensor;
          const TensorInfo& b = plan.values[out].tensor;
          if (h2d && !where(self).is_cpu()) {
            violation(op, self,
                      "self value " + std::to_string(self) + " is on " + where(self).to_string() +
                          ", a host-to-device copy reads host memory");
          }
          if (h2d && where(out).is_cpu()) {
            violation(op, out,
                      "out value " + std::to_string(out) +
                          " is on cpu:0, a host-to-device copy writes a device");
          }
          if (d2h && where(self).is_cpu()) {
            violation(op, self,
                      "self value " + std::to_string(self) +
                          " is on cpu:0, a device-to-host copy reads a device");
          }
          if (d2h && !where(out).is_cpu()) {
            violation(op, out,
                      "out value " + std::to_string(out) + " is on " + where(out).to_string() +
                          ", a device-to-host copy writes host memory");
          }
          if (a.dtype != b.dtype || a.nbytes != b.nbytes) {
            violation(op, out,
                      "self value " + std::to_string(self) + " is " + scalar_type_name(a.dtype) +
                          " (" + std::to_string(a.nbytes) + " B), out value " +
                          std::to_string(out) + " is " + scalar_type_name(b.dtype) + " (" +
                          std::to_string(b.nbytes) + " B)");
          }
          continue;
        }
        for (int32_t arg : ins.args) {
          for (int32_t t : tensors_of(plan, arg)) {
            if (!where(t).is_cpu()) {
              violation(op, t,
                        "value " + std::to_string(t) + " is on " + where(t).to_string() +
                            ", a host kernel touches only host memory (cpu:0)");
            }
          }
        }
      } else if (ins.kind == InstructionKind::DelegateCall) {
        const DelegateInfo& delegate = plan.delegates[ins.delegate_index];
        const std::optional<Device> target = delegate_target(delegate);
        if (!target) continue;
        const std::string what = "delegate " + delegate.id + " on " + target->to_string();
        for (int32_t arg : ins.args) {
          for (int32_t t : tensors_of(plan, arg)) {
            // The tag, but for a tensor whose tag disagrees with its device buffer (a parser
            // note): there the bytes decide.
            const TensorInfo& tensor = plan.values[t].tensor;
            const Device tag = tensor.other_buffer_device.value_or(tensor.device);
            if (tag == *target || (tag.is_cpu() && io[t])) continue;
            violation(what, t,
                      "value " + std::to_string(t) + " is on " + tag.to_string() +
                          ", the delegate's tensors live on " + target->to_string());
          }
        }
      }
    }
  }
  return found;
}

}  // namespace devplan
