#include <runtime_ext/cuda/broadcast_indexing.h>

namespace devplan {
namespace {

// Element strides of `in` (row-major, contiguous) against `out`'s dimensions, right-aligned;
// false when `in` does not broadcast to `out`.
bool strides_against(const std::vector<int32_t>& in, const std::vector<int32_t>& out,
                     int64_t* strides) {
  if (in.size() > out.size()) return false;
  const size_t lead = out.size() - in.size();
  int64_t stride = 1;
  for (size_t d = out.size(); d-- > 0;) {
    if (d < lead) {
      strides[d] = 0;
      continue;
    }
    const int32_t size = in[d - lead];
    if (size < 0) return false;
    if (size == out[d]) {
      strides[d] = size == 1 ? 0 : stride;
    } else if (size == 1) {
      strides[d] = 0;
    } else {
      return false;
    }
    stride *= size;
  }
  return true;
}

}  // namespace

std::optional<BroadcastIndexing> broadcast_indexing(const std::vector<int32_t>& a,
                                                    const std::vector<int32_t>& b,
                                                    const std::vector<int32_t>& out) {
  if (out.size() > static_cast<size_t>(kMaxBroadcastDims)) return std::nullopt;
  BroadcastIndexing ix;
  ix.dims = static_cast<int>(out.size());
  for (size_t d = 0; d < out.size(); ++d) {
    if (out[d] < 0) return std::nullopt;
    ix.out_sizes[d] = out[d];
  }
  if (!strides_against(a, out, ix.a_strides) || !strides_against(b, out, ix.b_strides)) {
    return std::nullopt;
  }
  // The result's shape must be the broadcast of the two (no dimension of out both operands
  // broadcast along unless it is 1).
  const size_t la = out.size() - a.size(), lb = out.size() - b.size();
  for (size_t d = 0; d < out.size(); ++d) {
    const int32_t sa = d < la ? 1 : a[d - la];
    const int32_t sb = d < lb ? 1 : b[d - lb];
    if (sa != out[d] && sb != out[d]) return std::nullopt;
  }
  return ix;
}

}  // namespace devplan
