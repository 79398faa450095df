// Internal to runtime_ext/planning: ExactSearch, the branch-and-bound search that decide_exact
// and minimize_exact (exact_planner.h) run, and decide_by_blocks, which packs an instance's
// blocks with it. Its parts, one concept per file:
//   exact_search.cpp            the search over one set of items: its sections and candidate
//                               orders, the restarts and the portfolio with CanonicalSearch
//                               (decide), and the node loop (search);
//   exact_search_nodes.cpp      the nodes: scopes and their components, the children a node
//                               places and undoes, the failed states;
//   exact_search_branching.cpp  where a node branches: the runs of floors and ceilings, their
//                               chains, full points and raises;
//   exact_search_pruning.cpp    the sections that can no longer hold what remains there;
//   exact_block_packing.cpp     a plan from the items' blocks (block_decomposition.h).
// Include it nowhere else.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <unordered_set>
#include <utility>
#include <vector>

#include <runtime_ext/planning/exact_engine_support.h>
#include <runtime_ext/planning/exact_planner.h>
#include <runtime_ext/planning/segment_trees.h>

namespace devplan::internal {

class CanonicalSearch;  // exact_canonical_search.h

// A plan from the items' blocks, or none, each level searched as `branching` says, before
// `deadline` (exact_block_packing.cpp).
ExactDecision decide_by_blocks(const std::vector<ExactItem>& items, uint64_t capacity,
                               int64_t budget, ExactBranching branching,
                               const ExactDeadline& deadline);

// The search over one set of items; decide() may run many times with other capacities.
//
// Temporal decomposition: once no remaining item crosses some point in time, the items on
// either side are independent problems (they share no section). The search then solves the
// pieces ("components") one after another; when one fails, the node that split fails at
// once instead of retrying the choices made in the pieces before it.
class ExactSearch {
 public:
  // `blocks`: decide() first tries to pack the instance's blocks (see block_decomposition.h).
  explicit ExactSearch(const std::vector<ExactItem>& items, bool blocks = true);
  ~ExactSearch();

  // Whether the items fit within `capacity`, searching at most `budget` nodes before
  // `deadline` (restarts, with or without CanonicalSearch, or one search branching as
  // `branching` says).
  ExactDecision decide(uint64_t capacity, int64_t budget,
                       ExactBranching branching = ExactBranching::Restarts,
                       const ExactDeadline& deadline = {}, bool resume = false);

 private:
  static constexpr int kOrders = 8;
  static constexpr int64_t kBlockShare = 4;  // the blocks' plan gets a quarter of the budget
  static constexpr int64_t kMostBlockSteps = 250000;  // and never more than this
  static constexpr int kFirstOrders = 3;  // the orders of the first round; one more each round
  static constexpr int64_t kFirstRun = 2000;

  // Where the restarts of a decision stand: its round (the steps of each run, the orders), the
  // next strategy of the round, and the work of the rounds' own strategies.
  struct Schedule {
    bool open = false;  // a decision ran out of budget here and may go on
    uint64_t capacity = 0;
    ExactBranching branching = ExactBranching::Restarts;
    int64_t run = kFirstRun;
    int orders = kFirstOrders;
    int next = 0;
    bool started = false;   // the next strategy ran and stopped on the budget
    int64_t used = 0;       // its steps so far this round
    int64_t used_work = 0;  // CanonicalSearch's: its work so far this round
    int64_t round_work = 0, last_round_work = 0;
  };

  // A node's state within its scope: the scope, its floors and the items left to place there,
  // as two independent 64-bit hashes (a collision, the only way a state could be mistaken
  // for a failed one, has odds around 2^-100 per pair of states).
  struct StateKey {
    uint64_t a = 0, b = 0;
    bool operator==(const StateKey& o) const { return a == o.a && b == o.b; }
  };
  struct StateKeyHash {
    size_t operator()(const StateKey& k) const { return static_cast<size_t>(k.a); }
  };
  // Failed states remembered per decision; beyond this many, no more are added (memory).
  static constexpr size_t kMaxFailedStates = size_t{1} << 21;

