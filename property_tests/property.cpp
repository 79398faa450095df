#include "property.h"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <random>
#include <set>
#include <sstream>

namespace devplan::testing {
namespace {

std::string binary_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "<property test binary>";
  return std::string(buf, static_cast<size_t>(n));
}

// Whether RC_PARAMS text `text` sets the parameter `field`: parsed over two defaults that differ
// there, it gives the same value only when it sets it. (A malformed text sets nothing here;
// RapidCheck reports it when it reads its configuration.)
template <typename T>
bool rc_params_set(const char* text, T rc::detail::TestParams::*field) {
  if (text == nullptr) return false;
  rc::detail::Configuration one, other;
  one.testParams.*field = 1;
  other.testParams.*field = 2;
  try {
    return rc::detail::configFromString(text, one).testParams.*field ==
           rc::detail::configFromString(text, other).testParams.*field;
  } catch (const rc::detail::ConfigurationException&) {
    return false;
  }
}

// Puts the gate seed into RC_PARAMS (when it has none) before RapidCheck reads it, so that the
// configuration line RapidCheck prints names the seed in use.
void put_gate_seed_into_environment() {
  static const bool done = [] {
    const char* text = std::getenv("RC_PARAMS");
    if (rc_params_set(text, &rc::detail::TestParams::seed)) return true;
    std::string value = text == nullptr ? "" : text;
    value += (value.empty() ? "" : " ") + std::string("seed=") + std::to_string(kGateSeed);
    setenv("RC_PARAMS", value.c_str(), 1);
    return true;
  }();
  (void)done;
}

class QuietListener : public rc::detail::TestListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription&) override {}
  void onShrinkTried(const rc::detail::CaseDescription&, bool) override {}
  void onTestFinished(const rc::detail::TestMetadata&, const rc::detail::TestResult&) override {}
};

// FNV-1a over every case's outcome and drawn values, in the order RapidCheck draws them.
class CaseDigest : public QuietListener {
 public:
  void onTestCaseFinished(const rc::detail::CaseDescription& c) override {
    if (c.result.type != rc::detail::CaseResult::Type::Discard) ++cases;
    mix(std::to_string(static_cast<int>(c.result.type)));
    if (!c.example) return;
    for (const auto& [type, value] : c.example()) {
      mix(type);
      mix(value);
    }
  }
  int cases = 0;
  uint64_t digest = 14695981039346656037ull;

 private:
  void mix(const std::string& text) {
    for (const char ch : text) {
      digest ^= static_cast<uint8_t>(ch);
      digest *= 1099511628211ull;
    }
    digest ^= 0xff;  // separates one string from the next
    digest *= 1099511628211ull;
  }
};

rc::detail::TestMetadata current_metadata() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  rc::detail::TestMetadata metadata;
  metadata.id = std::string(info->test_suite_name()) + "/" + info->name();
  metadata.description = info->name();
  return metadata;
}

std::string current_test_name() {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  return std::string(info->test_suite_name()) + "." + info->name();
}

std::string hex(uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "%016llx", static_cast<unsigned long long>(value));
  return text;
}

std::vector<uint64_t> random_seeds(int count) {
  std::random_device device;
  std::vector<uint64_t> seeds;
  for (int i = 0; i < count; ++i) seeds.push_back((uint64_t{device()} << 32) ^ device());
  return seeds;
}

}  // namespace

rc::detail::TestParams gate_params(const char* rc_params,
                                   const rc::detail::TestParams& configured) {
  rc::detail::TestParams params = configured;
  if (!rc_params_set(rc_params, &rc::detail::TestParams::seed)) params.seed = kGateSeed;
  if (!rc_params_set(rc_params, &rc::detail::TestParams::maxSuccess)) {
    params.maxSuccess = kDefaultPropertyCases;
  }
  return params;
}

rc::detail::TestParams property_params() {
  put_gate_seed_into_environment();
  return gate_params(std::getenv("RC_PARAMS"), rc::detail::configuration().testParams);
}

std::optional<int> parse_explore_seeds(const char* text, std::string* error) {
  if (text == nullptr || *text == '\0') return 0;
  const std::string given(text);
  const bool digits = given.find_first_not_of("0123456789") == std::string::npos;
  errno = 0;
  const unsigned long long n = digits ? std::strtoull(text, nullptr, 10) : 0;
  if (!digits || errno == ERANGE || n < 1 ||
      n > static_cast<unsigned long long>(kMaxExploreSeeds)) {
    *error = "DEVPLAN_EXPLORE_SEEDS: expects a whole number of seeds from 1 to " +
             std::to_string(kMaxExploreSeeds) + ", got '" + given + "'";
    return std::nullopt;
  }
  return static_cast<int>(n);
}

GateRun run_gate(const rc::detail::Property& property, const rc::detail::TestMetadata& metadata,
                 const rc::detail::TestParams& params) {
  CaseDigest digest;
  GateRun run{rc::detail::checkProperty(property, metadata, params, digest,
                                        rc::detail::configuration().reproduce),
              0, 0};
  run.cases = digest.cases;
  run.digest = digest.digest;
  return run;
}

size_t ExploreRun::distinct_counterexamples() const {
  std::set<std::string> distinct;
  for (const ExploreFailure& f : failures) distinct.insert(f.counterexample);
  return distinct.size();
}

