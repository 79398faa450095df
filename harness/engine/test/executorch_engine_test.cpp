// ExecuTorch 1.5.1's own runtime under the harness (label `executorch`): exact ledgers for the
// real exporter's programs and ours under both engines, faults, outputs against eager PyTorch,
// and bad input that must not take the harness down. Skips, saying why, when devplan was built
// without the executorch wheel.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/engine/engine.h>
#include <harness/json/json.h>
#include <harness/services/simulation.h>
#include <harness/test/commands_test_support.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

using testing::CommandResult;
using testing::temp_file;

std::string upstream(const std::string& name) {
  return std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/upstream-1.5.1/" + name;
}

std::vector<uint8_t> bytes_of(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

SimulationResult simulate(const std::vector<uint8_t>& bytes, RuntimeKind runtime,
                          SimulationOptions options = SimulationOptions()) {
  options.runtime = runtime;
  Result<SimulationResult> r = simulate_program(bytes, options);
  EXPECT_TRUE(r.ok()) << r.error().to_string();
  return r.ok() ? *r : SimulationResult();
}

// device_add_cuda0 with its delegate on DevplanDeviceBackend, the backend both engines have.
std::vector<uint8_t> devplan_backend_add_program() {
  return device_add_cuda0_program_builder_for("DevplanDeviceBackend").build();
}

class ExecutorchEngine : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!executorch_available()) GTEST_SKIP() << executorch_unavailable_reason();
  }
};

TEST_F(ExecutorchEngine, UpstreamDeviceAddHasTheSameLedgerUnderBothEnginesButTheAlignment) {
  const std::vector<uint8_t> bytes = bytes_of(upstream("device_add.pte"));
  for (RuntimeKind runtime : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
    SCOPED_TRACE(runtime_name(runtime));
    const SimulationResult r = simulate(bytes, runtime);
    EXPECT_EQ(r.runtime, runtime);
    ASSERT_EQ(r.methods.size(), 1u);
    EXPECT_TRUE(r.methods[0].status.ok()) << r.methods[0].status.to_string();
    ASSERT_EQ(r.methods[0].buffers.size(), 2u);
    EXPECT_EQ(r.methods[0].buffers[0].size, 256u);
    EXPECT_EQ(r.methods[0].buffers[0].device, Device::cpu());
    EXPECT_EQ(r.methods[0].buffers[1].size, 384u);
    EXPECT_EQ(r.methods[0].buffers[1].device, Device::cuda(0));
    EXPECT_TRUE(r.methods[0].buffers[1].allocated);
    ASSERT_EQ(r.allocations.size(), 1u);
    EXPECT_EQ(r.allocations[0].seq, 1u);
    EXPECT_EQ(r.allocations[0].device, Device::cuda(0));
    EXPECT_EQ(r.allocations[0].size, 384u);
    EXPECT_EQ(r.allocations[0].alignment, runtime == RuntimeKind::Executorch ? 8u : 16u);
    EXPECT_EQ(r.allocations[0].owner, "forward/buffer 1");
    EXPECT_FALSE(r.allocations[0].live);
    EXPECT_TRUE(r.leaks.empty());
    EXPECT_TRUE(r.misuse.empty());
  }
}

TEST_F(ExecutorchEngine, EveryUpstreamProgramLoadsAndFreesEverythingInBothEngines) {
  // (owner, size) of each device allocation, in order, per file.
  using Ledger = std::vector<std::pair<std::string, uint64_t>>;
  const std::vector<std::pair<std::string, Ledger>> expected = {
      {"device_add.pte", {{"forward/buffer 1", 384}}},
      {"device_mixed.pte", {{"forward/buffer 1", 384}}},
      // Skip-copy: the caller's device inputs and output, allocated by the harness.
      {"device_skip_io.pte",
       {{"forward/input 0", 128}, {"forward/input 1", 128}, {"forward/output 0", 128}}},
      {"device_legacy_no_device_planning.pte", {}},
      {"mlp.pte", {}},
      {"residual.pte", {}},
      {"transformer.pte", {}},
      {"mutable_buffer.pte", {}}};
  for (const auto& [file, ledger] : expected) {
    for (RuntimeKind runtime : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
      SCOPED_TRACE(file + " " + runtime_name(runtime));
      const SimulationResult r = simulate(bytes_of(upstream(file)), runtime);
      EXPECT_TRUE(r.all_loaded());
      ASSERT_EQ(r.allocations.size(), ledger.size());
      for (size_t i = 0; i < ledger.size(); ++i) {
        EXPECT_EQ(r.allocations[i].owner, ledger[i].first);
        EXPECT_EQ(r.allocations[i].size, ledger[i].second);
        EXPECT_EQ(r.allocations[i].device, Device::cuda(0));
        EXPECT_FALSE(r.allocations[i].live);
      }
      EXPECT_FALSE(r.has_findings());
    }
  }
}

