#include <harness/services/output_summary.h>

#include <cmath>
#include <cstdio>

#include <harness/values/tensor_values.h>
#include <runtime_ext/program/scalar_type.h>

namespace devplan::harness {

bool summarized(const OutputValues& output, bool full) {
  if (full || output.tag != ValueTag::Tensor) return false;
  return output.bytes.size() / element_size(output.dtype) > kFullOutputElements;
}

OutputSummary summarize_output(const OutputValues& output) {
  OutputSummary s;
  const ScalarType dtype = output.dtype;
  const std::vector<uint8_t>& bytes = output.bytes;
  s.elements = bytes.size() / element_size(dtype);
  const bool floating = is_floating_dtype(dtype);
  uint64_t hash = 0xcbf29ce484222325ull;
  for (uint8_t b : bytes) hash = (hash ^ b) * 0x100000001b3ull;
  s.fnv1a64 = hash;
  const size_t ends = std::min(kSummaryEndElements, s.elements);
  for (size_t i = 0; i < ends; ++i) s.first.push_back(element_text(bytes, i, dtype));
  for (size_t i = s.elements - ends; i < s.elements; ++i) {
    s.last.push_back(element_text(bytes, i, dtype));
  }
  // The extremes are kept as element indices, so their text is the element's own.
  size_t lowest = s.elements, highest = s.elements, counted = 0;
  double low = 0, high = 0, sum = 0;
  for (size_t i = 0; i < s.elements; ++i) {
    const double v = element_number(bytes, i, dtype);
    if (floating && std::isnan(v)) {
      ++s.nan;
      continue;
    }
    if (floating && std::isinf(v)) ++s.inf;
    if (lowest == s.elements || v < low) low = v, lowest = i;
    if (highest == s.elements || v > high) high = v, highest = i;
    sum += v;
    ++counted;
  }
  if (lowest < s.elements) s.min = element_text(bytes, lowest, dtype);
  if (highest < s.elements) s.max = element_text(bytes, highest, dtype);
  s.mean = counted > 0 ? sum / static_cast<double>(counted) : std::nan("");
  return s;
}

std::string checksum_text(uint64_t checksum) {
  char text[17];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(checksum));
  return text;
}

}  // namespace devplan::harness
