// probed_clean: `devplan probe` on one method from a GoogleTest, through the tool.
#include <gtest/gtest.h>

#include <executorch_testing/probed_method.h>

namespace devplan::executorch_testing {
namespace {

const std::string kDeviceAdd = std::string(DEVPLAN_FIXTURE_PROGRAMS_DIR) + "/device_add_cuda0.pte";
const std::string kMissingOps =
    std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/exporter/wild_missing_ops.pte";

TEST(ProbedMethod, ACorrectMethodIsClean) {
  EXPECT_TRUE(probed_clean(kDeviceAdd, "forward"));
  ProbeMethodOptions devplan_engine;
  devplan_engine.runtime = "devplan";
  devplan_engine.inputs = {"2", "3"};
  EXPECT_TRUE(probed_clean(kDeviceAdd, "forward", devplan_engine));
}

TEST(ProbedMethod, AFindingFailsWithTheToolsLinesAndTheCommand) {
  ProbeMethodOptions options;
  options.inject_bug = "unwritten-output";
  const ::testing::AssertionResult r = probed_clean(kDeviceAdd, "forward", options);
  ASSERT_FALSE(r);
  const std::string tool = devplan_tool();
  EXPECT_EQ(std::string(r.message()),
            "devplan probe found what is wrong with method forward of " + kDeviceAdd +
                ":\nfile: " + kDeviceAdd +
                "\nruntime: executorch, devices: simulated\n"
                "injected bug: unwritten-output\n"
                "method forward: probed (5 executions, 1 finding)\n"
                "UNWRITTEN method forward: output 0 (float32[2, 2], cpu:0): 16 of 16 bytes never "
                "written (delegate 0, DeviceAddBackend)\n"
                "result: 1 finding\n"
                "command: " +
                tool + " probe " + kDeviceAdd +
                " --method forward --runtime executorch --device simulated --inject-bug "
                "unwritten-output");
}

TEST(ProbedMethod, AMethodThatCannotRunIsNotClean) {
  const ::testing::AssertionResult r = probed_clean(kMissingOps, "forward");
  ASSERT_FALSE(r);
  EXPECT_EQ(
      std::string(r.message())
          .rfind("devplan probe did not probe method forward of " + kMissingOps + ":\nfile: ", 0),
      0u)
      << r.message();
  EXPECT_NE(std::string(r.message())
                .find("method forward: not probed: no kernel for devplan_absent::twice.out, "
                      "devplan_absent::halve.out\n"),
            std::string::npos);
}

TEST(ProbedMethod, AMethodTheProgramLacksIsAToolFailure) {
  const ::testing::AssertionResult r = probed_clean(kDeviceAdd, "backward");
  ASSERT_FALSE(r);
  EXPECT_EQ(std::string(r.message())
                .rfind("devplan probe failed (exit code 2) on method "
                       "backward of " +
                           kDeviceAdd +
                           ":\ndevplan probe: the program has no method "
                           "'backward'\n",
                       0),
            0u)
      << r.message();
  ProbeMethodOptions options;
  options.tool = "/nonexistent/devplan";
  const ::testing::AssertionResult missing = probed_clean(kDeviceAdd, "forward", options);
  ASSERT_FALSE(missing);
  EXPECT_EQ(std::string(missing.message())
                .rfind("devplan probe failed (exit code 127) on method "
                       "forward of " +
                           kDeviceAdd +
                           ":\ncannot run /nonexistent/devplan: No "
                           "such file or directory\n",
                       0),
            0u)
      << missing.message();
}

}  // namespace
}  // namespace devplan::executorch_testing
