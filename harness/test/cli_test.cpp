// The devplan tool's command line as users meet it, run as its own process: help, version,
// usage errors, `--`, values that start with '-', strict numbers, and the output options
// (--trace, report --json and --junit, sizes with units, sharding from the environment).
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <harness/engine/engine.h>
#include <tinyxml2.h>

#include <harness/json/json.h>

#include "tool_process.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;
using testing::run_tool;
using testing::Scratch;
using ::testing::StartsWith;
using testing::ToolRun;

const char* const kCommands[] = {"inspect", "simulate", "run",   "plan", "replan",
                                 "check",   "plot",     "probe", "fuzz", "report"};

std::string add_program() {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/add.pte";
}
std::string device_program() {
  return std::string(DEVPLAN_FIXTURE_PROGRAMS_DIR) + "/device_add_cuda0.pte";
}

Json parse_file(const std::string& path) {
  Result<Json> doc = parse_json_file(path);
  EXPECT_TRUE(doc.ok()) << doc.error();
  return doc.ok() ? *doc : Json();
}

TEST(CliTest, HelpAndVersionExitZero) {
  Scratch s;
  ToolRun help = run_tool(s, {"--help"});
  EXPECT_EQ(help.exit_code, 0);
  for (const char* command : kCommands)
    EXPECT_THAT(help.out, HasSubstr(std::string("  ") + command));
  EXPECT_EQ(run_tool(s, {"help"}).out, help.out);
  ToolRun version = run_tool(s, {"--version"});
  EXPECT_EQ(version.exit_code, 0);
  const std::string engine = executorch_engine_description();
  EXPECT_EQ(version.out, std::string("devplan ") + DEVPLAN_PROJECT_VERSION +
                             "\nExecuTorch engine: " + engine + "\n");
  if (executorch_available()) {
    EXPECT_THAT(engine, ::testing::AnyOf(::testing::MatchesRegex("the executorch .* wheel"),
                                         ::testing::StartsWith("an ExecuTorch source build (")));
  } else {
    EXPECT_EQ(engine, "not built");
  }
  for (const char* command : kCommands) {
    ToolRun r = run_tool(s, {command, "--help"});
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_THAT(r.out, HasSubstr(std::string("Usage: devplan ") + command + " [OPTIONS]"));
    EXPECT_EQ(r.err, "") << command;
    EXPECT_EQ(run_tool(s, {"help", command}).out, r.out) << command;
  }
}

