// devplan probe: each planted bug caught with its exact line under both engines on the simulated
// devices, and no finding where there is none.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <harness/engine/engine.h>
#include <harness/services/plan_variants.h>
#include <harness/services/probe.h>
#include <harness/test/commands_test_support.h>
#include <harness/test/probe_test_programs.h>
#include <harness/values/exit_codes.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/test/fake_cuda_runtime.h>

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;
using testing::run;

class ProbeTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "executorch" && !executorch_available()) {
      GTEST_SKIP() << executorch_unavailable_reason();
    }
  }
  testing::CommandResult probe(Args args) {
    args.push_back("--runtime");
    args.push_back(GetParam());
    return run(&probe_command, args);
  }
  std::string header(const std::string& file) {
    return "file: " + file + "\nruntime: " + GetParam() + ", devices: simulated\n";
  }
};

INSTANTIATE_TEST_SUITE_P(BothEngines, ProbeTest, ::testing::Values("devplan", "executorch"),
                         [](const auto& info) { return info.param; });

TEST_P(ProbeTest, ACorrectDeviceProgramIsClean) {
  const std::string file = testing::temp_file(testing::two_device_outputs_program());
  const testing::CommandResult r = probe({file, "--input", "2", "--input", "3"});
  EXPECT_EQ(r.out, header(file) +
                       "method forward: probed (5 executions, 0 findings)\n"
                       "result: clean\n");
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.exit_code, cli::kExitOk);
}

TEST_P(ProbeTest, ABackendThatLeavesItsOutputsUnwrittenIsCaught) {
  const std::string file = testing::temp_file(testing::two_device_outputs_program());
  const testing::CommandResult r = probe({file, "--inject-bug", "unwritten-output"});
  EXPECT_EQ(r.out, header(file) +
                       "injected bug: unwritten-output\n"
                       "method forward: probed (5 executions, 2 findings)\n"
                       "UNWRITTEN method forward: output 0 (float32[2, 2], cpu:0): 16 of 16 bytes "
                       "never written (delegate 0, DevplanDeviceBackend)\n"
                       "UNWRITTEN method forward: output 1 (float32[2, 2], cpu:0): 16 of 16 bytes "
                       "never written (delegate 1, DevplanDeviceBackend)\n"
                       "result: 2 findings\n");
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
}

// A skip-copy program leaves its device output to the caller: probe allocates it as a caller
// would, poisoned like the planned buffers.
TEST_P(ProbeTest, AnUnwrittenCallerBoundDeviceOutputIsCaught) {
  const std::string file = testing::exported_program("devplan_skip_io.pte");
  const testing::CommandResult r = probe({file, "--inject-bug", "unwritten-output"});
  EXPECT_EQ(r.out, header(file) +
                       "injected bug: unwritten-output\n"
                       "method forward: probed (5 executions, 1 finding)\n"
                       "UNWRITTEN method forward: output 0 (float32[2, 2], cuda:0): 16 of 16 bytes "
                       "never written (delegate 0, DevplanDeviceBackend)\n"
                       "result: 1 finding\n");
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
}

TEST_P(ProbeTest, ABackendThatMergesTwoOutputsIntoOneIsCaught) {
  const std::string file = testing::temp_file(testing::two_device_outputs_program());
  const testing::CommandResult r = probe({file, "--inject-bug", "merged-outputs"});
  EXPECT_EQ(r.out, header(file) +
                       "injected bug: merged-outputs\n"
                       "method forward: probed (5 executions, 1 finding)\n"
                       "UNWRITTEN method forward: output 1 (float32[2, 2], cpu:0): 16 of 16 bytes "
                       "never written (delegate 1, DevplanDeviceBackend)\n"
                       "result: 1 finding\n");
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
}

