#include <harness/scenario/corruption.h>

#include <algorithm>
#include <limits>

#include <harness/scenario/writer.h>
#include <runtime_ext/core/alignment.h>

namespace devplan {
namespace {

bool targets_buffer(CorruptionKind kind) {
  switch (kind) {
    case CorruptionKind::DuplicateDeviceEntry:
    case CorruptionKind::UnknownDeviceType:
    case CorruptionKind::NegativeDeviceIndex:
    case CorruptionKind::NegativeBufferSize:
      return true;
    default:
      return false;
  }
}

RawBufferDevice entry(int64_t buffer_idx, int type, int index) {
  RawBufferDevice e;
  e.buffer_idx = static_cast<int32_t>(std::clamp<int64_t>(buffer_idx, INT32_MIN, INT32_MAX));
  e.device_type = static_cast<int8_t>(type);
  e.device_index = static_cast<int8_t>(index);
  return e;
}

// The entries ProgramBuilder writes for `m`, leaving out buffer `skip` (or none: -1).
std::vector<RawBufferDevice> natural_entries(const MethodScenario& m, int64_t skip) {
  std::vector<RawBufferDevice> entries;
  for (size_t b = 0; b < m.buffers.size(); ++b) {
    const Device d = m.buffers[b].device;
    if (d.is_cpu() || static_cast<int64_t>(b) == skip) continue;
    entries.push_back(entry(static_cast<int64_t>(b) + 1, static_cast<int>(d.type), d.index));
  }
  return entries;
}

// A device other than `d`, chosen by `amount`.
Device other_device(Device d, uint32_t amount) {
  if (d.is_cpu()) return Device::cuda(static_cast<DeviceIndex>(amount % 4));
  if (amount % 2 == 0) return Device::cpu();
  return Device::cuda(static_cast<DeviceIndex>((d.index + 1 + amount / 2 % 4) % 128));
}

// The tensors planned in device buffers: the targets of TensorDeviceMismatch (a device tag on
// a tensor in a host buffer is a legacy program, which is valid).
std::vector<size_t> device_tensors(const MethodScenario& m) {
  std::vector<size_t> out;
  for (size_t t = 0; t < m.tensors.size(); ++t) {
    if (!m.tensor_device(t).is_cpu()) out.push_back(t);
  }
  return out;
}

// The tensor a corruption of `m` targets.
size_t target_tensor(const MethodScenario& m, const Corruption& c) {
  if (c.kind == CorruptionKind::TensorDeviceMismatch) {
    const std::vector<size_t> candidates = device_tensors(m);
    return candidates.empty() ? 0 : candidates[c.target % candidates.size()];
  }
  return m.tensors.empty() ? 0 : c.target % m.tensors.size();
}

}  // namespace

const char* corruption_kind_name(CorruptionKind kind) {
  switch (kind) {
    case CorruptionKind::DuplicateDeviceEntry:
      return "duplicate_device_entry";
    case CorruptionKind::BufferIdxZero:
      return "buffer_idx_zero";
    case CorruptionKind::BufferIdxNegative:
      return "buffer_idx_negative";
    case CorruptionKind::BufferIdxPastEnd:
      return "buffer_idx_past_end";
    case CorruptionKind::UnknownDeviceType:
      return "unknown_device_type";
    case CorruptionKind::NegativeDeviceIndex:
      return "negative_device_index";
    case CorruptionKind::TensorDeviceMismatch:
      return "tensor_device_mismatch";
    case CorruptionKind::OffsetPastEnd:
      return "offset_past_end";
    case CorruptionKind::MemoryIdZero:
      return "memory_id_zero";
    case CorruptionKind::MemoryIdPastEnd:
      return "memory_id_past_end";
    case CorruptionKind::NegativeBufferSize:
      return "negative_buffer_size";
  }
  return "unknown";
}

std::vector<CorruptionKind> all_corruption_kinds() {
  return {CorruptionKind::DuplicateDeviceEntry, CorruptionKind::BufferIdxZero,
          CorruptionKind::BufferIdxNegative,    CorruptionKind::BufferIdxPastEnd,
          CorruptionKind::UnknownDeviceType,    CorruptionKind::NegativeDeviceIndex,
          CorruptionKind::TensorDeviceMismatch, CorruptionKind::OffsetPastEnd,
          CorruptionKind::MemoryIdZero,         CorruptionKind::MemoryIdPastEnd,
          CorruptionKind::NegativeBufferSize};
}

bool corruption_is_refused(CorruptionKind kind) {
  switch (kind) {
    case CorruptionKind::OffsetPastEnd:
    case CorruptionKind::MemoryIdZero:
    case CorruptionKind::MemoryIdPastEnd:
    case CorruptionKind::NegativeBufferSize:
      return true;
    default:
      return false;
  }
}

bool corruption_targets_tensor(CorruptionKind kind) {
  switch (kind) {
    case CorruptionKind::TensorDeviceMismatch:
    case CorruptionKind::OffsetPastEnd:
    case CorruptionKind::MemoryIdZero:
    case CorruptionKind::MemoryIdPastEnd:
      return true;
    default:
      return false;
  }
}

bool corruption_applies(const ProgramScenario& scenario, const Corruption& c) {
  if (scenario.methods.empty()) return false;
  const MethodScenario& m = scenario.methods[c.method % scenario.methods.size()];
  if (c.kind == CorruptionKind::TensorDeviceMismatch) return !device_tensors(m).empty();
  if (corruption_targets_tensor(c.kind)) return !m.tensors.empty();
  if (targets_buffer(c.kind)) return !m.buffers.empty();
  return true;
}

std::string describe_corruption(const ProgramScenario& scenario, const Corruption& c) {
  std::string s = corruption_kind_name(c.kind);
  if (scenario.methods.empty()) return s;
  const MethodScenario& m = scenario.methods[c.method % scenario.methods.size()];
  s += " in method " + m.name;
  if (corruption_targets_tensor(c.kind) && !m.tensors.empty()) {
    s += ", tensor " + std::to_string(target_tensor(m, c));
  } else if (targets_buffer(c.kind) && !m.buffers.empty()) {
    s += ", buffer " + std::to_string(c.target % m.buffers.size());
  }
  return s + ", amount " + std::to_string(c.amount);
}

Result<std::vector<uint8_t>> build_corrupted_program(const ProgramScenario& scenario,
                                                     const Corruption& c) {
  if (!corruption_applies(scenario, c)) {
    return Error(ErrorCode::InvalidArgument,
                 "corruption " + describe_corruption(scenario, c) +
                     " does not apply: the method has no " +
                     (c.kind == CorruptionKind::TensorDeviceMismatch ? "tensors in device buffers"
                      : corruption_targets_tensor(c.kind)            ? "tensors"
                                                                     : "buffers"));
  }
  const size_t mi = c.method % scenario.methods.size();
  ProgramScenario s = scenario;
  MethodScenario& m = s.methods[mi];
  const size_t nb = m.buffers.size();
  const size_t b = nb == 0 ? 0 : c.target % nb;
  const size_t t = target_tensor(m, c);
  const int64_t amount = c.amount;
  constexpr int kCuda = static_cast<int>(DeviceType::CUDA);

  std::vector<TensorDeviceOverride> overrides;
  if (c.kind == CorruptionKind::TensorDeviceMismatch) {
    overrides.push_back({mi, t, other_device(m.tensor_device(t), c.amount)});
  }
  if (c.kind == CorruptionKind::OffsetPastEnd) {
    ScenarioTensor& x = m.tensors[t];
    const uint64_t size = m.buffers[x.buffer].size;
    const uint64_t last_fit = size - std::min(size, scenario_tensor_nbytes(x));
    uint64_t first_bad = 0;
    align_up(last_fit + 1, kDefaultAlignment, &first_bad);
    x.offset = first_bad + kDefaultAlignment * amount;
  }
  ProgramBuilder builder = make_scenario_program_builder(s, overrides);
  MethodBuilder& mb = builder.method(mi);
  switch (c.kind) {
    case CorruptionKind::DuplicateDeviceEntry: {
      std::vector<RawBufferDevice> entries = natural_entries(m, static_cast<int64_t>(b));
      const Device d = m.buffers[b].device.is_cpu() ? Device::cuda(0) : m.buffers[b].device;
      const RawBufferDevice dup =
          entry(static_cast<int64_t>(b) + 1, static_cast<int>(d.type), d.index);
      entries.push_back(dup);
      entries.push_back(dup);
      mb.set_raw_buffer_devices(std::move(entries));
      break;
    }
    case CorruptionKind::BufferIdxZero: {
      std::vector<RawBufferDevice> entries = natural_entries(m, -1);
      entries.push_back(entry(0, kCuda, 0));
      mb.set_raw_buffer_devices(std::move(entries));
      break;
    }
    case CorruptionKind::BufferIdxNegative: {
      std::vector<RawBufferDevice> entries = natural_entries(m, -1);
      entries.push_back(entry(-1 - amount, kCuda, 0));
      mb.set_raw_buffer_devices(std::move(entries));
      break;
    }
    case CorruptionKind::BufferIdxPastEnd: {
      std::vector<RawBufferDevice> entries = natural_entries(m, -1);
      entries.push_back(entry(static_cast<int64_t>(nb) + 1 + amount, kCuda, 0));
      mb.set_raw_buffer_devices(std::move(entries));
      break;
    }
    case CorruptionKind::UnknownDeviceType: {
      std::vector<RawBufferDevice> entries = natural_entries(m, static_cast<int64_t>(b));
      entries.push_back(entry(static_cast<int64_t>(b) + 1,
                              static_cast<int>(std::min<int64_t>(2 + amount, 127)), 0));
      mb.set_raw_buffer_devices(std::move(entries));
      break;
    }
    case CorruptionKind::NegativeDeviceIndex: {
      std::vector<RawBufferDevice> entries = natural_entries(m, static_cast<int64_t>(b));
      entries.push_back(entry(static_cast<int64_t>(b) + 1, kCuda,
                              static_cast<int>(std::max<int64_t>(-1 - amount, -128))));
      mb.set_raw_buffer_devices(std::move(entries));
      break;
    }
    case CorruptionKind::TensorDeviceMismatch:
    case CorruptionKind::OffsetPastEnd:
      break;  // written by the builder above
    case CorruptionKind::MemoryIdZero: {
      RawTensorFields fields;
      fields.memory_id = 0;
      mb.set_raw_tensor_fields(m.tensor_value_index(t), fields);
      break;
    }
    case CorruptionKind::MemoryIdPastEnd: {
      RawTensorFields fields;
      fields.memory_id = static_cast<uint32_t>(
          std::min<int64_t>(static_cast<int64_t>(nb) + 1 + amount, UINT32_MAX));
      mb.set_raw_tensor_fields(m.tensor_value_index(t), fields);
      break;
    }
    case CorruptionKind::NegativeBufferSize: {
      std::vector<int64_t> sizes = {0};
      for (const ScenarioBuffer& buffer : m.buffers)
        sizes.push_back(static_cast<int64_t>(buffer.size));
      sizes[b + 1] = -1 - amount;
      mb.set_raw_buffer_sizes(std::move(sizes));
      break;
    }
  }
  return builder.build();
}

}  // namespace devplan
