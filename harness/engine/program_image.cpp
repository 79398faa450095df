#include <harness/engine/program_image.h>

#include <utility>

#include <runtime_ext/program/mmap_data_loader.h>

namespace devplan::harness {

ProgramImage::ProgramImage(std::vector<uint8_t> bytes) {
  auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  bytes_ = Span<const uint8_t>(owned->data(), owned->size());
  owner_ = std::move(owned);
}

Result<ProgramImage> ProgramImage::map(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(MmapDataLoader loader, MmapDataLoader::open(path));
  auto mapped = std::make_shared<const MmapDataLoader>(std::move(loader));
  ProgramImage image;
  image.bytes_ = mapped->bytes();
  image.owner_ = std::move(mapped);
  return image;
}

std::vector<uint8_t> ProgramImage::to_vector() const {
  return std::vector<uint8_t>(bytes_.begin(), bytes_.end());
}

Result<Program> ProgramImage::program() const { return Program::load_in_place(bytes_, owner_); }

}  // namespace devplan::harness
