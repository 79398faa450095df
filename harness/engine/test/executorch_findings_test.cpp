// Where ExecuTorch 1.5.1 and runtime_ext differ on hand-made programs (label `executorch`):
// each test states ExecuTorch's behaviour exactly; docs/executorch-divergences.md lists them.
#include <csignal>
#include <fstream>
#include <functional>
#include <iostream>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/engine/child_process.h>
#include <harness/engine/engine.h>
#include <harness/services/simulation.h>
#include <harness/test/commands_test_support.h>

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::CommandResult;
using testing::temp_file;

SimulationResult simulate(const std::vector<uint8_t>& bytes, RuntimeKind runtime) {
  SimulationOptions options;
  options.runtime = runtime;
  Result<SimulationResult> r = simulate_program(bytes, options);
  if (!r.ok()) {
    SimulationResult failed;
    MethodOutcome m;
    m.name = "<program>";
    m.status = r.error();
    failed.methods.push_back(m);
    return failed;
  }
  return *r;
}

std::string describe(const SimulationResult& r) {
  std::string text;
  for (const MethodOutcome& m : r.methods) text += m.name + ": " + m.status.to_string() + "\n";
  for (const AllocationRecord& a : r.allocations)
    text += format_allocation(a) + (a.live ? " LIVE\n" : " freed\n");
  return text;
}

// device_add_cuda0 with its device list replaced by `entries`.
std::vector<uint8_t> with_device_list(std::vector<RawBufferDevice> entries) {
  ProgramBuilder builder = device_add_cuda0_program_builder();
  builder.method(0).set_raw_buffer_devices(std::move(entries));
  return builder.build();
}

class ExecutorchFindings : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!executorch_available()) GTEST_SKIP() << executorch_unavailable_reason();
  }
};

// fill_cpu_add's program with `before` run ahead of the add: values a, b, out (planned in
// buffer 0), alpha, plus whatever `extra` adds.
std::vector<uint8_t> cpu_add_with(const std::function<void(MethodBuilder&, int32_t a)>& before) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const TensorSpec f22 = TensorSpec::of(ScalarType::Float, {2, 2});
  const uint32_t host = m.add_buffer(48);
  const int32_t a = m.add_planned_tensor(f22, host, 0);
  const int32_t b = m.add_planned_tensor(f22, host, 16);
  const int32_t out = m.add_planned_tensor(f22, host, 32);
  const int32_t alpha = m.add_int(1);
  m.add_chain();
  before(m, a);
  m.add_kernel_call("aten::add", "out", {a, b, alpha, out, out});
  m.set_inputs({a, b});
  m.set_outputs({out});
  return builder.build();
}

std::string message_of(const SimulationResult& r) {
  return r.methods.empty() ? "" : r.methods[0].status.message();
}

// One method whose only planned tensor, float [4] at byte 16 of a 64-byte cuda:0 buffer, has an
// initial value (a mutable data segment), and is the output.
std::vector<uint8_t> device_initial_value_program() {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t dev = m.add_buffer(64, Device::cuda(0));
  std::vector<uint8_t> initial(16);
  for (size_t i = 0; i < initial.size(); ++i) initial[i] = static_cast<uint8_t>(i + 1);
  const int32_t t = m.add_planned_tensor_with_initial_value(
      TensorSpec::of(ScalarType::Float, {4}, Device::cuda(0)), dev, 16, initial);
  m.add_chain();
  m.set_outputs({t});
  return builder.build();
}

// Divergence "device-initial-value": ExecuTorch writes a device tensor's initial value with a
// host memcpy into the device buffer; runtime_ext copies it through the device allocator.
// Unbacked device memory faults on the host access, and the report names the block.
TEST_F(ExecutorchFindings, AnInitialValueOnADeviceIsWrittenByTheHost) {
  const std::string file = temp_file(device_initial_value_program());
  const CommandResult ours = testing::run(&simulate_command, {file});
  EXPECT_EQ(ours.exit_code, 0) << ours.out << ours.err;
  const CommandResult theirs = testing::run(&simulate_command, {file, "--runtime", "executorch"});
  EXPECT_EQ(theirs.exit_code, 3) << theirs.out << theirs.err;
  EXPECT_THAT(theirs.err,
              ::testing::MatchesRegex(
                  "devplan: host access to unbacked device memory at 0x[0-9a-f]+: byte 16 of #1 "
                  "cuda:0 64 B align 8 owner forward/buffer 0; device memory is reachable only "
                  "through the allocator's copies \\(--backing host lets host accesses "
                  "through\\)\n"
                  "devplan simulate: FINDING: ExecuTorch aborted while simulating .*: signal 11 "
                  "\\(Segmentation fault\\): devplan: host access .*\n"));
  // With host memory behind the device, ExecuTorch's memcpy lands and the load succeeds.
  const CommandResult host =
      testing::run(&simulate_command, {file, "--runtime", "executorch", "--backing", "host"});
  EXPECT_EQ(host.exit_code, 0) << host.out << host.err;
}

