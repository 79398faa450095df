// Text pieces that reports, error messages and test output share: lists joined with a
// separator, and pointers written as the misuse reports name them.
#pragma once

#include <string>

namespace devplan {

// The items of `items` through `format`, separated by `separator`: join({1, 2}, ", ",
// to_text) == "1, 2"; "" when there are none.
template <typename Items, typename Format>
std::string join(const Items& items, const std::string& separator, Format format) {
  std::string text;
  bool first = true;
  for (const auto& item : items) {
    if (!first) text += separator;
    first = false;
    text += format(item);
  }
  return text;
}

// Strings (or anything a std::string can be made of) joined with `separator`.
template <typename Items>
std::string join(const Items& items, const std::string& separator) {
  return join(items, separator, [](const auto& item) { return std::string(item); });
}

// "0x" and the address in lower-case hexadecimal ("0x0" for null).
std::string pointer_text(const void* ptr);

}  // namespace devplan
