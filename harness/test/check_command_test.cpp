#include <functional>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/services/program_figures.h>
#include <runtime_ext/analysis/plan_check.h>
#include <runtime_ext/writer/program_builder.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::fixture_program;
using testing::real_program;
using testing::run;

// device_add_cuda0 with one tensor moved by `field` to plant an overlap.
std::vector<uint8_t> device_add_with(int32_t value, uint64_t offset) {
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodPlan plan = source.method(0).plan();
  plan.values[value].tensor.offset = offset;
  ProgramBuilder builder;
  builder.add_method(plan);
  return builder.build();
}

TEST(CheckCommandTest, RealFilesCheckClean) {
  testing::CommandResult r = run(&check_command, {real_program("linear_no_constant_segment.pte")});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "file: " + real_program("linear_no_constant_segment.pte") +
                       "\nmethod forward: 2 steps\n"
                       "  buffer 0: 32 B on cpu:0, lower bound 32 B (size/bound 1.000), 3 planned "
                       "tensors\n"
                       "    optimum: 32 B (proven, 0 search steps); the plan is at the optimum\n"
                       "result: clean\n");
  EXPECT_EQ(run(&check_command, {real_program("add.pte")}).exit_code, 0);
}

TEST(CheckCommandTest, EveryFixtureChecksClean) {
  for (const FixtureProgram& f : all_fixture_programs()) {
    testing::CommandResult r = run(&check_command, {fixture_program(f.name)});
    EXPECT_EQ(r.exit_code, 0) << f.name << "\n" << r.out;
  }
}

TEST(CheckCommandTest, FindsAPlantedOverlap) {
  // b_dev (value 3) moved onto a_dev's bytes: both live during instructions 1..2.
  testing::CommandResult r = run(&check_command, {testing::temp_file(device_add_with(3, 0))});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr("  OVERLAP values 2 and 3 in buffer 1 share bytes [0, 16) during "
                               "instructions 1..2 (value 2 at [0, 16), value 3 at [0, 16))\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("result: 1 overlaps\n"));
}

TEST(CheckCommandTest, PartialOverlapJson) {
  // The delegate output (value 4, live 2..3) moved to offset 8 overlaps a_dev (2, live 0..2)
  // and b_dev (3, live 1..2) at step 2.
  testing::CommandResult r =
      run(&check_command, {"--json", testing::temp_file(device_add_with(4, 8))});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr(R"("status":"overlap")"));
  EXPECT_THAT(
      r.out,
      HasSubstr(
          R"x("overlaps":[{"buffer":1,"values":[2,4],"bytes":[[0,16],[8,24]],"instructions":[2,2],)x"
          R"x("text":"values 2 and 4 in buffer 1 share bytes [8, 16) during instructions 2..2 )x"
          R"x((value 2 at [0, 16), value 4 at [8, 24))"},)x"
          R"x({"buffer":1,"values":[3,4],"bytes":[[16,32],[8,24]],"instructions":[2,2],)x"
          R"x("text":"values 3 and 4 in buffer 1 share bytes [16, 24) during instructions 2..2 )x"
          R"x((value 3 at [16, 32), value 4 at [8, 24))"}])x"))
      << r.out;
}

TEST(CheckCommandTest, ReuseAfterLastUseIsNotAnOverlap) {
  // out (value 5) already reuses a's bytes; a dead slot reused by the delegate output too.
  testing::CommandResult r = run(&check_command, {testing::temp_file(device_add_with(4, 0))});
  // a_dev (value 2) lives 0..2 and the delegate output 2..3: they meet at step 2.
  EXPECT_EQ(r.exit_code, 3) << r.out;
}

TEST(CheckCommandTest, BadInputs) {
  EXPECT_EQ(run(&check_command, {}).exit_code, 2);
  testing::CommandResult r = run(&check_command, {"/nonexistent.pte"});
  EXPECT_EQ(r.exit_code, 1);
  r = run(&check_command, {"/nonexistent.pte", "--json"});
  EXPECT_EQ(r.out.rfind(testing::json_header() + R"("error":{"code":"AccessFailed")", 0), 0u);
}

std::string upstream(const std::string& name) {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/upstream-1.5.1/" + name;
}

