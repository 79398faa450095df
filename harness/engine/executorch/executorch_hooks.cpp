#include <harness/engine/executorch/executorch_hooks.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace devplan::harness::executorch_bridge {
namespace {

std::atomic<DeviceAllocator*> g_target{nullptr};
std::atomic<const SimulatedDeviceBackend::DeviceElementwise*> g_on_device{nullptr};
std::mutex g_log_mutex;
std::vector<std::string> g_error_log;  // each distinct line once, in order

}  // namespace

DeviceAllocator* current_target() { return g_target.load(); }

DeviceAllocator* exchange_target(DeviceAllocator* target) { return g_target.exchange(target); }

const SimulatedDeviceBackend::DeviceElementwise* current_device_elementwise() {
  return g_on_device.load();
}

const SimulatedDeviceBackend::DeviceElementwise* exchange_device_elementwise(
    const SimulatedDeviceBackend::DeviceElementwise* on_device) {
  return g_on_device.exchange(on_device);
}

void record_error(const std::string& line) {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  // ExecuTorch logs a missing kernel at every instruction that names it: once says it.
  if (std::find(g_error_log.begin(), g_error_log.end(), line) == g_error_log.end()) {
    g_error_log.push_back(line);
  }
}

std::string take_error_log() {
  std::lock_guard<std::mutex> lock(g_log_mutex);
  std::string out;
  for (const std::string& line : g_error_log) out += (out.empty() ? "" : "; ") + line;
  g_error_log.clear();
  return out;
}

}  // namespace devplan::harness::executorch_bridge
