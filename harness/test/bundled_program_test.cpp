// Bundled programs (.bpte): the committed files ExecuTorch 1.5.1 wrote
// (fixtures/executorch/exporter/bundled_*.bpte) read field by field, every command on them, the
// test sets of `run` and `report` with their tolerances, `replan` keeping the bundle, and bad
// bundles.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <sstream>

#include <harness/engine/program_image.h>
#include <harness/output/bundled_report_text.h>
#include <harness/services/replan.h>
#include <runtime_ext/program/bundled_program.h>
#include <runtime_ext/program/file_data_loader.h>
#include <runtime_ext/schema/bundled_program_generated.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

namespace bp = devplan_bundled_flatbuffer;
using ::testing::HasSubstr;
using testing::run;

std::vector<uint8_t> file_bytes(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = read_file(path);
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  return bytes.ok() ? *bytes : std::vector<uint8_t>{};
}

std::vector<float> floats(Span<const uint8_t> data) {
  std::vector<float> out(data.size() / sizeof(float));
  std::memcpy(out.data(), data.data(), out.size() * sizeof(float));
  return out;
}

std::vector<uint8_t> pack(const bp::BundledProgramT& object) {
  flatbuffers::FlatBufferBuilder fbb;
  bp::FinishBundledProgramBuffer(fbb, bp::BundledProgram::Pack(fbb, &object));
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

std::unique_ptr<bp::BundledProgramT> unpack(const std::vector<uint8_t>& bytes) {
  return std::unique_ptr<bp::BundledProgramT>(bp::GetBundledProgram(bytes.data())->UnPack());
}

TEST(BundledProgramTest, TheExportersBundleReadsFieldByField) {
  const std::vector<uint8_t> bytes = file_bytes(testing::exported_program("bundled_add.bpte"));
  ASSERT_TRUE(is_bundled_program(bytes));
  Result<BundledProgram> b = BundledProgram::parse(bytes);
  ASSERT_TRUE(b.ok()) << b.error();
  EXPECT_EQ(b->version, 2u);
  EXPECT_EQ(b->program_offset, 64u);
  EXPECT_EQ(b->program.size(), 1072u);
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(b->program.data()) + 4, 4), "ET12");
  ASSERT_EQ(b->suites.size(), 1u);
  EXPECT_EQ(b->suites[0].method_name, "forward");
  ASSERT_EQ(b->suites[0].cases.size(), 2u);
  const BundledTestCase& c = b->suites[0].cases[0];
  ASSERT_EQ(c.inputs.size(), 2u);
  ASSERT_EQ(c.expected_outputs.size(), 1u);
  EXPECT_EQ(c.inputs[0].tag, ValueTag::Tensor);
  EXPECT_EQ(c.inputs[0].dtype, ScalarType::Float);
  EXPECT_EQ(c.inputs[0].sizes, (std::vector<int32_t>{2, 2}));
  EXPECT_EQ(c.inputs[0].dim_order, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(floats(c.inputs[0].data), (std::vector<float>{1, 2, 3, 4}));
  EXPECT_EQ(floats(c.inputs[1].data), (std::vector<float>{0.5f, -1.5f, 10, -4.25f}));
  EXPECT_EQ(floats(c.expected_outputs[0].data), (std::vector<float>{1.5f, 0.5f, 13, -0.25f}));
  // The program inside is the one the image hands to the engines.
  Result<ProgramImage> image = ProgramImage::map(testing::exported_program("bundled_add.bpte"));
  ASSERT_TRUE(image.ok());
  ASSERT_NE(image->bundled(), nullptr);
  EXPECT_EQ(image->bytes().size(), 1072u);
  EXPECT_EQ(image->file_bytes().size(), bytes.size());
  EXPECT_TRUE(image->program().ok());
}

