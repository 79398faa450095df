// FileDataLoader: a DataLoader that reads a file with positioned reads. It owns the open file
// descriptor (closed by the destructor; a moved-from loader owns nothing).
//
//   Result<FileDataLoader> loader = FileDataLoader::open("fixtures/programs/cpu_add.pte");
//   if (!loader.ok()) return loader.error();   // AccessFailed: cannot open '...': No such file
//   Result<Program> program = Program::load(*loader);
#pragma once

#include <runtime_ext/program/data_loader.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace devplan {

class FileDataLoader final : public DataLoader {
 public:
  // Opens `path` for reading and records its size. AccessFailed naming the path and the
  // system's reason when it cannot be opened or is not a regular file.
  static Result<FileDataLoader> open(const std::string& path);

  FileDataLoader(FileDataLoader&& other) noexcept;
  FileDataLoader& operator=(FileDataLoader&& other) noexcept;
  FileDataLoader(const FileDataLoader&) = delete;
  FileDataLoader& operator=(const FileDataLoader&) = delete;
  ~FileDataLoader() override;

  const std::string& path() const { return path_; }

  // The file's size when it was opened.
  Result<size_t> size() const override;
  Error load_into(size_t offset, size_t size, void* dst) override;

 private:
  FileDataLoader(int fd, size_t size, std::string path)
      : fd_(fd), size_(size), path_(std::move(path)) {}
  void close_fd();

  int fd_ = -1;
  size_t size_ = 0;
  std::string path_;
};

// The whole file at `path`, read through a FileDataLoader: AccessFailed naming the path and the
// reason when it cannot be read (directories, FIFOs and devices are refused), and
// MemoryAllocationFailed when it does not fit in memory.
Result<std::vector<uint8_t>> read_file(const std::string& path);

}  // namespace devplan
