// Tight offset-assignment instances: a capacity-by-time rectangle cut into rectangles, each a
// buffer (its height the size, its width the lifetime). The pieces tile the rectangle, so every
// point in time has exactly `capacity` live bytes and the optimum equals the capacity by
// construction, while the lower bound gives no slack to a planner that places a buffer wrong.
//
// Cuts: guillotine cuts (one straight cut across a piece, in time or in space) and, with
// probability `pinwheel_chance` per cut, a non-guillotine "pinwheel" (five pieces around a
// centre, no straight cut across), which greedy orders and guillotine-based searches find hard.
// Pieces are chosen larger first (the larger of two random pieces); ids are shuffled at the
// end, so the order of the items says nothing about the tiling.
//
//   TightInstanceOptions o;  o.buffers = 200;  o.seed = 7;
//   std::vector<ExactItem> items = generate_tight_instance(o);   // packs into o.capacity
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <runtime_ext/planning/exact_planner.h>

namespace devplan {

struct TightInstanceOptions {
  size_t buffers = 100;          // pieces to cut (fewer when the rectangle runs out of room)
  uint64_t capacity = 1 << 20;   // bytes
  int64_t duration = 1000;       // steps: lifetimes lie in [0, duration)
  double pinwheel_chance = 0.1;  // per cut, a non-guillotine cut instead of a straight one
  uint64_t seed = 1;
};

// Items with alignment 1, sizes >= 1 and lifetimes of at least one step.
std::vector<ExactItem> generate_tight_instance(const TightInstanceOptions& options);

}  // namespace devplan
