// ChunkedVector: an append-only sequence whose elements never move (a reference stays valid as it
// grows), indexed in O(1) with a shift and a mask. It is stored in chunks of 2^kChunkShift
// elements, each allocated when the sequence reaches it; the memory of a chunk is touched only
// as elements are added to it.
//
//   ChunkedVector<BlockRegistry::Block> blocks;
//   BlockRegistry::Block& block = blocks.emplace_back();   // value-initialized
//   const BlockRegistry::Block& first = blocks[0];
//
// Why not std::deque, which also keeps its elements in place: its chunks are 512 bytes, a few
// elements of a record such as the ledger's Block, so it allocates (and grows its chunk map)
// every few elements, and its index divides by a number of elements that is not a power of two.
// The ledger appends one Block per allocation and indexes blocks on every free and release.
//
// Not synchronized.
#pragma once

#include <cstddef>
#include <new>
#include <type_traits>
#include <vector>

namespace devplan {

template <typename T, unsigned kChunkShift = 12>
class ChunkedVector {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__, "chunks come from operator new");

 public:
  static constexpr size_t kChunkSize = size_t{1} << kChunkShift;

  ChunkedVector() = default;
  ~ChunkedVector() { clear(); }
  ChunkedVector(const ChunkedVector&) = delete;
  ChunkedVector& operator=(const ChunkedVector&) = delete;

  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }

  T& operator[](size_t i) { return chunks_[i >> kChunkShift][i & (kChunkSize - 1)]; }
  const T& operator[](size_t i) const { return chunks_[i >> kChunkShift][i & (kChunkSize - 1)]; }
  T& back() { return (*this)[size_ - 1]; }

  // Appends a value-initialized element and returns it.
  T& emplace_back() {
    if ((size_ & (kChunkSize - 1)) == 0 && (size_ >> kChunkShift) == chunks_.size()) {
      chunks_.push_back(static_cast<T*>(::operator new(sizeof(T) * kChunkSize)));
    }
    T* slot = &chunks_[size_ >> kChunkShift][size_ & (kChunkSize - 1)];
    ::new (static_cast<void*>(slot)) T{};
    ++size_;
    return *slot;
  }

  // Destroys every element and frees every chunk.
  void clear() {
    if constexpr (!std::is_trivially_destructible_v<T>) {
      for (size_t i = 0; i < size_; ++i) (*this)[i].~T();
    }
    for (T* chunk : chunks_) ::operator delete(chunk);
    chunks_.clear();
    size_ = 0;
  }

 private:
  std::vector<T*> chunks_;  // chunk k holds elements [k * kChunkSize, (k + 1) * kChunkSize)
  size_t size_ = 0;
};

}  // namespace devplan
