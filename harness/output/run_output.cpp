#include <harness/output/run_output.h>

#include <harness/json/json.h>
#include <harness/output/json_document.h>
#include <harness/services/output_summary.h>
#include <harness/values/number_text.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {

// "1, 2, 3"
std::string list_text(const std::vector<std::string>& items) {
  std::string text;
  for (size_t i = 0; i < items.size(); ++i) text += (i ? ", " : "") + items[i];
  return text;
}

// "output 0: float32[2, 2] on cpu:0 = [1, 2, 3, 4]", element by element (a full print of a huge
// output holds no text of all of it), or the summary of a large one.
void print_output(std::ostream& out, const OutputValues& o, bool full) {
  out << "output " << o.index << ": ";
  if (o.tag != ValueTag::Tensor) {
    out << value_tag_name(o.tag) << " = [" << list_text(o.values) << "]\n";
    return;
  }
  out << scalar_type_name(o.dtype) << "[";
  for (size_t i = 0; i < o.sizes.size(); ++i) out << (i ? ", " : "") << o.sizes[i];
  out << "] on " << o.device.to_string();
  if (summarized(o, full)) {
    const OutputSummary s = summarize_output(o);
    out << ": " << s.elements << " elements, first [" << list_text(s.first) << "], last ["
        << list_text(s.last) << "], min " << (s.min.empty() ? "-" : s.min) << ", max "
        << (s.max.empty() ? "-" : s.max) << ", mean " << format_number(s.mean);
    if (is_floating_dtype(o.dtype)) out << ", " << s.nan << " NaN, " << s.inf << " Inf";
    out << ", fnv1a64 " << checksum_text(s.fnv1a64) << " (--full prints every element)\n";
    return;
  }
  out << " = [";
  const size_t n = o.bytes.size() / element_size(o.dtype);
  for (size_t i = 0; i < n; ++i) out << (i ? ", " : "") << element_text(o.bytes, i, o.dtype);
  out << "]\n";
}

}  // namespace

void print_run_text(std::ostream& out, const RunReport& report, bool full) {
  if (!report.device_map.empty()) out << "device map: " << report.device_map << "\n";
  out << "method " << report.method << ": " << report.outputs.size() << " outputs\n";
  for (const OutputValues& o : report.outputs) print_output(out, o, full);
  for (const std::string& line : report.leak_lines) out << "LEAK " << line << "\n";
  for (const std::string& line : report.misuse_lines) out << "MISUSE " << line << "\n";
}

std::string bundled_tests_json(const BundledTestReport& report, RuntimeKind runtime,
                               const Tolerances& tolerances) {
  Json doc = json_document();
  doc["runtime"] = runtime_name(runtime);
  doc["rtol"] = tolerances.rtol;
  doc["atol"] = tolerances.atol;
  Json cases = Json::array();
  for (const TestCaseOutcome& t : report.cases) {
    Json j = {{"method", t.method},
              {"test_case", t.index},
              {"passed", t.passed},
              {"max_difference", t.max_difference}};
    if (!t.passed) j["message"] = t.message;
    cases.push_back(std::move(j));
  }
  doc["test_cases"] = std::move(cases);
  doc["passed"] = report.passed();
  doc["failed"] = report.cases.size() - report.passed();
  doc["leaks"] = report.leak_lines;
  doc["misuse"] = report.misuse_lines;
  return write_json(doc);
}

}  // namespace devplan::harness
