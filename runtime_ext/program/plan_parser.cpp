#include <runtime_ext/program/plan_parser.h>

#include <utility>

namespace devplan {
namespace internal {
namespace {

namespace fb = devplan_flatbuffer;

template <typename T>
using FbVector = flatbuffers::Vector<T>;

// "1 value" / "3 values"; "1 entry" / "2 entries" with an explicit plural.
std::string count(size_t n, const std::string& singular, const std::string& plural = "") {
  if (n == 1) return "1 " + singular;
  return std::to_string(n) + " " + (plural.empty() ? singular + "s" : plural);
}

std::string join(const std::vector<int32_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(v[i]);
  }
  return s + "]";
}

std::string join(const std::vector<uint8_t>& v) {
  std::string s = "[";
  for (size_t i = 0; i < v.size(); ++i) {
    if (i) s += ", ";
    s += std::to_string(static_cast<int>(v[i]));
  }
  return s + "]";
}

template <typename T>
size_t size_of(const FbVector<T>* v) {
  return v == nullptr ? 0 : v->size();
}

// Checks a device read from the file (raw type and index) and returns it.
Result<Device> read_device(int raw_type, int raw_index) {
  if (!is_known_device_type(raw_type)) {
    return Error(ErrorCode::InvalidProgram, "unknown device type " + std::to_string(raw_type));
  }
  if (raw_index < 0) {
    return Error(ErrorCode::InvalidProgram, "negative device index " + std::to_string(raw_index));
  }
  const DeviceType type = static_cast<DeviceType>(raw_type);
  if (type == DeviceType::CPU && raw_index != 0) {
    return Error(ErrorCode::InvalidProgram,
                 "cpu device index must be 0, got " + std::to_string(raw_index));
  }
  return Device(type, static_cast<DeviceIndex>(raw_index));
}

// [start, start + n) within a region of `size` bytes, without overflow.
bool in_range(uint64_t start, uint64_t n, uint64_t size) {
  return start <= size && n <= size - start;
}

class PlanParser {
 public:
  PlanParser(const ProgramContext& context, const fb::ExecutionPlan* plan, size_t index)
      : ctx_(context), plan_(plan), label_(method_label(plan, index)) {}

  Result<MethodPlan> parse() {
    if (plan_->name() == nullptr) return invalid("has no name");
    out_.name = plan_->name()->str();
    DEVPLAN_RETURN_IF_ERROR(parse_buffers());
    DEVPLAN_RETURN_IF_ERROR(parse_buffer_devices());
    DEVPLAN_RETURN_IF_ERROR(parse_values());
    DEVPLAN_RETURN_IF_ERROR(parse_value_indices("input", plan_->inputs(), &out_.inputs));
    DEVPLAN_RETURN_IF_ERROR(parse_value_indices("output", plan_->outputs(), &out_.outputs));
    DEVPLAN_RETURN_IF_ERROR(parse_operators());
    DEVPLAN_RETURN_IF_ERROR(parse_delegates());
    DEVPLAN_RETURN_IF_ERROR(parse_chains());
    return std::move(out_);
  }

 private:
  Error invalid(const std::string& message) const {
    return Error(ErrorCode::InvalidProgram, label_ + ": " + message);
  }

  // "value index 9 is out of range (6 values)" or "".
  std::string check_value_index(int64_t index) const {
    if (index < 0 || static_cast<uint64_t>(index) >= num_values_) {
      return "value index " + std::to_string(index) + " is out of range (" +
             count(num_values_, "value") + ")";
    }
    return "";
  }

  // ---- planned buffers ----------------------------------------------------------------------

