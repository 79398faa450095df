#include <harness/values/number_text.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace devplan::harness {
namespace {

// Whole numbers below 1e15 in plain digits ("20", not "2e+01", which %g picks at low
// precision); "" for anything else.
std::string whole_number_text(double value) {
  if (!(std::fabs(value) < 1e15) || value != std::trunc(value)) return "";
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.0f", value);
  return buf;
}

}  // namespace

std::string format_number(double value) {
  std::string whole = whole_number_text(value);
  if (!whole.empty()) return whole;
  char buf[64];
  for (int precision = 1; precision <= 17; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, value);
    if (std::strtod(buf, nullptr) == value) break;
  }
  return buf;
}

std::string format_float(float value) {
  std::string whole = whole_number_text(static_cast<double>(value));
  if (!whole.empty()) return whole;
  char buf[64];
  for (int precision = 1; precision <= 9; ++precision) {
    std::snprintf(buf, sizeof(buf), "%.*g", precision, static_cast<double>(value));
    if (std::strtof(buf, nullptr) == value) break;
  }
  return buf;
}

}  // namespace devplan::harness
