#include <harness/engine/executorch/executorch_errors.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <harness/engine/executorch/executorch_hooks.h>

namespace devplan::harness::executorch_engine {
namespace {

namespace et = ::executorch::runtime;

void add_once(std::vector<std::string>& names, const std::string& name) {
  if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
}

// The names the log puts between `before` and `after`, each once; text with a space between them
// is prose, not a name.
std::vector<std::string> logged_names(const std::string& log, const std::string& before,
                                      const std::string& after) {
  std::vector<std::string> names;
  for (size_t at = log.find(before); at != std::string::npos; at = log.find(before, at + 1)) {
    const size_t start = at + before.size();
    const size_t end = log.find(after, start);
    if (end == std::string::npos) break;
    const std::string name = log.substr(start, end - start);
    if (name.find(' ') == std::string::npos) add_once(names, name);
  }
  return names;
}

}  // namespace

Error from_et(et::Error e, const std::string& what, MissingCapability* missing) {
  std::string message = "ExecuTorch: " + what + " failed";
  const std::string log = executorch_bridge::take_error_log();
  std::vector<std::string> operators;
  const std::string marker = "Missing operator: [";
  for (size_t at = log.find(marker); at != std::string::npos; at = log.find(marker, at + 1)) {
    const size_t name = log.find("] ", at);
    if (name == std::string::npos) break;
    const size_t end = log.find(';', name);
    add_once(operators, log.substr(name + 2, end == std::string::npos ? end : end - name - 2));
  }
  for (size_t i = 0; i < operators.size(); ++i) {
    message += (i == 0 ? ": " : "; ") + ("operator " + operators[i] + " has no kernel");
  }
  if (!log.empty()) message += (operators.empty() ? ": " : "; ExecuTorch's log: ") + log;
  if (missing != nullptr) {
    *missing = MissingCapability();
    if (e == et::Error::OperatorMissing) {
      for (const std::string& op : operators) {
        if (op.find(' ') == std::string::npos) add_once(missing->kernels, op);
      }
    } else if (e == et::Error::NotFound) {
      // ExecuTorch's own line for a delegate nobody provides, and devplan's placeholder's.
      missing->backends = logged_names(log, "Backend ", " is not registered");
    }
  }
  return Error(static_cast<ErrorCode>(static_cast<uint32_t>(e)), message);
}

Device from_et(const et::etensor::Device& d) {
  return Device{static_cast<DeviceType>(d.type()), static_cast<DeviceIndex>(d.index())};
}

et::etensor::DeviceType to_et_device_type(const Device& d) {
  return static_cast<et::etensor::DeviceType>(d.type);
}

}  // namespace devplan::harness::executorch_engine
