#include <harness/services/bundled_tests.h>

#include <cmath>
#include <cstdlib>

#include <harness/engine/run_report.h>
#include <harness/services/run.h>
#include <harness/values/small_float.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {

std::string sizes_text(const std::vector<int32_t>& sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) text += (i ? ", " : "") + std::to_string(sizes[i]);
  return text + "]";
}

// A value as `devplan run --input` takes it.
Result<std::string> input_text(const BundledValue& v) {
  switch (v.tag) {
    case ValueTag::Int:
      return std::to_string(v.int_value);
    case ValueTag::Bool:
      return std::string(v.bool_value ? "1" : "0");
    case ValueTag::Double:
      return format_number(v.double_value);
    default:
      break;
  }
  DEVPLAN_ASSIGN_OR_RETURN(
      std::vector<std::string> values,
      decode_values(std::vector<uint8_t>(v.data.begin(), v.data.end()), v.dtype));
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) text += (i ? "," : "") + values[i];
  return text;
}

// The expected value's elements as text, as an output prints them.
Result<std::vector<std::string>> expected_values(const BundledValue& v) {
  switch (v.tag) {
    case ValueTag::Int:
      return std::vector<std::string>{std::to_string(v.int_value)};
    case ValueTag::Bool:
      return std::vector<std::string>{v.bool_value ? "true" : "false"};
    case ValueTag::Double:
      return std::vector<std::string>{format_number(v.double_value)};
    default:
      return decode_values(std::vector<uint8_t>(v.data.begin(), v.data.end()), v.dtype);
  }
}

// The exact value of an element printed as `text` (the shortest text that reads back to it):
// the text read and rounded to `dtype` again.
double element_value(const std::string& text, ScalarType dtype) {
  const double x = std::strtod(text.c_str(), nullptr);
  if (dtype == ScalarType::Float) return static_cast<double>(static_cast<float>(x));
  if (const SmallFloatFormat* format = small_float_format_of(dtype)) {
    Result<uint32_t> bits = encode_small_float(*format, x);
    return bits.ok() ? decode_small_float(*format, *bits) : x;
  }
  return x;
}

// "" when `actual` matches `expected`; else why not. Updates *max_difference.
std::string compare_output(const OutputValues& actual, const BundledValue& expected,
                           const Tolerances& tolerances, double* max_difference) {
  const std::string name = "output " + std::to_string(actual.index);
  if (actual.tag != expected.tag) {
    return name + ": a " + value_tag_name(actual.tag) + ", expected a " +
           value_tag_name(expected.tag);
  }
  if (expected.tag == ValueTag::Tensor) {
    if (actual.dtype != expected.dtype) {
      return name + ": dtype " + scalar_type_name(actual.dtype) + ", expected " +
             scalar_type_name(expected.dtype);
    }
    if (actual.sizes != expected.sizes) {
      return name + ": sizes " + sizes_text(actual.sizes) + ", expected " +
             sizes_text(expected.sizes);
    }
  }
  Result<std::vector<std::string>> want = expected_values(expected);
  if (!want.ok()) return name + ": " + want.error().message();
  Result<std::vector<std::string>> got = output_texts(actual);
  if (!got.ok()) return name + ": " + got.error().message();
  if (want->size() != got->size()) {
    return name + ": " + std::to_string(got->size()) + " elements, expected " +
           std::to_string(want->size());
  }
  const bool floating = expected.tag == ValueTag::Double ||
                        (expected.tag == ValueTag::Tensor && is_floating_dtype(expected.dtype));
  for (size_t i = 0; i < want->size(); ++i) {
    const std::string& a = (*got)[i];
    const std::string& e = (*want)[i];
    const std::string where = name + " element " + std::to_string(i) + ": " + a + ", expected " + e;
    if (!floating) {
      if (a != e) return where;
      continue;
    }
    const ScalarType dtype = expected.tag == ValueTag::Tensor ? expected.dtype : ScalarType::Double;
    const double x = element_value(a, dtype);
    const double y = element_value(e, dtype);
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) && std::isnan(y)) continue;
      return where;
    }
    if (x == y) continue;  // equal infinities too
    const double difference = std::fabs(x - y);
    const double allowed = tolerances.atol + tolerances.rtol * std::fabs(y);
    if (std::isfinite(difference)) *max_difference = std::max(*max_difference, difference);
    if (!(difference <= allowed)) {
      return where + " (difference " + format_number(difference) + " > " + format_number(allowed) +
             ")";
    }
  }
  return "";
}

TestCaseOutcome run_case(const ProgramImage& image, const std::string& file,
                         const std::string& method, const BundledTestCase& test, size_t index,
                         const BundledTestOptions& options, BundledTestReport* report) {
  TestCaseOutcome outcome;
  outcome.method = method;
  outcome.index = index;
  std::vector<std::string> inputs;
  for (size_t i = 0; i < test.inputs.size(); ++i) {
    Result<std::string> text = input_text(test.inputs[i]);
    if (!text.ok()) {
      outcome.message = "input " + std::to_string(i) + ": " + text.error().message();
      return outcome;
    }
    inputs.push_back(*text);
  }
  bool usage_error = false;
  Result<RunReport> run =
      run_program_image(image, file, method, inputs, &usage_error, options.device, options.runtime,
                        options.ceilings, {}, &outcome.missing);
  if (!run.ok()) {
    outcome.error = run.error();
    outcome.message = run.error().to_string();
    return outcome;
  }
  report->leak_lines.insert(report->leak_lines.end(), run->leak_lines.begin(),
                            run->leak_lines.end());
  report->misuse_lines.insert(report->misuse_lines.end(), run->misuse_lines.begin(),
                              run->misuse_lines.end());
  if (run->outputs.size() != test.expected_outputs.size()) {
    outcome.message = std::to_string(run->outputs.size()) + " outputs, expected " +
                      std::to_string(test.expected_outputs.size());
    return outcome;
  }
  for (size_t o = 0; o < run->outputs.size(); ++o) {
    const std::string why = compare_output(run->outputs[o], test.expected_outputs[o],
                                           options.tolerances, &outcome.max_difference);
    if (!why.empty()) {
      outcome.message = why;
      return outcome;
    }
  }
  outcome.passed = true;
  return outcome;
}

}  // namespace

size_t BundledTestReport::passed() const {
  size_t n = 0;
  for (const TestCaseOutcome& c : cases) n += c.passed ? 1 : 0;
  return n;
}

Result<BundledTestReport> run_bundled_tests(const ProgramImage& image, const std::string& file,
                                            const BundledTestOptions& options) {
  if (image.bundled() == nullptr) {
    return Error(ErrorCode::InvalidArgument, file + ": not a bundled program");
  }
  const BundledProgram& bundle = *image.bundled();
  BundledTestReport report;
  bool found = options.method.empty();
  for (const BundledTestSuite& suite : bundle.suites) {
    if (!options.method.empty() && suite.method_name != options.method) continue;
    found = true;
    for (size_t c = 0; c < suite.cases.size(); ++c) {
      report.cases.push_back(
          run_case(image, file, suite.method_name, suite.cases[c], c, options, &report));
    }
  }
  if (!found) {
    return Error(ErrorCode::NotFound,
                 "the bundled program has no test set for method '" + options.method + "'");
  }
  return report;
}

}  // namespace devplan::harness
