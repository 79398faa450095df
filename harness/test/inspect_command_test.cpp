#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <runtime_ext/writer/program_builder.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::fixture_program;
using testing::real_program;
using testing::run;

TEST(InspectCommandTest, RealAddProgram) {
  testing::CommandResult r = run(&inspect_command, {real_program("add.pte")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "file: " + real_program("add.pte") +
                       "\n"
                       "method forward: 4 values, 1 instructions, 1 planned buffers\n"
                       "  buffer 0: 48 B on cpu:0, 3 planned tensors, max end 36 B\n"
                       "  peak device bytes: none\n"
                       "  operators: aten::add.out\n"
                       "  delegates: none\n"
                       "  inputs:\n"
                       "    value 0: float32[1] on cpu:0 (4 B), planned\n"
                       "    value 1: float32[1] on cpu:0 (4 B), planned\n"
                       "  outputs:\n"
                       "    value 2: float32[1] on cpu:0 (4 B), planned\n");
}

TEST(InspectCommandTest, DeviceFixtureShowsBothBuffersAndTheDelegate) {
  testing::CommandResult r = run(&inspect_command, {fixture_program("device_add_cuda0")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  buffer 0: 32 B on cpu:0, 3 planned tensors, max end 32 B\n"
                               "  buffer 1: 48 B on cuda:0, 3 planned tensors, max end 48 B\n"
                               "  peak device bytes: cuda:0 48 B\n"
                               "  operators: et_copy::_h2d_copy.out, et_copy::_d2h_copy.out\n"
                               "  delegates: DeviceAddBackend\n"))
      << r.out;
}

TEST(InspectCommandTest, OptionsMayComeBeforeTheFile) {
  testing::CommandResult after = run(&inspect_command, {real_program("add.pte"), "--json"});
  testing::CommandResult before = run(&inspect_command, {"--json", real_program("add.pte")});
  ASSERT_EQ(after.exit_code, 0);
  EXPECT_EQ(after.out, before.out);
}

TEST(InspectCommandTest, InvalidFileIsOneLineAndExitOne) {
  std::vector<uint8_t> bytes = make_device_add_cuda0_program();
  bytes.resize(bytes.size() / 2);
  const std::string path = testing::temp_file(bytes);
  testing::CommandResult r = run(&inspect_command, {path});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err.rfind("devplan inspect: InvalidProgram: " + path + ": ", 0), 0u) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);
}