TEST_P(ProbeTest, AKernelThatReadsItsScratchBeforeWritingItIsCaught) {
  const std::string file = testing::temp_file(testing::two_device_outputs_program());
  const testing::CommandResult r = probe({file, "--inject-bug", "read-before-write"});
  EXPECT_EQ(r.out, header(file) +
                       "injected bug: read-before-write\n"
                       "method forward: probed (5 executions, 2 findings)\n"
                       "UNINITIALIZED method forward: output 0 (float32[2, 2], cpu:0) depends on "
                       "unwritten planned memory (4 of 4 elements differ between poison "
                       "patterns)\n"
                       "UNINITIALIZED method forward: output 1 (float32[2, 2], cpu:0) depends on "
                       "unwritten planned memory (4 of 4 elements differ between poison "
                       "patterns)\n"
                       "result: 2 findings\n");
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
}

TEST_P(ProbeTest, APlanWithOneLifetimeOneInstructionTooShortIsCaught) {
  const std::string file = testing::temp_file(testing::broadcast_add_program());
  const testing::CommandResult r = probe({file, "--inject-bug", "short-lifetime"});
  EXPECT_EQ(r.out,
            header(file) +
                "injected bug: short-lifetime: method forward: value 1 (buffer 0 [32, 44)) taken "
                "as dead one instruction before its last use, instruction 0; value 2, written "
                "there, is placed on its bytes\n"
                "method forward: probed (5 executions, 1 finding)\n"
                "PLAN-CORRUPTION method forward: output 0 (float32[2, 3], cpu:0) differs from the "
                "no-reuse plan (first at element 3: 3 planned, 2 without reuse); tensors sharing "
                "bytes while live: values 1 and 2 in buffer 0 share bytes [32, 44) during "
                "instructions 0..0 (value 1 at [32, 44), value 2 at [32, 56))\n"
                "result: 1 finding\n");
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
}

TEST_P(ProbeTest, WithoutThePlantedBugTheSameProgramIsClean) {
  const std::string file = testing::temp_file(testing::broadcast_add_program());
  const testing::CommandResult r = probe({file});
  EXPECT_EQ(r.out, header(file) +
                       "method forward: probed (5 executions, 0 findings)\n"
                       "result: clean\n");
  EXPECT_EQ(r.exit_code, cli::kExitOk);
}

// The exporter's device programs: each planted compute bug is found in each.
TEST_P(ProbeTest, EachPlantedComputeBugIsFoundInEveryExportedDeviceProgram) {
  for (const char* name :
       {"devplan_one_delegate.pte", "devplan_broadcast.pte", "devplan_two_delegates.pte",
        "devplan_skip_io.pte", "devplan_skip_io_chain.pte", "devplan_two_devices.pte"}) {
    for (const char* bug : {"unwritten-output", "read-before-write"}) {
      const testing::CommandResult r =
          probe({testing::exported_program(name), "--inject-bug", bug});
      EXPECT_EQ(r.exit_code, cli::kExitFinding) << name << " " << bug << "\n" << r.out;
      EXPECT_THAT(r.out, HasSubstr("result: 1 finding\n")) << name << " " << bug;
      EXPECT_THAT(r.out, HasSubstr(std::string(bug) == "unwritten-output"
                                       ? "\nUNWRITTEN method forward: output 0 "
                                       : "\nUNINITIALIZED method forward: output 0 "))
          << name << " " << bug;
    }
  }
}

// Outputs that differ between the plan and the no-reuse plan where `check` finds no overlap:
// nothing says which layout is right, so it is a note, not a finding.
TEST_P(ProbeTest, ADifferenceCheckCannotExplainIsANote) {
  const std::string file = testing::temp_file(testing::colliding_initial_values_program());
  const testing::CommandResult r = probe({file});
  EXPECT_EQ(r.out, header(file) +
                       "method forward: probed (5 executions, 0 findings)\n"
                       "  note: method forward: output 0 (float32[1], cpu:0) differs from the "
                       "no-reuse plan (first at element 0: -4.5 planned, 1.5 without reuse); check "
                       "finds no tensors sharing bytes while live, so this is not a finding: a "
                       "tensor devplan reads as separate may be meant to share bytes, or a "
                       "lifetime be shorter than it reads\n"
                       "result: clean\n");
  EXPECT_EQ(r.exit_code, cli::kExitOk);
}

