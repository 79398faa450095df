// What `devplan run` prints for an output too large to print in full: a few elements from each
// end, the range, the mean, how many NaN and infinities, and a checksum of the bytes, computed
// in one pass over the output's own bytes (nothing per element is kept).
//
//   if (summarized(output, full)) print(summarize_output(output));
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include <harness/engine/run_report.h>

namespace devplan::harness {

// Tensor outputs with more elements than this are summarized unless `run --full` is given.
constexpr size_t kFullOutputElements = 4096;
// Elements shown from each end of a summarized output.
constexpr size_t kSummaryEndElements = 5;

struct OutputSummary {
  size_t elements = 0;
  std::vector<std::string> first, last;  // element texts, as decode_values gives them
  std::string min, max;                  // over the elements that are not NaN ("" when none)
  double mean = 0.0;                     // of the elements that are not NaN (NaN when none)
  size_t nan = 0, inf = 0;               // floating-point dtypes only
  uint64_t fnv1a64 = 0;                  // FNV-1a (64-bit) of the output's bytes
};

// Whether run prints `output` as a summary: a tensor above kFullOutputElements, without --full.
bool summarized(const OutputValues& output, bool full);

// The summary of tensor output `output` (dtypes decode_values takes).
OutputSummary summarize_output(const OutputValues& output);

// "0123456789abcdef": 16 lowercase hex digits.
std::string checksum_text(uint64_t checksum);

}  // namespace devplan::harness