TEST(InspectCommandTest, MissingFileIsExitOne) {
  testing::CommandResult r = run(&inspect_command, {"/nonexistent.pte"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan inspect: AccessFailed: /nonexistent.pte: cannot open '/nonexistent.pte': No "
            "such file or directory\n");
}

TEST(InspectCommandTest, UsageErrorsExitTwo) {
  EXPECT_EQ(run(&inspect_command, {}).exit_code, 2);
  EXPECT_EQ(run(&inspect_command, {"a.pte", "b.pte"}).exit_code, 2);
  testing::CommandResult r = run(&inspect_command, {"a.pte", "--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "devplan inspect: The following argument was not expected: --bogus\n"
            "Run 'devplan inspect --help' for the options.\n");
}

TEST(InspectCommandJsonTest, RealAddProgramDocument) {
  testing::CommandResult r =
      testing::run(&inspect_command, {testing::real_program("add.pte"), "--json"});
  ASSERT_EQ(r.exit_code, 0);
  const std::string tensor =
      R"("type":"Tensor","dtype":"float32","sizes":[1],"nbytes":4,"device":"cpu:0","storage":"planned"})";
  EXPECT_EQ(
      r.out,
      testing::json_header() + R"("file":")" + testing::real_program("add.pte") +
          R"(","methods":[{"name":"forward","buffers":[{"index":0,"size":48,"device":"cpu:0","planned_tensors":3,"max_end":36}],"peak_device_bytes":{},"values":4,"instructions":1,"operators":["aten::add.out"],"delegates":[],"inputs":[{"value":0,)" +
          tensor + R"(,{"value":1,)" + tensor + R"(],"outputs":[{"value":2,)" + tensor +
          "],\"external\":[],\"notes\":[]}]}\n");
}

TEST(InspectCommandJsonTest, ErrorDocument) {
  testing::CommandResult r = testing::run(&inspect_command, {"/nonexistent.pte", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.out,
      testing::json_header() +
          R"("error":{"code":"AccessFailed","message":"/nonexistent.pte: cannot open '/nonexistent.pte': No such file or directory"}})"
          "\n");
}

// cpu_add with input b replaced by an external weight "linear.weight" (data in a .ptd file).
std::vector<uint8_t> external_weight_program() {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(32);
  const int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), host, 0);
  TensorSpec weight = TensorSpec::of(ScalarType::Float, {2, 2});
  weight.fully_qualified_name = "linear.weight";
  const int32_t w = m.add_external_tensor(weight);
  const int32_t out = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), host, 16);
  const int32_t alpha = m.add_int(1);
  m.add_chain();
  m.add_kernel_call("aten::add", "out", {a, w, alpha, out, out});
  m.set_inputs({a});
  m.set_outputs({out});
  return builder.build();
}

TEST(InspectCommandTest, ExternalTensorsAreShownNotMislabelled) {
  const std::string file = testing::temp_file(external_weight_program());
  testing::CommandResult r = testing::run(&inspect_command, {file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(
      r.out,
      HasSubstr("  external:\n    value 1: float32[2, 2] on cpu:0 (16 B), external 'linear.weight' "
                "(data in a separate .ptd file, not planned)\n"))
      << r.out;
  testing::CommandResult json = testing::run(&inspect_command, {file, "--json"});
  EXPECT_THAT(
      json.out,
      HasSubstr(
          R"("external":[{"value":1,"type":"Tensor","dtype":"float32","sizes":[2,2],)"
          R"("nbytes":16,"device":"cpu:0","storage":"external","fully_qualified_name":"linear.weight"}])"))
      << json.out;
  testing::CommandResult check = testing::run(&check_command, {file});
  EXPECT_EQ(check.exit_code, 0) << check.out;
  EXPECT_THAT(check.out,
              HasSubstr("  warning: value 1: external tensor 'linear.weight' (data in a separate "
                        ".ptd file): not planned, not checked\n"))
      << check.out;
  testing::CommandResult sim = testing::run(&simulate_command, {file});
  EXPECT_EQ(sim.exit_code, 1);
  EXPECT_THAT(sim.out,
              HasSubstr("method forward: InvalidState: method 'forward': value 1: external tensor "
                        "'linear.weight' is kept in a data file (.ptd) and none was given (--data "
                        "FILE.ptd)\n"))
      << sim.out;
}

// The exporter's nn.Linear with external constants: the .ptd listed on its own, and its tensors
// found through --data by inspect and check; bad data files named.
// An exported program whose outputs no instruction writes (input 1 returned as given, and a
// constant buffer) and whose inputs are values 2 and 3: inspect names the values, check keeps
// the returned input alive to the end (all three planned tensors share step 0, so the bound is
// the whole buffer).
TEST(InspectCommandTest, OutputsThatNoInstructionWritesAreShownByValue) {
  const std::string pte = testing::exported_program("wild_unnamed_outputs.pte");
  testing::CommandResult r = testing::run(&inspect_command, {pte});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "file: " + pte +
                       "\nmethod forward: 6 values, 1 instructions, 1 planned buffers\n"
                       "  buffer 0: 48 B on cpu:0, 3 planned tensors, max end 48 B\n"
                       "  peak device bytes: none\n"
                       "  operators: aten::add.out\n"
                       "  delegates: none\n"
                       "  inputs:\n"
                       "    value 2: float32[2, 2] on cpu:0 (16 B), planned\n"
                       "    value 3: float32[2, 2] on cpu:0 (16 B), planned\n"
                       "  outputs:\n"
                       "    value 3: float32[2, 2] on cpu:0 (16 B), planned\n"
                       "    value 4: float32[2, 2] on cpu:0 (16 B), planned\n"
                       "    value 0: float32[4] on cpu:0 (16 B), constant\n");
  r = testing::run(&check_command, {pte});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "file: " + pte +
                       "\nmethod forward: 1 steps\n"
                       "  buffer 0: 48 B on cpu:0, lower bound 48 B (size/bound 1.000), 3 planned "
                       "tensors\n"
                       "    optimum: 48 B (proven, 0 search steps); the plan is at the optimum\n"
                       "result: clean\n");
}

TEST(DataFileCommandsTest, ADataFileIsListedAndFoundThroughData) {
  const std::string ptd = testing::exported_program("wild_external_data.ptd");
  const std::string pte = testing::exported_program("wild_external_data.pte");
  testing::CommandResult r = run(&inspect_command, {ptd});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "data file: " + ptd +
                       " (FlatTensor version 0, 524 B)\n"
                       "segments: 2, 140 B from offset 384\n"
                       "  segment 0: offset 384, 48 B\n"
                       "  segment 1: offset 512, 12 B\n"
                       "tensors: 2\n"
                       "  'linear.weight': float32[3, 4], 48 B, segment 0 at 384, aligned to 128\n"
                       "  'linear.bias': float32[3], 12 B, segment 1 at 512, aligned to 512\n");
  r = run(&inspect_command, {ptd, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, testing::json_header() + R"("file":")" + ptd +
                       R"(","kind":"data","version":0,"size":524,"segment_base_offset":384,)"
                       R"("segment_data_size":140,"segments":[{"index":0,"offset":384,"size":48},)"
                       R"({"index":1,"offset":512,"size":12}],"tensors":[{"key":"linear.weight",)"
                       R"("dtype":"float32","sizes":[3,4],"dim_order":[0,1],"bytes":48,)"
                       R"("segment":0,"offset":384,"alignment":128},{"key":"linear.bias",)"
                       R"("dtype":"float32","sizes":[3],"dim_order":[0],"bytes":12,"segment":1,)"
                       R"("offset":512,"alignment":512}]})"
                       "\n");
  r = run(&inspect_command, {pte, "--data", ptd});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  external:\n    value 0: float32[3, 4] on cpu:0 (48 B), external "
                               "'linear.weight' in " +
                               ptd +
                               ", 48 B\n    value 1: float32[3] on "
                               "cpu:0 (12 B), external 'linear.bias' in " +
                               ptd + ", 12 B\n"));
  r = run(&check_command, {pte, "--data", ptd});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  data: value 0 'linear.weight' in " + ptd +
                               ", 48 B\n  data: value "
                               "1 'linear.bias' in " +
                               ptd + ", 12 B\ndata file: " + ptd +
                               ": 2 tensors, 60 B (file 524 B)\nresult: clean\n"));
  r = run(&check_command, {pte, "--data", ptd, "--json"});
  EXPECT_THAT(r.out, HasSubstr(R"("data_files":[{"file":")" + ptd +
                               R"(","tensors":2,"bytes":60,"size":524}]})"));
  EXPECT_THAT(r.out, HasSubstr(R"("fully_qualified_name":"linear.bias","data":"in )" + ptd +
                               R"(, 12 B"})"));

  // Without the file, each command says what is missing.
  r = run(&simulate_command, {pte});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("method forward: InvalidState: method 'forward': value 0: external "
                               "tensor 'linear.weight' is kept in a data file (.ptd) and none was "
                               "given (--data FILE.ptd)\n"));
  r = run(&simulate_command, {pte, "--data", ptd});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  // devplan's engine has neither kernel: it says so before running anything.
  r = run(&run_command, {pte, "--data", ptd});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: OperatorMissing: method 'forward': chain 0 instruction 0: operator "
            "aten::permute_copy.out has no kernel; operator aten::addmm.out has no kernel "
            "(chain 0 instruction 1)\n");

  // Bad data files.
  r = run(&run_command, {pte, "--data", ptd, "--data", ptd});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "devplan run: InvalidArgument: " + ptd + " is given twice\n");
  r = run(&run_command, {pte, "--data", pte});
  EXPECT_EQ(r.err, "devplan run: InvalidExternalData: " + pte +
                       ": not a data file (.ptd): file identifier is not FT01\n");
  r = run(&simulate_command, {pte, "--data", "/nonexistent.ptd"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("cannot open '/nonexistent.ptd': No such file or directory"));
  r = run(&inspect_command, {ptd, "--data", ptd});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr(ptd + " is a data file (.ptd), not a program: --data goes with a "
                                     "program\n"));
  // A data file given as the program says what it is.
  r = run(&simulate_command, {ptd});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("not a program: a .ptd data file (FlatTensor, file identifier "
                               "'FT01') that holds constants of a program; give the program (.pte) "
                               "that uses it, with --data FILE.ptd\n"));
}

// Constants split over two data files: devplan's engine takes both, check counts both, and a
// missing file's keys are named (ExecutorchEngine.TwoDataFilesAreMergedByExecutorchsModule has
// ExecuTorch's side).
TEST(DataFileCommandsTest, TwoDataFilesAreGivenTogether) {
  const std::string pte = testing::exported_program("wild_split_data.pte");
  const std::string first = testing::exported_program("wild_split_data_first.ptd");
  const std::string second = testing::exported_program("wild_split_data_second.ptd");
  testing::CommandResult r = run(&simulate_command, {pte, "--data", second, "--data", first});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = run(&check_command, {pte, "--data", first, "--data", second});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("data file: " + first +
                               ": 2 tensors, 60 B (file 524 B)\n"
                               "data file: " +
                               second + ": 2 tensors, 32 B (file 520 B)\n"));
  r = run(&simulate_command, {pte, "--data", second});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("method forward: NotFound: method 'forward': value 0: external "
                               "tensor 'first.weight' is in none of the data files given (" +
                               second + ")\n"));
}

}  // namespace
}  // namespace devplan::harness
