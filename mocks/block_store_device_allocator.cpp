#include <mocks/block_store_device_allocator.h>

#include <utility>

namespace devplan {

BlockStoreDeviceAllocator::BlockStoreDeviceAllocator(DeviceType type, std::string name,
                                                     DeviceAllocator* upstream)
    : memory_(type, std::move(name), upstream) {}

BlockStoreDeviceAllocator::~BlockStoreDeviceAllocator() {
  blocks_.for_each([this](const void* ptr, const HostBlock& block) {
    memory_.release(ptr, block.size, block.alignment, block.index);
  });
}

Result<void*> BlockStoreDeviceAllocator::allocate(size_t nbytes, DeviceIndex index,
                                                  size_t alignment) {
  Result<void*> ptr = memory_.allocate(nbytes, index, alignment);
  if (ptr.ok()) blocks_.insert(*ptr, HostBlock{nbytes, alignment, index, false});
  return ptr;
}

void BlockStoreDeviceAllocator::deallocate(void* ptr, DeviceIndex /*index*/) {
  HostBlock* block = blocks_.find(ptr);
  if (block == nullptr || block->quarantined) return;  // not ours to judge: ignored
  quarantine(ptr, *block);
}

void BlockStoreDeviceAllocator::deallocate_sized(void* ptr, size_t /*nbytes*/, DeviceIndex index) {
  deallocate(ptr, index);  // the map knows the size, and the alignment the host needs back
}

std::optional<LiveBlock> BlockStoreDeviceAllocator::find_live_block(const void* ptr) const {
  const HostBlock* block = blocks_.find(ptr);
  if (block == nullptr || block->quarantined) return std::nullopt;
  return LiveBlock{block->size, block->index};
}

Error BlockStoreDeviceAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                                     DeviceIndex index) {
  return memory_.copy_host_to_device(dst, src, nbytes, index);
}

Error BlockStoreDeviceAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                                     DeviceIndex index) {
  return memory_.copy_device_to_host(dst, src, nbytes, index);
}

void BlockStoreDeviceAllocator::set_quarantine_limits(size_t max_bytes, size_t max_blocks) {
  quarantine_.set_limits(max_bytes, max_blocks);
  quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

bool BlockStoreDeviceAllocator::is_quarantined(const void* ptr) const {
  const HostBlock* block = blocks_.find(ptr);
  return block != nullptr && block->quarantined;
}

void BlockStoreDeviceAllocator::read_held(const void* block_start, const void* ptr, size_t nbytes,
                                          void* out) const {
  const HostBlock& block = *blocks_.find(block_start);
  memory_.read(block_start, block.size, block.index, block.quarantined, ptr, nbytes, out);
}

void BlockStoreDeviceAllocator::release_quarantine() {
  quarantine_.evict_all([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

void BlockStoreDeviceAllocator::quarantine(const void* ptr, HostBlock& block) {
  block.quarantined = true;
  const size_t kept = memory_.on_free(ptr, block.size);
  if (!quarantine_.admits(kept)) {
    release(ptr);
    return;
  }
  memory_.poison_freed(const_cast<void*>(ptr), block.size, block.index);
  quarantine_.push({ptr, kept});
  quarantine_.evict_over_limits([this](const BlockQuarantine::Entry& e) { release(e.ptr); });
}

void BlockStoreDeviceAllocator::release(const void* ptr) {
  const HostBlock block = *blocks_.find(ptr);
  memory_.release(ptr, block.size, block.alignment, block.index);
  blocks_.erase(ptr);
  if (on_release_) on_release_(ptr);
}

}  // namespace devplan
