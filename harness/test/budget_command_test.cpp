// `devplan budget record` and `devplan budget check`: the stable file, exact verdicts for pairs
// of committed fixtures (a buffer grown, tensors moved to another device, a method added, an
// extra allocation under one engine), tolerances and their precedence, shrinking, the JUnit
// file, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <tinyxml2.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/engine/engine.h>
#include <harness/json/json.h>
#include <harness/services/budget_check.h>
#include <harness/services/budget_file.h>
#include <runtime_ext/writer/program_builder.h>

#include <fstream>
#include <iterator>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using testing::fixture_program;
using ::testing::HasSubstr;
using testing::run;

void write_text(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
}

// The figures of device_add_cuda0 (buffer 1 of `cuda_bytes` bytes) as one budget line.
// `probe`: with the probe result a recording writes (a budget from before probe has none).
std::string device_add_line(uint64_t cuda_bytes, bool probe = false) {
  const std::string n = std::to_string(cuda_bytes);
  const std::string load = R"({"allocations":{"cuda:0":{"bytes":)" + n +
                           R"(,"count":1}},"leaks":0,"loaded":true,)"
                           R"("misuse":0)" +
                           std::string(probe ? R"(,"probe":"clean"})" : "}");
  std::string loads = R"({"devplan":)" + load;
  if (executorch_available()) loads += R"(,"executorch":)" + load;
  return R"({"buffers":[{"device":"cpu:0","size":32},{"device":"cuda:0","size":)" + n +
         R"(}],"loads":)" + loads + R"(},"peak_device_bytes":{"cuda:0":)" + n +
         R"(},"plan_ratio":)" + (cuda_bytes == 48 ? "1.0" : "1.2") +
         R"(,"planned_bytes":{"cpu:0":32,"cuda:0":)" + n + "}}";
}

// The engines' load lines of a check, devplan's then ExecuTorch's when this build has it.
std::string per_engine(const std::string& prefix, const std::string& rest) {
  std::string lines = prefix + "devplan load" + rest;
  if (executorch_available()) lines += prefix + "executorch load" + rest;
  return lines;
}

// A folder holding model.pte (device_add_cuda0) and budget.json recorded from it.
struct BudgetDir {
  std::string dir = testing::temp_dir();
  std::string budget = dir + "/budget.json";
  std::string model = dir + "/model.pte";

  BudgetDir() {
    testing::copy_file(fixture_program("device_add_cuda0"), model);
    testing::CommandResult r = run(&budget_command, {"record", model, "-o", budget});
    EXPECT_EQ(r.exit_code, 0) << r.err;
  }
  // `fixture` copied to <dir>/<fixture>/model.pte: the same program name, another version.
  std::string version(const std::string& fixture) const {
    const std::string path = dir + "/" + fixture + "/model.pte";
    testing::copy_file(fixture_program(fixture), path);
    return path;
  }
  testing::CommandResult check(const std::string& file, Args options = {}) const {
    Args args = {"check", budget, file};
    args.insert(args.end(), options.begin(), options.end());
    return run(&budget_command, args);
  }
};

TEST(BudgetCommandTest, RecordWritesSortedKeysOneMethodPerLine) {
  const std::string dir = testing::temp_dir();
  const std::string model = dir + "/model.pte", budget = dir + "/budget.json";
  testing::copy_file(fixture_program("device_add_cuda0"), model);
  testing::copy_file(fixture_program("device_add_cuda0_and_cpu"), dir + "/two.pte");
  testing::CommandResult r =
      run(&budget_command, {"record", model, dir + "/two.pte", "-o", budget});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "recorded 2 programs (3 methods) in " + budget +
                       "\n  model.pte: forward\n  two.pte: cpu_forward forward\n");
  std::string cpu_load = R"({"allocations":{},"leaks":0,"loaded":true,"misuse":0,"probe":"clean"})";
  std::string cpu_loads = R"({"devplan":)" + cpu_load;
  if (executorch_available()) cpu_loads += R"(,"executorch":)" + cpu_load;
  EXPECT_EQ(testing::file_text(budget),
            "{\n"
            "  \"format\": \"devplan-budget\",\n"
            "  \"programs\": {\n"
            "    \"model.pte\": {\n"
            "      \"methods\": {\n"
            "        \"forward\": " +
                device_add_line(48, true) +
                "\n"
                "      }\n"
                "    },\n"
                "    \"two.pte\": {\n"
                "      \"methods\": {\n"
                "        \"cpu_forward\": {\"buffers\":[{\"device\":\"cpu:0\",\"size\":48}],"
                "\"loads\":" +
                cpu_loads +
                "},\"peak_device_bytes\":{},\"plan_ratio\":1.0,"
                "\"planned_bytes\":{\"cpu:0\":48}},\n"
                "        \"forward\": " +
                device_add_line(48, true) +
                "\n"
                "      }\n"
                "    }\n"
                "  },\n"
                "  \"schema_version\": 1\n"
                "}\n");
}

