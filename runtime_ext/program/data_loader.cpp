#include <runtime_ext/program/data_loader.h>

#include <string>

namespace devplan {

Result<AlignedBytes> DataLoader::load(size_t offset, size_t size) {
  DEVPLAN_ASSIGN_OR_RETURN(AlignedBytes bytes, AlignedBytes::allocate(size));
  if (size != 0) DEVPLAN_RETURN_IF_ERROR(load_into(offset, size, bytes.data()));
  return bytes;
}

Error check_load_range(size_t offset, size_t size, size_t total, const char* what) {
  if (offset > total || size > total - offset) {
    return Error(ErrorCode::InvalidArgument, "cannot load " + std::to_string(size) +
                                                 " bytes at offset " + std::to_string(offset) +
                                                 " from a " + what + " of " +
                                                 std::to_string(total) + " bytes");
  }
  return Error::success();
}

}  // namespace devplan
