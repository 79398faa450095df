#include <mocks/fused_tracking_path.h>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan {

void* FusedTrackingPath::allocate(size_t nbytes, DeviceIndex index, size_t alignment) {
  // The layers' checks, outermost first; the ledger's sequence number is taken only once the
  // call is ours, so a call handed to the layers takes exactly one.
  if (!devices_.accepts(alignment, index) || faults_.has_allocation_faults() ||
      !limits_.admits(nbytes, index)) {
    return nullptr;
  }
  void* ptr = store_.allocate_host(nbytes, alignment);
  if (ptr == nullptr) return nullptr;  // not host memory, or none left: the layers say which
  const uint64_t seq = sequence_.next();
  limits_.count_allocation(index, nbytes);
  stats_.count_allocation(index, nbytes);
  blocks_.add(seq, ptr, nbytes, alignment, Device(type_, index), allocation_owner_of_this_thread());
  return ptr;
}

bool FusedTrackingPath::free_if_live_on(void* ptr, DeviceIndex index) {
  const size_t block = blocks_.free_live_index_on(ptr, index);
  if (block == BlockRegistry::kNoBlock) return false;
  const size_t size = blocks_.at(block).size;
  stats_.count_free(index, size);
  limits_.count_free(index, size);
  store_.free_block(block);
  return true;
}

}  // namespace devplan
