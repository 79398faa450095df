#include <harness/engine/program_image.h>

#include <utility>

#include <runtime_ext/program/mmap_data_loader.h>

namespace devplan::harness {

ProgramImage::ProgramImage(std::vector<uint8_t> bytes) {
  Result<ProgramImage> image = from_bytes(std::move(bytes));
  if (image.ok()) {
    *this = std::move(*image);
  } else {
    bundle_error_ = image.error();
  }
}

Result<ProgramImage> ProgramImage::from_bytes(std::vector<uint8_t> bytes) {
  auto owned = std::make_shared<const std::vector<uint8_t>>(std::move(bytes));
  ProgramImage image;
  image.file_bytes_ = image.bytes_ = Span<const uint8_t>(owned->data(), owned->size());
  image.owner_ = std::move(owned);
  if (Error e = image.open_bundle(); !e.ok()) return e;
  return image;
}

Result<ProgramImage> ProgramImage::map(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(MmapDataLoader loader, MmapDataLoader::open(path));
  auto mapped = std::make_shared<const MmapDataLoader>(std::move(loader));
  ProgramImage image;
  image.file_bytes_ = image.bytes_ = mapped->bytes();
  image.owner_ = std::move(mapped);
  if (Error e = image.open_bundle(); !e.ok()) return e;
  return image;
}

Error ProgramImage::open_bundle() {
  if (!is_bundled_program(file_bytes_)) return Error::success();
  DEVPLAN_ASSIGN_OR_RETURN(BundledProgram bundle, BundledProgram::parse(file_bytes_));
  bytes_ = bundle.program;
  bundle_ = std::make_shared<const BundledProgram>(std::move(bundle));
  return Error::success();
}

std::vector<uint8_t> ProgramImage::to_vector() const {
  return std::vector<uint8_t>(bytes_.begin(), bytes_.end());
}

Result<Program> ProgramImage::program() const {
  if (!bundle_error_.ok()) return bundle_error_;
  return Program::load_in_place(bytes_, owner_);
}

Result<Program> load_program_file(const std::string& path) {
  DEVPLAN_ASSIGN_OR_RETURN(ProgramImage image, ProgramImage::map(path));
  return image.program();
}

}  // namespace devplan::harness