// Programs ExecuTorch 1.5.1 loads and runs, which devplan once refused: an OptionalTensorList
// holding -1 (None) and torch.cond's jumps on bool tensors, one past the chain's end.
TEST(CheckCommandTest, OddDeviceFieldsAreNotesAndTheProgramIsChecked) {
  // ExecuTorch reads a device list whose second entry repeats buffer 1 (first match wins) and
  // whose third names no buffer; so does devplan, saying what it ignored.
  ProgramBuilder builder = device_add_cuda0_program_builder();
  builder.method(0).set_raw_buffer_devices({{2, 1, 0}, {2, 1, 3}, {0, 1, 0}});
  const std::string file = testing::temp_file(builder.build());
  const std::string repeat =
      "note: non_const_buffer_device entry 1: buffer_idx 2 repeats entry 0; ignored, as "
      "ExecuTorch uses the first\n";
  const std::string reserved =
      "note: non_const_buffer_device entry 2: buffer_idx 0 is the reserved slot; ignored, as "
      "ExecuTorch ignores it\n";
  testing::CommandResult r = run(&check_command, {file});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("  buffer 1: 48 B on cuda:0"));
  EXPECT_THAT(r.out, HasSubstr("  " + repeat + "  " + reserved));
  EXPECT_THAT(r.out, HasSubstr("result: clean\n"));
  r = run(&inspect_command, {file});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("  buffer 1: 48 B on cuda:0"));
  EXPECT_THAT(r.out, HasSubstr("  " + repeat + "  " + reserved));
  r = run(&inspect_command, {file, "--json"});
  EXPECT_THAT(r.out, HasSubstr("\"notes\":[\"non_const_buffer_device entry 1: buffer_idx 2 "
                               "repeats entry 0; ignored, as ExecuTorch uses the first\","));
  for (RuntimeKind runtime : built_runtimes()) {
    r = run(&simulate_command, {file, "--runtime", runtime_name(runtime)});
    EXPECT_EQ(r.exit_code, 0) << runtime_name(runtime) << "\n" << r.out << r.err;
  }
}

