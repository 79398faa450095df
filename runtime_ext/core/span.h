// Span<T>: a non-owning view of a contiguous range (C++17 has no std::span).
#pragma once

#include <cstddef>
#include <vector>

namespace devplan {

template <typename T>
class Span {
 public:
  constexpr Span() = default;
  constexpr Span(T* data, size_t size) : data_(data), size_(size) {}
  template <typename U, typename A>
  Span(std::vector<U, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <typename U, typename A>
  Span(const std::vector<U, A>& v) : data_(v.data()), size_(v.size()) {}  // NOLINT
  template <size_t N>
  constexpr Span(T (&array)[N]) : data_(array), size_(N) {}  // NOLINT

  constexpr T* data() const { return data_; }
  constexpr size_t size() const { return size_; }
  constexpr bool empty() const { return size_ == 0; }
  constexpr T& operator[](size_t i) const { return data_[i]; }
  constexpr T* begin() const { return data_; }
  constexpr T* end() const { return data_ + size_; }

 private:
  T* data_ = nullptr;
  size_t size_ = 0;
};

}  // namespace devplan
