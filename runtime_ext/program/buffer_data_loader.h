// BufferDataLoader: a DataLoader over bytes already in memory. It does not own them; they must
// outlive the loader (not the Program: Program::load copies what it needs).
//
//   std::vector<uint8_t> bytes = builder.build();
//   BufferDataLoader loader(bytes.data(), bytes.size());
//   Result<Program> program = Program::load(loader);
#pragma once

#include <runtime_ext/core/span.h>
#include <runtime_ext/program/data_loader.h>

#include <cstddef>
#include <cstdint>

namespace devplan {

class BufferDataLoader final : public DataLoader {
 public:
  // `data` may be null only when `size` is 0.
  BufferDataLoader(const void* data, size_t size)
      : data_(static_cast<const uint8_t*>(data)), size_(size) {}
  explicit BufferDataLoader(Span<const uint8_t> bytes)
      : BufferDataLoader(bytes.data(), bytes.size()) {}

  Result<size_t> size() const override { return size_; }
  Error load_into(size_t offset, size_t size, void* dst) override;

 private:
  const uint8_t* data_;
  size_t size_;
};

}  // namespace devplan