  // A node (it branches on one section of its scope) or a split (its scope's components).
  struct Frame {
    bool is_split = false;
    int32_t lo = 0, hi = 0;  // scope: the sections the node may branch on
    int32_t owner = -1;      // stack index of the split whose component this is; -1: none
    bool first = false;      // the first node of its component
    // A node:
    int32_t section = 0;
    int32_t run_end = 0;         // last section of the run at `level`
    int32_t point = 0;           // the run's section whose point at the level children cover
    bool top = false;            // the run is one of ceilings (items hang from it), not of floors
    uint64_t level = 0;          // the run's floor, or its ceiling
    std::vector<int32_t> order;  // the candidates, flush ones first (see next_child)
    bool ordered = false;        // order is filled
    size_t cursor = 0;           // next candidate in order
    int32_t placed = -1;         // the item the current child placed
    int32_t tried = -1;          // the last item tried, to skip its interchangeable twins
    bool raise_tried = false;
    bool raised = false;   // the current child raised the floor (never on a ceiling)
    bool hatless = false;  // the current child placed an item no remaining item overlaps
    bool done = false;     // no child is left to try
    StateKey state;        // the node's state when it opened, remembered when it fails
    // A split:
    std::vector<std::pair<int32_t, int32_t>> components;
    size_t current = 0;
  };

  // Where a node branches (choose_branch).
  struct Branch {
    int32_t section = 0;
    int32_t run_end = 0;
    int32_t point = 0;
    bool top = false;
    uint64_t level = 0;
  };

  static constexpr uint64_t kNoRaise = UINT64_MAX;
  static constexpr uint64_t kNoRoom = UINT64_MAX;

  // ---- the search (exact_search.cpp) ---------------------------------------------------------

  bool full_sections_meet(uint64_t capacity) const;
  ExactDecision search(int64_t budget, bool resume = false);
  ExactDecision run_nodes(int64_t budget, bool child_pending, ExactDecision& out);
  bool reset();
  ExactDecision& fits(ExactDecision* out);

  // ---- the nodes (exact_search_nodes.cpp) ----------------------------------------------------

  StateKey state_key(int32_t lo, int32_t hi) const;
  std::vector<std::pair<int32_t, int32_t>> components(int32_t lo, int32_t hi) const;
  void open_scope(int32_t lo, int32_t hi, int32_t owner, bool may_split);
  void fail_node();
  void refresh_smallest_start(int32_t section);
  void undo_child(Frame& frame);
  bool next_child(Frame& frame);
  bool ends_flush(const Frame& frame, int32_t i) const;
  void cover(int32_t i);
  void uncover(int32_t i);

  // ---- branching (exact_search_branching.cpp) ------------------------------------------------

  uint64_t raise_height(int32_t a, int32_t run_end, uint64_t floor, int32_t lo, int32_t hi) const;
  void chain_cover(int32_t l, int32_t r, bool top, uint64_t level);
  size_t children(int32_t l, int32_t r, bool top, uint64_t level, int32_t lo, int32_t hi,
                  size_t enough) const;
  bool full_point(int32_t l, int32_t r, bool top, uint64_t level, Branch* best,
                  size_t* best_children);
  Branch choose_branch(int32_t lo, int32_t hi);

  // ---- pruning (exact_search_pruning.cpp) ----------------------------------------------------

  std::pair<int32_t, int32_t> affected(int32_t a, int32_t b) const;
  bool sections_can_hold(int32_t lo, int32_t hi);

  // ---- small steps every part takes --------------------------------------------------------

  void set_floors(int32_t l, int32_t r, uint64_t value) {
    for (int32_t s = l; s <= r; ++s) floor_[s] = value;
  }
  void set_ceilings(int32_t l, int32_t r, uint64_t value) {
    for (int32_t s = l; s <= r; ++s) ceiling_[s] = value;
  }
  // The room a section has beyond what remains to place in it.
  uint64_t slack(int32_t s) const { return ceiling_[s] - floor_[s] - remaining_bytes_[s]; }