TEST(BudgetCommandTest, TheRecordedProgramIsWithinItsBudget) {
  BudgetDir d;
  testing::CommandResult r = d.check(d.model);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "budget: " + d.budget + "\nprogram model.pte (" + d.model +
                       "): ok\nresult: within the budget (1 program)\n");
}

TEST(BudgetCommandTest, DevicesOnlyAProgramCanNameAreRecordedAndReadBack) {
  // A buffer of an unknown device type and one with a negative index (read as ExecuTorch reads
  // them): the budget names them as devplan prints them and reads them back.
  const std::string dir = testing::temp_dir();
  std::vector<std::string> files;
  for (const auto& [name, entry] :
       {std::pair<std::string, RawBufferDevice>{"unknown.pte", {2, 5, 0}},
        std::pair<std::string, RawBufferDevice>{"negative.pte", {2, 1, -1}}}) {
    ProgramBuilder builder = device_add_cuda0_program_builder();
    builder.method(0).set_raw_buffer_devices({entry});
    files.push_back(dir + "/" + name);
    const std::vector<uint8_t> bytes = builder.build();
    std::ofstream(files.back(), std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()),
               static_cast<std::streamsize>(bytes.size()));
  }
  const std::string budget = dir + "/budget.json";
  testing::CommandResult r = run(&budget_command, {"record", files[0], files[1], "-o", budget});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::ifstream in(budget);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr(R"({"device":"unknown(5):0","size":48})"));
  EXPECT_THAT(text, HasSubstr(R"({"device":"cuda:-1","size":48})"));
  r = run(&budget_command, {"check", budget, files[0], files[1]});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("result: within the budget (2 programs)\n"));
}

TEST(BudgetCommandTest, AGrownBufferFailsNamingTheBufferAndTheGrowth) {
  BudgetDir d;
  const std::string grown = d.version("device_add_cuda0_grown");
  testing::CommandResult r = d.check(grown);
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const size_t failures = executorch_available() ? 6 : 5;
  EXPECT_EQ(r.out,
            "budget: " + d.budget + "\nprogram model.pte (" + grown + "): FAILED, " +
                std::to_string(failures) +
                " figures grew beyond the budget\n"
                "  FAIL model.pte forward: buffer 1 (cuda:0) grew 48 B -> 64 B (+16 B, +33.33%; "
                "tolerance 0%)\n"
                "  FAIL model.pte forward: planned bytes on cuda:0 grew 48 B -> 64 B (+16 B, "
                "+33.33%; tolerance 0%)\n"
                "  FAIL model.pte forward: peak device bytes on cuda:0 grew 48 B -> 64 B (+16 B, "
                "+33.33%; tolerance 0%)\n"
                "  FAIL model.pte forward: plan ratio (planned bytes over the lower bound) grew "
                "1.0000 -> 1.2000 (+20.00%; tolerance 0%)\n" +
                per_engine("  FAIL model.pte forward: ",
                           " on cuda:0: bytes allocated grew 48 B -> 64 B (+16 B, +33.33%; "
                           "tolerance 0%)\n") +
                "result: FAILED: " + std::to_string(failures) +
                " figures grew beyond the budget in 1 program\n"
                "To accept the change: devplan budget record " +
                grown + " -o " + d.budget + "\n");
}

