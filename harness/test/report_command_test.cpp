#include <gtest/gtest.h>

#include <cstdlib>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

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
  EXPECT_NE(r.out.find("multi_device                       1  cpu:0=1 cuda:0=1 cuda:1=1       2 "
                       "    0      0        0  1/1\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("add                                1  cpu:0=1                         0 "
                       "    0      0        0  1/1\n"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("2 programs, 2 device allocations, all freed: yes\n"), std::string::npos);
  EXPECT_NE(r.out.find("fuzz: 20 cases in "), std::string::npos);
  EXPECT_NE(r.out.find("result: ok\n"), std::string::npos);
  for (const char* f : {"/multi_device.svg", "/multi_device-timeline.svg", "/add.svg", "/add-timeline.svg"}) {
    EXPECT_TRUE(read_file(dir + f).ok()) << f;
  }
}

TEST(ReportCommandTest, BrokenProgramIsAnError) {
  testing::CommandResult r = run(&report_command, {"--out", "/tmp", "--fuzz-cases", "0", "/nonexistent.pte"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("nonexistent: AccessFailed"), std::string::npos) << r.out;
  EXPECT_EQ(run(&report_command, {}).exit_code, 2);
}

}  // namespace
}  // namespace devplan::harness
