#include "host_model.h"

#include <cstring>

#include <mocks/tracking_device_allocator.h>

namespace devplan::testing {
namespace {

template <typename T>
T load(const uint8_t* p, int64_t i) {
  T x;
  std::memcpy(&x, p + i * static_cast<int64_t>(sizeof(T)), sizeof(T));
  return x;
}

template <typename T>
void store(uint8_t* p, int64_t i, T x) {
  std::memcpy(p + i * static_cast<int64_t>(sizeof(T)), &x, sizeof(T));
}

// out[i] = op(a[i], b[i]) for i in order, reading each element just before writing out[i].
template <typename T, typename Op>
void apply(const uint8_t* a, const uint8_t* b, uint8_t* out, int64_t n, Op op) {
  for (int64_t i = 0; i < n; ++i) store<T>(out, i, op(load<T>(a, i), load<T>(b, i)));
}

int64_t numel(const ScenarioTensor& t) {
  int64_t n = 1;
  for (int32_t d : t.shape) n *= d;
  return n;
}

}  // namespace

HostModel::HostModel(const MethodScenario& method) : method_(method), values_(method.values) {
  for (const ScenarioBuffer& b : method.buffers) {
    buffers_.emplace_back(b.size, b.device.is_cpu() ? 0 : TrackingDeviceAllocator::kFreshPattern);
  }
  // load_method copies the initial values in, in tensor order.
  for (size_t t = 0; t < method.tensors.size(); ++t) {
    if (!method.tensors[t].initial) continue;
    const std::vector<uint8_t> bytes = scenario_initial_value(method, t);
    std::copy(bytes.begin(), bytes.end(), data(t));
  }
}

uint8_t* HostModel::data(size_t t) {
  return buffers_[method_.tensors[t].buffer].data() + method_.tensors[t].offset;
}

std::vector<uint8_t> HostModel::tensor_bytes(size_t t) const {
  const ScenarioTensor& x = method_.tensors[t];
  const uint8_t* p = buffers_[x.buffer].data() + x.offset;
  return std::vector<uint8_t>(p, p + scenario_tensor_nbytes(x));
}

void HostModel::set_input(size_t t, const std::vector<uint8_t>& bytes) {
  if (!bytes.empty()) std::memcpy(data(t), bytes.data(), bytes.size());
}

void HostModel::elementwise(const ScenarioInstruction& in, bool add, double alpha, bool staged) {
  const ScenarioTensor& out_t = method_.tensors[in.tensors[2]];
  const int64_t n = numel(out_t);
  std::vector<uint8_t> a_copy, b_copy;
  const uint8_t* a = data(in.tensors[0]);
  const uint8_t* b = data(in.tensors[1]);
  if (staged) {
    a_copy = tensor_bytes(in.tensors[0]);
    b_copy = tensor_bytes(in.tensors[1]);
    a = a_copy.data();
    b = b_copy.data();
  }
  uint8_t* out = data(in.tensors[2]);
  switch (out_t.dtype) {
    case ScalarType::Float:
      add ? apply<float>(a, b, out, n,
                         [&](float x, float y) { return x + static_cast<float>(alpha) * y; })
          : apply<float>(a, b, out, n, [](float x, float y) { return x * y; });
      break;
    case ScalarType::Double:
      add ? apply<double>(a, b, out, n, [&](double x, double y) { return x + alpha * y; })
          : apply<double>(a, b, out, n, [](double x, double y) { return x * y; });
      break;
    case ScalarType::Int: {
      const uint32_t k = static_cast<uint32_t>(static_cast<int64_t>(alpha));
      add ? apply<int32_t>(a, b, out, n,
                           [&](int32_t x, int32_t y) {
                             return static_cast<int32_t>(static_cast<uint32_t>(x) +
                                                         k * static_cast<uint32_t>(y));
                           })
          : apply<int32_t>(a, b, out, n, [](int32_t x, int32_t y) {
              return static_cast<int32_t>(static_cast<uint32_t>(x) * static_cast<uint32_t>(y));
            });
      break;
    }
    default: {
      const uint64_t k = static_cast<uint64_t>(static_cast<int64_t>(alpha));
      add ? apply<int64_t>(a, b, out, n,
                           [&](int64_t x, int64_t y) {
                             return static_cast<int64_t>(static_cast<uint64_t>(x) +
                                                         k * static_cast<uint64_t>(y));
                           })
          : apply<int64_t>(a, b, out, n, [](int64_t x, int64_t y) {
              return static_cast<int64_t>(static_cast<uint64_t>(x) * static_cast<uint64_t>(y));
            });
      break;
    }
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
        const std::vector<uint8_t> bytes = tensor_bytes(in.tensors[0]);
        if (!bytes.empty()) std::memcpy(data(in.tensors[1]), bytes.data(), bytes.size());
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
