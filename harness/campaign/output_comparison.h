// The output part of the differential check (differential_check.h): each method's outputs in
// runtime_ext and in ExecuTorch, where both could execute it.
//
//   std::optional<std::string> d = compare_method_outputs(ours, theirs, nullptr, &known);
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <harness/engine/engine.h>
#include <harness/engine/run_report.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

// What one engine did with one method.
struct MethodRun {
  std::string name;
  Error load;
  uint64_t allocate_calls = 0;  // device allocate() calls its load made
  std::optional<Result<std::vector<OutputValues>>> outputs;  // when executed
};

// Whether two engines' outputs agree: the same elements as text, except that in a
// floating-point output every NaN equals every NaN ("nan" and "-nan"): IEEE 754 leaves the sign
// and payload of a NaN result to the implementation. Every other value is compared exactly.
bool same_output_values(const std::vector<OutputValues>& a, const std::vector<OutputValues>& b);

// Whether `e` has `code` and its message contains `text`.
bool error_mentions(const Error& e, ErrorCode code, const char* text);

// What differs between runtime_ext's (`devplan`) and ExecuTorch's (`executorch`) executions of
// the same methods, in order, or nullopt: one executed and the other failed ("execute(forward):
// devplan ok; executorch ..."), or the values differ (same_output_values; "execute(forward)
// outputs: devplan [1, 2]; executorch [1, 3]"), for the methods named in `compared` (every
// method when null). Two known divergences are counted in `known` instead: ExecuTorch refusing
// host data for a device-planned input, runtime_ext missing a kernel ExecuTorch has.
std::optional<std::string> compare_method_outputs(const std::vector<MethodRun>& devplan,
                                                  const std::vector<MethodRun>& executorch,
                                                  const std::vector<std::string>* compared,
                                                  std::map<std::string, uint64_t>* known);

}  // namespace devplan::harness