TEST(CheckCommandTest, WhatExecutorchLoadsIsCheckedNotRefused) {
  testing::CommandResult r =
      testing::run(&check_command, {testing::exported_program("wild_optional_none.pte")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "file: " + testing::exported_program("wild_optional_none.pte") +
                       "\nmethod forward: 1 steps\n"
                       "  buffer 0: 64 B on cpu:0, lower bound 64 B (size/bound 1.000), 3 planned "
                       "tensors\n"
                       "    optimum: 64 B (proven, 0 search steps); the plan is at the optimum\n"
                       "result: clean\n");
  r = testing::run(&check_command, {testing::exported_program("wild_cond.pte")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "file: " + testing::exported_program("wild_cond.pte") +
                       "\nmethod forward: 8 steps\n"
                       "  buffer 0: 64 B on cpu:0, lower bound 48 B (size/bound 1.333), 6 planned "
                       "tensors\n"
                       "    optimum: 48 B (proven, 0 search steps); the plan is 33.33% above the "
                       "optimum\n"
                       "result: clean\n");
  for (const char* name : {"wild_optional_none.pte", "wild_cond.pte"}) {
    SCOPED_TRACE(name);
    for (testing::CommandFn command : {&inspect_command, &simulate_command}) {
      r = testing::run(command, {testing::exported_program(name)});
      EXPECT_EQ(r.exit_code, 0) << r.err;
    }
  }
  // devplan's own engine has neither aten::index nor aten::sum: it says so when it runs them.
  r = testing::run(&run_command, {testing::exported_program("wild_cond.pte")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: OperatorMissing: method 'forward': chain 0 instruction 0: operator "
            "aten::sum.IntList_out has no kernel; operator aten::gt.Scalar_out has no kernel "
            "(chain 0 instruction 1); operator aten::sub.out has no kernel (chain 0 instruction "
            "6)\n");
}

// A kernel's scratch (planned memory no instruction writes, first used after the tensor around
// it died) is not taken for a view of the dead tensor: no overlap, and the lower bound and the
// optimum hold under both readings (ExecuTorch runs the 2048-byte plan correctly).
TEST(CheckCommandTest, AScratchTensorInsideADeadTensorIsANoteNotAnOverlap) {
  testing::CommandResult r =
      testing::run(&check_command, {testing::exported_program("wild_scratch.pte")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  const std::string note =
      "values 2 [1024, 2048) and 4 [1280, 1536) of buffer 0 share bytes during instructions 2..3 "
      "only if value 9 [1024, 1280), which no instruction writes, is a view of value 2 (it keeps "
      "value 2 live to instruction 3); read as scratch memory of instructions 3..3, it is not. No "
      "instruction says which: not an overlap";
  EXPECT_EQ(r.out, "file: " + testing::exported_program("wild_scratch.pte") +
                       "\nmethod forward: 6 steps\n"
                       "  buffer 0: 2048 B (2.0 KiB) on cpu:0, lower bound 2048 B (2.0 KiB) "
                       "(size/bound 1.000), 8 planned tensors\n"
                       "    optimum: 2048 B (2.0 KiB) (proven, 0 search steps); the plan is at the "
                       "optimum\n"
                       "  note: " +
                       note + "\nresult: clean\n");
  r = testing::run(&check_command, {testing::exported_program("wild_scratch.pte"), "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(R"("lower_bound":2048,"planned_tensors":8,"optimum":{"best":2048,)"
                               R"("proven_bound":2048,"optimal":true,"steps":0}}],"overlaps":[],)"
                               R"("aliases":[{"value":9,"base":2}],"mutable_buffers":[],)"
                               R"("warnings":[],"notes":[")" +
                               note + "\"]"));
}

TEST(CheckCommandTest, ViewsOfTheTransformerAreAliasesNotOverlaps) {
  testing::CommandResult r = testing::run(&check_command, {upstream("transformer.pte")});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(r.out, "file: " + upstream("transformer.pte") +
                       "\nmethod forward: 48 steps\n"
                       "  buffer 0: 1056768 B (1.0 MiB) on cpu:0, lower bound 843776 B (824.0 KiB) "
                       "(size/bound 1.252), 75 "
                       "planned tensors\n"
                       // ExecuTorch's plan against the proven optimum of the same lifetimes,
                       // under either reading of its inferred views (832.0 KiB keeping every view
                       // with its base).
                       "    optimum: 843776 B (824.0 KiB) (proven, 0 search steps); the plan is "
                       "25.24% above the optimum\n"
                       "result: clean\n");
  testing::CommandResult json =
      testing::run(&check_command, {upstream("transformer.pte"), "--json"});
  EXPECT_THAT(json.out, HasSubstr(R"({"value":198,"base":191})")) << json.out;
}

TEST(CheckCommandTest, MutableBuffersLiveThroughoutAndInputsUntilTheirLastUse) {
  testing::CommandResult r =
      testing::run(&check_command, {upstream("mutable_buffer.pte"), "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(R"("aliases":[],"mutable_buffers":[0,1],"warnings":[])")) << r.out;
  ProgramBuilder source = device_add_cuda0_program_builder();
  MethodCheck c = check_method_plan(source.method(0).plan());
  EXPECT_EQ(c.mutable_buffer, std::vector<bool>(6, false));
}

TEST(CheckCommandTest, LegacyDeviceTensorsAreWarningsNotFindings) {
  testing::CommandResult r =
      testing::run(&check_command, {upstream("device_legacy_no_device_planning.pte")});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_EQ(
      r.out,
      "file: " + upstream("device_legacy_no_device_planning.pte") +
          "\nmethod forward: 1 steps\n"
          "  buffer 0: 384 B on cpu:0, lower bound 384 B (size/bound 1.000), 3 planned tensors\n"
          "    optimum: 384 B (proven, 0 search steps); the plan is at the optimum\n"
          "  warning: value 0: tagged cuda:0, planned in host buffer 0 (legacy planning)\n"
          "  warning: value 1: tagged cuda:0, planned in host buffer 0 (legacy planning)\n"
          "  warning: value 2: tagged cuda:0, planned in host buffer 0 (legacy planning)\n"
          "result: clean\n");
}

TEST(CheckCommandTest, EveryRealExporterProgramChecksClean) {
  for (const char* name : {"device_add.pte", "device_mixed.pte", "device_skip_io.pte", "mlp.pte",
                           "residual.pte", "mutable_buffer.pte"}) {
    testing::CommandResult r = testing::run(&check_command, {upstream(name)});
    EXPECT_EQ(r.exit_code, 0) << name << "\n" << r.out;
  }
}

// One method: a (host, input), d (cuda:0), e (cuda:1) in their own buffers, and `fill` adds the
// instructions.
std::vector<uint8_t> devices_program(
    const std::function<void(MethodBuilder&, int32_t, int32_t, int32_t, int32_t)>& fill) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(32);
  const uint32_t cuda0 = m.add_buffer(32, Device::cuda(0));
  const uint32_t cuda1 = m.add_buffer(16, Device::cuda(1));
  const int32_t a = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), host, 0);
  const int32_t d =
      m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(0)), cuda0, 0);
  const int32_t e =
      m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(1)), cuda1, 0);
  const int32_t i =
      m.add_planned_tensor(TensorSpec::of(ScalarType::Int, {2, 2}, Device::cuda(0)), cuda0, 16);
  m.add_chain();
  fill(m, a, d, e, i);
  m.set_inputs({a});
  return builder.build();
}