TEST(BudgetCommandTest, ShrinkingIsReportedNeverAFailure) {
  BudgetDir d;
  const std::string grown = d.version("device_add_cuda0_grown");
  ASSERT_EQ(run(&budget_command, {"record", grown, "-o", d.budget}).exit_code, 0);
  testing::CommandResult r = d.check(d.model);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "budget: " + d.budget + "\nprogram model.pte (" + d.model +
                "): ok\n"
                "  model.pte forward: buffer 1 (cuda:0) shrank 64 B -> 48 B (-16 B, -25.00%)\n"
                "  model.pte forward: planned bytes on cuda:0 shrank 64 B -> 48 B (-16 B, "
                "-25.00%)\n"
                "  model.pte forward: peak device bytes on cuda:0 shrank 64 B -> 48 B (-16 B, "
                "-25.00%)\n"
                "  model.pte forward: plan ratio (planned bytes over the lower bound) shrank "
                "1.2000 -> 1.0000 (-16.67%)\n" +
                per_engine("  model.pte forward: ",
                           " on cuda:0: bytes allocated shrank 64 B -> 48 B (-16 B, -25.00%)\n") +
                "result: within the budget (1 program)\n");
}

TEST(BudgetCommandTest, ToleranceFromTheProgramThenTheCommandLineThenTheFile) {
  BudgetDir d;
  const std::string grown = d.version("device_add_cuda0_grown");
  // --tolerance 40 covers +33.33% bytes and the ratio's +20%.
  testing::CommandResult r = d.check(grown, {"--tolerance", "40"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("  model.pte forward: buffer 1 (cuda:0) grew 48 B -> 64 B (+16 B, "
                               "+33.33%), within the 40% tolerance\n"));
  EXPECT_EQ(d.check(grown, {"--tolerance", "33.3"}).exit_code, 3);

  // The file's own tolerance applies without --tolerance; --tolerance overrides it.
  std::string text = testing::file_text(d.budget);
  const std::string end = "\"schema_version\": 1\n}\n";
  ASSERT_NE(text.find(end), std::string::npos);
  text.replace(text.find(end), end.size(), "\"schema_version\": 1,\n  \"tolerance_pct\": 50\n}\n");
  write_text(d.budget, text);
  EXPECT_EQ(d.check(grown).exit_code, 0);
  r = d.check(grown, {"--tolerance", "10"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr("grew 48 B -> 64 B (+16 B, +33.33%; tolerance 10%)\n"));

  // A program's tolerance wins over both.
  const std::string methods_end = "\n      }\n    }\n";
  ASSERT_NE(text.find(methods_end), std::string::npos);
  text.replace(text.find(methods_end), methods_end.size(),
               "\n      },\n      \"tolerance_pct\": 5\n    }\n");
  write_text(d.budget, text);
  r = d.check(grown, {"--tolerance", "40"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr("FAIL model.pte forward: buffer 1 (cuda:0) grew 48 B -> 64 B "
                               "(+16 B, +33.33%; tolerance 5%)\n"));

  // Re-recording keeps both tolerances.
  ASSERT_EQ(run(&budget_command, {"record", grown, "-o", d.budget}).exit_code, 0);
  const std::string rerecorded = testing::file_text(d.budget);
  EXPECT_THAT(rerecorded, HasSubstr("\n      },\n      \"tolerance_pct\": 5.0\n    }\n"));
  EXPECT_THAT(rerecorded, HasSubstr("\"schema_version\": 1,\n  \"tolerance_pct\": 50.0\n}\n"));
}

TEST(BudgetCommandTest, AllocationCountsHaveTheirOwnTolerance) {
  BudgetDir d;
  const std::string moved = d.version("device_add_cuda1");
  testing::CommandResult r = d.check(moved, {"--tolerance", "1000"});
  EXPECT_EQ(r.exit_code, 3);
  // Growth from nothing is beyond every tolerance.
  EXPECT_THAT(r.out, HasSubstr("  FAIL model.pte forward: devplan load on cuda:1: allocations "
                               "grew 0 -> 1 (+1, new; tolerance 0%)\n"));
}

TEST(BudgetCommandTest, TensorsMovedToAnotherDeviceFail) {
  BudgetDir d;
  const std::string moved = d.version("device_add_cuda1");
  testing::CommandResult r = d.check(moved);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr("program model.pte (" + moved + "): FAILED, " +
                               (executorch_available() ? "7" : "5") +
                               " figures grew beyond the budget\n"
                               "  FAIL model.pte forward: buffer 1 moved from cuda:0 to cuda:1 "
                               "(48 B)\n"
                               "  model.pte forward: planned bytes on cuda:0 shrank 48 B -> 0 B "
                               "(-48 B, -100.00%)\n"
                               "  FAIL model.pte forward: planned bytes on cuda:1 grew 0 B -> 48 B "
                               "(+48 B, new; tolerance 0%)\n"
                               "  model.pte forward: peak device bytes on cuda:0 shrank 48 B -> "
                               "0 B (-48 B, -100.00%)\n"
                               "  FAIL model.pte forward: peak device bytes on cuda:1 grew 0 B -> "
                               "48 B (+48 B, new; tolerance 0%)\n"
                               "  model.pte forward: devplan load on cuda:0: allocations shrank "
                               "1 -> 0 (-1, -100.00%)\n"));
}

TEST(BudgetCommandTest, AMethodAddedFailsAMethodRemovedIsReported) {
  BudgetDir d;
  const std::string two = d.version("device_add_cuda0_and_cpu");
  testing::CommandResult r = d.check(two);
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "budget: " + d.budget + "\nprogram model.pte (" + two +
                       "): FAILED, 1 figure grew beyond the budget\n"
                       "  FAIL model.pte cpu_forward: is a new method, not in the budget (1 "
                       "planned buffer, 48 B)\n"
                       "result: FAILED: 1 figure grew beyond the budget in 1 program\n"
                       "To accept the change: devplan budget record " +
                       two + " -o " + d.budget + "\n");
  ASSERT_EQ(run(&budget_command, {"record", two, "-o", d.budget}).exit_code, 0);
  r = d.check(d.model);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("  model.pte cpu_forward: was removed (the budget has it)\n"));
}

