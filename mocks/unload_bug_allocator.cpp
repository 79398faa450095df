#include <mocks/unload_bug_allocator.h>

namespace devplan {

const char* unload_bug_name(UnloadBug bug) {
  switch (bug) {
    case UnloadBug::None:
      return "none";
    case UnloadBug::SkipFree:
      return "skip-free";
    case UnloadBug::DoubleFree:
      return "double-free";
    case UnloadBug::WrongIndexFree:
      return "wrong-index-free";
  }
  return "?";
}

Result<UnloadBug> parse_unload_bug(const std::string& text) {
  for (UnloadBug bug :
       {UnloadBug::None, UnloadBug::SkipFree, UnloadBug::DoubleFree, UnloadBug::WrongIndexFree}) {
    if (text == unload_bug_name(bug)) return bug;
  }
  return Error(ErrorCode::InvalidArgument,
               "unknown unload bug '" + text +
                   "' (expected none, skip-free, double-free or wrong-index-free)");
}

UnloadBugAllocator::UnloadBugAllocator(DeviceAllocator* upstream, UnloadBug bug)
    : upstream_(upstream), bug_(bug) {}

Result<void*> UnloadBugAllocator::allocate(size_t nbytes, DeviceIndex index, size_t alignment) {
  return upstream_->allocate(nbytes, index, alignment);
}

void UnloadBugAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) {
    upstream_->deallocate(ptr, index);
    return;
  }
  switch (bug_) {
    case UnloadBug::None:
      upstream_->deallocate(ptr, index);
      return;
    case UnloadBug::SkipFree:
      return;
    case UnloadBug::DoubleFree:
      upstream_->deallocate(ptr, index);
      upstream_->deallocate(ptr, index);
      return;
    case UnloadBug::WrongIndexFree:
      upstream_->deallocate(ptr, static_cast<DeviceIndex>((index + 1) % (kMaxDeviceIndex + 1)));
      return;
  }
}

Error UnloadBugAllocator::copy_host_to_device(void* dst, const void* src, size_t nbytes,
                                              DeviceIndex index) {
  return upstream_->copy_host_to_device(dst, src, nbytes, index);
}

Error UnloadBugAllocator::copy_device_to_host(void* dst, const void* src, size_t nbytes,
                                              DeviceIndex index) {
  return upstream_->copy_device_to_host(dst, src, nbytes, index);
}

}  // namespace devplan
