#include <mocks/host_access_fault_report.h>

#include <unistd.h>

#include <atomic>
#include <string>

namespace devplan {
namespace {

std::atomic<const TrackingDeviceAllocator*> g_allocator{nullptr};
struct sigaction g_previous {};

void write_all(const std::string& text) {
  size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// Runs on the faulting thread. It formats with std::string (not async-signal-safe): acceptable
// for a report printed on the way to a crash, and the lookup never blocks (see
// TrackingDeviceAllocator::describe_unbacked_address).
void on_fault(int signal, siginfo_t* info, void* /*context*/) {
  const TrackingDeviceAllocator* allocator = g_allocator.exchange(nullptr);
  if (allocator != nullptr && info != nullptr) {
    const std::string block = allocator->describe_unbacked_address(info->si_addr);
    if (!block.empty()) {
      write_all("devplan: host access to unbacked device memory at " + block +
                "; device memory is reachable only through the allocator's copies (--backing "
                "host lets host accesses through)\n");
    }
  }
  // The faulting access runs again on return and meets the previous action.
  ::sigaction(signal, &g_previous, nullptr);
}

}  // namespace

ScopedHostAccessFaultReport::ScopedHostAccessFaultReport(const TrackingDeviceAllocator* allocator) {
  const TrackingDeviceAllocator* none = nullptr;
  if (allocator == nullptr || !g_allocator.compare_exchange_strong(none, allocator)) return;
  struct sigaction action {};
  action.sa_sigaction = &on_fault;
  action.sa_flags = SA_SIGINFO | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  if (::sigaction(SIGSEGV, &action, &previous_) != 0) {
    g_allocator.store(nullptr);
    return;
  }
  g_previous = previous_;
  installed_ = true;
}

ScopedHostAccessFaultReport::~ScopedHostAccessFaultReport() {
  if (!installed_) return;
  ::sigaction(SIGSEGV, &previous_, nullptr);
  g_allocator.store(nullptr);
}

}  // namespace devplan