TEST(BudgetCommandTest, AnExtraAllocationUnderOneEngine) {
  BudgetDir d;
  const std::string zero = d.version("zero_size_device_buffer");
  testing::CommandResult r = d.check(zero);
  if (!executorch_available()) {
    // devplan does not allocate an empty buffer: only a note.
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr("  note: model.pte forward: buffer 2 (cuda:1) is new: 0 B\n"));
    GTEST_SKIP() << "this build has no ExecuTorch engine (DEVPLAN_WITH_EXECUTORCH=OFF), whose "
                    "extra allocation is the failure";
  }
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "budget: " + d.budget + "\nprogram model.pte (" + zero +
                       "): FAILED, 1 figure grew beyond the budget\n"
                       "  note: model.pte forward: buffer 2 (cuda:1) is new: 0 B\n"
                       "  FAIL model.pte forward: executorch load on cuda:1: allocations grew "
                       "0 -> 1 (+1, new; tolerance 0%)\n"
                       "result: FAILED: 1 figure grew beyond the budget in 1 program\n"
                       "To accept the change: devplan budget record " +
                       zero + " -o " + d.budget + "\n");
}

TEST(BudgetCommandTest, AnExecutorchCrashIsAFailedLoadEveryTime) {
  if (!executorch_available()) {
    GTEST_SKIP() << "this build has no ExecuTorch engine (DEVPLAN_WITH_EXECUTORCH=OFF)";
  }
  // ExecuTorch 1.5.1 writes model_scale_64gib's rotary table with a host memcpy into device
  // memory: the child process it loads in dies, and the budget records a failed load.
  const std::string dir = testing::temp_dir();
  const std::string budget = dir + "/budget.json";
  const std::string model = fixture_program("model_scale_64gib");
  ASSERT_EQ(run(&budget_command, {"record", model, "-o", budget}).exit_code, 0);
  Result<Budget> b = read_budget(budget);
  ASSERT_TRUE(b.ok()) << b.error();
  const BudgetMethod& m = b->programs.at("model_scale_64gib.pte").methods.at("forward");
  EXPECT_FALSE(m.loads.at("executorch").loaded);
  EXPECT_TRUE(m.loads.at("executorch").allocations.empty());
  EXPECT_TRUE(m.loads.at("devplan").loaded);
  EXPECT_EQ(m.loads.at("devplan").allocations.size(), 4u);
  EXPECT_EQ(m.loads.at("devplan").allocations.at(Device::cuda(3)).bytes, 17179869184u);  // 16 GiB
  testing::CommandResult r = run(&budget_command, {"check", budget, model});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "budget: " + budget + "\nprogram model_scale_64gib.pte (" + model +
                       "): ok\nresult: within the budget (1 program)\n");
}