TEST_P(ProbeTest, AMethodWhoseKernelsAreMissingIsListedAsNotProbed) {
  const std::string file = testing::exported_program("wild_missing_ops.pte");
  const testing::CommandResult r = probe({file});
  EXPECT_EQ(r.out, header(file) +
                       "method forward: not probed: no kernel for devplan_absent::twice.out, "
                       "devplan_absent::halve.out\n"
                       "result: not probed\n");
  EXPECT_EQ(r.exit_code, cli::kExitOk);
}

TEST_P(ProbeTest, StateWithoutAnInitialValueStartsAsZerosAsExecutorchGivesIt) {
  if (GetParam() == "devplan") GTEST_SKIP() << "runtime_ext has no kernel for aten::index_put.out";
  const std::string file = testing::real_program("upstream-1.5.1/mutable_buffer.pte");
  const testing::CommandResult r = probe({file});
  EXPECT_EQ(r.out, header(file) +
                       "method forward: probed (5 executions, 0 findings)\n"
                       "  note: mutable buffers (values 0, 1) without an initial value in the "
                       "program start as zeros in each execution, as ExecuTorch's Module gives "
                       "them\n"
                       "result: clean\n");
  EXPECT_EQ(r.exit_code, cli::kExitOk);
}

TEST_P(ProbeTest, TheJsonDocumentCarriesEachFinding) {
  const std::string file = testing::temp_file(testing::two_device_outputs_program());
  const testing::CommandResult r = probe({file, "--inject-bug", "merged-outputs", "--json"});
  EXPECT_EQ(r.out, testing::json_header() + "\"file\":\"" + file + "\",\"runtime\":\"" +
                       GetParam() +
                       "\",\"devices\":\"simulated\",\"injected_bug\":\"merged-outputs\","
                       "\"methods\":[{\"name\":\"forward\",\"probed\":true,\"not_probed\":\"\","
                       "\"error\":false,\"executions\":5,\"findings\":[{\"kind\":\"UNWRITTEN\","
                       "\"text\":\"method forward: output 1 (float32[2, 2], cpu:0): 16 of 16 "
                       "bytes never written (delegate 1, DevplanDeviceBackend)\"}],\"notes\":[],"
                       "\"overlaps\":[]}],\"leaks\":[],\"misuse\":[],\"findings\":1,"
                       "\"result\":\"1 finding\"}\n");
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
}

TEST_P(ProbeTest, UsageErrorsExitTwoAndLoadErrorsOne) {
  const std::string file = testing::temp_file(testing::two_device_outputs_program());
  testing::CommandResult r = probe({file, "--method", "backward"});
  EXPECT_EQ(r.exit_code, cli::kExitUsage);
  EXPECT_EQ(r.err,
            "devplan probe: the program has no method 'backward'\nRun 'devplan probe "
            "--help' for the options.\n");
  r = probe({file, "--inject-bug", "use-after-free"});
  EXPECT_EQ(r.exit_code, cli::kExitUsage);
  EXPECT_EQ(r.err,
            "devplan probe: --inject-bug: use-after-free not in {unwritten-output,merged-outputs,"
            "read-before-write,short-lifetime}\nRun 'devplan probe --help' for the options.\n");
  r = probe({file, "--input", "1,2,x"});
  EXPECT_EQ(r.exit_code, cli::kExitUsage);
  r = probe({"/nonexistent/model.pte"});
  EXPECT_EQ(r.exit_code, cli::kExitError);
  EXPECT_THAT(r.err, HasSubstr("devplan probe: AccessFailed: "));
  const std::vector<uint8_t> garbage = {'n', 'o', 't', ' ', 'a', ' ', 'p', 't', 'e'};
  r = probe({testing::temp_file(garbage)});
  EXPECT_EQ(r.exit_code, cli::kExitError);
  EXPECT_THAT(r.err, HasSubstr("devplan probe: InvalidProgram: "));
}

