// The text `devplan run` prints for a bundled program's test cases:
//
//   bundled program: 2 test cases (rtol 1e-05, atol 1e-08; the file gives no tolerances)
//   forward test case 0: pass (largest difference 0)
//   forward test case 1: FAIL: output 0 element 2: 13.5, expected 13 (difference 0.5 > ...)
//   LEAK #3 cuda:0 48 B align 16 owner forward/buffer 1
//   MISUSE double free of #2 cuda:0 16 B owner forward/buffer 0
//   1 passed, 1 failed
#pragma once

#include <ostream>

#include <harness/services/bundled_tests.h>

namespace devplan::harness {

void write_bundled_report_text(const BundledTestReport& report, const Tolerances& tolerances,
                               std::ostream& out);

}  // namespace devplan::harness
