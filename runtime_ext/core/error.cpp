#include <runtime_ext/core/error.h>
#include <runtime_ext/core/result.h>

#include <cstdio>
#include <cstdlib>

#include <cstring>

namespace devplan {
namespace {

struct CodeName {
  ErrorCode code;
  const char* name;
};

constexpr CodeName kCodeNames[] = {
    {ErrorCode::Ok, "Ok"},
    {ErrorCode::Internal, "Internal"},
    {ErrorCode::InvalidState, "InvalidState"},
    {ErrorCode::EndOfMethod, "EndOfMethod"},
    {ErrorCode::NotSupported, "NotSupported"},
    {ErrorCode::NotImplemented, "NotImplemented"},
    {ErrorCode::InvalidArgument, "InvalidArgument"},
    {ErrorCode::InvalidType, "InvalidType"},
    {ErrorCode::OperatorMissing, "OperatorMissing"},
    {ErrorCode::AlreadyRegistered, "AlreadyRegistered"},
    {ErrorCode::NotFound, "NotFound"},
    {ErrorCode::MemoryAllocationFailed, "MemoryAllocationFailed"},
    {ErrorCode::AccessFailed, "AccessFailed"},
    {ErrorCode::InvalidProgram, "InvalidProgram"},
    {ErrorCode::InvalidExternalData, "InvalidExternalData"},
    {ErrorCode::OutOfResources, "OutOfResources"},
    {ErrorCode::DelegateInvalidCompatibility, "DelegateInvalidCompatibility"},
    {ErrorCode::DelegateMemoryAllocationFailed, "DelegateMemoryAllocationFailed"},
    {ErrorCode::DelegateInvalidHandle, "DelegateInvalidHandle"},
};

}  // namespace

const char* error_code_name(ErrorCode code) {
  for (const CodeName& entry : kCodeNames) {
    if (entry.code == code) return entry.name;
  }
  return "Unknown";
}

std::string Error::to_string() const {
  std::string text = error_code_name(code_);
  if (!message_.empty()) {
    text += ": ";
    text += message_;
  }
  return text;
}

Error Error::with_context(const std::string& context) const {
  if (ok()) return *this;
  if (message_.empty()) return Error(code_, context);
  return Error(code_, context + ": " + message_);
}

std::ostream& operator<<(std::ostream& os, ErrorCode code) { return os << error_code_name(code); }

std::ostream& operator<<(std::ostream& os, const Error& error) { return os << error.to_string(); }

void abort_reading_error_result(const Error& error) {
  std::fprintf(stderr, "devplan: Result read without a value: %s\n", error.to_string().c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace devplan