// Sparse device lists: ExecuTorch reads them with a linear scan, first match wins, ignoring
// entries it never looks up; runtime_ext reads them the same way (with a note each).
TEST_F(ExecutorchFindings, DuplicateDeviceEntriesLoadWithTheFirstMatchInBoth) {
  const std::vector<uint8_t> bytes = with_device_list({{2, 1, 0}, {2, 1, 1}});
  for (RuntimeKind runtime : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
    const SimulationResult r = simulate(bytes, runtime);
    ASSERT_TRUE(r.all_loaded()) << runtime_name(runtime) << "\n" << describe(r);
    ASSERT_EQ(r.allocations.size(), 1u) << runtime_name(runtime);
    EXPECT_EQ(r.allocations[0].device, Device::cuda(0));
    EXPECT_EQ(r.allocations[0].size, 48u);
    EXPECT_FALSE(r.allocations[0].live);
  }
}

TEST_F(ExecutorchFindings, ReservedAndOutOfRangeBufferIndicesAreIgnoredInBoth) {
  for (const std::vector<RawBufferDevice>& list :
       {std::vector<RawBufferDevice>{{0, 1, 0}, {2, 1, 0}},
        std::vector<RawBufferDevice>{{2, 1, 0}, {7, 1, 0}},
        std::vector<RawBufferDevice>{{-4, 1, 1}, {2, 1, 0}}}) {
    const std::vector<uint8_t> bytes = with_device_list(list);
    for (RuntimeKind runtime : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
      const SimulationResult r = simulate(bytes, runtime);
      ASSERT_TRUE(r.all_loaded()) << runtime_name(runtime) << "\n" << describe(r);
      ASSERT_EQ(r.allocations.size(), 1u) << runtime_name(runtime);
      EXPECT_EQ(r.allocations[0].device, Device::cuda(0));
    }
  }
}

TEST_F(ExecutorchFindings, ANegativeDeviceIndexReachesTheAllocatorInBoth) {
  const std::vector<uint8_t> bytes = with_device_list({{2, 1, -1}});
  for (RuntimeKind runtime : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
    const SimulationResult r = simulate(bytes, runtime);
    ASSERT_EQ(r.methods.size(), 1u);
    // ExecuTorch's own CUDA allocator takes -1 as "the current device"; the tracking allocator
    // refuses it.
    EXPECT_EQ(r.methods[0].status.code(), ErrorCode::InvalidArgument) << runtime_name(runtime);
    ASSERT_EQ(r.failed_allocations.size(), 1u) << runtime_name(runtime);
    EXPECT_EQ(r.failed_allocations[0].device.index, -1);
    EXPECT_EQ(r.failed_allocations[0].size, 48u);
    EXPECT_TRUE(r.allocations.empty());
    EXPECT_FALSE(r.has_findings());
  }
}

TEST_F(ExecutorchFindings, AnUnknownDeviceTypeIsNotFoundAtLoadInBoth) {
  const std::vector<uint8_t> bytes = with_device_list({{2, 5, 0}});
  const SimulationResult ours = simulate(bytes, RuntimeKind::Devplan);
  EXPECT_EQ(ours.methods[0].status.code(), ErrorCode::NotFound);
  EXPECT_EQ(message_of(ours),
            "method 'forward': buffer 1 (48 bytes on unknown(5):0): no device allocator registered "
            "for unknown(5):0");
  const SimulationResult theirs = simulate(bytes, RuntimeKind::Executorch);
  EXPECT_EQ(theirs.methods[0].status.code(), ErrorCode::NotFound);
  EXPECT_THAT(message_of(theirs), HasSubstr("No device allocator registered for device type 5"))
      << message_of(theirs);
  for (const SimulationResult* r : {&ours, &theirs}) {
    EXPECT_TRUE(r->allocations.empty());
    EXPECT_TRUE(r->failed_allocations.empty());
  }
}

