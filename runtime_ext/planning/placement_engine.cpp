#include <runtime_ext/planning/placement_engine.h>

#include <algorithm>

namespace devplan {

namespace {
constexpr int kBlockShift = 2;  // buckets of 4 steps
}  // namespace

PlacementEngine::PlacementEngine(std::vector<uint64_t> sizes, std::vector<int32_t> firsts,
                                 std::vector<int32_t> lasts)
    : sizes_(std::move(sizes)), firsts_(std::move(firsts)), lasts_(std::move(lasts)) {
  for (int32_t l : lasts_) num_steps_ = std::max(num_steps_, l + 1);
  blocks_.resize((static_cast<size_t>(num_steps_) >> kBlockShift) + 1);
  offsets_.assign(sizes_.size(), 0);
  placed_.assign(sizes_.size(), false);
  stamp_.assign(sizes_.size(), 0);
}

void PlacementEngine::clear() {
  for (std::vector<int32_t>& b : blocks_) b.clear();
  std::fill(placed_.begin(), placed_.end(), false);
}

void PlacementEngine::add(int32_t item, uint64_t offset) {
  offsets_[item] = offset;
  placed_[item] = true;
  const int32_t lo = firsts_[item] >> kBlockShift;
  const int32_t hi = lasts_[item] >> kBlockShift;
  for (int32_t b = lo; b <= hi; ++b) blocks_[b].push_back(item);
}

void PlacementEngine::remove(int32_t item) {
  placed_[item] = false;
  const int32_t lo = firsts_[item] >> kBlockShift;
  const int32_t hi = lasts_[item] >> kBlockShift;
  for (int32_t b = lo; b <= hi; ++b) {
    std::vector<int32_t>& v = blocks_[b];
    for (size_t i = 0; i < v.size(); ++i) {
      if (v[i] == item) {
        v[i] = v.back();
        v.pop_back();
        break;
      }
    }
  }
}

void PlacementEngine::collect(int32_t first, int32_t last, std::vector<int32_t>* out) {
  if (++query_ == 0) {  // wrapped: forget old stamps
    std::fill(stamp_.begin(), stamp_.end(), 0);
    query_ = 1;
  }
  const size_t begin = out->size();
  first = std::max(first, 0);
  last = std::min(last, num_steps_ - 1);
  for (int32_t b = first >> kBlockShift; b <= (last >> kBlockShift); ++b) {
    for (int32_t j : blocks_[b]) {
      if (stamp_[j] == query_) continue;
      stamp_[j] = query_;
      if (firsts_[j] <= last && lasts_[j] >= first) out->push_back(j);
    }
  }
  std::sort(out->begin() + static_cast<std::ptrdiff_t>(begin), out->end());
}

uint64_t PlacementEngine::fit_offset(int32_t item, Fit fit) {
  const int32_t a = firsts_[item];
  const int32_t z = lasts_[item];
  const uint64_t need = sizes_[item];
  if (++query_ == 0) {
    std::fill(stamp_.begin(), stamp_.end(), 0);
    query_ = 1;
  }
  scratch_.clear();
  for (int32_t b = a >> kBlockShift; b <= (z >> kBlockShift); ++b) {
    for (int32_t j : blocks_[b]) {
      if (stamp_[j] == query_) continue;
      stamp_[j] = query_;
      if (firsts_[j] <= z && lasts_[j] >= a)
        scratch_.emplace_back(offsets_[j], offsets_[j] + sizes_[j]);
    }
  }
  std::sort(scratch_.begin(), scratch_.end());
  uint64_t cursor = 0;
  uint64_t best = 0;
  uint64_t best_gap = UINT64_MAX;
  for (const auto& [begin, end] : scratch_) {
    if (begin > cursor && begin - cursor >= need) {
      if (fit == Fit::kLowest) return cursor;
      const uint64_t gap = begin - cursor;
      if (gap < best_gap) {
        best_gap = gap;
        best = cursor;
      }
    }
    cursor = std::max(cursor, end);
  }
  return best_gap != UINT64_MAX ? best : cursor;
}

uint64_t PlacementEngine::place(const std::vector<int32_t>& order, Fit fit, uint64_t limit,
                                std::vector<uint64_t>* offsets, size_t start) {
  offsets->resize(sizes_.size(), 0);
  clear();
  uint64_t total = 0;
  start = std::min(start, order.size());
  for (size_t i = 0; i < start; ++i) {
    const int32_t item = order[i];
    total = std::max(total, (*offsets)[item] + sizes_[item]);
    add(item, (*offsets)[item]);
  }
  if (total > limit) return kAborted;
  for (size_t i = start; i < order.size(); ++i) {
    const int32_t item = order[i];
    const uint64_t off = fit_offset(item, fit);
    (*offsets)[item] = off;
    total = std::max(total, off + sizes_[item]);
    if (total > limit) return kAborted;
    add(item, off);
  }
  return total;
}

}  // namespace devplan