TEST(BudgetCommandTest, JsonVerdict) {
  BudgetDir d;
  testing::CommandResult r = d.check(d.model, {"--json"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, testing::json_header() + R"("budget":")" + d.budget +
                       R"(","programs":[{"name":"model.pte","file":")" + d.model +
                       R"(","result":"ok","findings":[]}],"failures":0,"result":"ok",)"
                       R"("accept":null})"
                       "\n");
  const std::string grown = d.version("device_add_cuda0_grown");
  r = d.check(grown, {"--json"});
  EXPECT_EQ(r.exit_code, 3);
  Result<Json> doc = parse_json(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error();
  EXPECT_EQ((*doc)["result"], "grew");
  EXPECT_EQ((*doc)["failures"], executorch_available() ? 6 : 5);
  EXPECT_EQ((*doc)["accept"], "devplan budget record " + grown + " -o " + d.budget);
  const Json& first = (*doc)["programs"][0]["findings"][0];
  EXPECT_EQ(write_json(first),
            R"j({"kind":"grew","method":"forward","what":"buffer.size","index":1,)j"
            R"j("device":"cuda:0","old":48,"new":64,"text":"model.pte forward: buffer 1 )j"
            R"j((cuda:0) grew 48 B -> 64 B (+16 B, +33.33%; tolerance 0%)"})j");
}

TEST(BudgetCommandTest, JunitHasACasePerProgramAndMethod) {
  BudgetDir d;
  const std::string junit = d.dir + "/budget.xml";
  const std::string two = d.version("device_add_cuda0_and_cpu");
  testing::CommandResult r = d.check(two, {"--junit", junit});
  EXPECT_EQ(r.exit_code, 3);
  tinyxml2::XMLDocument doc;
  ASSERT_EQ(doc.LoadFile(junit.c_str()), tinyxml2::XML_SUCCESS);
  const tinyxml2::XMLElement* suite = doc.FirstChildElement("testsuites")->FirstChildElement();
  ASSERT_NE(suite, nullptr);
  EXPECT_STREQ(suite->Attribute("name"), "devplan budget check");
  EXPECT_STREQ(suite->Attribute("tests"), "2");
  EXPECT_STREQ(suite->Attribute("failures"), "1");
  const tinyxml2::XMLElement* c = suite->FirstChildElement("testcase");
  ASSERT_NE(c, nullptr);
  EXPECT_STREQ(c->Attribute("classname"), "model.pte");
  EXPECT_STREQ(c->Attribute("name"), "cpu_forward");
  ASSERT_NE(c->FirstChildElement("failure"), nullptr);
  EXPECT_STREQ(c->FirstChildElement("failure")->Attribute("message"),
               "model.pte cpu_forward: is a new method, not in the budget (1 planned buffer, "
               "48 B)");
  c = c->NextSiblingElement("testcase");
  ASSERT_NE(c, nullptr);
  EXPECT_STREQ(c->Attribute("name"), "forward");
  EXPECT_EQ(c->FirstChildElement("failure"), nullptr);
  // An error is one failing case.
  write_text(d.budget, "{");
  EXPECT_EQ(d.check(d.model, {"--junit", junit}).exit_code, 1);
  ASSERT_EQ(doc.LoadFile(junit.c_str()), tinyxml2::XML_SUCCESS);
  c = doc.FirstChildElement("testsuites")->FirstChildElement()->FirstChildElement("testcase");
  ASSERT_NE(c, nullptr);
  EXPECT_STREQ(c->Attribute("name"), "budget check");
  ASSERT_NE(c->FirstChildElement("failure"), nullptr);
}

