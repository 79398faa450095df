// BroadcastIndexing: how each element of an elementwise result finds its two operands when they
// broadcast (numpy rules) to the result's shape, as element strides a kernel can take by value.
// Part of devplan::cuda_allocator (no CUDA headers), so it is unit-tested without a GPU.
//
//   std::optional<BroadcastIndexing> ix = broadcast_indexing({4, 1}, {3}, {4, 3});
//   // ix->dims == 2, out_sizes {4, 3}, a_strides {1, 0}, b_strides {0, 1}
//
// Element i of the result (row-major over out_sizes) reads a at sum(coord[d] * a_strides[d]) and b
// likewise; a dimension an operand broadcasts along has stride 0.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

namespace devplan {

constexpr int kMaxBroadcastDims = 8;

struct BroadcastIndexing {
  int dims = 0;  // the result's rank (0 for a scalar)
  int64_t out_sizes[kMaxBroadcastDims] = {};
  int64_t a_strides[kMaxBroadcastDims] = {};
  int64_t b_strides[kMaxBroadcastDims] = {};
};

// nullopt when `a` or `b` does not broadcast to `out` exactly (numpy rules), a size is negative,
// or `out` has more than kMaxBroadcastDims dimensions.
std::optional<BroadcastIndexing> broadcast_indexing(const std::vector<int32_t>& a,
                                                    const std::vector<int32_t>& b,
                                                    const std::vector<int32_t>& out);

}  // namespace devplan