// Every committed program: the fixtures, ExecuTorch's and its exporter's. No finding; what an
// engine cannot run is listed as not probed (a kernel or backend it lacks, memory beyond the
// simulated devices' ceiling), and what it cannot load or execute at all is an error, as `run`
// reports it (docs/executorch-divergences.md: ExecuTorch refuses the deprecated constant buffer
// and cannot set a legacy device program's inputs).
TEST_P(ProbeTest, EveryCommittedRealProgramHasNoFinding) {
  struct Expected {
    std::string file;
    std::string devplan;
    std::string executorch;
  };
  const std::vector<Expected> programs = {
      {testing::fixture_program("cpu_add"), "clean", "clean"},
      {testing::fixture_program("device_add_cuda0"), "clean", "clean"},
      {testing::fixture_program("device_add_cuda0_and_cpu"), "clean", "clean"},
      {testing::fixture_program("device_add_cuda0_grown"), "clean", "clean"},
      {testing::fixture_program("device_add_cuda1"), "clean", "clean"},
      {testing::fixture_program("device_only"), "clean", "clean"},
      {testing::fixture_program("model_scale_64gib"), "not probed", "not probed"},
      {testing::fixture_program("multi_device"), "clean", "clean"},
      {testing::fixture_program("no_buffers"), "clean", "clean"},
      {testing::fixture_program("two_methods"), "clean", "clean"},
      {testing::fixture_program("zero_size_device_buffer"), "clean", "clean"},
      {testing::real_program("add.pte"), "clean", "clean"},
      {testing::real_program("linear_no_constant_segment.pte"), "clean", "load error"},
      {testing::real_program("upstream-1.5.1/device_add.pte"), "not probed", "not probed"},
      {testing::real_program("upstream-1.5.1/device_legacy_no_device_planning.pte"), "not probed",
       "not probed"},
      {testing::real_program("upstream-1.5.1/device_mixed.pte"), "not probed", "not probed"},
      {testing::real_program("upstream-1.5.1/device_skip_io.pte"), "not probed", "not probed"},
      {testing::real_program("upstream-1.5.1/mlp.pte"), "not probed", "clean"},
      {testing::real_program("upstream-1.5.1/mutable_buffer.pte"), "not probed", "clean"},
      {testing::real_program("upstream-1.5.1/residual.pte"), "not probed", "clean"},
      {testing::real_program("upstream-1.5.1/transformer.pte"), "not probed", "clean"},
      {testing::real_program("exporter/devplan_broadcast.pte"), "clean", "clean"},
      {testing::real_program("exporter/devplan_cpu_around_device.pte"), "not probed", "clean"},
      {testing::real_program("exporter/devplan_legacy.pte"), "clean", "error"},
      {testing::real_program("exporter/devplan_one_delegate.pte"), "clean", "clean"},
      {testing::real_program("exporter/devplan_skip_io.pte"), "clean", "clean"},
      {testing::real_program("exporter/devplan_skip_io_chain.pte"), "clean", "clean"},
      {testing::real_program("exporter/devplan_transformer.pte"), "not probed", "clean"},
      {testing::real_program("exporter/devplan_two_delegates.pte"), "clean", "clean"},
      {testing::real_program("exporter/devplan_two_devices.pte"), "clean", "clean"},
      {testing::real_program("exporter/devplan_two_methods.pte"), "clean", "clean"},
      {testing::real_program("exporter/wild_absent_backend.pte"), "not probed", "not probed"},
      {testing::real_program("exporter/wild_cond.pte"), "not probed", "clean"},
      {testing::real_program("exporter/wild_external_data.pte"), "not probed", "clean"},
      {testing::real_program("exporter/wild_fixed_double.pte"), "clean", "clean"},
      {testing::real_program("exporter/wild_huge_outputs.pte"), "not probed", "clean"},
      {testing::real_program("exporter/wild_missing_ops.pte"), "not probed", "not probed"},
      {testing::real_program("exporter/wild_mutable_state.pte"), "not probed", "clean"},
      {testing::real_program("exporter/wild_optional_none.pte"), "not probed", "clean"},
      {testing::real_program("exporter/wild_scratch.pte"), "not probed", "clean"},
      {testing::real_program("exporter/wild_split_data.pte"), "not probed", "clean"},
      {testing::real_program("exporter/wild_unnamed_outputs.pte"), "clean", "clean"},
      {testing::real_program("exporter/bundled_add.bpte"), "clean", "clean"},
      {testing::real_program("exporter/bundled_device.bpte"), "clean", "clean"},
      {testing::real_program("exporter/bundled_two_methods.bpte"), "clean", "clean"},
  };
  const std::string exporter = testing::exported_program("");
  for (const Expected& p : programs) {
    Args args = {p.file, "--runtime", GetParam()};
    if (p.file == exporter + "wild_external_data.pte") {
      args.insert(args.end(), {"--data", exporter + "wild_external_data.ptd"});
    } else if (p.file == exporter + "wild_split_data.pte") {
      args.insert(args.end(), {"--data", exporter + "wild_split_data_first.ptd", "--data",
                               exporter + "wild_split_data_second.ptd"});
    }
    const testing::CommandResult r = run(&probe_command, args);
    const std::string& expected = GetParam() == "devplan" ? p.devplan : p.executorch;
    const size_t at = r.out.rfind("result: ");
    const std::string verdict =
        at == std::string::npos ? "load error" : r.out.substr(at + 8, r.out.size() - at - 9);
    EXPECT_EQ(verdict, expected) << p.file << "\n" << r.out << r.err;
    EXPECT_NE(r.exit_code, cli::kExitFinding) << p.file;
  }
}

