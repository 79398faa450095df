#include <harness/options/byte_size.h>

#include <cctype>

namespace devplan::cli {
namespace {

struct Unit {
  const char* name;  // lower case
  uint64_t factor;
};

constexpr uint64_t kKi = 1024;
constexpr uint64_t kMi = kKi * kKi;
constexpr uint64_t kGi = kMi * kKi;
constexpr uint64_t kTi = kGi * kKi;
const Unit kUnits[] = {
    {"", 1},
    {"b", 1},
    {"k", kKi},
    {"kib", kKi},
    {"m", kMi},
    {"mib", kMi},
    {"g", kGi},
    {"gib", kGi},
    {"t", kTi},
    {"tib", kTi},
    {"kb", 1000},
    {"mb", uint64_t{1000} * 1000},
    {"gb", uint64_t{1000} * 1000 * 1000},
    {"tb", uint64_t{1000} * 1000 * 1000 * 1000},
};

Error bad_size(const std::string& text, const std::string& why) {
  return Error(ErrorCode::InvalidArgument,
               "invalid byte size '" + text + "': " + why +
                   " (expected a whole number of bytes with an optional unit: 4096, 512KiB, "
                   "64MB, 1GiB)");
}

// a * b, or false on overflow.
bool multiply(uint64_t a, uint64_t b, uint64_t* out) {
  if (a != 0 && b > UINT64_MAX / a) return false;
  *out = a * b;
  return true;
}

}  // namespace

Result<uint64_t> parse_byte_size(const std::string& text) {
  size_t i = 0;
  uint64_t whole = 0;
  size_t digits = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
    const uint64_t d = static_cast<uint64_t>(text[i] - '0');
    if (whole > (UINT64_MAX - d) / 10) return bad_size(text, "too large");
    whole = whole * 10 + d;
    ++i;
    ++digits;
  }
  if (digits == 0) return bad_size(text, "no number");
  // Fraction digits as numerator / 10^n, kept exact.
  uint64_t frac_num = 0, frac_den = 1;
  if (i < text.size() && text[i] == '.') {
    ++i;
    size_t frac_digits = 0;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) {
      if (frac_digits == 18) return bad_size(text, "too many fraction digits");
      frac_num = frac_num * 10 + static_cast<uint64_t>(text[i] - '0');
      frac_den *= 10;
      ++i;
      ++frac_digits;
    }
    if (frac_digits == 0) return bad_size(text, "no digits after '.'");
  }
  std::string unit;
  for (; i < text.size(); ++i) {
    unit += static_cast<char>(std::tolower(static_cast<unsigned char>(text[i])));
  }
  const Unit* found = nullptr;
  for (const Unit& u : kUnits) {
    if (unit == u.name) found = &u;
  }
  if (found == nullptr)
    return bad_size(text, "unknown unit '" + text.substr(text.size() - unit.size()) + "'");
  uint64_t bytes = 0;
  if (!multiply(whole, found->factor, &bytes)) return bad_size(text, "too large");
  if (frac_num != 0) {
    // factor * num must divide evenly by den: the fraction has to name whole bytes.
    uint64_t scaled = 0;
    if (!multiply(frac_num, found->factor, &scaled)) return bad_size(text, "too large");
    if (scaled % frac_den != 0) return bad_size(text, "not a whole number of bytes");
    const uint64_t extra = scaled / frac_den;
    if (bytes > UINT64_MAX - extra) return bad_size(text, "too large");
    bytes += extra;
  }
  return bytes;
}

}  // namespace devplan::cli
