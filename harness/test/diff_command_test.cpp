// `devplan diff OLD NEW`: the exact text and JSON for pairs of committed fixtures (a buffer
// grown, tensors moved to another device, a method added, copies added, an extra allocation
// under one engine), --fail-on-growth, the JUnit file, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/engine/engine.h>
#include <runtime_ext/writer/program_builder.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using testing::fixture_program;
using ::testing::HasSubstr;
using testing::json_header;
using testing::run;

testing::CommandResult diff(const std::string& old_name, const std::string& new_name,
                            Args options = {}) {
  Args args = {fixture_program(old_name), fixture_program(new_name)};
  args.insert(args.end(), options.begin(), options.end());
  return run(&diff_command, args);
}

std::string header(const std::string& old_name, const std::string& new_name) {
  return "diff: " + fixture_program(old_name) + " -> " + fixture_program(new_name) + "\n";
}

TEST(DiffCommandTest, ABufferGrown) {
  testing::CommandResult r = diff("device_add_cuda0", "device_add_cuda0_grown");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, header("device_add_cuda0", "device_add_cuda0_grown") +
                       "method forward: 2 differences\n"
                       "  buffer 1 (cuda:0): size 48 B -> 64 B (+16 B, +33.33%)\n"
                       "  peak device bytes on cuda:0: 48 B -> 64 B (+16 B, +33.33%)\n"
                       "result: 2 differences in 1 method\n");
  EXPECT_EQ(r.err, "");
}