// Device-tagged tensors in a host buffer (legacy programs): both engines load them as host
// memory (runtime_ext keeps the tag, its memory is host memory).
TEST_F(ExecutorchFindings, DeviceTaggedTensorsInAHostBufferLoadAsHostMemoryInBoth) {
  for (const std::vector<RawBufferDevice>& list :
       {std::vector<RawBufferDevice>{{2, 0, 0}}, std::vector<RawBufferDevice>{}}) {
    const std::vector<uint8_t> bytes = with_device_list(list);
    for (RuntimeKind runtime : {RuntimeKind::Devplan, RuntimeKind::Executorch}) {
      const SimulationResult r = simulate(bytes, runtime);
      EXPECT_TRUE(r.all_loaded()) << runtime_name(runtime) << "\n" << describe(r);
      EXPECT_TRUE(r.allocations.empty());
    }
  }
}

// Finding: a tensor used after a FreeCall takes ExecuTorch down (its kernel reads through the
// null data pointer the FreeCall left); runtime_ext reports it. The harness survives: the run
// is in a child process.
TEST_F(ExecutorchFindings, UseAfterFreeCrashesExecutorch) {
  const std::string file =
      temp_file(cpu_add_with([](MethodBuilder& m, int32_t a) { m.add_free(a); }));
  CommandResult ours = testing::run(&run_command, {file});
  EXPECT_EQ(ours.exit_code, 1);
  EXPECT_EQ(ours.err,
            "devplan run: InvalidState: method 'forward': chain 0 instruction 1: value 0 is used "
            "after a FreeCall released its memory\n");
  CommandResult theirs = testing::run(&run_command, {file, "--runtime", "executorch"});
  EXPECT_EQ(theirs.exit_code, 3);
  EXPECT_THAT(theirs.err, HasSubstr("devplan run: FINDING: ExecuTorch aborted while running " +
                                    file + ": signal 11 (Segmentation fault)"))
      << theirs.err;
}

TEST_F(ExecutorchFindings, BothRefuseToFreeSomethingOtherThanATensor) {
  const std::string file =
      temp_file(cpu_add_with([](MethodBuilder& m, int32_t) { m.add_free(m.add_int(3)); }));
  CommandResult ours = testing::run(&run_command, {file});
  EXPECT_EQ(ours.exit_code, 1);
  EXPECT_THAT(ours.err,
              HasSubstr("InvalidType: method 'forward': chain 0 instruction 0: FreeCall target "
                        "value 4 is Int, not a Tensor"))
      << ours.err;
  CommandResult theirs = testing::run(&run_command, {file, "--runtime", "executorch"});
  EXPECT_EQ(theirs.exit_code, 1);
  EXPECT_THAT(theirs.err,
              HasSubstr("InvalidType: ExecuTorch: execute('forward') failed: FreeCall target "
                        "at index 4 is not a Tensor"))
      << theirs.err;
}

// Divergence "IntList items": ExecuTorch reads them as value indices.
TEST_F(ExecutorchFindings, IntListItemsAreValueIndicesInExecutorch) {
  const std::vector<uint8_t> bytes =
      cpu_add_with([](MethodBuilder& m, int32_t) { m.add_int_list({99}); });
  EXPECT_TRUE(simulate(bytes, RuntimeKind::Devplan).all_loaded());
  const SimulationResult theirs = simulate(bytes, RuntimeKind::Executorch);
  EXPECT_EQ(theirs.methods[0].status.code(), ErrorCode::InvalidProgram);
  EXPECT_THAT(message_of(theirs), HasSubstr("Invalid value index 99 for IntList 4 index 0"))
      << message_of(theirs);
}

