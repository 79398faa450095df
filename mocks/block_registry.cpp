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
  const uintptr_t end = start + footprint(blocks_.back());
  // Entries never overlap one another (the invariant), so those overlapping [start, end) are
  // consecutive and end before the first entry starting at or after `end`; all are released
  // blocks (live and held ones are other host allocations).
  auto next = by_address_.lower_bound(end);
  while (next != by_address_.begin()) {
    auto prev = std::prev(next);
    if (prev->first + footprint(blocks_[prev->second]) <= start) break;
    unmap(prev->second);
  }
  AddressMap::iterator entry;
  if (spare_.empty()) {
    entry = by_address_.emplace_hint(next, start, index);
  } else {
    spare_.key() = start;
    spare_.mapped() = index;
    entry = by_address_.insert(next, std::move(spare_));
  }
  entries_.push_back(entry);
  ++live_count_;
}

const BlockRegistry::Block* BlockRegistry::free_live(const void* ptr) {
  auto it = by_address_.find(address(ptr));
  if (it == by_address_.end()) return nullptr;
  Block& block = blocks_[it->second];
  if (!block.record.live) return nullptr;
  return free_entry(it);
}

const BlockRegistry::Block* BlockRegistry::free_live_on(const void* ptr, DeviceIndex index) {
  auto it = by_address_.find(address(ptr));
  if (it == by_address_.end()) return nullptr;
  Block& block = blocks_[it->second];
  if (!block.record.live || block.record.device.index != index) return nullptr;
  return free_entry(it);
}

const BlockRegistry::Block* BlockRegistry::free_entry(AddressMap::iterator it) {
  Block& block = blocks_[it->second];
  block.record.live = false;
  --live_count_;
  held_.push_back(it->second);
  return &block;
}

void BlockRegistry::mark_released(const void* ptr) {
  const size_t index = take_held(ptr);
  if (index == kNone) return;
  blocks_[index].memory_held = false;
  remember_release(index);
}

const BlockRegistry::Block* BlockRegistry::live_at(const void* ptr) const {
  auto it = by_address_.find(address(ptr));
  if (it == by_address_.end() || !blocks_[it->second].record.live) return nullptr;
  return &blocks_[it->second];
}

const BlockRegistry::Block* BlockRegistry::freed_at(const void* ptr) const {
  auto it = by_address_.find(address(ptr));
  if (it == by_address_.end() || blocks_[it->second].record.live) return nullptr;
  return &blocks_[it->second];
}

const BlockRegistry::Block* BlockRegistry::live_containing(const void* addr) const {
  const Block* block = containing(addr);
  return block != nullptr && block->record.live ? block : nullptr;
}

const BlockRegistry::Block* BlockRegistry::freed_containing(const void* addr) const {
  const Block* block = containing(addr);
  return block != nullptr && !block->record.live ? block : nullptr;
}

const BlockRegistry::Block* BlockRegistry::held_overlapping(const void* start_ptr,
                                                            size_t nbytes) const {
  const uintptr_t start = address(start_ptr);
  const uintptr_t end = nbytes > UINTPTR_MAX - start ? UINTPTR_MAX : start + nbytes;
  const Block* held_freed = nullptr;
  auto it = by_address_.lower_bound(end);
  while (it != by_address_.begin()) {
    --it;
    const Block& block = blocks_[it->second];
    if (it->first + footprint(block) <= start) break;
    if (block.record.live) return &block;
    if (block.memory_held && held_freed == nullptr) held_freed = &block;
  }
  return held_freed;
}

std::vector<const BlockRegistry::Block*> BlockRegistry::live_blocks() const {
  std::vector<size_t> indices;
  indices.reserve(live_count_);
  for (const auto& entry : by_address_) {
    if (blocks_[entry.second].record.live) indices.push_back(entry.second);
  }
  std::sort(indices.begin(), indices.end());  // blocks_ is in sequence order
  std::vector<const Block*> blocks;
  blocks.reserve(indices.size());
  for (size_t i : indices) blocks.push_back(&blocks_[i]);
  return blocks;
}

void BlockRegistry::clear() {
  blocks_.clear();
  entries_.clear();
  by_address_.clear();
  released_.clear();
  held_.clear();
  live_count_ = 0;
}

uintptr_t BlockRegistry::footprint(const Block& block) {
  return block.record.size == 0 ? 1 : static_cast<uintptr_t>(block.record.size);
}

const BlockRegistry::Block* BlockRegistry::containing(const void* addr_ptr) const {
  const uintptr_t addr = address(addr_ptr);
  auto it = by_address_.upper_bound(addr);
  if (it == by_address_.begin()) return nullptr;
  --it;
  const Block& block = blocks_[it->second];
  if (addr - it->first >= footprint(block)) return nullptr;
  return &block;
}

void BlockRegistry::unmap(size_t index) {
  spare_ = by_address_.extract(entries_[index]);
  entries_[index] = by_address_.end();
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
  auto it = by_address_.find(address(ptr));
  if (it == by_address_.end()) return kNone;
  const Block& block = blocks_[it->second];
  if (block.record.live || !block.memory_held) return kNone;
  return it->second;
}

void BlockRegistry::remember_release(size_t block_index) {
  released_.push_back(block_index);
  while (released_.size() > kRememberedReleases) {
    const size_t oldest = released_.front();
    released_.pop_front();
    if (entries_[oldest] != by_address_.end()) unmap(oldest);
  }
}

}  // namespace devplan
