#include <harness/campaign/output_determinism.h>

#include <vector>

namespace devplan::harness {
namespace {

struct Bytes {
  uint32_t buffer = 0;
  uint64_t begin = 0;
  uint64_t end = 0;
};

bool overlap(const Bytes& a, const Bytes& b) {
  return a.buffer == b.buffer && a.begin < b.end && b.begin < a.end;
}

}  // namespace

bool outputs_are_determined(const MethodScenario& m) {
  const size_t n = m.tensors.size();
  std::vector<Bytes> bytes(n);
  for (size_t t = 0; t < n; ++t) {
    const ScenarioTensor& tensor = m.tensors[t];
    bytes[t] = {tensor.buffer, tensor.offset, tensor.offset + scenario_tensor_nbytes(tensor)};
  }
  std::vector<bool> set(n, false);
  for (int32_t i : m.inputs) {
    for (int32_t j : m.inputs) {
      if (i != j && overlap(bytes[i], bytes[j])) return false;
    }
    set[i] = true;
  }
  for (const ScenarioInstruction& in : m.instructions) {
    std::vector<int32_t> reads;
    int32_t written = -1;
    switch (in.op) {
      case ScenarioOp::Add:
      case ScenarioOp::Mul:
      case ScenarioOp::DelegateAdd:
        if (in.tensors.size() < 3) return false;
        reads = {in.tensors[0], in.tensors[1]};
        written = in.tensors[2];
        break;
      case ScenarioOp::CopyH2D:
      case ScenarioOp::CopyD2H:
        if (in.tensors.size() < 2) return false;
        reads = {in.tensors[0]};
        written = in.tensors[1];
        break;
      case ScenarioOp::Move:
        continue;  // values only
      case ScenarioOp::Free:
        for (int32_t t : in.tensors) set[t] = false;
        continue;
    }
    for (int32_t r : reads) {
      if (!set[r]) return false;
      // In place (the very same bytes) is fine: elementwise kernels read each element before
      // they write it. A partial overlap is not.
      const bool same_bytes = bytes[r].buffer == bytes[written].buffer &&
                              bytes[r].begin == bytes[written].begin &&
                              bytes[r].end == bytes[written].end;
      if (r != written && !same_bytes && overlap(bytes[r], bytes[written])) return false;
    }
    for (size_t u = 0; u < n; ++u) {
      if (static_cast<int32_t>(u) != written && overlap(bytes[u], bytes[written])) set[u] = false;
    }
    set[written] = true;
  }
  for (int32_t o : m.outputs) {
    if (!set[o]) return false;
  }
  return true;
}

}  // namespace devplan::harness
