#include <harness/services/poisoned_memory.h>

#include <algorithm>
#include <new>

#include <harness/engine/caller_memory.h>

namespace devplan::harness {
namespace {

constexpr size_t kHostAlignment = 64;

void fill_zeros(const std::vector<ZeroRange>& zeros, const BufferOutcome& b, uint8_t* bytes) {
  for (const ZeroRange& z : zeros) {
    if (z.buffer != b.index || z.offset >= b.size) continue;
    std::fill_n(bytes + z.offset, std::min(z.nbytes, b.size - z.offset), uint8_t{0});
  }
}

}  // namespace

std::vector<ZeroRange> unstated_state(const MethodPlan& plan, const MethodCheck& check,
                                      std::vector<std::string>* notes) {
  std::vector<ZeroRange> ranges;
  std::string values;
  for (size_t v = 0; v < plan.values.size(); ++v) {
    const ValueInfo& value = plan.values[v];
    if (v >= check.mutable_buffer.size() || !check.mutable_buffer[v] ||
        value.tag != ValueTag::Tensor || !value.tensor.is_planned() ||
        value.tensor.storage == TensorStorage::PlannedWithInitial) {
      continue;
    }
    ranges.push_back({value.tensor.buffer_index, value.tensor.offset, value.tensor.nbytes});
    values += (values.empty() ? "" : ", ") + std::to_string(v);
  }
  if (notes != nullptr && !values.empty()) {
    notes->push_back("mutable buffer" + std::string(ranges.size() > 1 ? "s" : "") + " (value" +
                     (ranges.size() > 1 ? "s " : " ") + values +
                     ") without an initial value in the program start as zeros in each "
                     "execution, as ExecuTorch's Module gives them");
  }
  return ranges;
}

Result<std::unique_ptr<PoisonedMemory>> PoisonedMemory::allocate(
    DeviceEnvironment& env, const std::vector<BufferOutcome>& buffers, const std::string& method,
    uint8_t pattern, uint64_t max_host, const std::vector<ZeroRange>& zeros) {
  auto memory = std::unique_ptr<PoisonedMemory>(new PoisonedMemory());
  uint64_t host_bytes = 0;
  for (const BufferOutcome& b : buffers) {
    memory->supplied.devices.push_back(b.device);
    if (b.size == 0) {
      memory->supplied.buffers.emplace_back();
      continue;
    }
    if (b.device.is_cpu()) {
      if (b.size > max_host - std::min(max_host, host_bytes)) {
        return Error(ErrorCode::MemoryAllocationFailed,
                     "method '" + method + "': host planned memory exceeds the limit of " +
                         std::to_string(max_host) + " bytes");
      }
      host_bytes += b.size;
      std::vector<uint8_t>* added = nullptr;
      try {
        added = &memory->host_.emplace_back(b.size + kHostAlignment, pattern);
      } catch (const std::bad_alloc&) {
        return Error(ErrorCode::MemoryAllocationFailed,
                     "method '" + method + "': no host memory for buffer " +
                         std::to_string(b.index) + " (" + std::to_string(b.size) + " bytes)");
      }
      std::vector<uint8_t>& host = *added;
      const uintptr_t at = reinterpret_cast<uintptr_t>(host.data());
      uint8_t* aligned = host.data() + (kHostAlignment - at % kHostAlignment) % kHostAlignment;
      fill_zeros(zeros, b, aligned);
      memory->supplied.buffers.emplace_back(aligned, b.size);
      continue;
    }
    DEVPLAN_ASSIGN_OR_RETURN(DeviceMemoryBuffer device,
                             allocate_caller_memory(env.allocators(), b.size, b.device,
                                                    method + "/buffer " + std::to_string(b.index)));
    std::vector<uint8_t> fill(b.size, pattern);
    fill_zeros(zeros, b, fill.data());
    DEVPLAN_RETURN_IF_ERROR(fill_caller_memory(device, fill.data(), fill.size()));
    memory->supplied.buffers.emplace_back(static_cast<uint8_t*>(device.data()), b.size);
    memory->device_.push_back(std::move(device));
  }
  memory->supplied.caller_output_fill = pattern;
  return memory;
}

}  // namespace devplan::harness
