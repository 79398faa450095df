#include <harness/campaign/output_comparison.h>

#include <algorithm>

#include <harness/campaign/known_divergences.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {

std::string values_text(const std::vector<OutputValues>& outputs) {
  std::string text;
  for (const OutputValues& o : outputs) {
    Result<std::vector<std::string>> values = output_texts(o);
    if (!values.ok()) {
      text += "[" + values.error().message() + "]";
      continue;
    }
    text += "[";
    for (size_t i = 0; i < values->size(); ++i) text += (i ? ", " : "") + (*values)[i];
    text += "]";
  }
  return text;
}

// ExecuTorch's set_input refuses host data for a method input planned in device memory.
bool is_device_input_copy_error(const Error& e) {
  return error_mentions(e, ErrorCode::NotSupported,
                        "Planned-buffer copy needs host memory on both sides");
}

}  // namespace

bool same_output_values(const std::vector<OutputValues>& a, const std::vector<OutputValues>& b) {
  if (a.size() != b.size()) return false;
  for (size_t o = 0; o < a.size(); ++o) {
    Result<std::vector<std::string>> va = output_texts(a[o]);
    Result<std::vector<std::string>> vb = output_texts(b[o]);
    if (!va.ok() || !vb.ok() || va->size() != vb->size()) return false;
    const bool floating = a[o].tag == ValueTag::Double ||
                          (a[o].tag == ValueTag::Tensor && is_floating_dtype(a[o].dtype));
    for (size_t i = 0; i < va->size(); ++i) {
      const std::string& x = (*va)[i];
      const std::string& y = (*vb)[i];
      if (x != y && !(floating && is_nan_text(x) && is_nan_text(y))) return false;
    }
  }
  return true;
}

bool error_mentions(const Error& e, ErrorCode code, const char* text) {
  return e.code() == code && e.message().find(text) != std::string::npos;
}

std::optional<std::string> compare_method_outputs(const std::vector<MethodRun>& devplan,
                                                  const std::vector<MethodRun>& executorch,
                                                  const std::vector<std::string>* compared,
                                                  std::map<std::string, uint64_t>* known) {
  bool device_input = false;
  bool missing_kernel = false;
  for (size_t i = 0; i < devplan.size() && i < executorch.size(); ++i) {
    const MethodRun& a = devplan[i];
    const MethodRun& b = executorch[i];
    if (!a.outputs || !b.outputs) continue;
    const bool values_compared =
        compared == nullptr ||
        std::find(compared->begin(), compared->end(), a.name) != compared->end();
    if (a.outputs->ok() && !b.outputs->ok() && is_device_input_copy_error(b.outputs->error())) {
      device_input = true;
      continue;
    }
    if (!a.outputs->ok() && b.outputs->ok() &&
        error_mentions(a.outputs->error(), ErrorCode::OperatorMissing, "has no kernel")) {
      missing_kernel = true;
      continue;
    }
    if (a.outputs->ok() != b.outputs->ok()) {
      return "execute(" + a.name + "): devplan " +
             (a.outputs->ok() ? "ok" : a.outputs->error().to_string()) + "; executorch " +
             (b.outputs->ok() ? "ok" : b.outputs->error().to_string());
    }
    if (!a.outputs->ok() || !values_compared) continue;
    if (!same_output_values(**a.outputs, **b.outputs)) {
      return "execute(" + a.name + ") outputs: devplan " + values_text(**a.outputs) +
             "; executorch " + values_text(**b.outputs);
    }
  }
  if (device_input) ++(*known)[kDivergenceDevicePlannedInput];
  if (missing_kernel) ++(*known)[kDivergenceMissingKernel];
  return std::nullopt;
}

}  // namespace devplan::harness
