// How `devplan run` prints its result: the text of one method's execution, and the JSON document
// of a bundled program's test cases (their text is bundled_report_text.h; an execution's JSON is
// run_json in json_reports.h).
#pragma once

#include <ostream>
#include <string>

#include <harness/engine/run_report.h>
#include <harness/engine/runtime_kind.h>
#include <harness/services/bundled_tests.h>

namespace devplan::harness {

// "method forward: 1 outputs", then each output ("output 0: float32[2, 2] on cpu:0 = [1, 2, 3,
// 4]", or the summary of a large one unless `full`), then LEAK and MISUSE lines; the device map
// first when there is one.
void print_run_text(std::ostream& out, const RunReport& report, bool full);

// {"runtime", "rtol", "atol", "test_cases": [{"method", "test_case", "passed",
//  "max_difference", "message" (when failed)}], "passed", "failed", "leaks", "misuse"}
std::string bundled_tests_json(const BundledTestReport& report, RuntimeKind runtime,
                               const Tolerances& tolerances);

}  // namespace devplan::harness