TEST(CheckDevicesTest, AHostKernelOnDeviceMemoryIsAFinding) {
  const std::string file = testing::temp_file(
      devices_program([](MethodBuilder& m, int32_t a, int32_t d, int32_t, int32_t) {
        const int32_t alpha = m.add_int(1);
        m.add_kernel_call("aten::add", "out", {a, d, alpha, d, d});
      }));
  testing::CommandResult r = run(&check_command, {file});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_THAT(
      r.out,
      HasSubstr("  DEVICE instruction 0 (aten::add.out): value 1 is on cuda:0, a host kernel "
                "touches only host memory (cpu:0)\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("result: 3 device violations\n")) << r.out;  // d thrice
}

TEST(CheckDevicesTest, CopiesGoTheirWayWithEqualDtypeAndSize) {
  const std::string file = testing::temp_file(
      devices_program([](MethodBuilder& m, int32_t a, int32_t d, int32_t, int32_t i) {
        const int32_t h2d = m.add_operator("et_copy::_h2d_copy", "out");
        const int32_t d2h = m.add_operator("et_copy::_d2h_copy", "out");
        m.add_kernel_call(h2d, {d, a, a});  // backwards
        m.add_kernel_call(h2d, {a, i, i});  // float32 into int32, both 16 B
        m.add_kernel_call(d2h, {d, a, a});  // fine
      }));
  testing::CommandResult r = run(&check_command, {file, "--json"});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_THAT(r.out, HasSubstr(R"("status":"device")")) << r.out;
  EXPECT_THAT(
      r.out,
      HasSubstr(R"({"instruction":0,"operation":"et_copy::_h2d_copy.out","value":1,"message":)"
                R"("instruction 0 (et_copy::_h2d_copy.out): self value 1 is on cuda:0, a )"
                R"(host-to-device copy reads host memory"})"))
      << r.out;
  EXPECT_THAT(r.out,
              HasSubstr(R"("instruction 0 (et_copy::_h2d_copy.out): out value 0 is on cpu:0, a )"
                        R"(host-to-device copy writes a device")"))
      << r.out;
  const std::string dtype_message =
      "\"instruction 1 (et_copy::_h2d_copy.out): self value 0 is float32 (16 B), out value 3 is "
      "int32 (16 B)\"";
  EXPECT_THAT(r.out, HasSubstr(dtype_message)) << r.out;
  EXPECT_EQ(r.out.find(R"("instruction":2)"), std::string::npos) << r.out;
}

TEST(CheckDevicesTest, ADelegatesTensorsLiveOnItsTargetDevice) {
  const std::string file = testing::temp_file(
      devices_program([](MethodBuilder& m, int32_t, int32_t d, int32_t e, int32_t) {
        const int32_t add = m.add_delegate("DevplanDeviceBackend", {'a', 'd', 'd'},
                                           {{"target_device", {'C', 'U', 'D', 'A', ':', '0'}}});
        m.add_delegate_call(add, {d, e, d});
      }));
  testing::CommandResult r = run(&check_command, {file});
  EXPECT_EQ(r.exit_code, 3) << r.out;
  EXPECT_THAT(
      r.out,
      HasSubstr("  DEVICE instruction 0 (delegate DevplanDeviceBackend on cuda:0): value 2 is "
                "on cuda:1, the delegate's tensors live on cuda:0\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("result: 1 device violations\n")) << r.out;
}

// Every program of ExecuTorch 1.5.1's exporter passes inspect, check, simulate and report the
// way ExecuTorch loads it (report lists methods devplan has no kernel or backend for as not run).
TEST(RealExporterProgramsTest, PassInspectCheckSimulateAndReport) {
  std::vector<std::string> files;
  for (const char* name :
       {"device_add.pte", "device_legacy_no_device_planning.pte", "device_mixed.pte",
        "device_skip_io.pte", "mlp.pte", "mutable_buffer.pte", "residual.pte", "transformer.pte"}) {
    files.push_back(std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/upstream-1.5.1/" +
                    name);
  }
  for (const std::string& file : files) {
    for (testing::CommandFn command : {&inspect_command, &check_command, &simulate_command}) {
      testing::CommandResult r = testing::run(command, {file});
      EXPECT_EQ(r.exit_code, 0) << file << "\n" << r.out << r.err;
    }
  }
  std::vector<std::string> args = {"--fuzz-cases", "0", "--out", "/tmp"};
  args.insert(args.end(), files.begin(), files.end());
  testing::CommandResult report = testing::run(&report_command, args);
  EXPECT_EQ(report.exit_code, 0) << report.out << report.err;
  EXPECT_THAT(report.out, HasSubstr("8 programs, 5 device allocations, all freed: yes\n"))
      << report.out;
}

}  // namespace
}  // namespace devplan::harness