ExploreRun explore(const rc::detail::Property& property, const rc::detail::TestMetadata& metadata,
                   rc::detail::TestParams params, const std::vector<uint64_t>& seeds) {
  ExploreRun run;
  QuietListener quiet;
  const std::string suite = metadata.id.substr(0, metadata.id.find('/'));
  const std::string name = metadata.id.substr(metadata.id.find('/') + 1);
  for (const uint64_t seed : seeds) {
    params.seed = seed;
    const rc::detail::TestResult result =
        rc::detail::checkProperty(property, metadata, params, quiet, {});
    ++run.seeds;
    rc::detail::SuccessResult success;
    rc::detail::FailureResult failure;
    rc::detail::GaveUpResult gave_up;
    if (result.match(success)) {
      run.cases += success.numSuccess;
      continue;
    }
    ExploreFailure found;
    found.seed = seed;
    std::ostringstream message;
    rc::detail::printResultMessage(result, message);
    found.message = message.str();
    found.counterexample = found.message;
    if (result.match(failure)) {
      run.cases += failure.numSuccess + 1;
      found.reproduce = reproduce_params(metadata.id, failure);
      found.counterexample.clear();
      for (const auto& [type, value] : failure.counterExample) {
        found.counterexample += type + ": " + value + "\n";
      }
      found.counterexample += failure.description;
    } else if (result.match(gave_up)) {
      run.cases += gave_up.numSuccess;
    }
    std::cout << "explore " << suite << "." << name << ": seed " << seed << " fails\n"
              << found.message << "\nReproduce with:\n  "
              << replay_command(
                     found.reproduce.empty() ? "seed=" + std::to_string(seed) : found.reproduce,
                     suite, name)
              << std::endl;
    run.failures.push_back(std::move(found));
  }
  return run;
}

std::string replay_command(const std::string& rc_params, const std::string& suite,
                           const std::string& name) {
  return "RC_PARAMS=\"" + rc_params + "\" " + binary_path() + " --gtest_filter=" + suite + "." +
         name;
}

std::string reproduce_params(const std::string& id, const rc::detail::FailureResult& failure) {
  rc::detail::Configuration config;
  config.reproduce[id] = failure.reproduce;
  // The minimal string may also carry settings that differ from RapidCheck's defaults (such as
  // "seed=0"); the reproduce entry alone replays the case.
  std::istringstream words(rc::detail::configToMinimalString(config));
  std::string word;
  while (words >> word) {
    if (word.rfind("reproduce=", 0) == 0) return word;
  }
  return "";
}

void report_property_result(const rc::detail::TestResult& result) {
  const ::testing::TestInfo* info = ::testing::UnitTest::GetInstance()->current_test_info();
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  rc::detail::SuccessResult success;
  if (result.match(success)) {
    if (!success.distribution.empty()) std::cout << message.str() << std::endl;
    return;
  }
  rc::detail::FailureResult failure;
  if (result.match(failure)) {
    const std::string id = std::string(info->test_suite_name()) + "/" + info->name();
    const std::string command =
        replay_command(reproduce_params(id, failure), info->test_suite_name(), info->name());
    message << "\n\nReproduce with:\n  " << command << "\n";
    std::cout << "Reproduce with:\n  " << command << std::endl;
  }
  ADD_FAILURE() << message.str();
}

void run_property(const rc::detail::Property& property) {
  const rc::detail::TestMetadata metadata = current_metadata();
  const std::string test = current_test_name();
  std::string error;
  const std::optional<int> seeds =
      parse_explore_seeds(std::getenv("DEVPLAN_EXPLORE_SEEDS"), &error);
  if (!seeds) {
    ADD_FAILURE() << error;
    return;
  }
  if (*seeds > 0) {
    const ExploreRun run =
        explore(property, metadata,
                gate_params(std::getenv("RC_PARAMS"), rc::detail::configuration().testParams),
                random_seeds(*seeds));
    const std::string summary = "explore " + test + ": " + std::to_string(run.seeds) + " seeds, " +
                                std::to_string(run.cases) + " cases, " +
                                std::to_string(run.failures.size()) + " counterexamples (" +
                                std::to_string(run.distinct_counterexamples()) + " distinct)";
    std::cout << summary << std::endl;
    if (!run.failures.empty()) {
      ADD_FAILURE() << summary << "; each is printed above with its reproduce command";
    }
    return;
  }
  const rc::detail::TestParams params = property_params();
  const rc::detail::Configuration& config = rc::detail::configuration();
  if (config.verboseProgress || config.verboseShrinking) {
    // RapidCheck's own listener prints the progress; no digest.
    report_property_result(rc::detail::checkProperty(property, metadata, params));
    return;
  }
  const GateRun run = run_gate(property, metadata, params);
  std::cout << "property " << test << ": seed " << params.seed << ", " << run.cases
            << " cases, digest " << hex(run.digest) << std::endl;
  report_property_result(run.result);
}

void run_pinned_case(const rc::detail::Property& property) {
  rc::detail::TestParams params;
  params.seed = kGateSeed;
  params.maxSuccess = 1;
  params.disableShrinking = true;
  QuietListener quiet;
  const rc::detail::TestResult result =
      rc::detail::checkProperty(property, current_metadata(), params, quiet, {});
  rc::detail::SuccessResult success;
  if (result.match(success)) return;
  std::ostringstream message;
  rc::detail::printResultMessage(result, message);
  ADD_FAILURE() << message.str();
}

}  // namespace devplan::testing
