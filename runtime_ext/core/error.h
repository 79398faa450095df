// Error: an ExecuTorch-compatible error code with a short message saying what failed and where.
//
// Nothing in runtime_ext throws or aborts; every failure is returned as an Error (or inside a
// Result<T>). The codes keep ExecuTorch's numeric values so logs compare across runtimes.
//
//   Error err = allocator.copy_host_to_device(dst, src, n, 0);
//   if (!err.ok()) return err.with_context("forward/buffer 1");
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <utility>

namespace devplan {

enum class ErrorCode : uint32_t {
  Ok = 0x00,
  Internal = 0x01,
  InvalidState = 0x02,
  EndOfMethod = 0x03,
  NotSupported = 0x10,
  NotImplemented = 0x11,
  InvalidArgument = 0x12,
  InvalidType = 0x13,
  OperatorMissing = 0x14,
  AlreadyRegistered = 0x16,
  NotFound = 0x20,
  MemoryAllocationFailed = 0x21,
  AccessFailed = 0x22,
  InvalidProgram = 0x23,
  InvalidExternalData = 0x24,
  OutOfResources = 0x25,
  DelegateInvalidCompatibility = 0x30,
  DelegateMemoryAllocationFailed = 0x31,
  DelegateInvalidHandle = 0x32,
};

// The code's name as written in reports and JSON ("InvalidProgram").
const char* error_code_name(ErrorCode code);

// An error code plus a message. Cheap to pass when ok (no message is stored).
class [[nodiscard]] Error {
 public:
  Error() = default;
  Error(ErrorCode code) : code_(code) {}  // NOLINT: implicit, as ExecuTorch's enum converts.
  Error(ErrorCode code, std::string message) : code_(code), message_(std::move(message)) {}

  static Error success() { return Error(); }

  bool ok() const { return code_ == ErrorCode::Ok; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // "InvalidProgram: method 'forward': ..." or "Ok".
  std::string to_string() const;

  // Prefixes the message with where the error happened: "<context>: <message>".
  Error with_context(const std::string& context) const;

  friend bool operator==(const Error& e, ErrorCode c) { return e.code_ == c; }
  friend bool operator!=(const Error& e, ErrorCode c) { return e.code_ != c; }

 private:
  ErrorCode code_ = ErrorCode::Ok;
  std::string message_;
};

std::ostream& operator<<(std::ostream& os, ErrorCode code);
std::ostream& operator<<(std::ostream& os, const Error& error);

}  // namespace devplan

// Returns the Error from the enclosing function when `expr` (an Error) is not ok.
#define DEVPLAN_RETURN_IF_ERROR(expr)            \
  do {                                           \
    ::devplan::Error devplan_err_ = (expr);      \
    if (!devplan_err_.ok()) return devplan_err_; \
  } while (0)

#define DEVPLAN_CONCAT_INNER_(a, b) a##b
#define DEVPLAN_CONCAT_(a, b) DEVPLAN_CONCAT_INNER_(a, b)

// Evaluates `rexpr` (a Result<T>); on error returns its Error, else moves the value into `lhs`
// (a declaration such as `auto x` or an existing variable).
#define DEVPLAN_ASSIGN_OR_RETURN(lhs, rexpr) \
  DEVPLAN_ASSIGN_OR_RETURN_IMPL_(DEVPLAN_CONCAT_(devplan_result_, __LINE__), lhs, rexpr)
// lhs is a declaration or an lvalue and cannot be parenthesized.
// NOLINTBEGIN(bugprone-macro-parentheses)
#define DEVPLAN_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, rexpr) \
  auto tmp = (rexpr);                                   \
  if (!tmp.ok()) return tmp.error();                    \
  lhs = std::move(tmp).value()
// NOLINTEND(bugprone-macro-parentheses)