TEST_F(ExecutorchEngine, AFailedDeviceAllocationFailsTheLoadCleanly) {
  SimulationOptions options;
  options.fail_alloc = 1;
  const SimulationResult r =
      simulate(bytes_of(upstream("device_mixed.pte")), RuntimeKind::Executorch, options);
  ASSERT_EQ(r.methods.size(), 1u);
  EXPECT_EQ(r.methods[0].status.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_THAT(r.methods[0].status.message(),
              HasSubstr("injected fault: allocation #1 of 384 bytes on cuda:0"))
      << r.methods[0].status.message();
  EXPECT_THAT(r.methods[0].status.message(),
              HasSubstr("Failed to allocate device memory for buffer 1"))
      << r.methods[0].status.message();
  EXPECT_TRUE(r.allocations.empty());
  ASSERT_EQ(r.failed_allocations.size(), 1u);
  EXPECT_EQ(r.failed_allocations[0].owner, "forward/buffer 1");
  EXPECT_EQ(r.failed_allocations[0].alignment, 8u);
  EXPECT_EQ(r.failed_allocations[0].code, ErrorCode::MemoryAllocationFailed);
  EXPECT_FALSE(r.has_findings());
}

TEST_F(ExecutorchEngine, ACapacityBelowTheBufferFailsTheLoadAndOneAtItLoads) {
  for (uint64_t capacity : {383u, 384u}) {
    SimulationOptions options;
    options.capacities = {{Device::cuda(0), capacity}};
    const SimulationResult r =
        simulate(bytes_of(upstream("device_add.pte")), RuntimeKind::Executorch, options);
    ASSERT_EQ(r.methods.size(), 1u);
    EXPECT_EQ(r.methods[0].status.code(),
              capacity == 383 ? ErrorCode::MemoryAllocationFailed : ErrorCode::Ok);
    EXPECT_EQ(r.allocations.size(), capacity == 383 ? 0u : 1u);
    EXPECT_EQ(r.failed_allocations.size(), capacity == 383 ? 1u : 0u);
    EXPECT_FALSE(r.has_findings());
  }
}

TEST_F(ExecutorchEngine, EveryGeneratedFixtureLoadsWithTheSameAllocationsAsRuntimeExt) {
  for (const FixtureProgram& f : all_fixture_programs()) {
    SCOPED_TRACE(f.name);
    const std::vector<uint8_t> bytes = f.builder().build();
    const SimulationResult ours = simulate(bytes, RuntimeKind::Devplan);
    const SimulationResult theirs = simulate(bytes, RuntimeKind::Executorch);
    ASSERT_TRUE(ours.all_loaded());
    ASSERT_TRUE(theirs.all_loaded());
    for (const MethodOutcome& m : theirs.methods)
      EXPECT_TRUE(m.status.ok()) << m.status.to_string();
    if (std::string(f.name) == "zero_size_device_buffer") {
      // A known divergence (docs/executorch-divergences.md): ExecuTorch asks for 0 bytes for
      // the zero-size buffer 2 on cuda:1, after the others; runtime_ext makes no call.
      ASSERT_EQ(theirs.allocations.size(), ours.allocations.size() + 1);
      const AllocationRecord& zero = theirs.allocations.back();
      EXPECT_EQ(zero.size, 0u);
      EXPECT_EQ(zero.device, Device::cuda(1));
      EXPECT_EQ(zero.owner, "forward/buffer 2");
      EXPECT_FALSE(zero.live);
    } else {
      ASSERT_EQ(theirs.allocations.size(), ours.allocations.size());
    }
    for (size_t i = 0; i < ours.allocations.size(); ++i) {
      EXPECT_EQ(theirs.allocations[i].seq, ours.allocations[i].seq);
      EXPECT_EQ(theirs.allocations[i].device, ours.allocations[i].device);
      EXPECT_EQ(theirs.allocations[i].size, ours.allocations[i].size);
      EXPECT_EQ(theirs.allocations[i].owner, ours.allocations[i].owner);
      EXPECT_EQ(theirs.allocations[i].alignment, 8u);
      EXPECT_EQ(ours.allocations[i].alignment, 16u);
      EXPECT_FALSE(theirs.allocations[i].live);
    }
    EXPECT_FALSE(theirs.has_findings());
  }
}

TEST_F(ExecutorchEngine, FailingEachKthAllocationLeavesNothingLive) {
  const std::vector<uint8_t> bytes = make_multi_device_program();
  const size_t total = simulate(bytes, RuntimeKind::Executorch).allocations.size();
  ASSERT_EQ(total, 2u);
  for (uint64_t k = 1; k <= total; ++k) {
    SCOPED_TRACE(k);
    SimulationOptions options;
    options.fail_alloc = k;
    const SimulationResult r = simulate(bytes, RuntimeKind::Executorch, options);
    ASSERT_EQ(r.methods.size(), 1u);
    EXPECT_EQ(r.methods[0].status.code(), ErrorCode::MemoryAllocationFailed);
    EXPECT_EQ(r.allocations.size(), k - 1);
    for (const AllocationRecord& a : r.allocations) EXPECT_FALSE(a.live);
    EXPECT_EQ(r.failed_allocations.size(), 1u);
    EXPECT_FALSE(r.has_findings());
  }
}

TEST_F(ExecutorchEngine, DevplanDeviceBackendRunsTheSameUnderBothEngines) {
  const std::string file = temp_file(devplan_backend_add_program());
  for (const char* runtime : {"devplan", "executorch"}) {
    SCOPED_TRACE(runtime);
    CommandResult r =
        testing::run(&run_command, {file, "--runtime", runtime, "--input", "1", "--input", "2.5"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(
        r.out,
        "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [3.5, 3.5, 3.5, 3.5]\n");
  }
}

TEST_F(ExecutorchEngine, RealModelsRunWithExecutorchKernelsAndMatchEagerPyTorch) {
  for (const char* name : {"mlp", "residual", "transformer", "device_legacy_no_device_planning"}) {
    SCOPED_TRACE(name);
    Result<Json> reference =
        parse_json_file(upstream(std::string("reference/") + name + ".ones.json"));
    ASSERT_TRUE(reference.ok()) << reference.error().to_string();
    const auto forward = reference->find("forward");
    ASSERT_NE(forward, reference->end());
    ASSERT_TRUE(forward->is_array() && !forward->empty());
    const auto outputs = (*forward)[0].find("outputs");
    ASSERT_NE(outputs, (*forward)[0].end());
    const Json& expected_outputs = *outputs;
    std::unique_ptr<DeviceEnvironment> env =
        std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
    Result<std::unique_ptr<EngineSession>> s =
        open_session(RuntimeKind::Executorch, bytes_of(upstream(std::string(name) + ".pte")), *env,
                     SessionOptions());
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    bool usage_error = false;
    Result<std::vector<OutputValues>> out = (*s)->execute("forward", {}, &usage_error);
    if (std::string(name) == "device_legacy_no_device_planning") {
      // Its delegate is the upstream demo backend, which no runtime has.
      ASSERT_FALSE(out.ok());
      EXPECT_EQ(out.code(), ErrorCode::NotFound);
      EXPECT_THAT(out.error().message(), HasSubstr("BackendWithCompilerDemo"))
          << out.error().message();
      continue;
    }
    ASSERT_TRUE(out.ok()) << out.error().to_string();
    ASSERT_EQ(out->size(), expected_outputs.size());
    for (size_t i = 0; i < out->size(); ++i) {
      const Json& want = expected_outputs[i];
      Result<std::vector<std::string>> values = output_texts((*out)[i]);
      ASSERT_TRUE(values.ok()) << values.error();
      ASSERT_EQ(values->size(), want.size());
      for (size_t j = 0; j < want.size(); ++j) {
        const double got = std::stod((*values)[j]);
        ASSERT_TRUE(want[j].is_number()) << "output " << i << " element " << j;
        ASSERT_NEAR(got, want[j].get<double>(), 1e-5) << "output " << i << " element " << j;
      }
    }
  }
}

TEST_F(ExecutorchEngine, SimulateLoadsAProgramWhoseBackendNobodyHasButRunRefusesIt) {
  CommandResult sim =
      testing::run(&simulate_command, {upstream("device_add.pte"), "--runtime", "executorch"});
  EXPECT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_THAT(sim.out,
              HasSubstr("runtime: executorch\ndevice memory: unbacked\nmethod forward: loaded with "
                        "placeholders for backend BackendWithCompilerDemo (it cannot run here)\n"))
      << sim.out;
  EXPECT_THAT(sim.out, HasSubstr("  #1 cuda:0 384 B align 8 owner forward/buffer 1  freed\n"))
      << sim.out;
  CommandResult run =
      testing::run(&run_command, {upstream("device_add.pte"), "--runtime", "executorch"});
  EXPECT_EQ(run.exit_code, 1);
  EXPECT_THAT(run.err,
              HasSubstr("devplan run: NotFound: ExecuTorch: load_method('forward') failed: "))
      << run.err;
  EXPECT_THAT(run.err, HasSubstr("BackendWithCompilerDemo")) << run.err;
}

TEST_F(ExecutorchEngine, SimulateJsonNamesTheRuntime) {
  CommandResult r = testing::run(&simulate_command,
                                 {upstream("device_add.pte"), "--runtime", "executorch", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(
      r.out.rfind(testing::json_header() + "\"status\":\"ok\",\"runtime\":\"executorch\",", 0), 0u)
      << r.out;
}

TEST_F(ExecutorchEngine, HostCapacityIsAUsageErrorUnderExecutorch) {
  CommandResult r = testing::run(&simulate_command, {upstream("device_add.pte"), "--runtime",
                                                     "executorch", "--capacity", "cpu:0=100"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_THAT(r.err, HasSubstr("--capacity cpu:0: not supported with --runtime executorch"))
      << r.err;
}

TEST_F(ExecutorchEngine, TheOldInlineConstantLayoutIsRejectedWithExecutorchsReason) {
  CommandResult r = testing::run(
      &simulate_command,
      {testing::real_program("linear_no_constant_segment.pte"), "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("InvalidProgram")) << r.err;
  EXPECT_THAT(
      r.err,
      HasSubstr("PTE file relies on the constant_buffer path, which is disabled in this build"))
      << r.err;
}

// With InternalConsistency verification every truncation is a clean load error in ExecuTorch,
// with its own reason (a crash would be exit 3, see
// ACorruptedProgramCrashesMinimalVerificationOnly).
TEST_F(ExecutorchEngine, TruncatedProgramsAreCleanLoadErrors) {
  const std::vector<uint8_t> whole = bytes_of(upstream("device_mixed.pte"));
  for (size_t length : {size_t{0}, size_t{4}, size_t{8}, size_t{16}, size_t{64}, size_t{200},
                        whole.size() / 2, whole.size() - 1}) {
    SCOPED_TRACE(length);
    const std::string file = temp_file(std::vector<uint8_t>(whole.begin(), whole.begin() + length));
    CommandResult r = testing::run(&simulate_command, {file, "--runtime", "executorch"});
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    const std::string reason =
        length < 64 ? "devplan simulate: InvalidArgument: " + file +
                          ": ExecuTorch: loading the program failed: offset 0 + size 64 > size_ " +
                          std::to_string(length) + ", or overflow detected"
                    : "devplan simulate: InvalidProgram: " + file +
                          ": ExecuTorch: loading the program failed: File size is too small.";
    EXPECT_EQ(r.err.rfind(reason, 0), 0u) << r.err;
  }
}

// Programs the exporter writes that devplan once refused, run by ExecuTorch's runtime as eager
// PyTorch computes them: x[:, idx] (an OptionalTensorList with a None) and torch.cond.
TEST_F(ExecutorchEngine, OptionalNoneAndCondProgramsRunAsEagerPyTorch) {
  struct Case {
    const char* name;
    std::vector<std::string> inputs;
    const char* out;
  };
  const std::vector<Case> cases = {
      {"wild_optional_none",
       {"1,2,3,4,5,6,7,8", "0,2"},
       "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [1, 3, 5, 7]\n"},
      {"wild_cond",
       {},
       "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [2, 2, 2, 2]\n"},
      {"wild_cond",
       {"-1"},
       "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [-2, -2, -2, -2]\n"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(std::string(c.name) + " " + std::to_string(c.inputs.size()) + " inputs");
    std::vector<std::string> args = {testing::exported_program(std::string(c.name) + ".pte"),
                                     "--runtime", "executorch"};
    for (const std::string& input : c.inputs) {
      args.push_back("--input");
      args.push_back(input);
    }
    CommandResult r = testing::run(&run_command, args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out, c.out);
  }
}

// Outputs that no instruction writes: output 0 is input 1 as given (value 3; the inputs are
// values 2 and 3, not 0 and 1) and output 2 a constant buffer. Both engines give what eager
// PyTorch gives: the input's values, x + 1, and the constant.
TEST_F(ExecutorchEngine, OutputsNoInstructionWritesAreTheInputAndTheConstant) {
  const std::string file = testing::exported_program("wild_unnamed_outputs.pte");
  for (const char* runtime : {"devplan", "executorch"}) {
    SCOPED_TRACE(runtime);
    CommandResult r = testing::run(
        &run_command, {file, "--runtime", runtime, "--input", "1,2,3,4", "--input", "5,6,7,-8"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out,
              "method forward: 3 outputs\n"
              "output 0: float32[2, 2] on cpu:0 = [5, 6, 7, -8]\n"
              "output 1: float32[2, 2] on cpu:0 = [2, 3, 4, 5]\n"
              "output 2: float32[4] on cpu:0 = [0, 1, 2, 3]\n");
  }
}

// A buffer the method updates in place, exported with its initial value (1, 2, 3, 4): the
// first run reads it, so x = 0 gives the initial state doubled. devplan's engine has no
// aten::copy_ kernel (it runs only its own few) and says so by name.
TEST_F(ExecutorchEngine, APlannedTensorsInitialValueIsReadOnTheFirstRun) {
  const std::string file = testing::exported_program("wild_mutable_state.pte");
  CommandResult r =
      testing::run(&run_command, {file, "--runtime", "executorch", "--input", "0,0,0,0"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "method forward: 1 outputs\noutput 0: float32[4] on cpu:0 = [2, 4, 6, 8]\n");
  r = testing::run(&run_command, {file, "--runtime", "executorch"});
  EXPECT_EQ(r.out, "method forward: 1 outputs\noutput 0: float32[4] on cpu:0 = [4, 6, 8, 10]\n");
  r = testing::run(&run_command, {file});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: OperatorMissing: method 'forward': chain 0 instruction 2: operator "
            "aten::copy_ has no kernel\n");
}

// A delegate of the device backend handed an Int where a tensor belongs: both engines refuse
// it at execute, naming the backend, the argument and what it is not.
TEST_F(ExecutorchEngine, ADeviceDelegateArgumentThatIsNotATensorIsNamed) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t device = m.add_buffer(32, Device::cuda(0));
  const TensorSpec spec = TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(0));
  const int32_t count = m.add_int(7);
  const int32_t b = m.add_planned_tensor(spec, device, 0);
  const int32_t out = m.add_planned_tensor(spec, device, 16);
  const int32_t delegate = m.add_delegate("DevplanDeviceBackend", {'a', 'd', 'd'});
  m.add_chain();
  m.add_delegate_call(delegate, {count, b, out});
  m.set_outputs({out});
  const std::vector<uint8_t> bytes = builder.build();
  const std::map<RuntimeKind, std::pair<ErrorCode, std::string>> expected = {
      {RuntimeKind::Devplan,
       {ErrorCode::InvalidType,
        "method 'forward': chain 0 instruction 0: delegate 0 (DevplanDeviceBackend): "
        "DevplanDeviceBackend: value 0 is Int, not a Tensor"}},
      {RuntimeKind::Executorch,
       {ErrorCode::InvalidType,
        "ExecuTorch: execute('forward') failed: DevplanDeviceBackend: argument 0 is not a "
        "Tensor; CALL_DELEGATE execute failed at instruction 0: 0x13"}}};
  for (const auto& [runtime, want] : expected) {
    SCOPED_TRACE(runtime_name(runtime));
    std::unique_ptr<DeviceEnvironment> env =
        std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
    Result<std::unique_ptr<EngineSession>> s = open_session(runtime, bytes, *env, SessionOptions());
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    bool usage_error = false;
    Result<std::vector<OutputValues>> r = (*s)->execute("forward", {}, &usage_error);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.code(), want.first) << r.error().to_string();
    EXPECT_EQ(r.error().message(), want.second) << r.error().to_string();
  }
}

// x * alpha with alpha a float that export fixed at 2.0: not given, it is the recorded value;
// given, it must be that value, as ExecuTorch's Method::set_input requires, in both engines.
TEST_F(ExecutorchEngine, APrimitiveInputIsItsRecordedValueInBothEngines) {
  const std::string file = testing::exported_program("wild_fixed_double.pte");
  const std::map<std::string, std::string> refusal = {
      {"devplan",
       "devplan run: InvalidArgument: method 'forward': input 1 is Double 2, fixed when the "
       "program was exported; given 3\n"},
      {"executorch",
       "devplan run: InvalidArgument: ExecuTorch: execute('forward') failed: The 1-th input of "
       "method should have the same value as the input_evalue, but get 3.000000 and 2.000000\n"}};
  for (const std::string runtime : {"devplan", "executorch"}) {
    SCOPED_TRACE(runtime);
    CommandResult r = testing::run(&run_command, {file, "--runtime", runtime});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out,
              "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [2, 2, 2, 2]\n");
    // Within ExecuTorch's tolerance (1e-4 + 1e-5 * 2) the recorded value is taken.
    r = testing::run(&run_command,
                     {file, "--runtime", runtime, "--input", "1,2,3,4", "--input", "2.0001"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out,
              "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [2, 4, 6, 8]\n");
    r = testing::run(&run_command,
                     {file, "--runtime", runtime, "--input", "1,2,3,4", "--input", "3"});
    EXPECT_EQ(r.exit_code, 1);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, refusal.at(runtime));
  }
}

// What stands in is said: a backend no runtime has loads under a placeholder in both engines,
// and each says it; operators no kernel library has are named once each, all of them (devplan's
// engine loads without them, ExecuTorch's refuses the load and its log lines follow, each once).
TEST_F(ExecutorchEngine, PlaceholdersAndMissingOperatorsAreNamed) {
  const std::string absent = testing::exported_program("wild_absent_backend.pte");
  const std::string ops = testing::exported_program("wild_missing_ops.pte");
  for (const std::string runtime : {"devplan", "executorch"}) {
    SCOPED_TRACE(runtime);
    CommandResult r = testing::run(&simulate_command, {absent, "--runtime", runtime});
    EXPECT_EQ(r.exit_code, 0) << r.out;
    EXPECT_THAT(r.out, HasSubstr("method forward: loaded with placeholders for backend "
                                 "AbsentBackend (it cannot run here)\n"));
    r = testing::run(&simulate_command, {absent, "--runtime", runtime, "--json"});
    EXPECT_THAT(r.out, HasSubstr(R"("placeholders":["backend AbsentBackend"])"));
  }
  CommandResult r = testing::run(&run_command, {absent});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: OperatorMissing: method 'forward': chain 0 instruction 0: "
            "delegate 0 needs backend AbsentBackend, which is not registered\n");
  r = testing::run(&run_command, {absent, "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: NotFound: ExecuTorch: load_method('forward') failed: Backend "
            "AbsentBackend is not registered.\n");

  r = testing::run(&simulate_command, {ops, "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr(R"("placeholders":["kernel devplan_absent::twice.out",)"
                               R"("kernel devplan_absent::halve.out"])"));
  r = testing::run(&run_command, {ops});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: OperatorMissing: method 'forward': chain 0 instruction 0: operator "
            "devplan_absent::twice.out has no kernel; operator devplan_absent::halve.out "
            "has no kernel (chain 0 instruction 1)\n");
  const std::string executorch_error =
      "OperatorMissing: ExecuTorch: load_method('forward') failed: operator "
      "devplan_absent::twice.out has no kernel; operator devplan_absent::halve.out has no kernel; "
      "ExecuTorch's log: kernel 'devplan_absent::twice.out' not found.; Missing operator: [0] "
      "devplan_absent::twice.out; kernel 'devplan_absent::halve.out' not found.; Missing "
      "operator: [1] devplan_absent::halve.out; There are 4 instructions don't have "
      "corresponding operator registered. See logs for details";
  r = testing::run(&run_command, {ops, "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, "devplan run: " + executorch_error + "\n");
  r = testing::run(&simulate_command, {ops, "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("method forward: " + executorch_error + "\n"));
  r = testing::run(&report_command, {ops, absent, "--runtime", "executorch", "--out",
                                     testing::temp_dir(), "--fuzz-cases", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("\n  not run: forward: no kernel for devplan_absent::twice.out, "
                               "devplan_absent::halve.out\n"));
  EXPECT_THAT(r.out, HasSubstr("\n  not run: forward: no backend AbsentBackend\n"));
}

// Constants split over two data files: ExecuTorch's Module merges them (devplan gives it the
// program by path) and runs the program as eager PyTorch did; without one, devplan's reading
// names the missing keys.
TEST_F(ExecutorchEngine, TwoDataFilesAreMergedByExecutorchsModule) {
  const std::string pte = testing::exported_program("wild_split_data.pte");
  const std::string first = testing::exported_program("wild_split_data_first.ptd");
  const std::string second = testing::exported_program("wild_split_data_second.ptd");
  // The exporter's reference (torch, ones): [-0.38550612, 0.01601258] per row.
  CommandResult r = testing::run(
      &run_command, {pte, "--data", first, "--data", second, "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "method forward: 1 outputs\n"
            "output 0: float32[2, 2] on cpu:0 = [-0.38550612, 0.01601258, -0.38550612, "
            "0.01601258]\n");
  r = testing::run(&simulate_command,
                   {pte, "--data", second, "--data", first, "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  r = testing::run(&run_command, {pte, "--data", second, "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: NotFound: ExecuTorch: load_method('forward') failed; devplan reads: "
            "external tensor 'first.weight' is in none of the data files given (" +
                second + "); external tensor 'first.bias' is in none of the data files given (" +
                second + ")\n");
}

// budget and diff say which loads had placeholders: their figures are the load's only.
TEST_F(ExecutorchEngine, BudgetAndDiffSayWhatStoodIn) {
  const std::string absent = testing::exported_program("wild_absent_backend.pte");
  const std::string ops = testing::exported_program("wild_missing_ops.pte");
  const std::string budget = testing::temp_dir() + "/budget.json";
  CommandResult r = testing::run(&budget_command, {"record", absent, ops, "-o", budget});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "recorded 2 programs (2 methods) in " + budget +
                "\n"
                "  wild_absent_backend.pte: forward\n"
                "    forward: devplan loaded with placeholders for backend AbsentBackend (it "
                "cannot run here)\n"
                "    forward: executorch loaded with placeholders for backend AbsentBackend (it "
                "cannot run here)\n"
                "  wild_missing_ops.pte: forward\n"
                "    forward: devplan loaded with placeholders for kernel "
                "devplan_absent::twice.out, kernel devplan_absent::halve.out (it cannot run "
                "here)\n");
  std::ifstream file(budget);
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text,
              HasSubstr(R"("loaded":true,"misuse":0,"placeholders":["backend AbsentBackend"],)"
                        R"("probe":"not probed"})"));
  r = testing::run(&budget_command, {"check", budget, absent, ops});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("  note: wild_missing_ops.pte forward: devplan load: with "
                               "placeholders for kernel devplan_absent::twice.out, kernel "
                               "devplan_absent::halve.out (they cannot run here; the figures are "
                               "the load's)\n"));
  r = testing::run(&diff_command, {absent, ops, "--runtime", "devplan"});
  EXPECT_THAT(r.out, HasSubstr("  devplan load: loaded with placeholders for backend AbsentBackend "
                               "-> loaded with placeholders for kernel devplan_absent::twice.out, "
                               "kernel devplan_absent::halve.out\n"));
}

// nn.Linear with its weight and bias in a .ptd: ExecuTorch runs it with --data as eager PyTorch
// did (reference/wild_external_data.ones.json) and refuses it without, as devplan's engine does.
TEST_F(ExecutorchEngine, ExternalDataIsGivenWithData) {
  const std::string pte = testing::exported_program("wild_external_data.pte");
  const std::string ptd = testing::exported_program("wild_external_data.ptd");
  CommandResult r = testing::run(&run_command, {pte, "--runtime", "executorch", "--data", ptd});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "method forward: 1 outputs\noutput 0: float32[2, 3] on cpu:0 = [-0.99268794, "
            "-0.0031014085, -0.36756653, -0.99268794, -0.0031014085, -0.36756653]\n");
  r = testing::run(&run_command, {pte, "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "devplan run: InvalidState: ExecuTorch: load_method('forward') failed: "
            "external_data_map is null; devplan reads: external tensor 'linear.weight' is kept in "
            "a data file (.ptd) and none was given (--data FILE.ptd); external tensor "
            "'linear.bias' is kept in a data file (.ptd) and none was given (--data FILE.ptd)\n");
  r = testing::run(&simulate_command, {pte, "--runtime", "executorch", "--data", ptd});
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_THAT(r.out, HasSubstr("method forward: loaded\n"));
  r = testing::run(&run_command,
                   {pte, "--runtime", "executorch", "--data", ptd, "--data", upstream("mlp.pte")});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("not a data file (.ptd)"));
  r = testing::run(&report_command, {pte, "--runtime", "executorch", "--data", ptd, "--out",
                                     testing::temp_dir(), "--fuzz-cases", "0"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("wild_external_data                 1  cpu:0=1                    "
                               "     0     0      0        0  1/1  clean\ndata file: " +
                               ptd + ": 2 tensors, 60 B (file 524 B)\n"));
}

// Outputs above 4096 elements are summarized (eager PyTorch's values: i * j for i, j in 1..256,
// then 4096 -inf and 4096 NaN; checksums computed outside devplan), and --full prints them all.
TEST_F(ExecutorchEngine, LargeOutputsAreSummarizedUnlessFull) {
  const std::string file = testing::exported_program("wild_huge_outputs.pte");
  CommandResult r = testing::run(&run_command, {file, "--runtime", "executorch"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "method forward: 2 outputs\n"
            "output 0: float32[256, 256] on cpu:0: 65536 elements, first [1, 2, 3, 4, 5], last "
            "[64512, 64768, 65024, 65280, 65536], min 1, max 65536, mean 16512.25, 0 NaN, 0 Inf, "
            "fnv1a64 0acc0940f1381a9b (--full prints every element)\n"
            "output 1: float32[8192] on cpu:0: 8192 elements, first [-inf, -inf, -inf, -inf, "
            "-inf], last [-nan, -nan, -nan, -nan, -nan], min -inf, max -inf, mean -inf, 4096 NaN, "
            "4096 Inf, fnv1a64 b71dc47d41c72325 (--full prints every element)\n");
  r = testing::run(&run_command, {file, "--runtime", "executorch", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr(R"("sizes":[256,256],"device":"cpu:0","summary":{"elements":65536,)"
                               R"("first":[1.0,2.0,3.0,4.0,5.0],"last":[64512.0,64768.0,65024.0,)"
                               R"(65280.0,65536.0],"min":1.0,"max":65536.0,"mean":16512.25,)"
                               R"("nan":0,"inf":0,"fnv1a64":"0acc0940f1381a9b"}})"));
  EXPECT_THAT(r.out,
              HasSubstr(R"("summary":{"elements":8192,"first":[null,null,null,null,null],)"
                        R"("last":[null,null,null,null,null],"min":null,"max":null,)"
                        R"("mean":null,"nan":4096,"inf":4096,"fnv1a64":"b71dc47d41c72325"}})"));
  EXPECT_THAT(r.out, Not(HasSubstr(R"("values")")));
  r = testing::run(&run_command, {file, "--runtime", "executorch", "--full"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::string row_256 = "";  // the last row: 256 * j
  for (int j = 1; j <= 256; ++j) row_256 += (j > 1 ? ", " : "") + std::to_string(256 * j);
  EXPECT_THAT(r.out, HasSubstr("output 0: float32[256, 256] on cpu:0 = [1, 2, 3, "));
  EXPECT_THAT(r.out, HasSubstr(", " + row_256 + "]\noutput 1: float32[8192] on cpu:0 = [-inf, "));
  EXPECT_EQ(std::count(r.out.begin(), r.out.end(), ','), 1 + 65535 + 8191);  // "[256, 256]"
  r = testing::run(&run_command, {file, "--runtime", "executorch", "--full", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, Not(HasSubstr(R"("summary")")));
  EXPECT_THAT(r.out, HasSubstr(R"("values":[1.0,2.0,3.0,)"));
}

// Programs from ExecuTorch's exporter with DevplanDeviceBackend delegates run end to end in both
// engines, with the same ledger (but the alignment) and eager PyTorch's outputs.
TEST_F(ExecutorchEngine, ExportedDeviceProgramsRunInBothEnginesAndMatchEagerPyTorch) {
  struct Expected {
    const char* name;
    std::vector<std::pair<Device, uint64_t>> allocations;  // owners forward/buffer 1, 2, ...
  };
  const std::vector<Expected> programs = {
      {"devplan_one_delegate", {{Device::cuda(0), 48}}},
      {"devplan_broadcast", {{Device::cuda(0), 80}}},
      {"devplan_two_delegates", {{Device::cuda(0), 96}}},
      {"devplan_two_devices", {{Device::cuda(0), 96}, {Device::cuda(1), 96}}},
  };
  for (const Expected& p : programs) {
    SCOPED_TRACE(p.name);
    Result<Json> reference = parse_json_file(
        testing::exported_program(std::string("reference/") + p.name + ".ones.json"));
    ASSERT_TRUE(reference.ok()) << reference.error().to_string();
    const Json& want = reference->at("forward").at(0).at("outputs");
    for (RuntimeKind runtime : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
      SCOPED_TRACE(runtime_name(runtime));
      std::unique_ptr<DeviceEnvironment> env =
          std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
      {
        Result<std::unique_ptr<EngineSession>> s =
            open_session(runtime, bytes_of(testing::exported_program(std::string(p.name) + ".pte")),
                         *env, SessionOptions());
        ASSERT_TRUE(s.ok()) << s.error().to_string();
        bool usage_error = false;
        Result<std::vector<OutputValues>> out = (*s)->execute("forward", {}, &usage_error);
        ASSERT_TRUE(out.ok()) << out.error().to_string();
        ASSERT_EQ(out->size(), want.size());
        for (size_t i = 0; i < out->size(); ++i) {
          Result<std::vector<std::string>> values = output_texts((*out)[i]);
          ASSERT_TRUE(values.ok()) << values.error();
          ASSERT_EQ(values->size(), want[i].size());
          for (size_t j = 0; j < want[i].size(); ++j) {
            EXPECT_EQ(std::stod((*values)[j]), want[i][j].get<double>());
          }
        }
      }
      const std::vector<AllocationRecord> ledger = env->ledger();
      ASSERT_EQ(ledger.size(), p.allocations.size());
      for (size_t i = 0; i < ledger.size(); ++i) {
        EXPECT_EQ(ledger[i].device, p.allocations[i].first);
        EXPECT_EQ(ledger[i].size, p.allocations[i].second);
        EXPECT_EQ(ledger[i].owner, "forward/buffer " + std::to_string(i + 1));
        EXPECT_EQ(ledger[i].alignment, runtime == RuntimeKind::Executorch ? 8u : 16u);
        EXPECT_FALSE(ledger[i].live);
      }
      EXPECT_TRUE(env->misuse_lines().empty());
    }
  }
}

// What `devplan plan` writes loads and runs in ExecuTorch as in runtime_ext (ExecuTorch's
// reference device program: add(a, b) delegated to cuda:0).
TEST_F(ExecutorchEngine, PlannedProgramsLoadAndRunInExecutorch) {
  const std::string graph = R"({"name": "forward", "alignment": 16,
    "tensors": [{"id": "a", "dtype": "float32", "shape": [2, 2]},
                {"id": "b", "dtype": "float32", "shape": [2, 2]},
                {"id": "z", "dtype": "float32", "shape": [2, 2]}],
    "inputs": ["a", "b"], "outputs": ["z"],
    "nodes": [{"delegate": "DeviceAddBackend", "device": "cuda:0", "inputs": ["a", "b"], "outputs": ["z"]}]})";
  const std::string graph_file =
      temp_file(std::vector<uint8_t>(graph.begin(), graph.end()), ".json");
  const std::string out = temp_file({}, ".pte");
  ASSERT_EQ(testing::run(&plan_command, {graph_file, "-o", out}).exit_code, 0);
  CommandResult sim = testing::run(&simulate_command, {out, "--runtime", "executorch"});
  EXPECT_EQ(sim.exit_code, 0) << sim.err;
  EXPECT_THAT(
      sim.out,
      HasSubstr("  buffer 0: 32 B on cpu:0, allocated\n  buffer 1: 48 B on cuda:0, allocated\n"
                "device allocations: 1\n  #1 cuda:0 48 B align 8 owner forward/buffer 1  freed\n"))
      << sim.out;
  CommandResult ran = testing::run(
      &run_command, {out, "--runtime", "executorch", "--input", "1,2,3,4", "--input", "10"});
  EXPECT_EQ(ran.exit_code, 0) << ran.err;
  EXPECT_EQ(ran.out,
            "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [11, 12, 13, 14]\n");
}

// `devplan replan` keeps a program's outputs: the re-planned transformer and residual models run
// in ExecuTorch with its kernels and give the same outputs, bit for bit (printed with the
// shortest text that reads back the same float).
TEST_F(ExecutorchEngine, ReplannedModelsGiveTheSameOutputsInExecutorch) {
  for (const char* name : {"transformer", "residual", "mlp", "mutable_buffer"}) {
    SCOPED_TRACE(name);
    const std::string original = upstream(std::string(name) + ".pte");
    const std::string replanned = temp_file({}, ".pte");
    ASSERT_EQ(testing::run(&replan_command, {original, "-o", replanned}).exit_code, 0);
    CommandResult a = testing::run(&run_command, {original, "--runtime", "executorch", "--json"});
    CommandResult b = testing::run(&run_command, {replanned, "--runtime", "executorch", "--json"});
    ASSERT_EQ(a.exit_code, 0) << a.err;
    ASSERT_EQ(b.exit_code, 0) << b.err;
    EXPECT_EQ(a.out, b.out);
  }
}

}  // namespace
}  // namespace devplan::harness
