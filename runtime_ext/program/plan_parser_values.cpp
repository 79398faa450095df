// Values for PlanParser (plan_parser_impl.h): scalars, lists and tensors (dtype, sizes, dim
// order, shape dynamism, device); where a tensor's bytes live is plan_parser_memory.cpp.
#include <runtime_ext/program/plan_parser_impl.h>

#include <runtime_ext/core/text_join.h>

namespace devplan::internal {
namespace {

namespace fb = devplan_flatbuffer;

// "[2, 3, 4]": sizes and dim orders as the error messages write them.
template <typename Integer>
std::string list_text(const std::vector<Integer>& v) {
  return "[" + join(v, ", ", [](Integer x) { return std::to_string(static_cast<int64_t>(x)); }) +
         "]";
}

}  // namespace

Error PlanParser::parse_values() {
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

Error PlanParser::missing_table(const std::string& where, ValueTag tag) const {
  return invalid(where + value_tag_name(tag) + " value has no table");
}

Error PlanParser::parse_value(const fb::EValue& ev, const std::string& where, ValueInfo* out) {
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

Error PlanParser::check_list_items(size_t index) const {
  const ValueInfo& value = out_.values[index];
  if (value.tag != ValueTag::TensorList && value.tag != ValueTag::OptionalTensorList) {
    return Error::success();
  }
  const bool optional = value.tag == ValueTag::OptionalTensorList;
  for (size_t k = 0; k < value.value_list.size(); ++k) {
    const std::string where = "value " + std::to_string(index) + ": " + value_tag_name(value.tag) +
                              " item " + std::to_string(k) + ": ";
    const int32_t item = value.value_list[k];
    // ExecuTorch reads -1 in an optional list as None: how the exporter writes a missing
    // optional tensor (aten::index's None indices).
    if (optional && item == kNoneListItem) continue;
    const std::string range = check_value_index(item);
    if (!range.empty()) return invalid(where + range);
    const ValueTag tag = out_.values[item].tag;
    if (tag == ValueTag::Tensor || (optional && tag == ValueTag::Null)) continue;
    return invalid(where + "value " + std::to_string(item) + " is " + value_tag_name(tag) +
                   (optional ? ", not a Tensor or Null" : ", not a Tensor"));
  }
  return Error::success();
}

Error PlanParser::parse_tensor(const fb::Tensor& t, const std::string& where, TensorInfo* out) {
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
      return invalid(where + "tensor byte size overflows (sizes " + list_text(out->sizes) + ")");
    }
  }
  out->nbytes = nbytes;

  if (t.dim_order() != nullptr) out->dim_order.assign(t.dim_order()->begin(), t.dim_order()->end());
  if (!out->dim_order.empty()) {
    if (out->dim_order.size() != out->sizes.size()) {
      return invalid(where + "dim_order " + list_text(out->dim_order) + " has " +
                     count(out->dim_order.size(), "entry", "entries") + ", sizes has " +
                     std::to_string(out->sizes.size()));
    }
    std::vector<bool> seen(out->dim_order.size(), false);
    for (uint8_t d : out->dim_order) {
      if (d >= seen.size() || seen[d]) {
        return invalid(where + "dim_order " + list_text(out->dim_order) +
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
    out->device = read_device(static_cast<int>(extra->device_type()),
                              static_cast<int>(extra->device_index()), where, DeviceOf::Tensor);
    if (extra->fully_qualified_name() != nullptr) {
      out->fully_qualified_name = extra->fully_qualified_name()->str();
    }
  }

  return parse_storage(t, extra, where, out);
}

}  // namespace devplan::internal