TEST_F(ExecutorchFindings, AMethodWithNothingToRunHasOneEmptyChainThatBothLoad) {
  ProgramBuilder builder;
  builder.add_method("forward");
  const std::vector<uint8_t> bytes = builder.build();
  EXPECT_TRUE(simulate(bytes, RuntimeKind::Devplan).all_loaded());
  EXPECT_TRUE(simulate(bytes, RuntimeKind::Executorch).all_loaded());
}

// Finding: ExecuTorch cannot set the input of a legacy device program (a tensor tagged cuda:0,
// planned in host memory): set_input takes it for device memory and refuses.
TEST_F(ExecutorchFindings, ALegacyDeviceProgramsInputCannotBeSet) {
  const std::string file =
      std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/exporter/devplan_legacy.pte";
  CommandResult theirs = testing::run(&run_command, {file, "--runtime", "executorch"});
  EXPECT_EQ(theirs.exit_code, 1);
  EXPECT_THAT(theirs.err,
              HasSubstr("NotSupported: ExecuTorch: execute('forward') failed: Planned-buffer "
                        "copy needs host memory on both sides: dst device 1, src device 0"))
      << theirs.err;
}

// Finding: with Program::Verification::Minimal (Module::load's default), a corrupted program
// (4 bytes of device_mixed.pte changed) crashes ExecuTorch while loading; with
// InternalConsistency, which the harness uses, it is a clean InvalidProgram.
TEST_F(ExecutorchFindings, ACorruptedProgramCrashesMinimalVerificationOnly) {
  const std::string file =
      std::string(DEVPLAN_SOURCE_DIR) +
      "/fixtures/executorch/findings/corrupt_device_mixed_crashes_minimal_verification.pte";
  std::ifstream in(file, std::ios::binary);
  const std::vector<uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                   std::istreambuf_iterator<char>());
  ASSERT_EQ(bytes.size(), 2841u);
  for (bool minimal : {false, true}) {
    ChildOutcome child = run_in_child([&](std::string* out) {
      std::unique_ptr<DeviceEnvironment> env =
          std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
      SessionOptions options;
      options.executorch_minimal_verification = minimal;
      Result<std::unique_ptr<EngineSession>> s =
          open_session(RuntimeKind::Executorch, bytes, *env, options);
      if (s.ok()) {
        for (const std::string& name : (*s)->method_names()) (void)(*s)->load_method(name);
      }
      *out = s.ok() ? "opened" : error_code_name(s.code());
      return 0;
    });
    if (minimal) {
      EXPECT_TRUE(child.signaled()) << child.describe() << child.out;
      EXPECT_EQ(child.signal, SIGSEGV);
    } else {
      EXPECT_FALSE(child.signaled()) << child.describe();
      EXPECT_EQ(child.out, "InvalidProgram");
    }
  }
}

// Divergence "device-planned-input": a method input planned in device memory. runtime_ext copies
// the caller's host data in through the device allocator; ExecuTorch's set_input refuses it.
TEST_F(ExecutorchFindings, AnInputPlannedOnADeviceTakesHostDataOnlyInRuntimeExt) {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  const uint32_t host = m.add_buffer(16);
  const uint32_t dev = m.add_buffer(16, Device::cuda(0));
  const int32_t x =
      m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}, Device::cuda(0)), dev, 0);
  const int32_t out = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {2, 2}), host, 0);
  const int32_t d2h = m.add_operator("et_copy::_d2h_copy", "out");
  m.add_chain();
  m.add_kernel_call(d2h, {x, out, out});
  m.set_inputs({x});
  m.set_outputs({out});
  const std::string file = temp_file(builder.build());
  CommandResult ours = testing::run(&run_command, {file, "--input", "7"});
  EXPECT_EQ(ours.exit_code, 0) << ours.err;
  EXPECT_EQ(ours.out,
            "method forward: 1 outputs\noutput 0: float32[2, 2] on cpu:0 = [7, 7, 7, 7]\n");
  CommandResult theirs =
      testing::run(&run_command, {file, "--runtime", "executorch", "--input", "7"});
  EXPECT_EQ(theirs.exit_code, 1);
  EXPECT_THAT(theirs.err,
              HasSubstr("NotSupported: ExecuTorch: execute('forward') failed: Planned-buffer "
                        "copy needs host memory on both sides: dst device 1, src device 0"))
      << theirs.err;
}

}  // namespace
}  // namespace devplan::harness
