#include "property.h"

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

namespace devplan::testing {
namespace {

std::string binary_path() {
  char buf[4096];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  if (n <= 0) return "<property test binary>";
  return std::string(buf, static_cast<size_t>(n));
}

}  // namespace

rc::detail::TestParams property_params() {
  rc::detail::TestParams params = rc::detail::configuration().testParams;
  const char* env = std::getenv("RC_PARAMS");
  if (env == nullptr || std::string(env).find("max_success") == std::string::npos) {
    params.maxSuccess = kDefaultPropertyCases;
  }
  return params;
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

}  // namespace devplan::testing