TEST(BudgetCommandTest, RecordDropsProgramsNotGivenAndRefusesAFileThatIsNotABudget) {
  BudgetDir d;
  const std::string other = d.dir + "/other.pte";
  testing::copy_file(fixture_program("cpu_add"), other);
  testing::CommandResult r = run(&budget_command, {"record", other, "-o", d.budget});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out, "recorded 1 program (1 method) in " + d.budget +
                       "\n  other.pte: forward\n"
                       "  dropped model.pte (it was in the budget; not given now)\n");
  const std::string notes = d.dir + "/notes.json";
  write_text(notes, R"({"title": "my notes"})");
  r = run(&budget_command, {"record", other, "-o", notes});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "devplan budget record: InvalidArgument: not overwriting '" + notes +
                       "', which is not a devplan budget (" + notes +
                       ": not a devplan budget (expected \"format\": \"devplan-budget\"; write "
                       "one with devplan budget record))\n");
  EXPECT_EQ(testing::file_text(notes), R"({"title": "my notes"})");
}

// One budget shared by several recordings and checks (the pytest plugin's gates): --update keeps
// the programs not given, --only-given checks the programs given and no others.
TEST(BudgetCommandTest, UpdateKeepsOtherProgramsAndOnlyGivenChecksTheGivenOnes) {
  BudgetDir d;
  const std::string other = d.dir + "/other.pte";
  testing::copy_file(fixture_program("cpu_add"), other);
  testing::CommandResult r = run(&budget_command, {"record", other, "--update", "-o", d.budget});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "recorded 1 program (1 method) in " + d.budget +
                       "\n  other.pte: forward\n  kept model.pte (in the budget; not given now)\n");
  const std::string text = testing::file_text(d.budget);
  EXPECT_THAT(text, HasSubstr("\"model.pte\": {"));
  EXPECT_THAT(text, HasSubstr("\"other.pte\": {"));
  r = run(&budget_command, {"record", other, "--update", "-o", d.budget, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(R"("programs":[{"name":"other.pte","methods":["forward"]}],)"
                               R"("dropped":[],"kept":["model.pte"]})"));
  // Each program alone, against the budget that has both.
  r = d.check(d.model, {"--only-given"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("result: within the budget (1 program)\n"));
  r = d.check(other, {"--only-given"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // Without --only-given the entry without its file is still an error.
  r = d.check(other);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "devplan budget check: NotFound: " + d.budget +
                       " has model.pte, but no file of that name was given; pass it, or record "
                       "the budget again without it\n");
  // A grown program's accept command keeps the others: it records with --update.
  const std::string grown = d.version("device_add_cuda0_grown");
  r = d.check(grown, {"--only-given"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr("To accept the change: devplan budget record " + grown +
                               " --update -o " + d.budget + "\n"));
  // A program the budget lacks, under --only-given: the command that adds it keeps the others.
  const std::string third = d.dir + "/third.pte";
  testing::copy_file(fixture_program("cpu_add"), third);
  r = d.check(third, {"--only-given"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "devplan budget check: NotFound: third.pte (" + third + ") is not in " +
                       d.budget + "; add it with: devplan budget record " + third +
                       " --update -o " + d.budget + "\n");
  // Recording the grown version with --update replaces model.pte only.
  r = run(&budget_command, {"record", grown, "--update", "-o", d.budget});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(d.check(grown, {"--only-given"}).exit_code, 0);
  EXPECT_EQ(d.check(other, {"--only-given"}).exit_code, 0);
}

TEST(BudgetCommandTest, BadBudgetFiles) {
  BudgetDir d;
  const auto check_error = [&](const std::string& text) {
    write_text(d.budget, text);
    testing::CommandResult r = d.check(d.model);
    EXPECT_EQ(r.exit_code, 1) << text;
    EXPECT_EQ(r.out, "");
    return r.err;
  };
  const std::string prefix = "devplan budget check: InvalidArgument: " + d.budget + ": ";
  EXPECT_EQ(check_error("not json"),
            prefix + "JSON parse error at line 1, column 1: expected a value, got 'n'\n");
  EXPECT_EQ(check_error(R"({"format":"devplan-budget","schema_version":2,"programs":{}})"),
            prefix +
                "schema_version 2 is not supported (this devplan reads 1); record the "
                "budget again with this devplan\n");
  EXPECT_EQ(check_error(R"({"format":"devplan-budget","programs":{}})"),
            prefix +
                "schema_version none is not supported (this devplan reads 1); record the "
                "budget again with this devplan\n");
  EXPECT_EQ(check_error(R"({"schema_version":1,"programs":{}})"),
            prefix +
                "not a devplan budget (expected \"format\": \"devplan-budget\"; write one "
                "with devplan budget record)\n");
  EXPECT_EQ(check_error("[1]"), prefix + "the file is not a JSON object\n");
  EXPECT_EQ(check_error(R"({"format":"devplan-budget","schema_version":1})"),
            prefix + "programs: missing\n");
  EXPECT_EQ(check_error(R"({"format":"devplan-budget","schema_version":1,"programs":{"model.pte":)"
                        R"({"methods":{"forward":{"buffers":[{"device":"gpu:0","size":1}]}}}}})"),
            prefix +
                R"(programs."model.pte".methods."forward".buffers[0].device: 'gpu:0' is not a )"
                "device (cpu:0, cuda:1, ...)\n");
  EXPECT_EQ(check_error(R"({"format":"devplan-budget","schema_version":1,"programs":{"model.pte":)"
                        R"({"methods":{"forward":{"buffers":[{"device":"cpu:0","size":-1}]}}}}})"),
            prefix + R"(programs."model.pte".methods."forward".buffers[0].size: expected a whole )"
                     "number, 0 or above\n");
  EXPECT_EQ(check_error(R"({"format":"devplan-budget","schema_version":1,"programs":{},)"
                        R"("tolerance_pct":"5"})"),
            prefix + "tolerance_pct: expected a percentage, 0 or above\n");
  EXPECT_EQ(check_error(R"({"format":"devplan-budget","schema_version":1,"programs":{},"x":1})"),
            prefix + "x: unknown member\n");
  write_text(d.budget, "");
  EXPECT_EQ(run(&budget_command, {"check", d.dir + "/missing.json", d.model}).exit_code, 1);
}

TEST(BudgetCommandTest, ProgramsAndBudgetEntriesMustMatch) {
  BudgetDir d;
  const std::string other = d.dir + "/other.pte";
  testing::copy_file(fixture_program("cpu_add"), other);
  testing::CommandResult r = d.check(other);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "devplan budget check: NotFound: other.pte (" + other + ") is not in " +
                       d.budget + "; add it with: devplan budget record " + other + " -o " +
                       d.budget + "; " + d.budget +
                       " has model.pte, but no file of that name was given; pass it, or record "
                       "the budget again without it\n");
  // A program that does not load.
  std::vector<uint8_t> bytes = device_add_cuda0_program_builder().build();
  bytes.resize(100);
  const std::string truncated = d.dir + "/bad/model.pte";
  testing::copy_file(testing::temp_file(bytes), truncated);
  r = d.check(truncated);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("devplan budget check: InvalidProgram: " + truncated + ": "));
  // The same file twice, or two files of one name: usage errors.
  r = d.check(d.model, {d.model});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "devplan budget check: '" + d.model +
                       "' is given twice\nRun 'devplan budget check --help' for the options.\n");
  r = d.check(d.model, {truncated});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("have the same file name 'model.pte' (a budget keys programs by "
                               "file name)"));
  EXPECT_EQ(run(&budget_command, {"record", d.model, d.model, "-o", d.budget}).exit_code, 2);
}

