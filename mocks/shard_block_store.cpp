#include <mocks/shard_block_store.h>

#include <utility>

namespace devplan {

ShardBlockStore::ShardBlockStore(DeviceType type, std::string name, DeviceAllocator* upstream,
                                 BlockRegistry* blocks)
    : memory_(type, std::move(name), upstream), blocks_(blocks) {}

ShardBlockStore::~ShardBlockStore() {
  blocks_->for_each_held([this](const BlockRegistry::Block& block) {
    memory_.release(block.ptr, block.size, block.alignment, block.device.index);
  });
}

void ShardBlockStore::deallocate(void* ptr, DeviceIndex index) {
  deallocate_sized(ptr, 0, index);  // the ledger knows the size
}

void ShardBlockStore::deallocate_sized(void* ptr, size_t /*nbytes*/, DeviceIndex /*index*/) {
  const size_t block = blocks_->index_at(ptr);
  if (block == BlockRegistry::kNoBlock) return;
  const BlockRegistry::Block& freed = blocks_->at(block);
  if (freed.live || !freed.memory_held) return;  // not freed by the ledger, or released already
  free_block(block);
}

std::optional<LiveBlock> ShardBlockStore::find_live_block(const void* ptr) const {
  const BlockRegistry::Block* block = blocks_->live_at(ptr);
  if (block == nullptr) return std::nullopt;
  return LiveBlock{block->size, block->device.index};
}

void ShardBlockStore::free_block(size_t block) {
  const BlockRegistry::Block& freed = blocks_->at(block);
  void* const ptr = const_cast<void*>(freed.ptr);
  const size_t kept = memory_.on_free(ptr, freed.size);
  if (!quarantine_.admits(kept)) {
    release(block);
    return;
  }
  memory_.poison_freed(ptr, freed.size, freed.device.index);
  quarantine_.push({ptr, kept, block});
  quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.block); });
}

void ShardBlockStore::set_quarantine_limits(size_t max_bytes, size_t max_blocks) {
  quarantine_.set_limits(max_bytes, max_blocks);
  quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.block); });
}

bool ShardBlockStore::is_quarantined(const void* ptr) const {
  const size_t block = blocks_->index_at(ptr);
  if (block == BlockRegistry::kNoBlock) return false;
  const BlockRegistry::Block& found = blocks_->at(block);
  return !found.live && found.memory_held;
}

void ShardBlockStore::read_held(const BlockRegistry::Block& block, const void* ptr, size_t nbytes,
                                void* out) const {
  memory_.read(block.ptr, block.size, block.device.index, !block.live, ptr, nbytes, out);
}

void ShardBlockStore::release_quarantine() {
  quarantine_.evict_all([this](const BlockQuarantine::Entry& e) { release(e.block); });
}

void ShardBlockStore::release(size_t block) {
  const BlockRegistry::Block& freed = blocks_->at(block);
  memory_.release(freed.ptr, freed.size, freed.alignment, freed.device.index);
  blocks_->mark_released_at(block);
}

}  // namespace devplan