  // Same lifetime, size and alignment: either can take the other's place.
  bool interchangeable(int32_t x, int32_t y) const {
    return start_[x] == start_[y] && end_[x] == end_[y] && items_[x].size == items_[y].size &&
           items_[x].alignment == items_[y].alignment;
  }

  // Where item i sits on `floor` (rounded up to its alignment), every section under it still
  // holding what remains there between it and the ceiling; kNoRoom when one does not.
  uint64_t sit_at(int32_t i, uint64_t floor) const {
    const uint64_t at = round_up(floor, items_[i].alignment);
    for (int32_t s = start_[i]; s <= end_[i]; ++s) {
      if (at + remaining_bytes_[s] > ceiling_[s]) return kNoRoom;
    }
    return at;
  }

  // Where item i hangs from `ceiling` (its offset rounded down to its alignment), every
  // section under it still holding what remains there between the floor and it; kNoRoom when
  // one does not.
  uint64_t hang_at(int32_t i, uint64_t ceiling) const {
    const uint64_t size = items_[i].size;
    if (ceiling < size) return kNoRoom;
    const uint64_t at = (ceiling - size) / items_[i].alignment * items_[i].alignment;
    for (int32_t s = start_[i]; s <= end_[i]; ++s) {
      if (floor_[s] + remaining_bytes_[s] - size > at) return kNoRoom;
    }
    return at;
  }

  const std::vector<ExactItem>& items_;
  const bool blocks_;
  std::unique_ptr<CanonicalSearch> canonical_;  // made on first use
  Schedule schedule_;
  ExactDeadline deadline_;
  int32_t sections_ = 0;
  std::vector<uint64_t> live_;                  // per section: bytes of all items there
  int64_t sized_items_ = 0;                     // items with a size
  std::vector<int32_t> start_, end_;            // per item: its sections (inclusive); -1: none
  std::vector<std::vector<int32_t>> starting_;  // per section: items that start there
  std::vector<std::vector<int32_t>> orders_[kOrders];  // starting_ in each candidate order
  const std::vector<std::vector<int32_t>>* candidates_ = &orders_[0];
  uint64_t capacity_ = 0;
  std::vector<Frame> stack_;
  MinTree smallest_start_{0, UINT64_MAX};   // per section: smallest remaining item starting
  CountTree starts_left_{0};                // per section: remaining items starting there
  std::vector<uint64_t> remaining_bytes_;   // per section: bytes of remaining items
  std::vector<int32_t> crossing_;           // per section s > 0: remaining items on s - 1 and s
  std::vector<uint8_t> remaining_;          // per item
  std::vector<uint64_t> offsets_;           // per item, valid once placed
  std::vector<uint64_t> lowest_, highest_;  // sections_can_hold's scratch
  std::vector<uint32_t> visited_;           // per item: the last visit_ that saw it
  uint32_t visit_ = 0;
  std::vector<std::vector<int32_t>> covering_;        // per section: the remaining items over it
  std::vector<std::vector<int32_t>> cover_position_;  // per item and section: its place there
  std::vector<uint8_t> covered_;      // chain_cover's answer, per section (and one more)
  std::vector<uint8_t> reached_;      // full_point's scratch, per section (and one more)
  std::vector<int32_t> over_;         // full_point's scratch, per section (and one more)
  bool any_point_ = false;            // branch on any full point (else on the runs' first)
  std::vector<uint64_t> floor_;       // per section: every remaining item lies at or above it
  std::vector<uint64_t> ceiling_;     // per section: every remaining item lies below it
  std::vector<uint64_t> key_;         // per item: a random key
  std::vector<uint64_t> start_keys_;  // per section: xor of keys of remaining items there
  std::unordered_set<StateKey, StateKeyHash> failed_;  // states of nodes that failed
  size_t remaining_count_ = 0;
  bool cut_made_ = false;  // the last placement left a point that no remaining item crosses
  // Section entries the scans have read (the bulk of a node's cost), to share time with
  // CanonicalSearch by work, which depends only on the search, not on the machine.
  mutable int64_t work_ = 0;
};

}  // namespace devplan::internal