// --device cuda without a GPU: the CUDA runtime seam's fake under CudaAllocator. The poisoned
// device buffers are filled through cudaMemcpy, and each planted bug is found as on the
// simulated devices, with the same line.
TEST_P(ProbeTest, OnCudaMemoryTheSameBugsAreFoundWithTheSameLines) {
  devplan::testing::FakeCudaRuntime runtime(/*device_count=*/1, size_t{64} << 20);
  CudaAllocator allocator(runtime);
  const ProgramImage image(testing::two_device_outputs_program());
  for (ComputeBug bug : {ComputeBug::None, ComputeBug::UnwrittenOutput, ComputeBug::MergedOutputs,
                         ComputeBug::ReadBeforeWrite}) {
    SCOPED_TRACE(compute_bug_name(bug));
    ProbeOptions options;
    options.runtime = GetParam() == "devplan" ? RuntimeKind::Devplan : RuntimeKind::Executorch;
    options.compute_bug = bug;
    bool usage_error = false;
    Result<ProbeReport> simulated = probe_program(image, options, &usage_error);
    options.device.kind = DeviceKind::Cuda;
    options.device.memory = &allocator;
    Result<ProbeReport> cuda = probe_program(image, options, &usage_error);
    ASSERT_TRUE(simulated.ok() && cuda.ok());
    EXPECT_EQ(cuda->devices, "cuda");
    ASSERT_EQ(cuda->methods.size(), 1u);
    EXPECT_TRUE(cuda->methods[0].probed);
    std::vector<std::string> simulated_lines, cuda_lines;
    for (const ProbeFinding& f : simulated->methods[0].findings)
      simulated_lines.push_back(f.line());
    for (const ProbeFinding& f : cuda->methods[0].findings) cuda_lines.push_back(f.line());
    EXPECT_EQ(cuda_lines, simulated_lines);
    EXPECT_EQ(cuda_lines.size(), bug == ComputeBug::None            ? 0u
                                 : bug == ComputeBug::MergedOutputs ? 1u
                                                                    : 2u);
    EXPECT_EQ(cuda->leak_lines, std::vector<std::string>());
    EXPECT_EQ(cuda->misuse_lines, std::vector<std::string>());
  }
  EXPECT_EQ(runtime.live_allocations(), 0u);
}

// The short-lifetime bug planted in `bytes`, as a file.
std::string planted_short_lifetime(std::vector<uint8_t> bytes) {
  Result<PlanVariant> planted = shortened_lifetime_variant(ProgramImage(std::move(bytes)));
  EXPECT_TRUE(planted.ok()) << planted.error().to_string();
  return planted.ok() ? testing::temp_file(planted->bytes) : "";
}