  Error parse_buffers() {
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

  Error parse_buffer_devices() {
    const auto* entries = plan_->non_const_buffer_device();
    if (entries == nullptr) return Error::success();
    // Which entry set each buffer's device; -1 when none has.
    std::vector<int64_t> set_by(out_.buffer_sizes.size(), -1);
    for (flatbuffers::uoffset_t e = 0; e < entries->size(); ++e) {
      const fb::NonConstBufferDevice* entry = entries->Get(e);
      const std::string where = "non_const_buffer_device entry " + std::to_string(e) + ": ";
      if (entry == nullptr) return invalid(where + "missing");
      const int32_t idx = entry->buffer_idx();
      if (idx == 0) return invalid(where + "buffer_idx 0 is reserved");
      if (idx < 0) return invalid(where + "buffer_idx " + std::to_string(idx) + " is negative");
      if (static_cast<size_t>(idx) >= num_size_entries_) {
        return invalid(where + "buffer_idx " + std::to_string(idx) +
                       " is past the last buffer (non_const_buffer_sizes has " +
                       count(num_size_entries_, "entry", "entries") + ")");
      }
      Result<Device> device = read_device(static_cast<int>(entry->device_type()),
                                          static_cast<int>(entry->device_index()));
      if (!device.ok()) return invalid(where + device.error().message());
      const size_t buffer = static_cast<size_t>(idx) - 1;
      if (set_by[buffer] >= 0) {
        return invalid(where + "buffer_idx " + std::to_string(idx) +
                       " already has a device (entry " + std::to_string(set_by[buffer]) + ")");
      }
      set_by[buffer] = e;
      out_.buffer_devices[buffer] = *device;
    }
    return Error::success();
  }

  // ---- values -------------------------------------------------------------------------------

  Error parse_values() {
    const auto* values = plan_->values();
    num_values_ = size_of(values);
    out_.values.resize(num_values_);
    for (size_t i = 0; i < num_values_; ++i) {
      const fb::EValue* ev = values->Get(static_cast<flatbuffers::uoffset_t>(i));
      const std::string where = "value " + std::to_string(i) + ": ";
      if (ev == nullptr) return invalid(where + "missing");
      DEVPLAN_RETURN_IF_ERROR(parse_value(*ev, where, &out_.values[i]));
    }
    // List items may name later values, so they are checked once all values are known.
    for (size_t i = 0; i < num_values_; ++i) {
      DEVPLAN_RETURN_IF_ERROR(check_list_items(i));
    }
    return Error::success();
  }

  Error missing_table(const std::string& where, ValueTag tag) const {
    return invalid(where + value_tag_name(tag) + " value has no table");
  }

  Error parse_value(const fb::EValue& ev, const std::string& where, ValueInfo* out) {
    const int raw_type = static_cast<int>(ev.val_type());
    if (raw_type < 0 || raw_type > static_cast<int>(ValueTag::OptionalTensorList)) {
      return invalid(where + "unknown value type " + std::to_string(raw_type));
    }
    // ValueTag has the numbering of the file's KernelTypes union.
    out->tag = static_cast<ValueTag>(raw_type);
    switch (out->tag) {
      case ValueTag::None:
      case ValueTag::Null:
        return Error::success();
      case ValueTag::Int: {
        const fb::Int* v = ev.val_as_Int();
        if (v == nullptr) return missing_table(where, out->tag);
        out->int_value = v->int_val();
        return Error::success();
      }
      case ValueTag::Bool: {
        const fb::Bool* v = ev.val_as_Bool();
        if (v == nullptr) return missing_table(where, out->tag);
        out->bool_value = v->bool_val();
        return Error::success();
      }
      case ValueTag::Double: {
        const fb::Double* v = ev.val_as_Double();
        if (v == nullptr) return missing_table(where, out->tag);
        out->double_value = v->double_val();
        return Error::success();
      }
      case ValueTag::String: {
        const fb::String* v = ev.val_as_String();
        if (v == nullptr) return missing_table(where, out->tag);
        if (v->string_val() != nullptr) out->string_value = v->string_val()->str();
        return Error::success();
      }
      case ValueTag::IntList: {
        const fb::IntList* v = ev.val_as_IntList();
        if (v == nullptr) return missing_table(where, out->tag);
        if (!elements_aligned(v->items())) return invalid(where + "IntList items are misaligned");
        if (v->items() != nullptr) out->int_list.assign(v->items()->begin(), v->items()->end());
        return Error::success();
      }
      case ValueTag::DoubleList: {
        const fb::DoubleList* v = ev.val_as_DoubleList();
        if (v == nullptr) return missing_table(where, out->tag);
        if (!elements_aligned(v->items())) {
          return invalid(where + "DoubleList items are misaligned");
        }
        if (v->items() != nullptr) {
          out->double_list.assign(v->items()->begin(), v->items()->end());
        }
        return Error::success();
      }
      case ValueTag::BoolList: {
        const fb::BoolList* v = ev.val_as_BoolList();
        if (v == nullptr) return missing_table(where, out->tag);
        if (v->items() != nullptr) {
          for (uint8_t b : *v->items()) out->bool_list.push_back(b != 0);
        }
        return Error::success();
      }
      case ValueTag::TensorList: {
        const fb::TensorList* v = ev.val_as_TensorList();
        if (v == nullptr) return missing_table(where, out->tag);
        if (v->items() != nullptr) {
          out->value_list.assign(v->items()->begin(), v->items()->end());
        }
        return Error::success();
      }
      case ValueTag::OptionalTensorList: {
        const fb::OptionalTensorList* v = ev.val_as_OptionalTensorList();
        if (v == nullptr) return missing_table(where, out->tag);
        if (v->items() != nullptr) {
          out->value_list.assign(v->items()->begin(), v->items()->end());
        }
        return Error::success();
      }
      case ValueTag::Tensor: {
        const fb::Tensor* t = ev.val_as_Tensor();
        if (t == nullptr) return missing_table(where, out->tag);
        return parse_tensor(*t, where, &out->tensor);
      }
    }
    return invalid(where + "unknown value type " + std::to_string(raw_type));
  }

  Error check_list_items(size_t index) const {
    const ValueInfo& value = out_.values[index];
    if (value.tag != ValueTag::TensorList && value.tag != ValueTag::OptionalTensorList) {
      return Error::success();
    }
    const bool optional = value.tag == ValueTag::OptionalTensorList;
    for (size_t k = 0; k < value.value_list.size(); ++k) {
      const std::string where = "value " + std::to_string(index) + ": " +
                                value_tag_name(value.tag) + " item " + std::to_string(k) + ": ";
      const int32_t item = value.value_list[k];
      const std::string range = check_value_index(item);
      if (!range.empty()) return invalid(where + range);
      const ValueTag tag = out_.values[item].tag;
      if (tag == ValueTag::Tensor || (optional && tag == ValueTag::Null)) continue;
      return invalid(where + "value " + std::to_string(item) + " is " + value_tag_name(tag) +
                     (optional ? ", not a Tensor or Null" : ", not a Tensor"));
    }
    return Error::success();
  }

  Error parse_tensor(const fb::Tensor& t, const std::string& where, TensorInfo* out) {
    const int raw_dtype = static_cast<int>(t.scalar_type());
    out->dtype = static_cast<ScalarType>(raw_dtype);
    const size_t element = element_size(out->dtype);
    if (element == 0) return invalid(where + "unknown scalar type " + std::to_string(raw_dtype));

    if (t.sizes() == nullptr) return invalid(where + "tensor has no sizes");
    out->sizes.assign(t.sizes()->begin(), t.sizes()->end());
    uint64_t nbytes = element;
    for (size_t d = 0; d < out->sizes.size(); ++d) {
      const int32_t size = out->sizes[d];
      if (size < 0) {
        return invalid(where + "negative size " + std::to_string(size) + " in dimension " +
                       std::to_string(d));
      }
      if (__builtin_mul_overflow(nbytes, static_cast<uint64_t>(size), &nbytes)) {
        return invalid(where + "tensor byte size overflows (sizes " + join(out->sizes) + ")");
      }
    }
    out->nbytes = nbytes;

    if (t.dim_order() != nullptr)
      out->dim_order.assign(t.dim_order()->begin(), t.dim_order()->end());
    if (!out->dim_order.empty()) {
      if (out->dim_order.size() != out->sizes.size()) {
        return invalid(where + "dim_order " + join(out->dim_order) + " has " +
                       count(out->dim_order.size(), "entry", "entries") + ", sizes has " +
                       std::to_string(out->sizes.size()));
      }
      std::vector<bool> seen(out->dim_order.size(), false);
      for (uint8_t d : out->dim_order) {
        if (d >= seen.size() || seen[d]) {
          return invalid(where + "dim_order " + join(out->dim_order) +
                         " is not a permutation of the " + std::to_string(seen.size()) +
                         " dimensions");
        }
        seen[d] = true;
      }
    }

    const int raw_dynamism = static_cast<int>(t.shape_dynamism());
    if (raw_dynamism < 0 || raw_dynamism > static_cast<int>(TensorShapeDynamism::DynamicUnbound)) {
      return invalid(where + "unknown shape dynamism " + std::to_string(raw_dynamism));
    }
    out->dynamism = static_cast<TensorShapeDynamism>(raw_dynamism);

    const fb::ExtraTensorInfo* extra = t.extra_tensor_info();
    if (extra != nullptr) {
      Result<Device> device = read_device(static_cast<int>(extra->device_type()),
                                          static_cast<int>(extra->device_index()));
      if (!device.ok()) return invalid(where + device.error().message());
      out->device = *device;
      if (extra->fully_qualified_name() != nullptr) {
        out->fully_qualified_name = extra->fully_qualified_name()->str();
      }
    }

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
      out->storage =
          data_buffer_idx > 0 ? TensorStorage::PlannedWithInitial : TensorStorage::Planned;
      DEVPLAN_RETURN_IF_ERROR(parse_allocation(*allocation, where, out));
    }
    if (out->storage == TensorStorage::Constant) {
      DEVPLAN_RETURN_IF_ERROR(find_constant(data_buffer_idx, where, out));
    } else if (out->storage == TensorStorage::PlannedWithInitial) {
      const uint64_t segments_idx = extra == nullptr ? 0 : extra->mutable_data_segments_idx();
      DEVPLAN_RETURN_IF_ERROR(find_initial_value(data_buffer_idx, segments_idx, where, out));
    }
    return Error::success();
  }