TEST(BudgetCommandTest, CommandLine) {
  testing::CommandResult r = run(&budget_command, {});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("  devplan budget record FILE... -o budget.json"));
  r = run(&budget_command, {"--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_THAT(
      r.out,
      HasSubstr("  devplan budget check budget.json FILE... [--only-given] [--tolerance PCT]"));
  EXPECT_EQ(r.err, "");
  r = run(&budget_command, {"frob"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("devplan budget: unknown subcommand 'frob' (record or check)\n"));
  EXPECT_EQ(run(&budget_command, {"record", fixture_program("cpu_add")}).exit_code, 2);  // no -o
  EXPECT_EQ(run(&budget_command, {"check", "budget.json"}).exit_code, 2);                // no FILE
  r = run(&budget_command, {"check", "b.json", "m.pte", "--allocation-tolerance", "1e3"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--allocation-tolerance: expects a percentage"));
}

TEST(BudgetFileTest, WriteThenReadIsTheSameBudget) {
  BudgetDir d;
  const std::string text = testing::file_text(d.budget);
  Result<Budget> budget = read_budget(d.budget);
  ASSERT_TRUE(budget.ok()) << budget.error();
  EXPECT_EQ(write_budget(*budget), text);
  const BudgetMethod& m = budget->programs.at("model.pte").methods.at("forward");
  ASSERT_EQ(m.buffers.size(), 2u);
  EXPECT_EQ(m.buffers[1].device, Device::cuda(0));
  EXPECT_EQ(m.buffers[1].size, 48u);
  EXPECT_EQ(m.loads.at("devplan").allocations.at(Device::cuda(0)).allocations, 1u);
  EXPECT_EQ(m.plan_ratio, 1.0);
  Budget empty;
  EXPECT_EQ(
      write_budget(empty),
      "{\n  \"format\": \"devplan-budget\",\n  \"programs\": {},\n  \"schema_version\": 1\n}\n");
}

TEST(BudgetCheckTest, AnEngineRecordedButNotBuiltIsANote) {
  BudgetProgram recorded, measured;
  recorded.methods["forward"].loads["executorch"] = BudgetLoad{};
  recorded.methods["forward"].loads["devplan"] = BudgetLoad{};
  measured.methods["forward"].loads["devplan"] = BudgetLoad{};
  std::vector<BudgetFinding> f = check_against_budget("m.pte", recorded, measured, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::Note);
  EXPECT_EQ(f[0].text,
            "m.pte forward: executorch load: recorded in the budget, but this build has no "
            "executorch engine; not checked");
}

TEST(BudgetCheckTest, LeaksAndMisuseFailOnAnyGrowthAndAFailedLoadFails) {
  BudgetProgram recorded, measured;
  recorded.methods["forward"].loads["devplan"] = BudgetLoad{};
  BudgetLoad& now = measured.methods["forward"].loads["devplan"];
  now.leaks = 1;
  now.misuse = 2;
  std::vector<BudgetFinding> f =
      check_against_budget("m.pte", recorded, measured, BudgetTolerances{1000, 1000});
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].text, "m.pte forward: devplan load: leaks grew 0 -> 1 (+1, new; tolerance 0%)");
  EXPECT_EQ(f[1].text, "m.pte forward: devplan load: misuse grew 0 -> 2 (+2, new; tolerance 0%)");
  EXPECT_EQ(f[1].kind, FindingKind::Grew);
  now = BudgetLoad{};
  now.loaded = false;
  now.error = "MemoryAllocationFailed: cuda:0 is full";
  f = check_against_budget("m.pte", recorded, measured, {});
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, FindingKind::Grew);
  EXPECT_EQ(f[0].text,
            "m.pte forward: devplan load failed (it loaded when recorded): "
            "MemoryAllocationFailed: cuda:0 is full");
}

}  // namespace
}  // namespace devplan::harness