TEST(BundledProgramTest, RunRunsEveryTestCase) {
  testing::CommandResult r = run(&run_command, {testing::exported_program("bundled_add.bpte")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "bundled program: 2 test cases (rtol 1e-05, atol 1e-08; the file gives no "
            "tolerances)\n"
            "forward test case 0: pass (largest difference 0)\n"
            "forward test case 1: pass (largest difference 0)\n"
            "2 passed, 0 failed\n");
  testing::CommandResult device =
      run(&run_command, {testing::exported_program("bundled_device.bpte"), "--json"});
  EXPECT_EQ(device.exit_code, 0) << device.err;
  EXPECT_THAT(device.out, HasSubstr(R"("passed":2,"failed":0)")) << device.out;
}

TEST(BundledProgramTest, ACaseThatCannotRunFailsAndMethodSelectsASuite) {
  testing::CommandResult all =
      run(&run_command, {testing::exported_program("bundled_two_methods.bpte")});
  EXPECT_EQ(all.exit_code, 3);
  EXPECT_THAT(all.out, HasSubstr("cpu_only test case 0: FAIL: OperatorMissing: method "
                                 "'cpu_only': chain 0 instruction 0: operator aten::tanh.out has "
                                 "no kernel\n"));
  EXPECT_THAT(all.out, HasSubstr("2 passed, 3 failed\n"));
  testing::CommandResult forward = run(
      &run_command, {testing::exported_program("bundled_two_methods.bpte"), "--method", "forward"});
  EXPECT_EQ(forward.exit_code, 0) << forward.out;
  EXPECT_THAT(forward.out, HasSubstr("2 passed, 0 failed\n"));
  testing::CommandResult unknown = run(
      &run_command, {testing::exported_program("bundled_two_methods.bpte"), "--method", "nope"});
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_THAT(unknown.err, HasSubstr("the bundled program has no test set for method 'nope'"));
}

// bundled_add with case 0's first expected element 1.5 moved by 0.001.
std::vector<uint8_t> slightly_off_bundle() {
  std::unique_ptr<bp::BundledProgramT> object =
      unpack(file_bytes(testing::exported_program("bundled_add.bpte")));
  std::vector<uint8_t>& data =
      object->method_test_suites[0]->test_cases[0]->expected_outputs[0]->val.AsTensor()->data;
  const float off = 1.501f;
  std::memcpy(data.data(), &off, sizeof(off));
  return pack(*object);
}

TEST(BundledProgramTest, OutputsAreComparedWithinTheTolerances) {
  const std::string file = testing::temp_file(slightly_off_bundle(), ".bpte");
  testing::CommandResult strict = run(&run_command, {file});
  EXPECT_EQ(strict.exit_code, 3);
  EXPECT_THAT(strict.out, HasSubstr("forward test case 0: FAIL: output 0 element 0: 1.5, "
                                    "expected 1.501 (difference 0.001000046730041504 > "
                                    "1.5020000467300417e-05)\n"))
      << strict.out;
  testing::CommandResult loose = run(&run_command, {file, "--atol", "0.01"});
  EXPECT_EQ(loose.exit_code, 0) << loose.out;
  EXPECT_THAT(loose.out, HasSubstr("forward test case 0: pass (largest difference "
                                   "0.001000046730041504)\n"));
  EXPECT_EQ(run(&run_command, {file, "--rtol", "-1"}).exit_code, 2);
  testing::CommandResult report = run(&report_command, {file, "--fuzz-cases", "0", "--out",
                                                        ::testing::TempDir() + "/bundled-report"});
  EXPECT_EQ(report.exit_code, 3);
  EXPECT_THAT(report.out, HasSubstr("  test cases: 1/2 passed\n  test FAILED: forward test case 0: "
                                    "output 0 element 0: 1.5, expected 1.501"));
}

TEST(BundledProgramTest, EveryCommandReadsTheProgramInside) {
  const std::string file = testing::exported_program("bundled_device.bpte");
  testing::CommandResult inspect = run(&inspect_command, {file});
  EXPECT_EQ(inspect.exit_code, 0) << inspect.err;
  EXPECT_THAT(inspect.out, HasSubstr("buffer 1: 48 B on cuda:0"));
  EXPECT_EQ(run(&check_command, {file}).exit_code, 0);
  testing::CommandResult simulate = run(&simulate_command, {file});
  EXPECT_EQ(simulate.exit_code, 0) << simulate.err;
  EXPECT_THAT(simulate.out, HasSubstr("(1 allocation, 1 free)"));
  testing::CommandResult report = run(&report_command, {file, "--fuzz-cases", "0", "--out",
                                                        ::testing::TempDir() + "/bundled-report"});
  EXPECT_EQ(report.exit_code, 0) << report.out;
  EXPECT_THAT(report.out, HasSubstr("bundled_device "));
  EXPECT_THAT(report.out, HasSubstr("  test cases: 2/2 passed\n"));
}

// A bundle around testing::wasteful_device_add (48 B of host buffer where 32 B do), with one
// test case: a = 1..4, b = 10 everywhere gives 11..14.
std::vector<uint8_t> wasteful_bundle() {
  bp::BundledProgramT object;
  object.version = 2;
  object.program = testing::wasteful_device_add();
  auto tensor = [](std::vector<float> values) {
    auto value = std::make_unique<bp::ValueT>();
    bp::TensorT t;
    t.scalar_type = devplan_flatbuffer::ScalarType::FLOAT;
    t.sizes = {2, 2};
    t.dim_order = {0, 1};
    t.data.resize(values.size() * sizeof(float));
    std::memcpy(t.data.data(), values.data(), t.data.size());
    value->val.Set(std::move(t));
    return value;
  };
  auto test = std::make_unique<bp::BundledMethodTestCaseT>();
  test->inputs.push_back(tensor({1, 2, 3, 4}));
  test->inputs.push_back(tensor({10, 10, 10, 10}));
  test->expected_outputs.push_back(tensor({11, 12, 13, 14}));
  auto suite = std::make_unique<bp::BundledMethodTestSuiteT>();
  suite->method_name = "forward";
  suite->test_cases.push_back(std::move(test));
  object.method_test_suites.push_back(std::move(suite));
  return pack(object);
}

TEST(BundledProgramTest, ReplanKeepsTheBundleAndItsTestSets) {
  const std::vector<uint8_t> original = wasteful_bundle();
  const std::string in = testing::temp_file(original, ".bpte");
  const std::string out = testing::temp_file({}, ".bpte");
  testing::CommandResult r = run(&replan_command, {in, "-o", out});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  buffer 0 on cpu:0: 48 B -> 32 B"));
  const std::vector<uint8_t> replanned = file_bytes(out);
  ASSERT_TRUE(is_bundled_program(replanned));
  std::unique_ptr<bp::BundledProgramT> before = unpack(original);
  std::unique_ptr<bp::BundledProgramT> after = unpack(replanned);
  ASSERT_EQ(after->method_test_suites.size(), 1u);
  EXPECT_TRUE(*before->method_test_suites[0] == *after->method_test_suites[0]);
  EXPECT_EQ(after->version, 2u);
  Result<BundledProgram> parsed = BundledProgram::parse(replanned);
  ASSERT_TRUE(parsed.ok()) << parsed.error();
  EXPECT_EQ(parsed->program_offset % 32, 0u);
  for (const std::string& file : {in, out}) {
    testing::CommandResult ran = run(&run_command, {file});
    EXPECT_EQ(ran.exit_code, 0) << ran.out;
    EXPECT_THAT(ran.out, HasSubstr("forward test case 0: pass (largest difference 0)\n"));
  }
  EXPECT_EQ(run(&check_command, {out}).exit_code, 0);
}

TEST(BundledProgramTest, BadBundlesAreCleanErrors) {
  const std::vector<uint8_t> good = file_bytes(testing::exported_program("bundled_add.bpte"));
  std::vector<uint8_t> truncated(good.begin(), good.begin() + 300);
  testing::CommandResult t = run(&inspect_command, {testing::temp_file(truncated, ".bpte")});
  EXPECT_EQ(t.exit_code, 1);
  EXPECT_THAT(t.err, HasSubstr(".bpte: bundled program: the 300 bytes failed flatbuffer "
                               "verification: truncated or corrupt\n"));
  std::unique_ptr<bp::BundledProgramT> object = unpack(good);
  object->method_test_suites[0]->test_cases[1]->inputs[0]->val.AsTensor()->data.resize(12);
  testing::CommandResult short_data =
      run(&run_command, {testing::temp_file(pack(*object), ".bpte")});
  EXPECT_EQ(short_data.exit_code, 1);
  EXPECT_THAT(short_data.err,
              HasSubstr("bundled program: test case 1 of method 'forward': input 0: "
                        "12 bytes of data for float32[2, 2] (16 expected)"));
  object = unpack(good);
  object->program.clear();
  testing::CommandResult empty =
      run(&simulate_command, {testing::temp_file(pack(*object), ".bpte")});
  EXPECT_EQ(empty.exit_code, 1);
  EXPECT_THAT(empty.err, HasSubstr("bundled program: it holds no program"));
  object = unpack(good);
  object->program.resize(100);  // a cut-off program inside
  testing::CommandResult cut = run(&check_command, {testing::temp_file(pack(*object), ".bpte")});
  EXPECT_EQ(cut.exit_code, 1);
  EXPECT_THAT(cut.err, HasSubstr("InvalidProgram"));
}

// The text of a bundled run, from a report with every kind of line: a pass, a failure, a leak
// and a misuse, in that order, then the counts.
TEST(BundledReportText, EveryKindOfLineInItsPlace) {
  BundledTestReport report;
  TestCaseOutcome pass;
  pass.method = "forward";
  pass.index = 0;
  pass.passed = true;
  pass.max_difference = 0.25;
  TestCaseOutcome fail;
  fail.method = "forward";
  fail.index = 1;
  fail.message = "output 0 element 2: 13.5, expected 13 (difference 0.5 > 0.00013001)";
  report.cases = {pass, fail};
  report.leak_lines = {"#3 cuda:0 48 B align 16 owner forward/buffer 1"};
  report.misuse_lines = {"double free of #2 cuda:0 16 B owner forward/buffer 0"};
  Tolerances tolerances;
  tolerances.rtol = 0.001;
  std::ostringstream out;
  write_bundled_report_text(report, tolerances, out);
  EXPECT_EQ(out.str(),
            "bundled program: 2 test cases (rtol 0.001, atol 1e-08; the file gives no "
            "tolerances)\n"
            "forward test case 0: pass (largest difference 0.25)\n"
            "forward test case 1: FAIL: output 0 element 2: 13.5, expected 13 (difference 0.5 > "
            "0.00013001)\n"
            "LEAK #3 cuda:0 48 B align 16 owner forward/buffer 1\n"
            "MISUSE double free of #2 cuda:0 16 B owner forward/buffer 0\n"
            "1 passed, 1 failed\n");
}

}  // namespace
}  // namespace devplan::harness
