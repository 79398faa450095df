#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using testing::fixture_program;
using testing::real_program;
using testing::run;

TEST(SimulateCommandTest, DeviceFixturePrintsTheLedgerAllFreed) {
  testing::CommandResult r = run(&simulate_command, {fixture_program("device_add_cuda0")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(
      r.out,
      "program: " + fixture_program("device_add_cuda0") +
          "\n"
          "runtime: devplan\n"
          "device memory: unbacked\n"
          "method forward: loaded\n"
          "  buffer 0: 32 B on cpu:0, allocated\n"
          "  buffer 1: 48 B on cuda:0, allocated\n"
          "device allocations: 1\n"
          "  #1 cuda:0 48 B align 16 owner forward/buffer 1  freed\n"
          "failed allocations: 0\n"
          "statistics:\n"
          "  cuda:0: bytes current 0 B, peak 48 B, total 48 B; allocations current 0, peak 1, "
          "total 1\n"
          "leaks: 0\n"
          "misuse: 0\n"
          "result: ok: every method loaded, every allocation freed\n"
          "SUMMARY: devplan: no leaks, no misuse (1 allocation, 1 free)\n");
}

TEST(SimulateCommandTest, FailAllocIsACleanLoadErrorExitOne) {
  testing::CommandResult r =
      run(&simulate_command, {"--fail-alloc", "2", fixture_program("multi_device")});
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_THAT(r.out,
              HasSubstr("method forward: MemoryAllocationFailed: method 'forward': buffer 2 "))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("failed allocations: 1\n  #2 cuda:1 48 B owner forward/buffer 2: "))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("  #1 cuda:0 48 B align 16 owner forward/buffer 1  freed\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("leaks: 0\n"));
}

TEST(SimulateCommandTest, InjectedSkipFreeIsFoundExitThree) {
  testing::CommandResult r =
      run(&simulate_command, {fixture_program("device_add_cuda0"), "--inject-bug", "skip-free"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr("leaks: 1\n  #1 cuda:0 48 B align 16 owner forward/buffer 1\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("result: FOUND leaks or misuse\n"));
}

TEST(SimulateCommandTest, InjectedDoubleAndWrongIndexFreesAreMisuse) {
  testing::CommandResult r =
      run(&simulate_command, {fixture_program("device_add_cuda0"), "--inject-bug", "double-free"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out,
              HasSubstr("misuse: 1\n  double free of #1 cuda:0 48 B owner forward/buffer 1\n"))
      << r.out;
  r = run(&simulate_command,
          {fixture_program("device_add_cuda0"), "--inject-bug", "wrong-index-free"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out,
              HasSubstr("misuse: 1\n  free on cuda:1 of #1 cuda:0 48 B owner forward/buffer 1\n"))
      << r.out;
}

// The injected bug sits in front of the device allocator, not in a runtime, so ExecuTorch's
// unload path is caught by the same reports as runtime_ext's.
TEST(SimulateCommandTest, InjectedBugsAreFoundUnderBothEngines) {
  for (const std::string runtime : {"devplan", "executorch"}) {
    if (runtime == "executorch" && !executorch_available()) continue;
    // ExecuTorch asks the device allocator for 8-byte alignment, runtime_ext for 16 (the known
    // divergence "device-alignment").
    const std::string align = runtime == "executorch" ? "8" : "16";
    const struct {
      const char* bug;
      std::string report;
    } cases[] = {
        {"skip-free", "leaks: 1\n  #1 cuda:0 48 B align " + align + " owner forward/buffer 1\n"},
        {"double-free", "misuse: 1\n  double free of #1 cuda:0 48 B owner forward/buffer 1\n"},
        {"wrong-index-free",
         "misuse: 1\n  free on cuda:1 of #1 cuda:0 48 B owner forward/buffer 1\n"},
    };
    for (const auto& c : cases) {
      testing::CommandResult r =
          run(&simulate_command,
              {fixture_program("device_add_cuda0"), "--runtime", runtime, "--inject-bug", c.bug});
      EXPECT_EQ(r.exit_code, 3) << runtime << " " << c.bug << "\n" << r.out << r.err;
      EXPECT_THAT(r.out, HasSubstr(c.report)) << runtime << " " << c.bug;
      EXPECT_THAT(r.out, HasSubstr("result: FOUND leaks or misuse\n")) << runtime << " " << c.bug;
    }
  }
}

TEST(SimulateCommandTest, PlaceMovesACpuBufferToADevice) {
  testing::CommandResult r =
      run(&simulate_command, {real_program("add.pte"), "--place", "0=cuda:1"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("  buffer 0: 48 B on cuda:1, allocated\n")) << r.out;
  EXPECT_THAT(r.out, HasSubstr("  #1 cuda:1 48 B align 16 owner forward/buffer 0  freed\n"))
      << r.out;
}

TEST(SimulateCommandTest, CpuOnlyProgramHasAnEmptyLedger) {
  testing::CommandResult r =
      run(&simulate_command, {real_program("linear_no_constant_segment.pte")});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_THAT(r.out, HasSubstr("device allocations: 0\n"));
}

TEST(SimulateCommandTest, CapacityLimitsADevice) {
  testing::CommandResult r =
      run(&simulate_command, {fixture_program("device_add_cuda0"), "--capacity", "cuda:0=40"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.out, HasSubstr("method forward: MemoryAllocationFailed")) << r.out;
  r = run(&simulate_command, {fixture_program("device_add_cuda0"), "--capacity", "cuda:0=48"});
  EXPECT_EQ(r.exit_code, 0);
}

TEST(SimulateCommandTest, MethodSelection) {
  testing::CommandResult r =
      run(&simulate_command, {fixture_program("two_methods"), "--method", "cpu_forward"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.find("device_forward"), std::string::npos);
  r = run(&simulate_command, {fixture_program("two_methods"), "--method", "nope"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "devplan simulate: " + fixture_program("two_methods") +
                       ": the program has no method 'nope'\n");
}

TEST(SimulateCommandTest, InvalidProgramExitsOne) {
  std::vector<uint8_t> bytes = make_cpu_add_program();
  bytes[4] = 'X';
  testing::CommandResult r = run(&simulate_command, {testing::temp_file(bytes)});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_THAT(r.err, HasSubstr("InvalidProgram")) << r.err;
}

TEST(SimulateCommandTest, UsageErrorsExitTwo) {
  const std::string f = fixture_program("device_add_cuda0");
  EXPECT_EQ(run(&simulate_command, {f, "--fail-alloc", "0"}).exit_code, 2);
  EXPECT_EQ(run(&simulate_command, {f, "--place", "1=CUDA"}).exit_code, 2);
  EXPECT_EQ(run(&simulate_command, {f, "--place", "7=cuda:0"}).exit_code, 2);
  EXPECT_EQ(run(&simulate_command, {f, "--capacity", "cuda:0"}).exit_code, 2);
  testing::CommandResult r = run(&simulate_command, {f, "--inject-bug", "leak"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "devplan simulate: --inject-bug: expects skip-free, double-free or wrong-index-free, "
            "got 'leak'\nRun 'devplan simulate --help' for the options.\n");
}

TEST(SimulateCommandJsonTest, DeviceFixtureDocument) {
  testing::CommandResult r =
      testing::run(&simulate_command, {testing::fixture_program("device_add_cuda0"), "--json"});
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_EQ(
      r.out,
      testing::json_header() +
          R"("status":"ok","runtime":"devplan","device_memory":"unbacked","methods":[{"name":"forward",)"
          R"("status":"ok","buffers":[)"
          R"({"index":0,"size":32,"device":"cpu:0","allocated":true},)"
          R"({"index":1,"size":48,"device":"cuda:0","allocated":true}],"placeholders":[]}],)"
          R"("allocations":[{"seq":1,"device":"cuda:0","size":48,"alignment":16,"owner":"forward/buffer 1","freed":true}],)"
          R"("failed_allocations":[],"leaks":[],"misuse":[],)"
          R"("statistics":{"cuda:0":{"bytes":{"current":0,"peak":48,"total":48},)"
          R"("allocations":{"current":0,"peak":1,"total":1}}},)"
          R"j("summary":"SUMMARY: devplan: no leaks, no misuse (1 allocation, 1 free)"})j"
          "\n");
}

TEST(SimulateCommandJsonTest, LeakDocumentNamesOwner) {
  testing::CommandResult r = testing::run(
      &simulate_command,
      {testing::fixture_program("device_add_cuda0"), "--json", "--inject-bug", "skip-free"});
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_THAT(r.out, HasSubstr(R"("status":"leak")"));
  EXPECT_THAT(
      r.out,
      HasSubstr(
          R"("leaks":[{"seq":1,"device":"cuda:0","size":48,"alignment":16,"owner":"forward/buffer 1","report":"#1 cuda:0 48 B align 16 owner forward/buffer 1"}])"))
      << r.out;
}

TEST(SimulateCommandJsonTest, InvalidProgramStillGivesJson) {
  std::vector<uint8_t> bytes = make_cpu_add_program();
  bytes[4] = 'X';
  testing::CommandResult r = testing::run(&simulate_command, {testing::temp_file(bytes), "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(
      r.out.rfind(
          testing::json_header() +
              R"("status":"error","runtime":"devplan","error":{"code":"InvalidProgram","message":")",
          0),
      0u)
      << r.out;
}

std::string read_text(const std::string& path) {
  Result<std::vector<uint8_t>> bytes = read_file(path);
  EXPECT_TRUE(bytes.ok());
  return bytes.ok() ? std::string(bytes->begin(), bytes->end()) : "";
}

size_t occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

TEST(SimulateReportsTest, TimelineMarksEachLeakAndEachDevice) {
  const std::string svg_path = testing::temp_file({}, ".svg");
  testing::CommandResult r =
      testing::run(&simulate_command, {testing::fixture_program("multi_device"), "--inject-bug",
                                       "skip-free", "--timeline-svg", svg_path});
  EXPECT_EQ(r.exit_code, 3);
  const std::string svg = read_text(svg_path);
  EXPECT_EQ(occurrences(svg, "<circle class=\"leak\""), 2u);
  EXPECT_THAT(svg,
              HasSubstr("<title>leak: #1 cuda:0 48 B align 16 owner forward/buffer 1</title>"));
  EXPECT_EQ(occurrences(svg, "<polyline class=\"device-line\" data-device=\"cuda:0\""), 1u);
  EXPECT_EQ(occurrences(svg, "<polyline class=\"device-line\" data-device=\"cuda:1\""), 1u);
}

TEST(SimulateReportsTest, TimelineMarksFailedAllocations) {
  const std::string svg_path = testing::temp_file({}, ".svg");
  testing::CommandResult r = testing::run(
      &simulate_command,
      {testing::fixture_program("multi_device"), "--fail-alloc", "2", "--timeline-svg", svg_path});
  EXPECT_EQ(r.exit_code, 1);
  const std::string svg = read_text(svg_path);
  EXPECT_EQ(occurrences(svg, "<path class=\"failed\""), 1u);
  EXPECT_EQ(occurrences(svg, "<circle class=\"leak\""), 0u);
}

TEST(SimulateReportsTest, JunitHasACasePerMethodAndForLeaks) {
  const std::string xml_path = testing::temp_file({}, ".xml");
  testing::CommandResult r =
      testing::run(&simulate_command, {testing::fixture_program("two_methods"), "--inject-bug",
                                       "double-free", "--junit", xml_path});
  EXPECT_EQ(r.exit_code, 3);
  const std::string xml = read_text(xml_path);
  EXPECT_THAT(xml, HasSubstr("<testsuite name=\"devplan simulate\" tests=\"4\" failures=\"1\""))
      << xml;
  EXPECT_THAT(xml, HasSubstr("name=\"load cpu_forward\" time="));
  EXPECT_THAT(xml, HasSubstr("name=\"load device_forward\" time="));
  EXPECT_THAT(xml, HasSubstr("<failure message=\"misuse: double free of #1 cuda:0 48 B owner "
                             "device_forward/buffer 1\">"))
      << xml;
}

TEST(SimulateCommandTest, ADirectoryIsAnErrorNamingItNotACrash) {
  for (const char* runtime : {"devplan", "executorch"}) {
    testing::CommandResult r = testing::run(&simulate_command, {"/tmp", "--runtime", runtime});
    EXPECT_EQ(r.exit_code, 1) << runtime;
    if (std::string(runtime) == "executorch" && !executorch_available()) continue;
    EXPECT_EQ(r.err, "devplan simulate: AccessFailed: /tmp: cannot read '/tmp': Is a directory\n")
        << runtime;
  }
  testing::CommandResult run_dir = testing::run(&run_command, {"/tmp"});
  EXPECT_EQ(run_dir.exit_code, 1);
  EXPECT_EQ(run_dir.err, "devplan run: AccessFailed: cannot read '/tmp': Is a directory\n");
}

TEST(SimulateCommandTest, BackingIsUnbackedByDefaultAndHostOnRequest) {
  testing::CommandResult host =
      run(&simulate_command, {fixture_program("device_add_cuda0"), "--backing", "host"});
  EXPECT_EQ(host.exit_code, 0) << host.err;
  EXPECT_THAT(host.out,
              HasSubstr("runtime: devplan\ndevice memory: host\nmethod forward: loaded\n"));
  testing::CommandResult bad =
      run(&simulate_command, {fixture_program("device_add_cuda0"), "--backing", "ram"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_THAT(bad.err, HasSubstr("--backing expects unbacked or host, got 'ram'"));
  testing::CommandResult cuda = run(&simulate_command, {fixture_program("device_add_cuda0"),
                                                        "--backing", "host", "--device", "cuda"});
  EXPECT_EQ(cuda.exit_code, 2);
  EXPECT_THAT(cuda.err, HasSubstr("--backing applies to the simulated devices, not --device cuda"));
}

TEST(SimulateCommandTest, CeilingsAreOptionsThatFailTheLoadCleanly) {
  testing::CommandResult device = run(
      &simulate_command, {fixture_program("device_add_cuda0"), "--max-device-allocation", "47"});
  EXPECT_EQ(device.exit_code, 1) << device.out;
  EXPECT_THAT(device.out, HasSubstr("  #1 cuda:0 48 B owner forward/buffer 1: "
                                    "TrackingDeviceAllocator::allocate: 48 bytes on cuda:0 exceed "
                                    "the largest simulated allocation (47 bytes)\n"));
  EXPECT_THAT(device.out, HasSubstr("leaks: 0\n"));
  testing::CommandResult exact = run(
      &simulate_command, {fixture_program("device_add_cuda0"), "--max-device-allocation", "48B"});
  EXPECT_EQ(exact.exit_code, 0) << exact.out;

  testing::CommandResult host =
      run(&simulate_command, {fixture_program("device_add_cuda0"), "--max-host-buffer", "31"});
  EXPECT_EQ(host.exit_code, 1) << host.out;
  EXPECT_THAT(host.out, HasSubstr("method forward: MemoryAllocationFailed: method 'forward': "
                                  "buffer 0 (32 bytes on cpu:0): host buffers would exceed the "
                                  "limit of 31 bytes\n"));
  EXPECT_EQ(run(&simulate_command, {fixture_program("device_add_cuda0"), "--max-host-buffer", "32"})
                .exit_code,
            0);

  testing::CommandResult zero =
      run(&simulate_command, {fixture_program("device_add_cuda0"), "--max-device-allocation", "0"});
  EXPECT_EQ(zero.exit_code, 2);
  EXPECT_THAT(zero.err, HasSubstr("--max-device-allocation: a ceiling of 0 bytes admits nothing"));
}

TEST(SimulateCommandTest, UnbackedDefaultsAllowATebibyteAndHostBackedFourGibibytes) {
  MemoryCeilings ceilings;
  EXPECT_EQ(ceilings.device_allocation_limit(DeviceBacking::Unbacked), uint64_t{1} << 40);
  EXPECT_EQ(ceilings.device_allocation_limit(DeviceBacking::Host), uint64_t{4} << 30);
  EXPECT_EQ(ceilings.max_host_buffer_bytes, uint64_t{4} << 30);
  ceilings.max_device_allocation_bytes = 100;
  EXPECT_EQ(ceilings.device_allocation_limit(DeviceBacking::Unbacked), 100u);
  EXPECT_EQ(ceilings.device_allocation_limit(DeviceBacking::Host), 100u);
}

TEST(RunCommandTest, CeilingsAreOptionsToo) {
  testing::CommandResult device =
      run(&run_command, {fixture_program("device_add_cuda0"), "--max-device-allocation", "47"});
  EXPECT_EQ(device.exit_code, 1) << device.out;
  EXPECT_THAT(device.err, HasSubstr("exceed the largest simulated allocation (47 bytes)"));
  testing::CommandResult host =
      run(&run_command, {fixture_program("device_add_cuda0"), "--max-host-buffer", "31"});
  EXPECT_EQ(host.exit_code, 1) << host.out;
  EXPECT_THAT(host.err, HasSubstr("host buffers would exceed the limit of 31 bytes"));
  EXPECT_EQ(run(&run_command, {fixture_program("device_add_cuda0"), "--max-host-buffer", "32",
                               "--max-device-allocation", "48"})
                .exit_code,
            0);
}

TEST(SimulateCommandTest, TheModelScaleFixtureLoadsOnUnbackedDevices) {
  testing::CommandResult r = run(&simulate_command, {fixture_program("model_scale_64gib")});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("device memory: unbacked\nmethod forward: loaded\n"
                               "  buffer 0: 10485760 B (10.0 MiB) on cpu:0, allocated\n"
                               "  buffer 1: 17179869184 B (16.0 GiB) on cuda:0, allocated\n"));
  EXPECT_THAT(r.out, HasSubstr("device allocations: 4\n"));
  EXPECT_THAT(r.out, HasSubstr("  #4 cuda:3 17179869184 B (16.0 GiB) align 16 owner forward/buffer "
                               "4  freed\n"));
  EXPECT_THAT(r.out, HasSubstr("leaks: 0\nmisuse: 0\n"));
}

}  // namespace
}  // namespace devplan::harness
