// Broadcasting of two shapes to one (numpy rules), and the index maps it implies.
#pragma once

#include <cstdint>
#include <vector>

namespace devplan {

// The broadcast shape of `a` and `b`, or false when a dimension pair is neither equal nor 1.
bool broadcast_shape(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                     std::vector<int32_t>* out);

// For each linear index of `out_shape`, the linear index into a tensor of shape `in_shape`
// that broadcasts to it. `in_shape` must broadcast to `out_shape`.
std::vector<int64_t> broadcast_index_map(const std::vector<int32_t>& in_shape,
                                         const std::vector<int32_t>& out_shape);

}  // namespace devplan
