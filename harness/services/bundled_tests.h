// Running a bundled program's test sets (`devplan run` and `report` on a `.bpte`): each test case
// executes its method with the case's inputs, and every output is compared with the expected
// one as ExecuTorch's bundled-program check does: dtype and sizes equal; floating-point elements
// close, |actual - expected| <= atol + rtol * |expected| (NaN matches NaN); every other element
// equal. The file gives no tolerances: ExecuTorch's defaults (rtol 1e-5, atol 1e-8) apply unless
// the caller sets others.
//
//   Result<BundledTestReport> r = run_bundled_tests(image, file, options);
//   for (const TestCaseOutcome& c : r->cases) print(c.method, c.index, c.passed, c.message);
#pragma once

#include <string>
#include <vector>

#include <harness/engine/device_environment.h>
#include <harness/engine/missing_capability.h>
#include <harness/engine/program_image.h>
#include <harness/engine/runtime_kind.h>
#include <harness/services/memory_ceilings.h>
#include <runtime_ext/program/bundled_program.h>

namespace devplan::harness {

struct Tolerances {
  static constexpr double kDefaultRtol = 1e-5;  // ExecuTorch's verify_method_outputs defaults
  static constexpr double kDefaultAtol = 1e-8;
  double rtol = kDefaultRtol;
  double atol = kDefaultAtol;
};

struct BundledTestOptions {
  std::string method;  // empty: every test suite
  DeviceSetup device;  // --device, --device-map
  RuntimeKind runtime = RuntimeKind::Devplan;
  MemoryCeilings ceilings;
  Tolerances tolerances;
};

struct TestCaseOutcome {
  std::string method;
  size_t index = 0;  // within its method's suite
  bool passed = false;
  // Why it failed: the first mismatching output ("output 0 element 2: 13.5, expected 13
  // (difference 0.5 > 0.00013001)") or the run's error; "" when it passed.
  std::string message;
  double max_difference = 0;  // largest |actual - expected| over floating-point elements
  Error error;                // the run's error when the case did not run, else Ok
  MissingCapability missing;  // what the engine lacked when the case could not run for want of it
};

struct BundledTestReport {
  std::vector<TestCaseOutcome> cases;
  std::vector<std::string> leak_lines;  // from every case's run
  std::vector<std::string> misuse_lines;
  size_t passed() const;
};

// Runs the test cases of the bundled program `image` (the file `file`, as errors name it).
// InvalidArgument when it is no bundle; NotFound when `options.method` names no suite; a case that
// fails to run is an outcome, not an error.
Result<BundledTestReport> run_bundled_tests(const ProgramImage& image, const std::string& file,
                                            const BundledTestOptions& options);

}  // namespace devplan::harness
