// The tracking allocator's block registry against a model of every block: after any sequence of
// adds (blocks that touch their neighbours, reuse the address of a released block or land inside
// one), frees and releases, every lookup by start, by contained address and by overlapping range
// finds the block the model says, probed at each block's first byte, its last, the byte before
// it and the first byte after it (where the next block may start).
#include <cstdint>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <mocks/block_registry.h>

#include "property.h"

namespace devplan::testing {
namespace {

constexpr uintptr_t kBase = 0x100000;  // addresses are never dereferenced

struct ModelBlock {
  uintptr_t start = 0;
  size_t size = 0;
  bool live = true;
  bool held = true;    // memory not yet released
  bool mapped = true;  // still found by address
  uintptr_t footprint() const { return size == 0 ? 1 : size; }
  bool overlaps(uintptr_t begin, uintptr_t end) const {
    return start < end && start + footprint() > begin;
  }
};

const void* at(uintptr_t address) { return reinterpret_cast<const void*>(address); }

// The index of the mapped block whose footprint holds `addr`, or -1.
int containing(const std::vector<ModelBlock>& blocks, uintptr_t addr) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].mapped && blocks[i].overlaps(addr, addr + 1)) return static_cast<int>(i);
  }
  return -1;
}

int starting_at(const std::vector<ModelBlock>& blocks, uintptr_t addr) {
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].mapped && blocks[i].start == addr) return static_cast<int>(i);
  }
  return -1;
}

// held_overlapping as documented: a live block overlapping the range if there is one, else one
// whose memory is held; of several, the one that starts last.
int held_overlapping(const std::vector<ModelBlock>& blocks, uintptr_t begin, size_t n) {
  int live = -1, held = -1;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const ModelBlock& b = blocks[i];
    if (!b.mapped || !b.overlaps(begin, begin + n)) continue;
    if (b.live && (live < 0 || b.start > blocks[size_t(live)].start)) live = int(i);
    if (!b.live && b.held && (held < 0 || b.start > blocks[size_t(held)].start)) held = int(i);
  }
  return live >= 0 ? live : held;
}

const BlockRegistry::Block* expected(const BlockRegistry& registry, int index) {
  return index < 0 ? nullptr : &registry.at(static_cast<size_t>(index));
}

void check_lookups(const BlockRegistry& registry, const std::vector<ModelBlock>& blocks) {
  std::vector<uintptr_t> probes = {kBase - 1, kBase};
  for (const ModelBlock& b : blocks) {
    for (uintptr_t p :
         {b.start - 1, b.start, b.start + b.footprint() - 1, b.start + b.footprint()}) {
      probes.push_back(p);
    }
  }
  for (uintptr_t p : probes) {
    const int c = containing(blocks, p);
    const int s = starting_at(blocks, p);
    const bool c_live = c >= 0 && blocks[size_t(c)].live;
    const bool s_live = s >= 0 && blocks[size_t(s)].live;
    RC_ASSERT(registry.live_containing(at(p)) == expected(registry, c_live ? c : -1));
    RC_ASSERT(registry.freed_containing(at(p)) == expected(registry, c >= 0 && !c_live ? c : -1));
    RC_ASSERT(registry.live_at(at(p)) == expected(registry, s_live ? s : -1));
    RC_ASSERT(registry.freed_at(at(p)) == expected(registry, s >= 0 && !s_live ? s : -1));
    for (size_t n : {size_t{0}, size_t{1}, size_t{16}, size_t{100}}) {
      RC_ASSERT(registry.held_overlapping(at(p), n) ==
                expected(registry, held_overlapping(blocks, p, n)));
    }
  }
  std::vector<const BlockRegistry::Block*> live;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].live) live.push_back(&registry.at(i));
  }
  RC_ASSERT(registry.live_blocks() == live);
  RC_ASSERT(registry.live_count() == live.size());
}

DEVPLAN_PROP(BlockRegistry, LookupsFindWhatTheModelHoldsAtEveryEdge, ()) {
  BlockRegistry registry;
  std::vector<ModelBlock> blocks;
  const int steps = *rc::gen::inRange(1, 50);
  for (int step = 0; step < steps; ++step) {
    const int action = *rc::gen::inRange(0, 10);
    if (action < 5 || blocks.empty()) {
      ModelBlock b;
      b.size = *rc::gen::element<size_t>(0, 1, 8, 16, 24, 48);
      const int where = *rc::gen::inRange(0, 3);
      if (where == 0 && !blocks.empty()) {
        // Right after another block's last byte: the two touch.
        const ModelBlock& other = blocks[*rc::gen::inRange<size_t>(0, blocks.size())];
        b.start = other.start + other.footprint();
      } else if (where == 1 && !blocks.empty()) {
        // At or inside another block (taken only if that one's memory was released).
        const ModelBlock& other = blocks[*rc::gen::inRange<size_t>(0, blocks.size())];
        b.start = other.start + *rc::gen::inRange<uintptr_t>(0, other.footprint());
      } else {
        b.start = kBase + *rc::gen::inRange<uintptr_t>(0, 256);
      }
      bool free_space = true;  // live and held blocks are distinct host allocations
      for (const ModelBlock& other : blocks) {
        if (other.held && other.overlaps(b.start, b.start + b.footprint())) free_space = false;
      }
      if (!free_space) continue;
      // A released block the new one overlaps is forgotten.
      for (ModelBlock& other : blocks) {
        if (other.mapped && other.overlaps(b.start, b.start + b.footprint())) other.mapped = false;
      }
      registry.add(blocks.size() + 1, at(b.start), b.size, 16, Device::cuda(0), AllocationOwner());
      blocks.push_back(b);
    } else if (action < 8) {
      // Free: a live block's start (taken), or any other probe (refused, nothing changes).
      const size_t i = *rc::gen::inRange<size_t>(0, blocks.size());
      const uintptr_t p = blocks[i].start + *rc::gen::element<uintptr_t>(0, 0, 1);
      const int s = starting_at(blocks, p);
      const bool frees = s >= 0 && blocks[size_t(s)].live;
      RC_ASSERT(registry.free_live(at(p)) == expected(registry, frees ? s : -1));
      if (frees) blocks[size_t(s)].live = false;
    } else {
      // Release a freed block's memory (no-op for anything else).
      const size_t i = *rc::gen::inRange<size_t>(0, blocks.size());
      registry.mark_released(at(blocks[i].start));
      const int s = starting_at(blocks, blocks[i].start);
      if (s >= 0 && !blocks[size_t(s)].live) blocks[size_t(s)].held = false;
    }
    if (*rc::gen::inRange(0, 4) == 0) check_lookups(registry, blocks);
  }
  check_lookups(registry, blocks);
  RC_ASSERT(registry.size() == blocks.size());
}

}  // namespace
}  // namespace devplan::testing