TEST_P(ProbeTest, CheckProbeConfirmsAnOverlapThatCorruptsTheOutput) {
  const std::string file = planted_short_lifetime(testing::broadcast_add_program());
  const testing::CommandResult r = run(&check_command, {file, "--probe", "--runtime", GetParam()});
  EXPECT_EQ(r.out,
            "file: " + file +
                "\nmethod forward: 1 steps\n"
                "  buffer 0: 96 B on cpu:0, lower bound 80 B (size/bound 1.200), 3 planned "
                "tensors\n"
                "    optimum: 80 B (proven, 0 search steps); the plan is 20.00% above the "
                "optimum\n"
                "  OVERLAP values 1 and 2 in buffer 0 share bytes [32, 44) during instructions "
                "0..0 (value 1 at [32, 44), value 2 at [32, 56))\n"
                "    probe: confirmed in execution (output 0 (float32[2, 3], cpu:0) changes when "
                "value 2 has bytes of its own: first at element 3: 3 planned, 2 separated)\n"
                "result: 1 overlaps\n");
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
}

TEST_P(ProbeTest, CheckProbeSaysWhenAnOverlapIsNotObservedInExecution) {
  const std::string file = planted_short_lifetime(
      testing::file_bytes(testing::exported_program("devplan_two_delegates.pte")));
  const testing::CommandResult r = run(&check_command, {file, "--probe", "--runtime", GetParam()});
  EXPECT_EQ(r.out,
            "file: " + file +
                "\nmethod forward: 6 steps\n"
                "  buffer 0: 96 B on cpu:0, lower bound 96 B (size/bound 1.000), 4 planned "
                "tensors\n"
                "    optimum: 96 B (proven, 0 search steps); the plan is at the optimum\n"
                "  buffer 1: 96 B on cuda:0, lower bound 96 B (size/bound 1.000), 5 planned "
                "tensors\n"
                "    optimum: 96 B (proven, 0 search steps); the plan is at the optimum\n"
                "  OVERLAP values 5 and 7 in buffer 1 share bytes [64, 96) during instructions "
                "4..4 (value 5 at [64, 96), value 7 at [64, 96))\n"
                "    probe: not observed in execution (the outputs are the same, bit for bit, "
                "when value 7 has bytes of its own)\n"
                "result: 1 overlaps\n");
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
}

TEST_P(ProbeTest, JunitHasOneCasePerMethodFailingWithItsFindings) {
  const std::string file = testing::temp_file(testing::two_device_outputs_program());
  const std::string xml = testing::temp_dir() + "/probe.xml";
  const testing::CommandResult r = probe({file, "--inject-bug", "merged-outputs", "--junit", xml});
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
  const std::string line =
      "UNWRITTEN method forward: output 1 (float32[2, 2], cpu:0): 16 of 16 bytes never written "
      "(delegate 1, DevplanDeviceBackend)";
  EXPECT_THAT(testing::file_text(xml),
              HasSubstr("<testsuite name=\"devplan probe\" tests=\"1\" failures=\"1\" "
                        "errors=\"0\""));
  EXPECT_THAT(testing::file_text(xml),
              HasSubstr("<testcase classname=\"probe\" name=\"forward\" time=\"0\">\n"
                        "      <failure message=\"" +
                        line + "\">" + line + "\n</failure>"));
}

TEST_P(ProbeTest, CheckProbeJsonGivesEachOverlapItsEvidence) {
  const std::string file = planted_short_lifetime(testing::broadcast_add_program());
  const testing::CommandResult r =
      run(&check_command, {file, "--probe", "--runtime", GetParam(), "--json"});
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
  EXPECT_THAT(r.out, HasSubstr(R"x("overlaps":[{"buffer":0,"values":[1,2],"bytes":[[32,44],)x"
                               R"x([32,56]],"instructions":[0,0],"text":"values 1 and 2 in )x"
                               R"x(buffer 0 share bytes [32, 44) during instructions 0..0 )x"
                               R"x((value 1 at [32, 44), value 2 at [32, 56))",)x"
                               R"x("probe":{"confirmed":true,)x"
                               R"x("evidence":"confirmed in execution (output 0 (float32[2, 3], )x"
                               R"x(cpu:0) changes when value 2 has bytes of its own: first at )x"
                               R"x(element 3: 3 planned, 2 separated)"}}])x"));
}

