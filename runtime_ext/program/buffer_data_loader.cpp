#include <runtime_ext/program/buffer_data_loader.h>

#include <cstring>

namespace devplan {

Error BufferDataLoader::load_into(size_t offset, size_t size, void* dst) {
  DEVPLAN_RETURN_IF_ERROR(check_load_range(offset, size, size_, "buffer"));
  if (size != 0) std::memcpy(dst, data_ + offset, size);
  return Error::success();
}

}  // namespace devplan
