#include "host_model.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <type_traits>

#include <mocks/tracking_device_allocator.h>

namespace devplan::testing {
namespace {

using ByteState = HostModel::ByteState;

// What an element read from the model's bytes is.
enum class Known : uint8_t { Exact, Nan, Unspecified };

int64_t numel(const ScenarioTensor& t) {
  int64_t n = 1;
  for (int32_t d : t.shape) n *= d;
  return n;
}

Known known(const ByteState* s, size_t width, bool floating) {
  bool exact = true;
  for (size_t i = 0; i < width; ++i) exact = exact && s[i] == ByteState::Exact;
  if (exact) return Known::Exact;
  if (!floating || s[0] != (width == 4 ? ByteState::Nan32 : ByteState::Nan64)) {
    return Known::Unspecified;
  }
  for (size_t i = 1; i < width; ++i) {
    if (s[i] != ByteState::NanRest) return Known::Unspecified;
  }
  return Known::Nan;
}

template <typename T>
bool is_nan(T x) {
  if constexpr (std::is_floating_point_v<T>) {
    return std::isnan(x);
  } else {
    return false;
  }
}

size_t nan_width(ByteState s) { return s == ByteState::Nan32 ? 4 : s == ByteState::Nan64 ? 8 : 0; }

// Before [begin, end) of `s` is written: a NaN element cut by either edge keeps only bytes that
// are now unspecified outside the range.
void break_cut_elements(std::vector<ByteState>& s, size_t begin, size_t end) {
  if (begin < s.size() && s[begin] == ByteState::NanRest) {
    size_t start = begin;
    while (start > 0 && s[start - 1] == ByteState::NanRest) --start;
    if (start > 0) --start;  // the element's first byte
    for (size_t i = start; i < begin; ++i) s[i] = ByteState::Unspecified;
  }
  for (size_t i = end; i < s.size() && s[i] == ByteState::NanRest; ++i) {
    s[i] = ByteState::Unspecified;
  }
}

// After states were copied into [begin, end) of `s`: an element the copy cut is unspecified.
void normalize(std::vector<ByteState>& s, size_t begin, size_t end) {
  size_t i = begin;
  while (i < end) {
    const size_t width = nan_width(s[i]);
    if (width == 0) {
      if (s[i] == ByteState::NanRest) s[i] = ByteState::Unspecified;
      ++i;
      continue;
    }
    bool whole = i + width <= end;
    for (size_t k = 1; whole && k < width; ++k) whole = s[i + k] == ByteState::NanRest;
    if (whole) {
      i += width;
    } else {
      s[i++] = ByteState::Unspecified;  // its later bytes are orphans, made unspecified next
    }
  }
}

void set_states(std::vector<ByteState>& s, size_t begin, size_t width, Known k) {
  break_cut_elements(s, begin, begin + width);
  for (size_t i = 0; i < width; ++i) {
    s[begin + i] = k == Known::Exact ? ByteState::Exact
                   : k == Known::Nan ? (i == 0 ? (width == 4 ? ByteState::Nan32 : ByteState::Nan64)
                                               : ByteState::NanRest)
                                     : ByteState::Unspecified;
  }
}

std::string hex_byte(uint8_t b) {
  char text[8];
  std::snprintf(text, sizeof(text), "0x%02x", b);
  return text;
}

std::string difference(const std::vector<uint8_t>& model, const std::vector<ByteState>& states,
                       const uint8_t* model_bytes, const std::vector<uint8_t>& actual) {
  if (actual.size() != model.size()) {
    return std::to_string(actual.size()) + " bytes where the model has " +
           std::to_string(model.size());
  }
  for (size_t i = 0; i < actual.size(); ++i) {
    const size_t width = nan_width(states[i]);
    if (states[i] == ByteState::Exact && actual[i] != model_bytes[i]) {
      return "byte " + std::to_string(i) + ": " + hex_byte(actual[i]) + " where the model has " +
             hex_byte(model_bytes[i]);
    }
    if (width == 0) continue;
    double value = 0;
    if (width == 4) {
      float f;
      std::memcpy(&f, actual.data() + i, 4);
      value = f;
    } else {
      std::memcpy(&value, actual.data() + i, 8);
    }
    if (!std::isnan(value)) {
      return "bytes " + std::to_string(i) + "-" + std::to_string(i + width - 1) + ": " +
             (width == 4 ? "float32 " : "float64 ") + std::to_string(value) +
             " where the model has a NaN";
    }
  }
  return "";
}

float add_float(float x, float y, double alpha) { return x + static_cast<float>(alpha) * y; }
float mul_float(float x, float y, double) { return x * y; }
double add_double(double x, double y, double alpha) { return x + alpha * y; }
double mul_double(double x, double y, double) { return x * y; }
// Integer add takes alpha as an integer; both wrap as the kernels' unsigned arithmetic does.
template <typename T>
T add_int(T x, T y, double alpha) {
  using U = std::make_unsigned_t<T>;
  const U k = static_cast<U>(static_cast<int64_t>(alpha));
  return static_cast<T>(static_cast<U>(x) + k * static_cast<U>(y));
}
template <typename T>
T mul_int(T x, T y, double) {
  using U = std::make_unsigned_t<T>;
  return static_cast<T>(static_cast<U>(x) * static_cast<U>(y));
}

}  // namespace

HostModel::HostModel(const MethodScenario& method) : method_(method), values_(method.values) {
  for (const ScenarioBuffer& b : method.buffers) {
    buffers_.emplace_back(b.size, b.device.is_cpu() ? 0 : TrackingDeviceAllocator::kFreshPattern);
    states_.emplace_back(b.size, ByteState::Exact);
  }
  // load_method copies the initial values in, in tensor order.
  for (size_t t = 0; t < method.tensors.size(); ++t) {
    if (method.tensors[t].initial) write_exact(t, scenario_initial_value(method, t));
  }
}

uint8_t* HostModel::data(size_t t) {
  return buffers_[method_.tensors[t].buffer].data() + method_.tensors[t].offset;
}

void HostModel::write_exact(size_t t, const std::vector<uint8_t>& bytes) {
  if (bytes.empty()) return;
  std::memcpy(data(t), bytes.data(), bytes.size());
  const ScenarioTensor& x = method_.tensors[t];
  std::vector<ByteState>& s = states_[x.buffer];
  break_cut_elements(s, x.offset, x.offset + bytes.size());
  std::fill(s.begin() + static_cast<std::ptrdiff_t>(x.offset),
            s.begin() + static_cast<std::ptrdiff_t>(x.offset + bytes.size()), ByteState::Exact);
}

std::string HostModel::buffer_difference(size_t b, const std::vector<uint8_t>& actual) const {
  return difference(buffers_[b], states_[b], buffers_[b].data(), actual);
}

std::string HostModel::tensor_difference(size_t t, const std::vector<uint8_t>& actual) const {
  const ScenarioTensor& x = method_.tensors[t];
  const size_t n = scenario_tensor_nbytes(x);
  const auto first = static_cast<std::ptrdiff_t>(x.offset);
  const std::vector<uint8_t> bytes(buffers_[x.buffer].begin() + first,
                                   buffers_[x.buffer].begin() + first + n);
  std::vector<ByteState> states(states_[x.buffer].begin() + first,
                                states_[x.buffer].begin() + first + static_cast<ptrdiff_t>(n));
  normalize(states, 0, n);
  return difference(bytes, states, bytes.data(), actual);
}

void HostModel::set_input(size_t t, const std::vector<uint8_t>& bytes) { write_exact(t, bytes); }

// out[i] = op(a[i], b[i], alpha) for i in order, reading each element (and what the model
// knows of it) just before writing out[i], so in-place and overlapping operands behave as in
// the kernels.
template <typename T>
void HostModel::apply(const ScenarioInstruction& in, bool staged, bool floating,
                      T (*op)(T, T, double), double alpha) {
  const ScenarioTensor& out_t = method_.tensors[in.tensors[2]];
  const int64_t n = numel(out_t);
  struct Operand {
    const uint8_t* bytes;
    const ByteState* states;
    std::vector<uint8_t> bytes_copy;
    std::vector<ByteState> states_copy;
  };
  Operand operands[2];
  for (size_t k = 0; k < 2; ++k) {
    const ScenarioTensor& x = method_.tensors[in.tensors[k]];
    operands[k].bytes = buffers_[x.buffer].data() + x.offset;
    operands[k].states = states_[x.buffer].data() + x.offset;
    if (!staged) continue;
    const size_t nbytes = scenario_tensor_nbytes(x);
    operands[k].bytes_copy.assign(operands[k].bytes, operands[k].bytes + nbytes);
    operands[k].states_copy.assign(operands[k].states, operands[k].states + nbytes);
    operands[k].bytes = operands[k].bytes_copy.data();
    operands[k].states = operands[k].states_copy.data();
  }
  uint8_t* out = buffers_[out_t.buffer].data() + out_t.offset;
  std::vector<ByteState>& out_states = states_[out_t.buffer];
  for (int64_t i = 0; i < n; ++i) {
    const size_t at = static_cast<size_t>(i) * sizeof(T);
    T x, y;
    std::memcpy(&x, operands[0].bytes + at, sizeof(T));
    std::memcpy(&y, operands[1].bytes + at, sizeof(T));
    const Known kx = known(operands[0].states + at, sizeof(T), floating);
    const Known ky = known(operands[1].states + at, sizeof(T), floating);
    const T result = op(x, y, alpha);
    const bool nan_x = kx == Known::Nan || (kx == Known::Exact && is_nan(x));
    const bool nan_y = ky == Known::Nan || (ky == Known::Exact && is_nan(y));
    Known k = Known::Exact;
    if (floating && (nan_x || nan_y)) {
      k = Known::Nan;  // NaN + anything, NaN * anything: some NaN
    } else if (kx != Known::Exact || ky != Known::Exact) {
      k = Known::Unspecified;
    } else if (floating && is_nan(result)) {
      k = Known::Nan;
    }
    std::memcpy(out + at, &result, sizeof(T));
    set_states(out_states, out_t.offset + at, sizeof(T), k);
  }
}

void HostModel::elementwise(const ScenarioInstruction& in, bool add, double alpha, bool staged) {
  switch (method_.tensors[in.tensors[2]].dtype) {
    case ScalarType::Float:
      apply<float>(in, staged, true, add ? add_float : mul_float, alpha);
      break;
    case ScalarType::Double:
      apply<double>(in, staged, true, add ? add_double : mul_double, alpha);
      break;
    case ScalarType::Int:
      apply<int32_t>(in, staged, false, add ? add_int<int32_t> : mul_int<int32_t>, alpha);
      break;
    default:
      apply<int64_t>(in, staged, false, add ? add_int<int64_t> : mul_int<int64_t>, alpha);
      break;
  }
}

void HostModel::execute() {
  for (const ScenarioInstruction& in : method_.instructions) {
    switch (in.op) {
      case ScenarioOp::Add: {
        const ScenarioValue& v = values_[in.values[0]];
        const double alpha =
            v.kind == ScenarioValueKind::Int ? static_cast<double>(v.int_value) : v.double_value;
        elementwise(in, true, alpha, false);
        break;
      }
      case ScenarioOp::Mul:
        elementwise(in, false, 1.0, false);
        break;
      case ScenarioOp::DelegateAdd:
        elementwise(in, true, 1.0, true);
        break;
      case ScenarioOp::CopyH2D:
      case ScenarioOp::CopyD2H: {
        // Bytes move exactly, and so does what the model knows of them.
        const ScenarioTensor& from = method_.tensors[in.tensors[0]];
        const ScenarioTensor& to = method_.tensors[in.tensors[1]];
        const size_t n = scenario_tensor_nbytes(from);
        if (n == 0) break;
        const auto first = static_cast<std::ptrdiff_t>(from.offset);
        const std::vector<uint8_t> bytes(
            buffers_[from.buffer].begin() + first,
            buffers_[from.buffer].begin() + first + static_cast<std::ptrdiff_t>(n));
        const std::vector<ByteState> states(
            states_[from.buffer].begin() + first,
            states_[from.buffer].begin() + first + static_cast<std::ptrdiff_t>(n));
        std::vector<ByteState>& s = states_[to.buffer];
        break_cut_elements(s, to.offset, to.offset + n);
        std::memcpy(data(in.tensors[1]), bytes.data(), n);
        std::copy(states.begin(), states.end(), s.begin() + static_cast<std::ptrdiff_t>(to.offset));
        normalize(s, to.offset, to.offset + n);
        break;
      }
      case ScenarioOp::Move:
        values_[in.values[1]] = values_[in.values[0]];
        break;
      case ScenarioOp::Free:
        break;
    }
  }
}

std::vector<uint8_t> input_pattern(const MethodScenario& method, size_t t, uint32_t salt) {
  return scenario_tensor_pattern(method, t, salt);
}

}  // namespace devplan::testing