// report's probe column: the verdict in the row, each finding's line under it, and the finding
// fails the report.
TEST_P(ProbeTest, ReportShowsTheProbeColumnAndEachFinding) {
  const std::string dir = testing::temp_dir();
  const std::string clean = dir + "/clean.pte";
  const std::string planted = dir + "/planted.pte";
  testing::copy_file(testing::temp_file(testing::broadcast_add_program()), clean);
  testing::copy_file(planted_short_lifetime(testing::broadcast_add_program()), planted);
  testing::CommandResult r = run(&report_command, {"--fuzz-cases", "0", "--out", dir, "--runtime",
                                                   GetParam(), clean, planted});
  EXPECT_EQ(r.exit_code, cli::kExitFinding) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("program                      methods  buffers per device         "
                               "allocs leaks misuse overlaps  run  probe\n"
                               "clean                              1  cpu:0=1                    "
                               "     0     0      0        0  1/1  clean\n"
                               "planted                            1  cpu:0=1                    "
                               "     0     0      0        1  1/1  1 finding\n"
                               "  probe: PLAN-CORRUPTION method forward: output 0 (float32[2, 3], "
                               "cpu:0) differs from the no-reuse plan (first at element 3: 3 "
                               "planned, 2 without reuse); tensors sharing bytes while live: "
                               "values 1 and 2 in buffer 0 share bytes [32, 44) during "
                               "instructions 0..0 (value 1 at [32, 44), value 2 at [32, 56))\n"))
      << r.out;
  r = run(&report_command,
          {"--fuzz-cases", "0", "--out", dir, "--runtime", GetParam(), "--json", planted});
  EXPECT_EQ(r.exit_code, cli::kExitFinding);
  EXPECT_THAT(r.out, HasSubstr(R"("probe":"1 finding","probe_findings":["PLAN-CORRUPTION method )"
                               R"(forward: output 0 (float32[2, 3], cpu:0) differs from the )"));
  EXPECT_THAT(r.out, HasSubstr(R"("probe_errors":[])"));
}

// The budget records each method's probe result per engine; a finding it did not record fails
// `budget check` with the finding's line.
TEST(ProbeBudgetTest, ANewProbeFindingFailsTheBudget) {
  const std::string dir = testing::temp_dir();
  const std::string model = dir + "/model.pte";
  const std::string budget = dir + "/budget.json";
  testing::copy_file(testing::temp_file(testing::broadcast_add_program()), model);
  testing::CommandResult r = run(&budget_command, {"record", model, "-o", budget});
  ASSERT_EQ(r.exit_code, cli::kExitOk) << r.err;
  EXPECT_THAT(testing::file_text(budget), HasSubstr(R"("misuse":0,"probe":"clean"})"));
  testing::copy_file(planted_short_lifetime(testing::broadcast_add_program()), model);
  r = run(&budget_command, {"check", budget, model});
  EXPECT_EQ(r.exit_code, cli::kExitFinding) << r.out << r.err;
  const std::string line =
      "probe: PLAN-CORRUPTION method forward: output 0 (float32[2, 3], cpu:0) differs from the "
      "no-reuse plan (first at element 3: 3 planned, 2 without reuse); tensors sharing bytes "
      "while live: values 1 and 2 in buffer 0 share bytes [32, 44) during instructions 0..0 "
      "(value 1 at [32, 44), value 2 at [32, 56)) (not in the budget)\n";
  EXPECT_THAT(r.out, HasSubstr("  FAIL model.pte forward: devplan " + line));
  if (executorch_available()) {
    EXPECT_THAT(r.out, HasSubstr("  FAIL model.pte forward: executorch " + line));
  }
}

}  // namespace
}  // namespace devplan::harness
