#include <harness/output/bundled_report_text.h>

#include <cstdio>

#include <harness/values/tensor_values.h>

namespace devplan::harness {

void write_bundled_report_text(const BundledTestReport& report, const Tolerances& tolerances,
                               std::ostream& out) {
  char tolerance[96];
  std::snprintf(tolerance, sizeof(tolerance), "rtol %g, atol %g", tolerances.rtol, tolerances.atol);
  out << "bundled program: " << report.cases.size() << " test cases (" << tolerance
      << "; the file gives no tolerances)\n";
  for (const TestCaseOutcome& t : report.cases) {
    out << t.method << " test case " << t.index << ": ";
    if (t.passed) {
      out << "pass (largest difference " << format_number(t.max_difference) << ")\n";
    } else {
      out << "FAIL: " << t.message << "\n";
    }
  }
  for (const std::string& line : report.leak_lines) out << "LEAK " << line << "\n";
  for (const std::string& line : report.misuse_lines) out << "MISUSE " << line << "\n";
  out << report.passed() << " passed, " << report.cases.size() - report.passed() << " failed\n";
}

}  // namespace devplan::harness
