// MmapDataLoader: a DataLoader over a memory-mapped file (read-only, private), as ExecuTorch's
// extension/data_loader has one. Reading a program through it costs one copy (into the
// Program) instead of two (a read buffer, then the Program's copy); bytes() gives the mapping
// itself to code that only looks.
//
//   Result<MmapDataLoader> loader = MmapDataLoader::open("model.pte");
//   if (!loader.ok()) return loader.error();   // the errors of open_regular_file
//   Result<Program> program = Program::load(*loader);
//
// The loader owns the mapping (unmapped by the destructor; a moved-from loader owns nothing).
// An empty file maps nothing and has size 0. The file must not shrink while it is mapped.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include <runtime_ext/core/span.h>
#include <runtime_ext/program/data_loader.h>

namespace devplan {

class MmapDataLoader final : public DataLoader {
 public:
  // Opens and maps `path`. AccessFailed naming the path and the reason when it is not a
  // readable regular file or cannot be mapped.
  static Result<MmapDataLoader> open(const std::string& path);

  MmapDataLoader(MmapDataLoader&& other) noexcept;
  MmapDataLoader& operator=(MmapDataLoader&& other) noexcept;
  MmapDataLoader(const MmapDataLoader&) = delete;
  MmapDataLoader& operator=(const MmapDataLoader&) = delete;
  ~MmapDataLoader() override;

  const std::string& path() const { return path_; }
  // The whole file, mapped (empty for an empty file or a moved-from loader).
  Span<const uint8_t> bytes() const { return Span<const uint8_t>(data_, size_); }

  Result<size_t> size() const override;
  Error load_into(size_t offset, size_t size, void* dst) override;

 private:
  MmapDataLoader(const uint8_t* data, size_t size, std::string path)
      : data_(data), size_(size), path_(std::move(path)), open_(true) {}
  void unmap();

  const uint8_t* data_ = nullptr;
  size_t size_ = 0;
  std::string path_;
  bool open_ = false;  // false once moved from
};

}  // namespace devplan
