// Blocks: sets of buffers that may be packed as one rectangle, found from the instance alone, so
// that an exact search can place a block like one buffer and pack its members apart.
//
// Where the sections on both sides of a point in time are full (their live bytes equal the
// capacity), the buffers that end at the point and those that start there cover the same bytes:
// each run of bytes they free is taken again. Their sizes split into balanced groups (some that
// end and some that start, of equal totals; the fewest buffers first), one group per such run
// as far as the sizes tell. A block is a set of buffers (or smaller blocks) closed under the
// groups at the points inside its time range: its live bytes are then the same at every point
// of that range (each group's ends and starts balance), so it fills a rectangle of that
// height. Blocks are formed smallest first, from the buffers up, until none is left to form;
// a rectangle cut into rectangles (by straight or pinwheel cuts) comes apart this way into
// pieces of a few buffers each.
//
// Packing a block as one buffer is a choice, not an inference: a plan built from the blocks
// (the top level packed, each block's members packed within its height) is always valid, but
// an instance may fit only with the members of a block apart. So a search that finds no plan
// from the blocks must still search the buffers themselves.
//
//   BlockTree tree = find_blocks(items, capacity);
//   for (int32_t b : tree.top) { ... tree.nodes[b] is a buffer or a block of tree.nodes ... }
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include <runtime_ext/planning/exact_planner.h>

namespace devplan {

struct BlockNode {
  uint64_t size = 0;             // bytes: the buffer's size, or the block's height
  int64_t lower = 0, upper = 0;  // lifetime [lower, upper)
  uint64_t alignment = 1;        // a block: its members' largest (all powers of two)
  int32_t item = -1;             // the input item of a buffer; -1 for a block
  std::vector<int32_t> members;  // a block: indices into BlockTree::nodes
  uint64_t key = 0;              // the set of input items it holds, as a hash
};

struct BlockTree {
  std::vector<BlockNode> nodes;  // one per input item with a size, then the blocks
  std::vector<int32_t> top;      // the nodes no block holds, in index order
  size_t blocks = 0;             // blocks formed
};

// The blocks of `items` at `capacity` (none when no two full sections meet), forming none whose
// key is in `refused`.
BlockTree find_blocks(const std::vector<ExactItem>& items, uint64_t capacity,
                      const std::vector<uint64_t>& refused = {});

}  // namespace devplan
