// decide_exact, minimize_exact and the bounds of exact_planner.h; the search they run is
// ExactSearch (exact_search.h).
#include <runtime_ext/planning/exact_planner.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include <runtime_ext/planning/exact_search.h>

namespace devplan {

namespace {
// The steps per probe of minimize_exact's first pass when they have no limit.
constexpr int64_t kFirstPassSteps = 5000;
}  // namespace

using internal::ExactSearch;
using internal::round_up;

uint64_t exact_live_bytes(const std::vector<ExactItem>& items) {
  std::vector<std::pair<int64_t, int64_t>> events;  // (point, +size or -size), ends first
  for (const ExactItem& it : items) {
    if (it.size == 0) continue;
    events.push_back({it.lower, static_cast<int64_t>(it.size)});
    events.push_back({it.upper, -static_cast<int64_t>(it.size)});
  }
  std::sort(events.begin(), events.end());
  uint64_t live = 0, best = 0;
  for (const auto& [point, delta] : events) {
    live = delta >= 0 ? live + static_cast<uint64_t>(delta) : live - static_cast<uint64_t>(-delta);
    best = std::max(best, live);
  }
  return best;
}

uint64_t exact_height(const std::vector<ExactItem>& items, const std::vector<uint64_t>& offsets) {
  uint64_t height = 0;
  for (size_t i = 0; i < items.size(); ++i) {
    if (items[i].size > 0) height = std::max(height, offsets[i] + items[i].size);
  }
  return height;
}

ExactDecision decide_exact(const std::vector<ExactItem>& items, uint64_t capacity,
                           int64_t budget_steps, ExactBranching branching,
                           const ExactDeadline& deadline) {
  return ExactSearch(items).decide(capacity, budget_steps, branching, deadline);
}

ExactPlan minimize_exact(const std::vector<ExactItem>& items, std::vector<uint64_t> incumbent,
                         int64_t budget_steps, uint64_t first_probe, uint64_t stop_at,
                         const ExactDeadline& deadline, ExactBranching branching) {
  ExactPlan plan;
  if (incumbent.size() != items.size()) {
    incumbent.assign(items.size(), 0);
    uint64_t at = 0;
    for (size_t i = 0; i < items.size(); ++i) {
      if (items[i].size == 0) continue;
      at = round_up(at, items[i].alignment);
      incumbent[i] = at;
      at += items[i].size;
    }
  }
  plan.offsets = std::move(incumbent);
  plan.height = exact_height(items, plan.offsets);
  plan.lower_bound = std::min(exact_live_bytes(items), plan.height);
  if (plan.optimal() || (stop_at > 0 && plan.height <= stop_at) || budget_steps <= 0) return plan;
  ExactSearch search(items);
  int64_t left = budget_steps;
  // Decides at `capacity`; true when the search should go on.
  auto probe = [&](uint64_t capacity, int64_t budget) {
    ExactDecision d = search.decide(capacity, budget, branching, deadline);
    plan.steps += d.steps;
    plan.timed_out = plan.timed_out || d.timed_out;
    left -= d.steps;
    if (d.outcome == ExactOutcome::Fits) {
      plan.offsets = std::move(d.offsets);
      plan.height = exact_height(items, plan.offsets);
    } else if (d.outcome == ExactOutcome::DoesNotFit) {
      plan.lower_bound = std::max(plan.lower_bound, capacity + 1);
    }
    if (d.outcome == ExactOutcome::BudgetExhausted) return false;
    return !(stop_at > 0 && plan.height <= stop_at);
  };
  uint64_t first = first_probe == 0 ? plan.lower_bound : first_probe;
  first = std::clamp(first, plan.lower_bound, plan.height - 1);
  // The first probe (at the bound, usually the hardest) gets half the budget so that the
  // bisection above it still runs when the bound is out of reach; all of it when it is the
  // question asked (stop_at).
  const bool only_question = stop_at > 0 && first == stop_at;
  if (budget_steps == kUnlimitedSteps && !only_question) {
    // Passes, each with twice the last one's steps per probe: each probe bisects between the
    // bound and the best height, from scratch (another height is another question); after it,
    // the decision at the bound goes on where it stopped, for twice the steps the probe used:
    // it is the one decision that ends the search, and it gets its steps without repeats while
    // the height falls.
    ExactSearch bound_search(items);
    // Goes on deciding at the bound for `steps`; true when the search is over.
    auto bound_turn = [&](int64_t steps) {
      ExactDecision d = bound_search.decide(first, steps, branching, deadline, true);
      plan.steps += d.steps;
      if (d.outcome == ExactOutcome::Fits) {
        plan.offsets = std::move(d.offsets);
        plan.height = exact_height(items, plan.offsets);
      } else if (d.outcome == ExactOutcome::DoesNotFit) {
        plan.lower_bound = std::max(plan.lower_bound, first + 1);
        first = plan.lower_bound;
      }
      plan.timed_out = plan.timed_out || d.timed_out;
      return plan.optimal() || plan.timed_out || (stop_at > 0 && plan.height <= stop_at);
    };
    for (int64_t per_probe = kFirstPassSteps;; per_probe = std::min(per_probe, INT64_MAX / 4) * 2) {
      if (bound_turn(per_probe)) return plan;
      // Probes below `floor` ran out of steps in this pass (or do not fit).
      for (uint64_t floor = first + 1; floor < plan.height;) {
        const uint64_t at = floor + (plan.height - 1 - floor) / 2;
        ExactDecision d = search.decide(at, per_probe, branching, deadline);
        plan.steps += d.steps;
        if (d.outcome == ExactOutcome::Fits) {
          plan.offsets = std::move(d.offsets);
          plan.height = exact_height(items, plan.offsets);
        } else if (d.outcome == ExactOutcome::DoesNotFit) {
          plan.lower_bound = std::max(plan.lower_bound, at + 1);
          floor = at + 1;
        } else if (d.timed_out) {
          plan.timed_out = true;
          return plan;
        } else {
          floor = at + 1;
        }
        if (bound_turn(2 * d.steps)) return plan;
        floor = std::max(floor, first + 1);
      }
    }
  }
  if (!probe(first, only_question ? left : std::max<int64_t>(left / 2, 1))) return plan;
  while (plan.lower_bound < plan.height && left > 0) {
    const uint64_t mid = plan.lower_bound + (plan.height - 1 - plan.lower_bound) / 2;
    if (!probe(mid, left)) break;
  }
  return plan;
}

}  // namespace devplan
