// Memory for PlanParser (plan_parser_impl.h): the method's planned buffers and their devices
// (non_const_buffer_sizes, non_const_buffer_device), and where each tensor's bytes live: its
// range of a planned buffer, its constant data, or its initial value, all range-checked.
#include <runtime_ext/program/plan_parser_impl.h>

namespace devplan::internal {
namespace {

namespace fb = devplan_flatbuffer;

// [start, start + n) within a region of `size` bytes, without overflow.
bool in_range(uint64_t start, uint64_t n, uint64_t size) {
  return start <= size && n <= size - start;
}

}  // namespace

Device PlanParser::read_device(int raw_type, int raw_index, const std::string& where, DeviceOf of) {
  // ExecuTorch stores both bytes unchecked (device.h casts them). A buffer's device decides
  // where Module allocates it; a tensor's is a tag its kernels and delegates read.
  const DeviceType type = static_cast<DeviceType>(raw_type);
  const DeviceIndex index = static_cast<DeviceIndex>(raw_index);
  const bool buffer = of == DeviceOf::Buffer;
  if (!is_known_device_type(raw_type)) {
    note(where + "unknown device type " + std::to_string(raw_type) +
         (buffer ? " (no allocator serves it: loading fails with NotFound, as in ExecuTorch)"
                 : " (kept as the tensor's tag, as ExecuTorch keeps it)"));
    return Device(type, index);
  }
  if (type == DeviceType::CPU && raw_index != 0) {
    note(where + "cpu index " + std::to_string(raw_index) + " read as cpu:0" +
         (buffer ? " (ExecuTorch keeps every CPU buffer in host memory)"
                 : " (host memory; ExecuTorch keeps the index in the tag only)"));
    return Device::cpu();
  }
  if (raw_index < 0) {
    note(where + "negative device index " + std::to_string(raw_index) +
         (buffer ? " (passed to the allocator as ExecuTorch passes it; its CUDA allocator reads "
                   "-1 as the current device)"
                 : " (kept as the tensor's tag, as ExecuTorch keeps it)"));
  }
  return Device(type, index);
}

Error PlanParser::parse_buffers() {
  const FbVector<int64_t>* sizes = plan_->non_const_buffer_sizes();
  if (!elements_aligned(sizes)) return invalid("non_const_buffer_sizes is misaligned");
  num_size_entries_ = size_of(sizes);
  for (size_t k = 1; k < num_size_entries_; ++k) {
    const int64_t size = sizes->Get(static_cast<flatbuffers::uoffset_t>(k));
    if (size < 0) {
      return invalid("non_const_buffer_sizes entry " + std::to_string(k) + " (buffer " +
                     std::to_string(k - 1) + "): negative size " + std::to_string(size));
    }
    out_.buffer_sizes.push_back(static_cast<uint64_t>(size));
  }
  out_.buffer_devices.assign(out_.buffer_sizes.size(), Device::cpu());
  return Error::success();
}

Error PlanParser::parse_buffer_devices() {
  const auto* entries = plan_->non_const_buffer_device();
  if (entries == nullptr) return Error::success();
  // ExecuTorch scans the list for the first entry naming a buffer and ignores the rest; entries
  // that name no buffer are never matched. devplan reads it the same way, once, and notes every
  // entry that has no effect. set_by: the entry that set each buffer's device, -1 when none.
  std::vector<int64_t> set_by(out_.buffer_sizes.size(), -1);
  for (flatbuffers::uoffset_t e = 0; e < entries->size(); ++e) {
    const fb::NonConstBufferDevice* entry = entries->Get(e);
    const std::string where = "non_const_buffer_device entry " + std::to_string(e) + ": ";
    if (entry == nullptr) return invalid(where + "missing");
    const int32_t idx = entry->buffer_idx();
    const std::string ignored = "buffer_idx " + std::to_string(idx);
    if (idx <= 0 || static_cast<size_t>(idx) >= num_size_entries_) {
      const std::string why = idx == 0  ? " is the reserved slot"
                              : idx < 0 ? " is negative"
                                        : " is past the last buffer (non_const_buffer_sizes has " +
                                              count(num_size_entries_, "entry", "entries") + ")";
      note(where + ignored + why + "; ignored, as ExecuTorch ignores it");
      continue;
    }
    const size_t buffer = static_cast<size_t>(idx) - 1;
    if (set_by[buffer] >= 0) {
      note(where + ignored + " repeats entry " + std::to_string(set_by[buffer]) +
           "; ignored, as ExecuTorch uses the first");
      continue;
    }
    set_by[buffer] = e;
    out_.buffer_devices[buffer] =
        read_device(static_cast<int>(entry->device_type()), static_cast<int>(entry->device_index()),
                    where, DeviceOf::Buffer);
  }
  return Error::success();
}

// Where the tensor's bytes live (its TensorStorage), and for planned tensors and tensors
// with data, their buffer range or data, range-checked.
Error PlanParser::parse_storage(const fb::Tensor& t, const fb::ExtraTensorInfo* extra,
                                const std::string& where, TensorInfo* out) {
  const uint32_t data_buffer_idx = t.data_buffer_idx();
  const fb::AllocationDetails* allocation = t.allocation_info();
  if (allocation == nullptr && extra != nullptr &&
      extra->location() == fb::TensorDataLocation::EXTERNAL) {
    out->storage = TensorStorage::External;
    return Error::success();
  }
  if (allocation == nullptr) {
    out->storage = data_buffer_idx > 0 ? TensorStorage::Constant : TensorStorage::RuntimeBound;
  } else {
    out->storage = data_buffer_idx > 0 ? TensorStorage::PlannedWithInitial : TensorStorage::Planned;
    DEVPLAN_RETURN_IF_ERROR(parse_allocation(*allocation, where, out));
  }
  if (out->storage == TensorStorage::Constant) {
    if (!out->device.is_cpu()) {
      note(where + "constant tagged " + out->device.to_string() +
           "; its data are the program's host bytes");
    }
    DEVPLAN_RETURN_IF_ERROR(find_constant(data_buffer_idx, where, out));
  } else if (out->storage == TensorStorage::PlannedWithInitial) {
    const uint64_t segments_idx = extra == nullptr ? 0 : extra->mutable_data_segments_idx();
    DEVPLAN_RETURN_IF_ERROR(find_initial_value(data_buffer_idx, segments_idx, where, out));
  }
  return Error::success();
}

Error PlanParser::parse_allocation(const fb::AllocationDetails& a, const std::string& where,
                                   TensorInfo* out) {
  const uint32_t memory_id = a.memory_id();
  const size_t num_buffers = out_.buffer_sizes.size();
  if (memory_id == 0) return invalid(where + "memory_id 0 is invalid (memory ids are 1-based)");
  if (memory_id > num_buffers) {
    return invalid(where + "memory_id " + std::to_string(memory_id) +
                   " is past the last buffer (the method has " +
                   count(num_buffers, "planned buffer") + ")");
  }
  out->buffer_index = memory_id - 1;
  out->offset = static_cast<uint64_t>(a.memory_offset_low()) |
                (static_cast<uint64_t>(a.memory_offset_high()) << 32);
  const uint64_t buffer_size = out_.buffer_sizes[out->buffer_index];
  const std::string buffer = "buffer " + std::to_string(out->buffer_index);
  if (!in_range(out->offset, out->nbytes, buffer_size)) {
    return invalid(where + std::to_string(out->nbytes) + " bytes at offset " +
                   std::to_string(out->offset) + " run past the end of " + buffer + " (" +
                   std::to_string(buffer_size) + " bytes)");
  }
  // The bytes live in the buffer, whatever the tensor's tag says: ExecuTorch checks nothing.
  // Legacy device programs plan device-tagged tensors in host buffers; any other disagreement
  // is noted.
  const Device buffer_device = out_.buffer_devices[out->buffer_index];
  if (out->device != buffer_device) {
    if (buffer_device.is_cpu()) {
      out->legacy_host = true;
    } else {
      out->other_buffer_device = buffer_device;
      note(where + "tagged " + out->device.to_string() + ", planned in " + buffer + " on " +
           buffer_device.to_string() + "; its bytes are the buffer's");
    }
  }
  return Error::success();
}

Error PlanParser::find_constant(uint32_t data_buffer_idx, const std::string& where,
                                TensorInfo* out) {
  const fb::Program* program = ctx_.program;
  const fb::SubsegmentOffsets* cs = program->constant_segment();
  const std::string idx = "constant data_buffer_idx " + std::to_string(data_buffer_idx);
  if (cs != nullptr && size_of(cs->offsets()) > 1) {
    const size_t n = cs->offsets()->size();
    if (data_buffer_idx >= n) {
      return invalid(where + idx + " is out of range (constant_segment has " + count(n, "offset") +
                     ")");
    }
    const uint64_t start = cs->offsets()->Get(data_buffer_idx);
    const Span<const uint8_t> segment = ctx_.segments[cs->segment_index()];
    if (!in_range(start, out->nbytes, segment.size())) {
      return invalid(where + "constant data (" + std::to_string(out->nbytes) + " bytes at offset " +
                     std::to_string(start) + ") runs past the end of segment " +
                     std::to_string(cs->segment_index()) + " (" + std::to_string(segment.size()) +
                     " bytes)");
    }
    out->data = Span<const uint8_t>(segment.data() + start, out->nbytes);
    return Error::success();
  }
  const auto* buffers = program->constant_buffer();
  const size_t n = size_of(buffers);
  if (data_buffer_idx >= n) {
    return invalid(where + idx + " is out of range (constant_buffer has " +
                   count(n, "entry", "entries") + ")");
  }
  const fb::Buffer* buffer = buffers->Get(data_buffer_idx);
  const auto* storage = buffer == nullptr ? nullptr : buffer->storage();
  const size_t held = size_of(storage);
  if (held < out->nbytes) {
    return invalid(where + "constant_buffer " + std::to_string(data_buffer_idx) + " holds " +
                   std::to_string(held) + " bytes, the tensor needs " +
                   std::to_string(out->nbytes));
  }
  out->data = Span<const uint8_t>(held == 0 ? nullptr : storage->data(), out->nbytes);
  return Error::success();
}

Error PlanParser::find_initial_value(uint32_t data_buffer_idx, uint64_t segments_idx,
                                     const std::string& where, TensorInfo* out) {
  const auto* mutable_segments = ctx_.program->mutable_data_segments();
  const size_t n = size_of(mutable_segments);
  if (segments_idx >= n) {
    return invalid(where + "mutable_data_segments_idx " + std::to_string(segments_idx) +
                   " is out of range (the program has " + count(n, "mutable data segment") + ")");
  }
  const fb::SubsegmentOffsets* entry =
      mutable_segments->Get(static_cast<flatbuffers::uoffset_t>(segments_idx));
  const std::string entry_name = "mutable_data_segments " + std::to_string(segments_idx);
  if (entry == nullptr) return invalid(where + entry_name + " is missing");
  const uint32_t segment_index = entry->segment_index();
  if (segment_index >= ctx_.segments.size()) {
    return invalid(where + entry_name + ": segment_index " + std::to_string(segment_index) +
                   " is out of range (the program has " + count(ctx_.segments.size(), "segment") +
                   ")");
  }
  const size_t num_offsets = size_of(entry->offsets());
  if (data_buffer_idx >= num_offsets) {
    return invalid(where + "data_buffer_idx " + std::to_string(data_buffer_idx) +
                   " is out of range (" + entry_name + " has " + count(num_offsets, "offset") +
                   ")");
  }
  if (!ctx_.has_segment_data) {
    return invalid(where + entry_name +
                   ": the file has no segment data (no extended header, or "
                   "a segment_base_offset of 0)");
  }
  // ExecuTorch reads the value at segment_base_offset + the segment's offset + `start`, checking
  // only that the bytes are in the file; bytes past the segment's own size are noted.
  const uint64_t start = entry->offsets()->Get(data_buffer_idx);
  const uint64_t segment_offset = ctx_.segment_offsets[segment_index];
  const Span<const uint8_t> file = ctx_.segment_data;
  const std::string value = "initial value (" + std::to_string(out->nbytes) + " bytes at offset " +
                            std::to_string(start) + " of segment " + std::to_string(segment_index) +
                            ")";
  if (start > UINT64_MAX - segment_offset ||
      !in_range(segment_offset + start, out->nbytes, file.size())) {
    return invalid(where + value + " runs past the end of the file (segment data from offset " +
                   std::to_string(ctx_.segment_base) + ", " + count(file.size(), "byte") + ")");
  }
  const Span<const uint8_t> segment = ctx_.segments[segment_index];
  if (!ctx_.segment_errors[segment_index].empty() ||
      !in_range(start, out->nbytes, segment.size())) {
    note(where + value +
         " runs past the end of the segment; read from the file's following "
         "bytes, as ExecuTorch reads them");
  }
  out->data = Span<const uint8_t>(file.data() + segment_offset + start, out->nbytes);
  return Error::success();
}

}  // namespace devplan::internal