TEST(DiffCommandTest, ABufferGrownJsonFailsBeyondTheAllowedGrowth) {
  testing::CommandResult r =
      diff("device_add_cuda0", "device_add_cuda0_grown", {"--json", "--fail-on-growth", "10"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, json_header() + R"("old":")" + fixture_program("device_add_cuda0") +
                       R"(","new":")" + fixture_program("device_add_cuda0_grown") +
                       R"(","runtime":null,"methods":[{"name":"forward","status":"changed",)"
                       R"("changes":[{"what":"buffer.size","index":1,"device":"cuda:0","old":48,)"
                       R"("new":64},{"what":"peak_device_bytes","device":"cuda:0","old":48,)"
                       R"("new":64}]}],"differences":2,"fail_on_growth_pct":10.0,"growth":[)"
                       R"({"method":"forward","device":"cuda:0","old":48,"new":64,)"
                       R"("percent":33.333333333333336}],"result":"grew"})"
                       "\n");
}

TEST(DiffCommandTest, GrowthWithinTheAllowedPercentPasses) {
  testing::CommandResult r =
      diff("device_add_cuda0", "device_add_cuda0_grown", {"--fail-on-growth", "33.34"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("result: 2 differences in 1 method; no peak device bytes grew "
                               "by more than 33.34%\n"));
  // 33.33 is below the growth of 33.333...%: a failure naming method, device and both sizes.
  r = diff("device_add_cuda0", "device_add_cuda0_grown", {"--fail-on-growth", "33.33"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr("GROWTH method forward: peak device bytes on cuda:0 grew 48 B -> "
                               "64 B (+16 B, +33.33%), more than the 33.33% allowed\n"
                               "result: 2 differences in 1 method; FAILED: peak device bytes "
                               "grew by more than 33.33%\n"));
}

TEST(DiffCommandTest, TensorsMovedToAnotherDeviceWithTheLoads) {
  testing::CommandResult r = diff("device_add_cuda0", "device_add_cuda1", {"--runtime", "devplan"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, header("device_add_cuda0", "device_add_cuda1") +
                       "runtime: devplan\n"
                       "method forward: 10 differences\n"
                       "  buffer 1: device cuda:0 -> cuda:1\n"
                       "  peak device bytes on cuda:0: 48 B -> 0 B (-48 B, -100.00%)\n"
                       "  peak device bytes on cuda:1: 0 B -> 48 B (+48 B, new)\n"
                       "  value 2: device cuda:0 -> cuda:1\n"
                       "  value 3: device cuda:0 -> cuda:1\n"
                       "  value 4: device cuda:0 -> cuda:1\n"
                       "  devplan load on cuda:0: allocations 1 -> 0 (-1, -100.00%)\n"
                       "  devplan load on cuda:0: bytes 48 B -> 0 B (-48 B, -100.00%)\n"
                       "  devplan load on cuda:1: allocations 0 -> 1 (+1, new)\n"
                       "  devplan load on cuda:1: bytes 0 B -> 48 B (+48 B, new)\n"
                       "result: 10 differences in 1 method\n");
}

TEST(DiffCommandTest, TensorsMovedJson) {
  testing::CommandResult r =
      diff("device_add_cuda0", "device_add_cuda1", {"--runtime", "devplan", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out,
      json_header() + R"("old":")" + fixture_program("device_add_cuda0") + R"(","new":")" +
          fixture_program("device_add_cuda1") +
          R"(","runtime":"devplan","methods":[{"name":"forward","status":"changed","changes":[)"
          R"({"what":"buffer.device","index":1,"old":"cuda:0","new":"cuda:1"},)"
          R"({"what":"peak_device_bytes","device":"cuda:0","old":48,"new":0},)"
          R"({"what":"peak_device_bytes","device":"cuda:1","old":0,"new":48},)"
          R"({"what":"tensor.device","value":2,"old":"cuda:0","new":"cuda:1"},)"
          R"({"what":"tensor.device","value":3,"old":"cuda:0","new":"cuda:1"},)"
          R"({"what":"tensor.device","value":4,"old":"cuda:0","new":"cuda:1"},)"
          R"({"what":"load.allocations","runtime":"devplan","device":"cuda:0","old":1,"new":0},)"
          R"({"what":"load.bytes","runtime":"devplan","device":"cuda:0","old":48,"new":0},)"
          R"({"what":"load.allocations","runtime":"devplan","device":"cuda:1","old":0,"new":1},)"
          R"({"what":"load.bytes","runtime":"devplan","device":"cuda:1","old":0,"new":48}]}],)"
          R"("differences":10,"fail_on_growth_pct":null,"growth":[],"result":"ok"})"
          "\n");
}

TEST(DiffCommandTest, AMethodAdded) {
  testing::CommandResult r =
      diff("device_add_cuda0", "device_add_cuda0_and_cpu", {"--fail-on-growth", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;  // cpu_forward has no device bytes
  EXPECT_EQ(r.out, header("device_add_cuda0", "device_add_cuda0_and_cpu") +
                       "method forward: same\n"
                       "method cpu_forward: added\n"
                       "  buffer 0: 48 B on cpu:0, 3 planned tensors\n"
                       "result: 1 difference in 1 method; no peak device bytes grew by more "
                       "than 0%\n");
  r = diff("device_add_cuda0", "device_add_cuda0_and_cpu", {"--json"});
  EXPECT_EQ(r.out, json_header() + R"("old":")" + fixture_program("device_add_cuda0") +
                       R"(","new":")" + fixture_program("device_add_cuda0_and_cpu") +
                       R"(","runtime":null,"methods":[{"name":"forward","status":"same",)"
                       R"("changes":[]},{"name":"cpu_forward","status":"added","changes":[)"
                       R"({"what":"buffer.added","index":0,"old":null,"new":{"device":"cpu:0",)"
                       R"("size":48,"planned_tensors":3}}]}],"differences":1,)"
                       R"("fail_on_growth_pct":null,"growth":[],"result":"ok"})"
                       "\n");
  // The other way round the method is removed.
  r = diff("device_add_cuda0_and_cpu", "device_add_cuda0");
  EXPECT_THAT(r.out, HasSubstr("method forward: same\nmethod cpu_forward: removed\n"
                               "  buffer 0: 48 B on cpu:0, 3 planned tensors\n"));
}

TEST(DiffCommandTest, CopiesAddedFailTheGrowthCheck) {
  const std::string junit = testing::temp_file({}, ".xml");
  testing::CommandResult r =
      diff("cpu_add", "device_add_cuda0", {"--fail-on-growth", "3", "--junit", junit});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_EQ(r.out, header("cpu_add", "device_add_cuda0") +
                       "method forward: 8 differences\n"
                       "  buffer 0 (cpu:0): size 48 B -> 32 B (-16 B, -33.33%)\n"
                       "  buffer 0 (cpu:0): lower bound 48 B -> 32 B (-16 B, -33.33%)\n"
                       "  buffer 0 (cpu:0): optimum 48 B -> 32 B (-16 B, -33.33%)\n"
                       "  buffer 1: added (48 B on cuda:0, 3 planned tensors)\n"
                       "  peak device bytes on cuda:0: 0 B -> 48 B (+48 B, new)\n"
                       "  h2d copies: 0 -> 2 (+2, new)\n"
                       "  d2h copies: 0 -> 1 (+1, new)\n"
                       "  value 2: device cpu:0 -> cuda:0\n"
                       "GROWTH method forward: peak device bytes on cuda:0 grew 0 B -> 48 B "
                       "(+48 B, new), more than the 3% allowed\n"
                       "result: 8 differences in 1 method; FAILED: peak device bytes grew by "
                       "more than 3%\n");

  // The JUnit file: one case per method, failing with its growth.
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(junit.c_str()), tinyxml2::XML_SUCCESS);
  const tinyxml2::XMLElement* suite = doc.FirstChildElement("testsuites")->FirstChildElement();
  ASSERT_NE(suite, nullptr);
  EXPECT_STREQ(suite->Attribute("name"), "devplan diff");
  EXPECT_STREQ(suite->Attribute("tests"), "1");
  EXPECT_STREQ(suite->Attribute("failures"), "1");
  const tinyxml2::XMLElement* c = suite->FirstChildElement("testcase");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(std::string(c->Attribute("classname")), fixture_program("device_add_cuda0"));
  EXPECT_STREQ(c->Attribute("name"), "method forward (changed)");
  const tinyxml2::XMLElement* failure = c->FirstChildElement("failure");
  ASSERT_NE(failure, nullptr);
  EXPECT_STREQ(failure->Attribute("message"),
               "method forward: peak device bytes on cuda:0 grew 0 B -> 48 B (+48 B, new), more "
               "than the 3% allowed");
  EXPECT_EQ(c->NextSiblingElement("testcase"), nullptr);
}

TEST(DiffCommandTest, AnExtraAllocationUnderOneEngine) {
  // devplan allocates nothing for an empty buffer; ExecuTorch 1.5.1 makes a 0-byte allocation.
  testing::CommandResult r =
      diff("device_add_cuda0", "zero_size_device_buffer", {"--runtime", "devplan"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, header("device_add_cuda0", "zero_size_device_buffer") +
                       "runtime: devplan\n"
                       "method forward: 1 difference\n"
                       "  buffer 2: added (0 B on cuda:1, 0 planned tensors)\n"
                       "result: 1 difference in 1 method\n");
  if (!executorch_available()) {
    GTEST_SKIP() << "this build has no ExecuTorch engine (DEVPLAN_WITH_EXECUTORCH=OFF); the "
                    "executorch half of the pair is not compared";
  }
  r = diff("device_add_cuda0", "zero_size_device_buffer", {"--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, header("device_add_cuda0", "zero_size_device_buffer") +
                       "runtime: executorch\n"
                       "method forward: 2 differences\n"
                       "  buffer 2: added (0 B on cuda:1, 0 planned tensors)\n"
                       "  executorch load on cuda:1: allocations 0 -> 1 (+1, new)\n"
                       "result: 2 differences in 1 method\n");
}

TEST(DiffCommandTest, AnInputWhoseShapeChanged) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodPlan plan = source.method(0).plan();
  plan.values[0].tensor.sizes = {1, 4};
  ProgramBuilder builder;
  builder.add_method(plan);
  const std::string changed = testing::temp_file(builder.build());
  testing::CommandResult r = run(&diff_command, {fixture_program("device_add_cuda0"), changed});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("method forward: 1 difference\n"
                               "  input 0: float32[2, 2] on cpu:0 (16 B) -> float32[1, 4] on "
                               "cpu:0 (16 B)\n"));
}

TEST(DiffCommandTest, TwoCopiesOfOneProgramHaveNoDifferences) {
  const std::string copy = testing::temp_file(device_add_cuda0_program_builder().build());
  testing::CommandResult r = run(&diff_command, {fixture_program("device_add_cuda0"), copy});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "diff: " + fixture_program("device_add_cuda0") + " -> " + copy +
                       "\nmethod forward: same\nresult: no differences\n");
}

TEST(DiffCommandTest, BadInput) {
  const std::string file = fixture_program("device_add_cuda0");
  // The same file twice, under one name or two.
  testing::CommandResult r = run(&diff_command, {file, file});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "devplan diff: OLD and NEW are the same file ('" + file +
                       "')\nRun 'devplan diff --help' for the options.\n");
  const std::string dir = file.substr(0, file.rfind('/'));
  EXPECT_EQ(run(&diff_command, {file, dir + "/./device_add_cuda0.pte"}).exit_code, 2);
  // A file that does not exist, a truncated one (JSON error document).
  r = run(&diff_command, {file, "/nonexistent/new.pte"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan diff: AccessFailed: /nonexistent/new.pte: cannot open "
            "'/nonexistent/new.pte': No such file or directory\n");
  std::vector<uint8_t> bytes = device_add_cuda0_program_builder().build();
  bytes.resize(100);
  const std::string truncated = testing::temp_file(bytes);
  r = run(&diff_command, {truncated, file, "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out,
              HasSubstr(R"("error":{"code":"InvalidProgram","message":")" + truncated + ": "));
  // Option values.
  r = run(&diff_command, {file, truncated, "--fail-on-growth", "-5"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err,
              HasSubstr("--fail-on-growth: expects a percentage (a finite number, 0 or above, "
                        "like 3 or 2.5), got '-5'"));
  EXPECT_EQ(run(&diff_command, {file, truncated, "--runtime", "tflite"}).exit_code, 2);
  EXPECT_EQ(run(&diff_command, {file}).exit_code, 2);
}

}  // namespace
}  // namespace devplan::harness
