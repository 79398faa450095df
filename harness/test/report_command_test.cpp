#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::fixture_program;
using testing::real_program;
using testing::run;

TEST(ReportCommandTest, SummaryTablePicturesAndFuzz) {
  char dir_template[] = "/tmp/devplan_report_XXXXXX";
  const std::string dir = mkdtemp(dir_template);
  testing::CommandResult r =
      run(&report_command, {"--out", dir, "--fuzz-cases", "20", fixture_program("multi_device"),
                            real_program("add.pte")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out,
              HasSubstr("multi_device                       1  cpu:0=1 cuda:0=1 cuda:1=1       2 "
                        "    0      0        0  1/1  clean\n"))
      << r.out;
  EXPECT_THAT(r.out,
              HasSubstr("add                                1  cpu:0=1                         0 "
                        "    0      0        0  1/1  clean\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("2 programs, 2 device allocations, all freed: yes\n"));
  EXPECT_THAT(r.out, HasSubstr("fuzz: 20 cases in "));
  EXPECT_THAT(r.out, HasSubstr("result: ok\n"));
  for (const char* f :
       {"/multi_device.svg", "/multi_device-timeline.svg", "/add.svg", "/add-timeline.svg"}) {
    EXPECT_TRUE(read_file(dir + f).ok()) << f;
  }
}

TEST(ReportCommandTest, BrokenProgramIsAnError) {
  testing::CommandResult r =
      run(&report_command, {"--out", "/tmp", "--fuzz-cases", "0", "/nonexistent.pte"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("nonexistent: AccessFailed")) << r.out;
  EXPECT_EQ(run(&report_command, {}).exit_code, 2);
}

std::string upstream_program(const std::string& name) {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/upstream-1.5.1/" + name;
}

TEST(ReportCommandTest, AMethodWithoutAKernelIsNotRunNotAnError) {
  testing::CommandResult r = testing::run(
      &report_command, {"--fuzz-cases", "0", "--out", "/tmp", upstream_program("mlp.pte"),
                        upstream_program("device_add.pte")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("mlp                                1  cpu:0=1                         0     "
                "0      0        0  0/1  not probed\n  not run: forward: no kernel for "
                "aten::permute_copy.out, "
                "aten::addmm.out, aten::relu.out\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("  not run: forward: no backend BackendWithCompilerDemo\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("result: ok\n")) << r.out;
}

TEST(ReportCommandTest, AnOutputFolderThatCannotBeCreatedIsAnErrorUpFront) {
  testing::CommandResult r =
      testing::run(&report_command, {"--fuzz-cases", "0", "--out", "/proc/devplan-no-such-dir",
                                     testing::real_program("add.pte")});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(
      r.err,
      "devplan report: cannot create '/proc/devplan-no-such-dir': No such file or directory\n");
}

}  // namespace
}  // namespace devplan::harness
