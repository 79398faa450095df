// Internal to runtime_ext/planning: CanonicalSearch, the second engine of the exact search. It
// decides whether items fit within a capacity by building only canonical plans: buffers placed
// in order of offset, each directly on the highest placed buffer it overlaps in time. ExactSearch
// (exact_search.h) runs it by turns with its own strategies; each engine decides instances the
// other takes far longer on. The ideas (canonical solutions, cross-section inference, dominance,
// decomposition, the three preorders) are those of Moffitt's MiniMalloc (ASPLOS 2023); how they
// apply here: docs/planners.md. Include it nowhere else.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include <runtime_ext/planning/exact_planner.h>
#include <runtime_ext/planning/segment_trees.h>

namespace devplan::internal {

// The static preorder that breaks ties between buffers at the same offset, as keys compared in
// turn, each largest first: W the lifetime's length, A the area (size times W), T the most bytes
// left to place in one of the buffer's cross-sections.
enum class CanonicalOrder : uint8_t { WidthAreaTotal, TotalAreaWidth, TotalWidthArea };

class CanonicalSearch {
 public:
  explicit CanonicalSearch(const std::vector<ExactItem>& items);

  // Whether the items fit within `capacity`, applying at most `budget` children (placements)
  // and reading at most `work_limit` cross-section entries, before `deadline`. `resume`: the
  // last decision, which ran out of budget, goes on where it stopped (same capacity and order).
  ExactDecision decide(uint64_t capacity, int64_t budget, CanonicalOrder order,
                       int64_t work_limit = INT64_MAX, const ExactDeadline& deadline = {},
                       bool resume = false);

  // The cross-section entries the last decision read: its cost, in the unit ExactSearch counts.
  int64_t work() const { return work_; }

 private:
  static constexpr uint64_t kNone = UINT64_MAX;

  // A node (it places one candidate per child) or a split (its scope's components, solved one
  // after another).
  struct Frame {
    bool is_split = false;
    int32_t lo = 0, hi = 0;  // scope: the cross-sections of the component being solved
    int32_t owner = -1;      // stack index of the split whose component this is; -1: none
    bool first = false;      // the first node of its component
    // A node:
    uint64_t bound_offset = 0;  // no child may come before (offset, rank) of the last placement
    int32_t bound_rank = -1;
    std::vector<int32_t> order;  // the candidates, lowest (offset, rank) first
    size_t cursor = 0;
    int32_t placed = -1;  // the buffer the current child placed
    size_t mo_mark = 0, floor_mark = 0;
    bool hatless = false;  // the current child placed a buffer no remaining buffer overlaps
    bool done = false;
    // A split:
    std::vector<std::pair<int32_t, int32_t>> components;
    size_t current = 0;
    std::vector<std::pair<int32_t, int32_t>> saved_ranks;  // (buffer, rank) before the split
  };

  bool reset();
  void rank_scope(int32_t lo, int32_t hi, std::vector<std::pair<int32_t, int32_t>>* saved);
  std::vector<std::pair<int32_t, int32_t>> components(int32_t lo, int32_t hi) const;
  void open_scope(int32_t lo, int32_t hi, int32_t owner, bool may_split, uint64_t bound_offset,
                  int32_t bound_rank);
  void pop_split();
  void fail_node();
  void fill_order(Frame& frame);
  bool place(Frame& frame, int32_t i);
  void undo_child(Frame& frame);
  bool scope_left(int32_t lo, int32_t hi) const;

  const std::vector<ExactItem>& items_;
  std::vector<int32_t> sized_;                  // the buffers with a size
  int32_t sections_ = 0;                        // cross-sections: one per distinct end point
  std::vector<int32_t> first_, last_;           // per buffer: its cross-sections (inclusive)
  std::vector<std::vector<int32_t>> members_;   // per cross-section: the buffers live there
  std::vector<std::vector<int32_t>> starting_;  // per cross-section: the buffers first there
  std::vector<uint64_t> live_;                  // per cross-section: bytes of all its buffers
  std::vector<int32_t> initial_cuts_;           // per boundary s|s+1: buffers across it
  std::vector<int32_t> twin_before_;  // per buffer: the previous one of its kind; -1: none
  std::vector<uint64_t> width_;       // per buffer: upper - lower

  // The state of one decision.
  uint64_t capacity_ = 0;
  CanonicalOrder order_ = CanonicalOrder::WidthAreaTotal;
  std::vector<Frame> stack_;
  std::vector<uint8_t> placed_;   // per buffer
  std::vector<uint64_t> offset_;  // per buffer: its offset once placed, else its lowest offset
  std::vector<int32_t> rank_;     // per buffer: its place in the current scope's preorder
  std::vector<uint64_t> left_;    // per cross-section: bytes of its unplaced buffers
  MaxTree most_left_{0};          // left_, for the largest over a scope
  std::vector<uint64_t> floor_;   // per cross-section: the lowest offset of its unplaced buffers
  std::vector<int32_t> cuts_;     // per boundary: unplaced buffers across it
  std::vector<std::pair<int32_t, uint64_t>> offset_trail_, floor_trail_;  // (index, old value)
  std::vector<uint32_t> seen_;
  uint32_t visit_ = 0;
  size_t unplaced_ = 0;
  bool cut_made_ = false;
  int64_t work_ = 0;
  bool suspended_ = false;  // the last decision stopped on its budget and can go on  // the last
                            // placement left a boundary no unplaced buffer crosses
};

}  // namespace devplan::internal
