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
    : ForwardingDeviceAllocator(upstream), bug_(bug) {}

void UnloadBugAllocator::deallocate(void* ptr, DeviceIndex index) {
  if (ptr == nullptr) {
    upstream().deallocate(ptr, index);
    return;
  }
  switch (bug_) {
    case UnloadBug::None:
      upstream().deallocate(ptr, index);
      return;
    case UnloadBug::SkipFree:
      return;
    case UnloadBug::DoubleFree:
      upstream().deallocate(ptr, index);
      upstream().deallocate(ptr, index);
      return;
    case UnloadBug::WrongIndexFree:
      upstream().deallocate(ptr, static_cast<DeviceIndex>((index + 1) % (kMaxDeviceIndex + 1)));
      return;
  }
}

}  // namespace devplan
