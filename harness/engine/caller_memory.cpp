#include <harness/engine/caller_memory.h>

#include <utility>

#include <runtime_ext/core/allocation_owner.h>

namespace devplan::harness {

Result<CallerDeviceMemory> CallerDeviceMemory::allocate(DeviceAllocator* allocator, size_t nbytes,
                                                        Device device, const std::string& owner) {
  if (allocator == nullptr || allocator->device_type() != device.type) {
    return Error(ErrorCode::NotFound, owner + ": no device allocator for " + device.to_string());
  }
  CallerDeviceMemory memory;
  memory.allocator_ = allocator;
  memory.size_ = nbytes;
  memory.device_ = device;
  if (nbytes == 0) return memory;
  ScopedAllocationOwner scoped(owner);
  Result<void*> data = allocator->allocate(nbytes, device.index);
  if (!data.ok()) return data.error().with_context(owner);
  memory.data_ = *data;
  return memory;
}

CallerDeviceMemory::CallerDeviceMemory(CallerDeviceMemory&& other) noexcept
    : allocator_(other.allocator_), data_(std::exchange(other.data_, nullptr)),
      size_(other.size_), device_(other.device_) {}

CallerDeviceMemory& CallerDeviceMemory::operator=(CallerDeviceMemory&& other) noexcept {
  if (this != &other) {
    release();
    allocator_ = other.allocator_;
    data_ = std::exchange(other.data_, nullptr);
    size_ = other.size_;
    device_ = other.device_;
  }
  return *this;
}

CallerDeviceMemory::~CallerDeviceMemory() { release(); }

void CallerDeviceMemory::release() {
  if (data_ != nullptr) allocator_->deallocate(data_, device_.index);
  data_ = nullptr;
}

Error CallerDeviceMemory::fill(const void* host, size_t nbytes) const {
  if (nbytes == 0) return Error::success();
  if (nbytes > size_) {
    return Error(ErrorCode::InvalidArgument, std::to_string(nbytes) + " bytes do not fit in " +
                                                 std::to_string(size_) + " bytes of caller memory");
  }
  return allocator_->copy_host_to_device(data_, host, nbytes, device_.index);
}

}  // namespace devplan::harness
