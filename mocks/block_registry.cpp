#include <mocks/block_registry.h>

#include <algorithm>
#include <iterator>
#include <utility>

namespace devplan {
namespace {

uintptr_t address(const void* ptr) { return reinterpret_cast<uintptr_t>(ptr); }

}  // namespace

void BlockRegistry::add(AllocationRecord record) {
  const uintptr_t start = address(record.ptr);
  const size_t index = blocks_.size();
  blocks_.push_back(Block{std::move(record), true});
  AddressMap::node_type node =
      forget_released_overlapping(start, start + footprint(blocks_.back()));
  if (node.empty()) {
    live_.emplace(start, index);
    return;
  }
  node.key() = start;  // reuse the forgotten entry's node: one allocation less
  node.mapped() = index;
  live_.insert(std::move(node));
}

const BlockRegistry::Block* BlockRegistry::free_live(const void* ptr) {
  auto it = live_.find(address(ptr));
  if (it == live_.end()) return nullptr;
  const size_t index = it->second;
  // The entry moves to freed_ as it is (same address, same index), node and all.
  auto moved = freed_.insert(live_.extract(it));
  if (!moved.inserted) moved.position->second = index;
  held_.push_back(index);
  blocks_[index].record.live = false;
  return &blocks_[index];
}

void BlockRegistry::mark_released(const void* ptr) {
  const size_t index = take_held(ptr);
  if (index == kNone) return;
  blocks_[index].memory_held = false;
  remember_release(index);
}

const BlockRegistry::Block* BlockRegistry::freed_at(const void* ptr) const {
  auto it = freed_.find(address(ptr));
  return it == freed_.end() ? nullptr : &blocks_[it->second];
}

const BlockRegistry::Block* BlockRegistry::held_overlapping(const void* start_ptr,
                                                            size_t nbytes) const {
  const uintptr_t start = address(start_ptr);
  const uintptr_t end = nbytes > UINTPTR_MAX - start ? UINTPTR_MAX : start + nbytes;
  for (const AddressMap* map : {&live_, &freed_}) {
    auto it = map->lower_bound(end);
    while (it != map->begin()) {
      --it;
      const Block& block = blocks_[it->second];
      if (it->first + footprint(block) <= start) break;
      if (block.memory_held) return &block;
    }
  }
  return nullptr;
}

std::vector<const BlockRegistry::Block*> BlockRegistry::live_blocks() const {
  std::vector<size_t> indices;
  indices.reserve(live_.size());
  for (const auto& entry : live_) indices.push_back(entry.second);
  std::sort(indices.begin(), indices.end());  // blocks_ is in sequence order
  std::vector<const Block*> blocks;
  blocks.reserve(indices.size());
  for (size_t i : indices) blocks.push_back(&blocks_[i]);
  return blocks;
}

void BlockRegistry::clear() {
  blocks_.clear();
  live_.clear();
  freed_.clear();
  released_.clear();
  held_.clear();
}

uintptr_t BlockRegistry::footprint(const Block& block) {
  return block.record.size == 0 ? 1 : static_cast<uintptr_t>(block.record.size);
}

const BlockRegistry::Block* BlockRegistry::containing(const AddressMap& map,
                                                      const void* addr_ptr) const {
  const uintptr_t addr = address(addr_ptr);
  auto it = map.upper_bound(addr);
  if (it == map.begin()) return nullptr;
  --it;
  const Block& block = blocks_[it->second];
  if (addr - it->first >= footprint(block)) return nullptr;
  return &block;
}

BlockRegistry::AddressMap::node_type BlockRegistry::forget_released_overlapping(uintptr_t start,
                                                                                uintptr_t end) {
  // Entries never overlap one another (the invariant), so those overlapping [start, end) are
  // consecutive and end before the first entry starting at or after `end`.
  AddressMap::node_type forgotten;
  auto it = freed_.lower_bound(end);
  while (it != freed_.begin()) {
    auto prev = std::prev(it);
    if (prev->first + footprint(blocks_[prev->second]) <= start) break;
    forgotten = freed_.extract(prev);
  }
  return forgotten;
}

size_t BlockRegistry::take_held(const void* ptr) {
  // A quarantine releases the oldest freed block, or the newest at once when it does not keep
  // it: look at both ends of held_ before searching the map (blocks released from elsewhere in
  // held_ are dropped when they reach its front).
  while (!held_.empty() && !blocks_[held_.front()].memory_held) held_.pop_front();
  if (held_.empty()) return kNone;
  for (bool front : {true, false}) {
    const size_t index = front ? held_.front() : held_.back();
    if (blocks_[index].record.ptr != ptr) continue;
    if (front) {
      held_.pop_front();
    } else {
      held_.pop_back();
    }
    return index;
  }
  auto it = freed_.find(address(ptr));
  if (it == freed_.end() || !blocks_[it->second].memory_held) return kNone;
  return it->second;
}

void BlockRegistry::remember_release(size_t block_index) {
  released_.push_back(block_index);
  while (released_.size() > kRememberedReleases) {
    const size_t oldest = released_.front();
    released_.pop_front();
    auto it = freed_.find(address(blocks_[oldest].record.ptr));
    if (it != freed_.end() && it->second == oldest) freed_.erase(it);
  }
}

}  // namespace devplan
