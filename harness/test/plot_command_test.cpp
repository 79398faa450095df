#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <runtime_ext/program/file_data_loader.h>
#include <runtime_ext/writer/program_builder.h>

#include <regex>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::fixture_program;
using testing::run;

size_t count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// True when every element opened is closed in order (a minimal well-formedness check).
bool balanced_xml(const std::string& xml) {
  std::vector<std::string> open;
  std::regex tag(R"(<(/?)([a-zA-Z][a-zA-Z0-9-]*)[^>]*?(/?)>)");
  for (auto it = std::sregex_iterator(xml.begin(), xml.end(), tag); it != std::sregex_iterator();
       ++it) {
    const std::string name = (*it)[2];
    if ((*it)[3] == "/") continue;  // self-closing
    if ((*it)[1] == "/") {
      if (open.empty() || open.back() != name) return false;
      open.pop_back();
    } else if (name != "meta") {
      open.push_back(name);
    }
  }
  return open.empty();
}

TEST(PlotCommandTest, OneRectanglePerPlannedTensorAndALabelPerBuffer) {
  testing::CommandResult r = run(&plot_command, {fixture_program("multi_device")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string& svg = r.out;
  EXPECT_EQ(svg.rfind("<svg xmlns=\"http://www.w3.org/2000/svg\"", 0), 0u);
  EXPECT_TRUE(balanced_xml(svg));
  // multi_device: 10 values, all planned tensors, in 3 buffers.
  EXPECT_EQ(count(svg, "<rect class=\"tensor\""), 10u);
  EXPECT_EQ(count(svg, "<text class=\"buffer-label\""), 3u);
  EXPECT_THAT(svg, HasSubstr(">buffer 2: 48 B on cuda:1 (lower bound 48 B)</text>"));
  EXPECT_EQ(count(svg, "<rect class=\"overlap\""), 0u);
  EXPECT_THAT(svg, HasSubstr("<title>value 0: float32[2, 2] on cpu:0, 16 B at [0, 16), live during "
                             "instructions 0..0</title>"));
}

TEST(PlotCommandTest, OverlapsAreRed) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodPlan plan = source.method(0).plan();
  plan.values[3].tensor.offset = 0;  // b_dev onto a_dev while both live
  ProgramBuilder builder;
  builder.add_method(plan);
  testing::CommandResult r = run(&plot_command, {testing::temp_file(builder.build())});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(count(r.out, "<rect class=\"overlap\""), 1u);
  EXPECT_EQ(count(r.out, "<rect class=\"tensor\""), 6u);
  EXPECT_THAT(r.out, HasSubstr("fill=\"red\""));
}

TEST(PlotCommandTest, HtmlHasEveryMethodAndFileOutputWorks) {
  const std::string out = testing::temp_file({}, ".html");
  testing::CommandResult r =
      run(&plot_command, {fixture_program("two_methods"), "--html", "-o", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote " + out + "\n");
  Result<std::vector<uint8_t>> bytes = read_file(out);
  ASSERT_TRUE(bytes.ok());
  const std::string html(bytes->begin(), bytes->end());
  EXPECT_EQ(count(html, "<svg "), 2u);
  EXPECT_THAT(html, HasSubstr("<h2>cpu_forward</h2>"));
  EXPECT_THAT(html, HasSubstr("<h2>device_forward</h2>"));
  EXPECT_TRUE(balanced_xml(html));
}

TEST(PlotCommandTest, MethodSelectionAndErrors) {
  testing::CommandResult r =
      run(&plot_command, {fixture_program("two_methods"), "--method", "cpu_forward"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(count(r.out, "class=\"method-label\""), 1u);
  EXPECT_EQ(run(&plot_command, {fixture_program("two_methods"), "--method", "x"}).exit_code, 2);
  EXPECT_EQ(run(&plot_command, {"/nonexistent.pte"}).exit_code, 1);
  EXPECT_EQ(run(&plot_command, {}).exit_code, 2);
}

}  // namespace
}  // namespace devplan::harness