  Error parse_allocation(const fb::AllocationDetails& a, const std::string& where,
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
    const Device buffer_device = out_.buffer_devices[out->buffer_index];
    if (out->device != buffer_device) {
      // Legacy device programs put device-tagged tensors in host buffers; ExecuTorch loads them
      // as host memory, and so does devplan. The other way round is invalid.
      if (buffer_device == Device::cpu()) {
        out->legacy_host = true;
        return Error::success();
      }
      return invalid(where + "tensor on " + out->device.to_string() + " planned in " + buffer +
                     " on " + buffer_device.to_string());
    }
    return Error::success();
  }

  Error find_constant(uint32_t data_buffer_idx, const std::string& where, TensorInfo* out) {
    const fb::Program* program = ctx_.program;
    const fb::SubsegmentOffsets* cs = program->constant_segment();
    const std::string idx = "constant data_buffer_idx " + std::to_string(data_buffer_idx);
    if (cs != nullptr && size_of(cs->offsets()) > 1) {
      const size_t n = cs->offsets()->size();
      if (data_buffer_idx >= n) {
        return invalid(where + idx + " is out of range (constant_segment has " +
                       count(n, "offset") + ")");
      }
      const uint64_t start = cs->offsets()->Get(data_buffer_idx);
      const Span<const uint8_t> segment = ctx_.segments[cs->segment_index()];
      if (!in_range(start, out->nbytes, segment.size())) {
        return invalid(where + "constant data (" + std::to_string(out->nbytes) +
                       " bytes at offset " + std::to_string(start) +
                       ") runs past the end of segment " + std::to_string(cs->segment_index()) +
                       " (" + std::to_string(segment.size()) + " bytes)");
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

  Error find_initial_value(uint32_t data_buffer_idx, uint64_t segments_idx,
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
    const uint64_t start = entry->offsets()->Get(data_buffer_idx);
    const Span<const uint8_t> segment = ctx_.segments[segment_index];
    if (!in_range(start, out->nbytes, segment.size())) {
      return invalid(where + "initial value (" + std::to_string(out->nbytes) + " bytes at offset " +
                     std::to_string(start) + ") runs past the end of segment " +
                     std::to_string(segment_index) + " (" + std::to_string(segment.size()) +
                     " bytes)");
    }
    out->data = Span<const uint8_t>(segment.data() + start, out->nbytes);
    return Error::success();
  }

  // ---- inputs, outputs, operators, delegates ------------------------------------------------

  Error parse_value_indices(const char* what, const FbVector<int32_t>* list,
                            std::vector<int32_t>* out) {
    if (list == nullptr) return Error::success();
    for (flatbuffers::uoffset_t k = 0; k < list->size(); ++k) {
      const int32_t index = list->Get(k);
      const std::string range = check_value_index(index);
      if (!range.empty())
        return invalid(std::string(what) + " " + std::to_string(k) + ": " + range);
      out->push_back(index);
    }
    return Error::success();
  }

  Error parse_operators() {
    const auto* ops = plan_->operators();
    for (size_t k = 0; k < size_of(ops); ++k) {
      const fb::Operator* op = ops->Get(static_cast<flatbuffers::uoffset_t>(k));
      const std::string where = "operator " + std::to_string(k) + ": ";
      if (op == nullptr) return invalid(where + "missing");
      if (op->name() == nullptr) return invalid(where + "has no name");
      OperatorInfo info;
      info.name = op->name()->str();
      if (op->overload() != nullptr) info.overload = op->overload()->str();
      out_.operators.push_back(std::move(info));
    }
    return Error::success();
  }

  Error parse_delegates() {
    const auto* delegates = plan_->delegates();
    for (size_t k = 0; k < size_of(delegates); ++k) {
      const fb::BackendDelegate* d = delegates->Get(static_cast<flatbuffers::uoffset_t>(k));
      const std::string where = "delegate " + std::to_string(k) + ": ";
      if (d == nullptr) return invalid(where + "missing");
      if (d->id() == nullptr) return invalid(where + "has no backend id");
      DelegateInfo info;
      info.id = d->id()->str();
      const fb::BackendDelegateDataReference* ref = d->processed();
      if (ref == nullptr) return invalid(where + "has no processed data reference");
      const int location = static_cast<int>(ref->location());
      const uint32_t index = ref->index();
      if (location == static_cast<int>(fb::DataLocation::INLINE)) {
        const auto* inline_data = ctx_.program->backend_delegate_data();
        const size_t n = size_of(inline_data);
        if (index >= n) {
          return invalid(where + "inline data index " + std::to_string(index) +
                         " is out of range (the program has " +
                         count(n, "backend_delegate_data entry", "backend_delegate_data entries") +
                         ")");
        }
        const fb::BackendDelegateInlineData* data = inline_data->Get(index);
        const auto* bytes = data == nullptr ? nullptr : data->data();
        if (bytes != nullptr) info.processed = Span<const uint8_t>(bytes->data(), bytes->size());
      } else if (location == static_cast<int>(fb::DataLocation::SEGMENT)) {
        if (index >= ctx_.segments.size()) {
          return invalid(where + "segment index " + std::to_string(index) +
                         " is out of range (the program has " +
                         count(ctx_.segments.size(), "segment") + ")");
        }
        info.processed = ctx_.segments[index];
      } else {
        return invalid(where + "unknown data location " + std::to_string(location));
      }
      const auto* specs = d->compile_specs();
      for (size_t s = 0; s < size_of(specs); ++s) {
        const fb::CompileSpec* spec = specs->Get(static_cast<flatbuffers::uoffset_t>(s));
        if (spec == nullptr) {
          return invalid(where + "compile spec " + std::to_string(s) + " is missing");
        }
        CompileSpecInfo cs;
        if (spec->key() != nullptr) cs.key = spec->key()->str();
        if (spec->value() != nullptr) {
          cs.value = Span<const uint8_t>(spec->value()->data(), spec->value()->size());
        }
        info.compile_specs.push_back(std::move(cs));
      }
      out_.delegates.push_back(std::move(info));
    }
    return Error::success();
  }

  // ---- chains and instructions --------------------------------------------------------------

  Error parse_chains() {
    const auto* chains = plan_->chains();
    // As ExecuTorch's Method::init: a method has at least one chain (its exporter always
    // writes one, empty when there is nothing to run).
    if (size_of(chains) == 0) return invalid("no chains (a method needs at least one)");
    for (size_t c = 0; c < size_of(chains); ++c) {
      const fb::Chain* chain = chains->Get(static_cast<flatbuffers::uoffset_t>(c));
      const std::string where = "chain " + std::to_string(c);
      if (chain == nullptr) return invalid(where + ": missing");
      ChainInfo info;
      DEVPLAN_RETURN_IF_ERROR(
          parse_value_indices((where + ": input").c_str(), chain->inputs(), &info.inputs));
      DEVPLAN_RETURN_IF_ERROR(
          parse_value_indices((where + ": output").c_str(), chain->outputs(), &info.outputs));
      const auto* instructions = chain->instructions();
      const size_t n = size_of(instructions);
      for (size_t i = 0; i < n; ++i) {
        const fb::Instruction* instruction =
            instructions->Get(static_cast<flatbuffers::uoffset_t>(i));
        const std::string iw = where + ", instruction " + std::to_string(i) + ": ";
        if (instruction == nullptr) return invalid(iw + "missing");
        InstructionInfo ins;
        DEVPLAN_RETURN_IF_ERROR(parse_instruction(*instruction, n, iw, &ins));
        info.instructions.push_back(std::move(ins));
      }
      out_.chains.push_back(std::move(info));
    }
    return Error::success();
  }

  Error check_value_arg(const std::string& where, const char* field, int32_t index) const {
    const std::string range = check_value_index(index);
    if (!range.empty()) return invalid(where + field + ": " + range);
    return Error::success();
  }

  Error parse_args(const FbVector<int32_t>* args, const std::string& where, InstructionInfo* out) {
    if (args == nullptr) return Error::success();
    for (flatbuffers::uoffset_t k = 0; k < args->size(); ++k) {
      const int32_t index = args->Get(k);
      const std::string range = check_value_index(index);
      if (!range.empty()) return invalid(where + "argument " + std::to_string(k) + ": " + range);
      out->args.push_back(index);
    }
    return Error::success();
  }

  Error parse_instruction(const fb::Instruction& instruction, size_t chain_size,
                          const std::string& where, InstructionInfo* out) {
    using IA = fb::InstructionArguments;
    const IA type = instruction.instr_args_type();
    switch (type) {
      case IA::NONE:
        return invalid(where + "has no arguments (instruction type NONE)");
      case IA::KernelCall: {
        out->kind = InstructionKind::KernelCall;
        const fb::KernelCall* call = instruction.instr_args_as_KernelCall();
        if (call == nullptr) return invalid(where + "KernelCall has no table");
        out->op_index = call->op_index();
        if (out->op_index < 0 || static_cast<size_t>(out->op_index) >= out_.operators.size()) {
          return invalid(where + "op_index " + std::to_string(out->op_index) +
                         " is out of range (" + count(out_.operators.size(), "operator") + ")");
        }
        return parse_args(call->args(), where, out);
      }
      case IA::DelegateCall: {
        out->kind = InstructionKind::DelegateCall;
        const fb::DelegateCall* call = instruction.instr_args_as_DelegateCall();
        if (call == nullptr) return invalid(where + "DelegateCall has no table");
        out->delegate_index = call->delegate_index();
        if (out->delegate_index < 0 ||
            static_cast<size_t>(out->delegate_index) >= out_.delegates.size()) {
          return invalid(where + "delegate_index " + std::to_string(out->delegate_index) +
                         " is out of range (" + count(out_.delegates.size(), "delegate") + ")");
        }
        return parse_args(call->args(), where, out);
      }
      case IA::MoveCall: {
        out->kind = InstructionKind::Move;
        const fb::MoveCall* call = instruction.instr_args_as_MoveCall();
        if (call == nullptr) return invalid(where + "MoveCall has no table");
        out->move_from = call->move_from();
        out->move_to = call->move_to();
        DEVPLAN_RETURN_IF_ERROR(check_value_arg(where, "move_from", out->move_from));
        return check_value_arg(where, "move_to", out->move_to);
      }
      case IA::JumpFalseCall: {
        out->kind = InstructionKind::JumpFalse;
        const fb::JumpFalseCall* call = instruction.instr_args_as_JumpFalseCall();
        if (call == nullptr) return invalid(where + "JumpFalseCall has no table");
        out->cond_value = call->cond_value_index();
        out->destination = call->destination_instruction();
        DEVPLAN_RETURN_IF_ERROR(check_value_arg(where, "cond_value_index", out->cond_value));
        const ValueTag tag = out_.values[out->cond_value].tag;
        if (tag != ValueTag::Bool) {
          return invalid(where + "cond_value_index: value " + std::to_string(out->cond_value) +
                         " is " + value_tag_name(tag) + ", not a Bool");
        }
        if (out->destination < 0 || static_cast<size_t>(out->destination) >= chain_size) {
          return invalid(where + "destination_instruction " + std::to_string(out->destination) +
                         " is out of range (the chain has " + count(chain_size, "instruction") +
                         ")");
        }
        return Error::success();
      }
      case IA::FreeCall: {
        out->kind = InstructionKind::Free;
        const fb::FreeCall* call = instruction.instr_args_as_FreeCall();
        if (call == nullptr) return invalid(where + "FreeCall has no table");
        out->free_value = call->value_index();
        return check_value_arg(where, "value_index", out->free_value);
      }
    }
    return invalid(where + "unknown instruction type " + std::to_string(static_cast<int>(type)));
  }

  const ProgramContext& ctx_;
  const fb::ExecutionPlan* plan_;
  const std::string label_;
  MethodPlan out_;
  size_t num_size_entries_ = 0;
  size_t num_values_ = 0;
};

}  // namespace

std::string method_label(const devplan_flatbuffer::ExecutionPlan* plan, size_t index) {
  if (plan == nullptr || plan->name() == nullptr) return "method " + std::to_string(index);
  return "method '" + plan->name()->str() + "'";
}

Result<MethodPlan> parse_method_plan(const ProgramContext& context,
                                     const devplan_flatbuffer::ExecutionPlan* plan,
                                     size_t index) {
  if (plan == nullptr) {
    return Error(ErrorCode::InvalidProgram, method_label(plan, index) + ": missing");
  }
  return PlanParser(context, plan, index).parse();
}

}  // namespace internal
}  // namespace devplan
