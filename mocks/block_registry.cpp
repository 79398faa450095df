#include <mocks/block_registry.h>

#include <algorithm>
#include <iterator>
#include <utility>

namespace devplan {
namespace {

uintptr_t address(const void* ptr) { return reinterpret_cast<uintptr_t>(ptr); }

// How many of the latest distinct labels a new label is compared with before it is stored.
constexpr size_t kLabelsCompared = 8;

}  // namespace

AllocationRecord BlockRegistry::Block::record() const {
  AllocationRecord r;
  r.seq = seq;
  r.device = device;
  r.size = size;
  r.alignment = alignment;
  r.owner = owner();
  r.ptr = ptr;
  r.live = live;
  return r;
}

void BlockRegistry::add(uint64_t seq, const void* ptr, size_t size, size_t alignment, Device device,
                        const AllocationOwner& owner) {
  const size_t index = blocks_.size();
  Block& block = blocks_.emplace_back();
  block.seq = seq;
  block.ptr = ptr;
  block.size = size;
  block.alignment = alignment;
  block.owner_label = intern_label(owner);
  block.owner_buffer = owner.buffer();
  block.device = device;
  // A released block at the same start is forgotten at once; one that overlaps otherwise, when
  // the ordered index is next brought up to date (see the header comment).
  if (size_t* previous = by_start_.find(ptr)) {
    blocks_[*previous].mapped = false;
    *previous = index;
  } else {
    by_start_.insert(ptr, index);
  }
  ordered_stale_ = true;
  ++live_count_;
}

const BlockRegistry::Block* BlockRegistry::free_live(const void* ptr) {
  const size_t* index = by_start_.find(ptr);
  if (index == nullptr || !blocks_[*index].live) return nullptr;
  return free_index(*index);
}

const BlockRegistry::Block* BlockRegistry::free_live_on(const void* ptr, DeviceIndex device) {
  const size_t index = free_live_index_on(ptr, device);
  return index == kNoBlock ? nullptr : &blocks_[index];
}

size_t BlockRegistry::free_live_index_on(const void* ptr, DeviceIndex device) {
  const size_t* index = by_start_.find(ptr);
  if (index == nullptr) return kNoBlock;
  const Block& block = blocks_[*index];
  if (!block.live || block.device.index != device) return kNoBlock;
  free_index(*index);
  return *index;
}

const BlockRegistry::Block* BlockRegistry::free_index(size_t index) {
  Block& block = blocks_[index];
  block.live = false;
  --live_count_;
  return &block;
}

void BlockRegistry::mark_released(const void* ptr) {
  const size_t* index = by_start_.find(ptr);  // a block holding memory is always found by start
  if (index != nullptr) mark_released_at(*index);
}

void BlockRegistry::mark_released_at(size_t index) {
  Block& block = blocks_[index];
  if (block.live || !block.memory_held) return;
  block.memory_held = false;
  remember_release(index);
}

const BlockRegistry::Block* BlockRegistry::live_at(const void* ptr) const {
  const size_t* index = by_start_.find(ptr);
  if (index == nullptr || !blocks_[*index].live) return nullptr;
  return &blocks_[*index];
}

const BlockRegistry::Block* BlockRegistry::freed_at(const void* ptr) const {
  update_ordered();  // a released block overlapped by a newer one is forgotten
  const size_t* index = by_start_.find(ptr);
  if (index == nullptr || blocks_[*index].live) return nullptr;
  return &blocks_[*index];
}

const BlockRegistry::Block* BlockRegistry::live_containing(const void* addr) const {
  const Block* block = containing(addr);
  return block != nullptr && block->live ? block : nullptr;
}

const BlockRegistry::Block* BlockRegistry::freed_containing(const void* addr) const {
  const Block* block = containing(addr);
  return block != nullptr && !block->live ? block : nullptr;
}

const BlockRegistry::Block* BlockRegistry::held_overlapping(const void* start_ptr,
                                                            size_t nbytes) const {
  update_ordered();
  const uintptr_t start = address(start_ptr);
  const uintptr_t end = nbytes > UINTPTR_MAX - start ? UINTPTR_MAX : start + nbytes;
  const Block* held_freed = nullptr;
  auto it = std::lower_bound(ordered_.begin(), ordered_.end(), Entry{end, 0});
  while (it != ordered_.begin()) {
    --it;
    const Block& block = blocks_[it->second];
    if (it->first + footprint(block) <= start) break;
    if (block.live) return &block;
    if (block.memory_held && held_freed == nullptr) held_freed = &block;
  }
  return held_freed;
}

std::vector<const BlockRegistry::Block*> BlockRegistry::live_blocks() const {
  std::vector<size_t> indices;
  indices.reserve(live_count_);
  by_start_.for_each([&](const void*, size_t index) {
    if (blocks_[index].live) indices.push_back(index);
  });
  std::sort(indices.begin(), indices.end());  // blocks_ is in sequence order
  std::vector<const Block*> blocks;
  blocks.reserve(indices.size());
  for (size_t i : indices) blocks.push_back(&blocks_[i]);
  return blocks;
}

void BlockRegistry::clear() {
  blocks_.clear();
  by_start_.clear();
  ordered_.clear();
  ordered_upto_ = 0;
  ordered_stale_ = false;
  released_.clear();
  released_next_ = 0;
  live_count_ = 0;
  labels_.clear();
  last_owner_label_.reset();
  last_stored_label_ = nullptr;
}

uintptr_t BlockRegistry::footprint(const Block& block) {
  return block.size == 0 ? 1 : static_cast<uintptr_t>(block.size);
}

const std::string* BlockRegistry::intern_label(const AllocationOwner& owner) {
  const std::string* label = owner.label();
  if (label == nullptr) return nullptr;
  if (label == last_owner_label_.get()) return last_stored_label_;
  // Holding the label keeps its address from naming another text while it is the last one.
  last_owner_label_ = owner.shared_label();
  const size_t compared = std::min(labels_.size(), kLabelsCompared);
  for (size_t i = labels_.size() - compared; i < labels_.size(); ++i) {
    if (*labels_[i] == *label) return last_stored_label_ = labels_[i].get();
  }
  labels_.push_back(owner.shared_label());
  return last_stored_label_ = label;
}

const BlockRegistry::Block* BlockRegistry::containing(const void* addr_ptr) const {
  update_ordered();
  const uintptr_t addr = address(addr_ptr);
  auto it = std::upper_bound(ordered_.begin(), ordered_.end(), Entry{addr, SIZE_MAX});
  if (it == ordered_.begin()) return nullptr;
  --it;
  const Block& block = blocks_[it->second];
  if (addr - it->first >= footprint(block)) return nullptr;
  return &block;
}

void BlockRegistry::update_ordered() const {
  if (!ordered_stale_) return;
  std::vector<Entry> added;
  for (size_t index = ordered_upto_; index < blocks_.size(); ++index) {
    if (blocks_[index].mapped) added.emplace_back(address(blocks_[index].ptr), index);
  }
  ordered_upto_ = blocks_.size();
  std::sort(added.begin(), added.end());
  std::vector<Entry> merged;
  merged.reserve(ordered_.size() + added.size());
  auto unmapped = [&](const Entry& e) { return !blocks_[e.second].mapped; };
  ordered_.erase(std::remove_if(ordered_.begin(), ordered_.end(), unmapped), ordered_.end());
  std::merge(ordered_.begin(), ordered_.end(), added.begin(), added.end(),
             std::back_inserter(merged));
  // Of two overlapping blocks the older goes (a released one: live and held blocks never
  // overlap); the kept ones are disjoint, so only the last kept one can overlap the next.
  ordered_.clear();
  for (const Entry& entry : merged) {
    bool dropped = false;
    while (!ordered_.empty() &&
           ordered_.back().first + footprint(blocks_[ordered_.back().second]) > entry.first) {
      if (ordered_.back().second > entry.second) {
        unmap(entry.second);
        dropped = true;
        break;
      }
      unmap(ordered_.back().second);
      ordered_.pop_back();
    }
    if (!dropped) ordered_.push_back(entry);
  }
  ordered_stale_ = false;
}

void BlockRegistry::unmap(size_t index) const {
  Block& block = blocks_[index];
  block.mapped = false;
  const size_t* entry = by_start_.find(block.ptr);
  if (entry != nullptr && *entry == index) by_start_.erase(block.ptr);
  ordered_stale_ = true;
}

void BlockRegistry::remember_release(size_t block_index) {
  if (released_.size() < kRememberedReleases) {
    released_.push_back(block_index);
    return;
  }
  // The window is full: its oldest release falls out (and is forgotten unless forgotten already).
  size_t& oldest = released_[released_next_];
  if (blocks_[oldest].mapped) unmap(oldest);
  oldest = block_index;
  released_next_ = (released_next_ + 1) % kRememberedReleases;
}

}  // namespace devplan
