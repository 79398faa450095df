// devplan::executorch_testing::probed_clean: `devplan probe` on one method of a program, from a
// user's own GoogleTest. It runs the devplan tool in a child process (the command line and its
// exit codes are the contract, and an abort inside ExecuTorch stays out of the test process),
// under ExecuTorch's runtime by default, and succeeds when the method was probed and nothing was
// found:
//
//   #include <executorch_testing/probed_method.h>
//
//   TEST(MyModel, ForwardWritesEveryOutputAndKeepsItsTensorsApart) {
//     EXPECT_TRUE(devplan::executorch_testing::probed_clean("my_model.pte", "forward"));
//   }
//
// A failure says what the tool printed: each finding's line (UNWRITTEN, UNINITIALIZED,
// PLAN-CORRUPTION, LEAK, MISUSE), or why the method was not probed, and the command to rerun.
// The tool: ProbeMethodOptions::tool, else $DEVPLAN_TOOL, else the devplan installed with this
// library, else the one of the build tree it was built in, else `devplan` on the PATH.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace devplan::executorch_testing {

struct ProbeMethodOptions {
  std::vector<std::string> inputs;  // `--input` values, one per method input (default: ones)
  std::vector<std::string> data;    // `--data` files (.ptd)
  std::string runtime = "executorch";
  std::string device = "simulated";
  std::string inject_bug;  // `--inject-bug`: see probe find a planted bug
  std::string tool;        // the devplan binary ("" chooses as above)
};

// The devplan binary probed_clean runs (see above).
std::string devplan_tool(const ProbeMethodOptions& options = {});

::testing::AssertionResult probed_clean(const std::string& program, const std::string& method,
                                        const ProbeMethodOptions& options = {});

}  // namespace devplan::executorch_testing
