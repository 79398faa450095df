#include <runtime_ext/executor/kernels/broadcast.h>

#include <algorithm>

namespace devplan {

bool broadcast_shape(const std::vector<int32_t>& a, const std::vector<int32_t>& b,
                     std::vector<int32_t>* out) {
  const size_t rank = std::max(a.size(), b.size());
  out->assign(rank, 1);
  for (size_t i = 0; i < rank; ++i) {
    const int32_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int32_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) return false;
    (*out)[i] = da == 1 ? db : da;
  }
  return true;
}

std::vector<int64_t> broadcast_index_map(const std::vector<int32_t>& in_shape,
                                         const std::vector<int32_t>& out_shape) {
  const size_t rank = out_shape.size();
  // Strides of the input aligned to the output's rank; 0 where the input broadcasts.
  std::vector<int64_t> in_strides(rank, 0);
  int64_t stride = 1;
  for (size_t k = 0; k < in_shape.size(); ++k) {
    const size_t in_dim = in_shape.size() - 1 - k;
    const size_t out_dim = rank - 1 - k;
    in_strides[out_dim] = in_shape[in_dim] == 1 ? 0 : stride;
    stride *= in_shape[in_dim];
  }
  int64_t total = 1;
  for (int32_t s : out_shape) total *= s;
  std::vector<int64_t> map(static_cast<size_t>(total));
  std::vector<int32_t> coord(rank, 0);
  int64_t in_index = 0;
  for (int64_t i = 0; i < total; ++i) {
    map[static_cast<size_t>(i)] = in_index;
    // Advance the output coordinate like an odometer, keeping in_index in step.
    for (size_t d = rank; d-- > 0;) {
      ++coord[d];
      in_index += in_strides[d];
      if (coord[d] < out_shape[d]) break;
      in_index -= in_strides[d] * coord[d];
      coord[d] = 0;
    }
  }
  return map;
}

}  // namespace devplan
