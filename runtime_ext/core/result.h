// Result<T>: either a value of T or an Error, never both. The value is only read after ok():
// value(), operator* and operator-> on an error Result print the error and abort (as Abseil's
// StatusOr and ExecuTorch's CheckOk do) instead of reading a value that is not there.
//
//   Result<DeviceMemoryBuffer> buf = DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0);
//   if (!buf.ok()) return buf.error();
//   use(buf->data());
#pragma once

#include <optional>
#include <type_traits>
#include <utility>

#include <runtime_ext/core/error.h>

namespace devplan {

// Prints "devplan: Result read without a value: <error>" to stderr and aborts.
[[noreturn]] void abort_reading_error_result(const Error& error);

template <typename T>
class [[nodiscard]] Result {
  static_assert(!std::is_reference<T>::value, "Result<T&> is not supported; use a pointer");

 public:
  Result(T value) : value_(std::move(value)) {}  // NOLINT: implicit by design.
  // An error Result. An ok Error here is a programming mistake and becomes Internal.
  Result(Error error) : error_(std::move(error)) {  // NOLINT
    if (error_.ok())
      error_ = Error(ErrorCode::Internal, "Result constructed from Ok without a value");
  }
  Result(ErrorCode code) : Result(Error(code)) {}  // NOLINT

  bool ok() const { return value_.has_value(); }
  const Error& error() const { return error_; }
  ErrorCode code() const { return error_.code(); }

  T& value() & { return checked(); }
  const T& value() const& { return checked(); }
  T&& value() && { return std::move(checked()); }

  T& operator*() & { return checked(); }
  const T& operator*() const& { return checked(); }
  T* operator->() { return &checked(); }
  const T* operator->() const { return &checked(); }

 private:
  T& checked() {
    if (!value_.has_value()) abort_reading_error_result(error_);
    return *value_;
  }
  const T& checked() const {
    if (!value_.has_value()) abort_reading_error_result(error_);
    return *value_;
  }

  std::optional<T> value_;
  Error error_;
};

}  // namespace devplan