// Every command's help, word for word, as users read it (their scripts use these options):
// harness/test/golden/help/<command>.txt. After a deliberate change of an option or its text,
// rewrite them with DEVPLAN_UPDATE_GOLDEN=1 build/bin/harness_test --gtest_filter='*Golden*'.
TEST(CliTest, HelpOfEveryCommandIsTheGoldenText) {
  Scratch s;
  const bool update = std::getenv("DEVPLAN_UPDATE_GOLDEN") != nullptr;
  const std::vector<std::vector<std::string>> commands = {{},
                                                          {"inspect"},
                                                          {"simulate"},
                                                          {"run"},
                                                          {"plan"},
                                                          {"replan"},
                                                          {"check"},
                                                          {"plot"},
                                                          {"probe"},
                                                          {"fuzz"},
                                                          {"diff"},
                                                          {"budget"},
                                                          {"budget", "record"},
                                                          {"budget", "check"},
                                                          {"report"}};
  for (const std::vector<std::string>& command : commands) {
    std::string name = command.empty() ? "devplan" : command[0];
    if (command.size() > 1) name += "_" + command[1];
    const std::string golden =
        std::string(DEVPLAN_SOURCE_DIR) + "/harness/test/golden/help/" + name + ".txt";
    std::vector<std::string> args = command;
    args.push_back("--help");
    const ToolRun r = run_tool(s, args);
    EXPECT_EQ(r.exit_code, 0) << name << r.err;
    if (update) {
      std::ofstream(golden) << r.out;
      continue;
    }
    std::ifstream in(golden);
    ASSERT_TRUE(in) << "no golden help " << golden;
    const std::string want((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(r.out, want) << name << ": the help changed; if on purpose, see the comment above";
  }
}

TEST(CliTest, UsageErrorsExitTwoWithOneLineSayingWhat) {
  Scratch s;
  ToolRun none = run_tool(s, {});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_EQ(none.err,
            "devplan: A subcommand is required\nRun 'devplan --help' for the commands.\n");
  ToolRun unknown = run_tool(s, {"frobnicate"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_EQ(unknown.err,
            "devplan: unknown command 'frobnicate'\nRun 'devplan --help' for the commands.\n");
  const std::pair<std::vector<std::string>, std::string> cases[] = {
      {{"inspect", add_program(), "--json=1"},
       "devplan inspect: json was given a disallowed flag override"},
      {{"fuzz", "--cases", "-1"},
       "devplan fuzz: --cases: expects a whole decimal number in [1, 18446744073709551615], got "
       "'-1'"},
      {{"fuzz", "--cases", "0x10"},
       "devplan fuzz: --cases: expects a whole decimal number in [1, 18446744073709551615], got "
       "'0x10'"},
      {{"fuzz", "--seconds", "nan"},
       "devplan fuzz: --seconds: expects a finite number above 0, got 'nan'"},
      {{"report", "--fuzz-cases", "-1", add_program()},
       "devplan report: --fuzz-cases: expects a whole decimal number in [0, 18446744073709551615], "
       "got '-1'"},
      {{"simulate", add_program(), "--capacity", "cuda:0=12XB"},
       "devplan simulate: --capacity: invalid byte size '12XB': unknown unit 'XB' (expected a "
       "whole "
       "number of bytes with an optional unit: 4096, 512KiB, 64MB, 1GiB)"},
      {{"simulate", add_program(), "--fail-alloc", "1", "--fail-alloc", "2"},
       "devplan simulate: --fail-alloc: At Most 1 required but received 2"},
      {{"fuzz", "--shard", "3/2"}, "devplan fuzz: --shard: expects I/N with 0 <= I < N, got '3/2'"},
  };
  for (const auto& [args, message] : cases) {
    ToolRun r = run_tool(s, args);
    EXPECT_EQ(r.exit_code, 2) << message;
    EXPECT_EQ(r.err, message + "\nRun 'devplan " + args[0] + " --help' for the options.\n");
    EXPECT_EQ(r.out, "");
  }
}

TEST(CliTest, DoubleDashAndValuesThatStartWithADash) {
  Scratch s;
  ToolRun r = run_tool(s, {"inspect", "--json", "--", add_program()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith(R"({"devplan_version":")"));
  ToolRun values = run_tool(s, {"run", add_program(), "--input", "-inf", "--input=-2.5"});
  EXPECT_EQ(values.exit_code, 0) << values.err;
  EXPECT_EQ(values.out, "method forward: 1 outputs\noutput 0: float32[1] on cpu:0 = [-inf]\n");
  const std::string dashed = s.path("-picture.svg");
  ToolRun plot = run_tool(s, {"plot", add_program(), "-o", dashed});
  EXPECT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_EQ(plot.out, "wrote " + dashed + "\n");
  ToolRun seed = run_tool(s, {"fuzz", "--seed", "010", "--cases", "1", "--json"});
  EXPECT_EQ(seed.exit_code, 0) << seed.err;
  EXPECT_THAT(seed.out, HasSubstr(R"("seed":10,)"));  // decimal, not octal
}

TEST(CliTest, SizesTakeUnits) {
  Scratch s;
  // device_add_cuda0 allocates 48 B on cuda:0.
  ToolRun fits = run_tool(s, {"simulate", device_program(), "--capacity", "cuda:0=1KiB"});
  EXPECT_EQ(fits.exit_code, 0) << fits.out << fits.err;
  ToolRun exact = run_tool(s, {"simulate", device_program(), "--capacity", "cuda:0=0.046875KiB"});
  EXPECT_EQ(exact.exit_code, 0) << exact.out << exact.err;  // 0.046875 KiB is exactly 48 B
  ToolRun tight = run_tool(s, {"simulate", device_program(), "--capacity", "cuda:0=47B", "--json"});
  EXPECT_EQ(tight.exit_code, 1) << tight.out;
  EXPECT_THAT(tight.out,
              HasSubstr(R"("failed_allocations":[{"seq":1,"device":"cuda:0","size":48,)"));
}

TEST(CliTest, TracesOpenAsChromeTraceEventJson) {
  Scratch s;
  const std::string trace = s.path("simulate.json");
  ToolRun r = run_tool(s, {"simulate", device_program(), "--trace", trace});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  Json doc = parse_file(trace);
  ASSERT_TRUE(doc.contains("traceEvents"));
  size_t complete = 0;
  for (const Json& e : doc["traceEvents"]) {
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_EQ(e["name"], "#1 forward/buffer 1");
      EXPECT_EQ(e["args"]["bytes"], 48);
      EXPECT_EQ(e["ts"], 0);
      EXPECT_EQ(e["dur"], 1);
    }
  }
  EXPECT_EQ(complete, 1u);
  EXPECT_EQ(doc["otherData"]["devplan_version"], DEVPLAN_PROJECT_VERSION);

  const std::string plan_trace = s.path("plot.json");
  ToolRun plot = run_tool(s, {"plot", device_program(), "--trace", plan_trace});
  ASSERT_EQ(plot.exit_code, 0) << plot.err;
  EXPECT_THAT(plot.out, StartsWith("<svg"));  // without -o the picture is still the output
  Json plan = parse_file(plan_trace);
  size_t tensors = 0;
  for (const Json& e : plan["traceEvents"]) tensors += e["ph"] == "X" ? 1 : 0;
  EXPECT_EQ(tensors, 6u);  // device_add_cuda0 plans 3 tensors in each of its 2 buffers
}

TEST(CliTest, ReportJsonAndJunit) {
  Scratch s;
  const std::string junit = s.path("report.xml");
  ToolRun r = run_tool(s, {"report", "--fuzz-cases", "20", "--out", s.path("pictures"), "--json",
                           "--junit", junit, add_program(), device_program(), s.path("text.pte")});
  EXPECT_EQ(r.exit_code, 1) << r.err;  // text.pte is not a program: an error, not a finding
  Result<Json> doc = parse_json(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error() << r.out;
  EXPECT_EQ((*doc)["result"], "ERRORS");
  ASSERT_EQ((*doc)["programs"].size(), 3u);
  EXPECT_EQ((*doc)["programs"][1]["name"], "device_add_cuda0");
  EXPECT_EQ((*doc)["programs"][1]["allocations"], 1);
  EXPECT_EQ((*doc)["programs"][1]["buffers_per_device"], Json({{"cpu:0", 1}, {"cuda:0", 1}}));
  EXPECT_THAT((*doc)["programs"][2]["error"].get<std::string>(), HasSubstr("not a program"));
  EXPECT_EQ((*doc)["fuzz"]["cases"], 20);
  EXPECT_EQ((*doc)["all_freed"], true);

  tinyxml2::XMLDocument xml;
  ASSERT_EQ(xml.LoadFile(junit.c_str()), tinyxml2::XML_SUCCESS);
  const tinyxml2::XMLElement* suite =
      xml.FirstChildElement("testsuites")->FirstChildElement("testsuite");
  ASSERT_NE(suite, nullptr);
  EXPECT_EQ(suite->IntAttribute("tests"), 4);     // three programs and the fuzz campaign
  EXPECT_EQ(suite->IntAttribute("failures"), 1);  // text.pte
}

TEST(CliTest, FuzzShardsFromTheEnvironment) {
  Scratch s;
  ::setenv("GTEST_TOTAL_SHARDS", "3", 1);
  ::setenv("GTEST_SHARD_INDEX", "1", 1);
  ToolRun gtest = run_tool(s, {"fuzz", "--cases", "3", "--json"});
  ::setenv("TEST_TOTAL_SHARDS", "4", 1);
  ::setenv("TEST_SHARD_INDEX", "2", 1);
  ToolRun bazel = run_tool(s, {"fuzz", "--cases", "3", "--json"});
  ToolRun flag = run_tool(s, {"fuzz", "--cases", "3", "--json", "--shard", "0/2"});
  ::setenv("TEST_SHARD_INDEX", "9", 1);
  ToolRun bad = run_tool(s, {"fuzz", "--cases", "3"});
  for (const char* name :
       {"GTEST_TOTAL_SHARDS", "GTEST_SHARD_INDEX", "TEST_TOTAL_SHARDS", "TEST_SHARD_INDEX"}) {
    ::unsetenv(name);
  }
  EXPECT_THAT(gtest.out, HasSubstr(R"("shard":"1/3")"));
  EXPECT_THAT(bazel.out, HasSubstr(R"("shard":"2/4")"));
  EXPECT_THAT(flag.out, HasSubstr(R"("shard":"0/2")"));
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_EQ(bad.err,
            "devplan fuzz: TEST_SHARD_INDEX='9' is not a shard index in [0, 3]\n"
            "Run 'devplan fuzz --help' for the options.\n");
}

TEST(CliTest, AnOutputThatCannotBeWrittenKeepsTheReportAndTheFinding) {
  Scratch s;
  const std::string bad = s.path("no-such-folder/out.xml");
  ToolRun r =
      run_tool(s, {"simulate", device_program(), "--inject-bug", "skip-free", "--junit", bad});
  EXPECT_EQ(r.exit_code, 3);  // the leak is still the verdict
  EXPECT_THAT(r.out, HasSubstr("SUMMARY: devplan: 48 bytes leaked in 1 allocation\n"));
  EXPECT_EQ(r.err, "devplan simulate: AccessFailed: cannot write '" + bad +
                       "': No such file or directory\n");
}

}  // namespace
}  // namespace devplan::harness
