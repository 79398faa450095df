#include <mocks/ledger_device_allocator.h>

#include <utility>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan {

LedgerDeviceAllocator::LedgerDeviceAllocator(DeviceAllocator* upstream,
                                             AllocationSequence* sequence, std::string name,
                                             BlockRegistry* blocks)
    : DeviceAllocatorAdaptor(upstream, std::move(name)),
      sequence_(sequence != nullptr ? sequence : &own_sequence_),
      blocks_(blocks != nullptr ? blocks : &own_blocks_) {}

Result<void*> LedgerDeviceAllocator::allocate(size_t nbytes, DeviceIndex index, size_t alignment) {
  const uint64_t seq = sequence_->next();  // failed calls take a number too
  Result<void*> ptr = upstream().allocate(nbytes, index, alignment);
  if (!ptr.ok()) {
    record_failure(seq, nbytes, index, alignment, ptr.error());
    return ptr;
  }
  blocks_->add(seq, *ptr, nbytes, alignment, Device(device_type(), index),
               allocation_owner_of_this_thread());
  return ptr;
}

void LedgerDeviceAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) return;  // as cudaFree(nullptr)
  const Device call_device(device_type(), index);
  const BlockRegistry::Block* freed = blocks_->free_live(ptr);
  if (freed == nullptr) {
    record_misuse(classify_bad_free(*blocks_, ptr, call_device), index, ptr);
    return;
  }
  const BlockRegistry::Block& r = *freed;
  if (r.device.index != index) record_misuse(wrong_device_free(*freed, call_device), index, ptr);
  forward_deallocate(ptr, r.size, r.device.index);
}

bool LedgerDeviceAllocator::deallocate_if_live_on(void* ptr, DeviceIndex index) {
  const BlockRegistry::Block* freed = blocks_->free_live_on(ptr, index);
  if (freed == nullptr) return false;
  forward_deallocate(ptr, freed->size, index);
  return true;
}

void LedgerDeviceAllocator::deallocate_sized(void* ptr, size_t /*nbytes*/, DeviceIndex index) {
  deallocate(ptr, index);
}

std::optional<LiveBlock> LedgerDeviceAllocator::find_live_block(const void* ptr) const {
  const BlockRegistry::Block* block = blocks_->live_at(ptr);
  if (block == nullptr) return std::nullopt;
  return LiveBlock{block->size, block->device.index};
}

const BlockRegistry::Block* LedgerDeviceAllocator::find_held(const void* ptr) const {
  const BlockRegistry::Block* block = blocks_->live_containing(ptr);
  if (block == nullptr) block = blocks_->freed_containing(ptr);
  if (block == nullptr || !block->memory_held) return nullptr;
  return block;
}

Error LedgerDeviceAllocator::check_nothing_live() const {
  const std::vector<const BlockRegistry::Block*> live = blocks_->live_blocks();
  if (live.empty()) return Error::success();
  std::string list;
  for (const BlockRegistry::Block* block : live) {
    if (!list.empty()) list += ", ";
    list += "#" + std::to_string(block->seq);
  }
  return error("reset", ErrorCode::InvalidState,
               std::to_string(live.size()) +
                   (live.size() == 1 ? " allocation is" : " allocations are") + " still live (" +
                   list + ")");
}

void LedgerDeviceAllocator::clear() {
  blocks_->clear();
  misuse_.clear();
  failed_.clear();
  sequence_->restart();
}

Error LedgerDeviceAllocator::copy(const DeviceCopy& c) {
  if (c.nbytes == 0) return Error::success();
  if (c.host_ptr() == nullptr) {
    const std::string device = Device(device_type(), c.index).to_string();
    return error(
        c.method(), ErrorCode::InvalidArgument,
        c.to_device()
            ? "host source is null (" + std::to_string(c.nbytes) + " B to " + device + ")"
            : "host destination is null (" + std::to_string(c.nbytes) + " B from " + device + ")");
  }
  if (std::optional<DetectedMisuse> misuse = find_copy_misuse(*blocks_, c, device_type())) {
    Error refused = error(c.method(), ErrorCode::InvalidArgument, misuse->line);
    record_misuse(std::move(*misuse), c.index, c.device_ptr());
    return refused;
  }
  return forward_copy(c);
}

void LedgerDeviceAllocator::record_failure(uint64_t seq, size_t nbytes, DeviceIndex index,
                                           size_t alignment, const Error& error) {
  FailedAllocation failed;
  failed.seq = seq;
  failed.device = Device(device_type(), index);
  failed.size = nbytes;
  failed.alignment = alignment;
  failed.owner = current_allocation_owner();
  failed.code = error.code();
  failed.reason = error.message();
  failed_.push_back(std::move(failed));
}

void LedgerDeviceAllocator::record_misuse(DetectedMisuse misuse, DeviceIndex index,
                                          const void* ptr) {
  MisuseRecord record;
  record.kind = misuse.kind;
  record.device = Device(device_type(), index);
  record.allocation_seq = misuse.block != nullptr ? misuse.block->seq : 0;
  record.ptr = ptr;
  record.message = std::move(misuse.line);
  misuse_.push_back(std::move(record));
}

}  // namespace devplan
