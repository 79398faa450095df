// The engine seam without ExecuTorch: --runtime parsing, the runtime_ext session, and the child
// process that contains aborts.
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <utility>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/campaign/crash_replay.h>
#include <harness/engine/child_process.h>
#include <harness/engine/engine.h>
#include <harness/engine/raw_program.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

TEST(RuntimeKind, ParsesBothNamesAndRejectsOthers) {
  EXPECT_EQ(*parse_runtime_kind("devplan"), RuntimeKind::Devplan);
  EXPECT_EQ(*parse_runtime_kind("executorch"), RuntimeKind::Executorch);
  for (const char* bad : {"", "ExecuTorch", "et", "devplan ", "executorch1"}) {
    Result<RuntimeKind> r = parse_runtime_kind(bad);
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_EQ(r.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(r.error().message(),
              std::string("--runtime expects devplan or executorch, got '") + bad + "'");
  }
  EXPECT_STREQ(runtime_name(RuntimeKind::Devplan), "devplan");
  EXPECT_STREQ(runtime_name(RuntimeKind::Executorch), "executorch");
}

TEST(ChildProcess, ReturnsTheBodysTextAndExitCode) {
  ChildOutcome c = run_in_child([](std::string* out) {
    *out = "hello";
    std::cerr << "to stderr\n";
    std::cerr.flush();
    return 7;
  });
  EXPECT_TRUE(c.started);
  EXPECT_FALSE(c.signaled());
  EXPECT_EQ(c.exit_code, 7);
  EXPECT_EQ(c.out, "hello");
  EXPECT_EQ(c.err, "to stderr\n");
  EXPECT_EQ(c.describe(), "exit code 7: to stderr");
}

TEST(ChildProcess, AnAbortIsReportedWithItsSignalAndLastLine) {
  ChildOutcome c = run_in_child([](std::string*) {
    std::cerr << "first\nexecutorch F: check failed\n";
    std::cerr.flush();
    std::abort();
    return 0;
  });
  EXPECT_TRUE(c.started);
  EXPECT_TRUE(c.signaled());
  EXPECT_EQ(c.signal, SIGABRT);
  EXPECT_EQ(c.out, "");
  EXPECT_EQ(c.describe(), "signal 6 (Aborted): executorch F: check failed");
}

// The last line a child wrote is its last line with text: output that ends in blank lines
// (loggers that end with "\n\n") still names it; output of blank lines only adds nothing.
TEST(ChildProcess, DescribeSkipsTrailingBlankLines) {
  ChildOutcome c;
  c.started = true;
  c.exit_code = 3;
  for (const auto& [err, described] : std::vector<std::pair<std::string, std::string>>{
           {"", "exit code 3"},
           {"\n", "exit code 3"},
           {"\n\n\n", "exit code 3"},
           {"cause", "exit code 3: cause"},
           {"cause\n", "exit code 3: cause"},
           {"first\ncause\n\n\n", "exit code 3: cause"},
           {"first\n\ncause", "exit code 3: cause"},
           {"\ncause\n\n", "exit code 3: cause"}}) {
    c.err = err;
    EXPECT_EQ(c.describe(), described) << "err: '" << err << "'";
  }
  c.started = false;
  EXPECT_EQ(c.describe(), "the child process could not be started");
}

TEST(ChildProcess, LargeOutputsOnBothStreamsDoNotDeadlock) {
  ChildOutcome c = run_in_child([](std::string* out) {
    const std::string block(1 << 20, 'e');
    std::cerr << block;
    std::cerr.flush();
    *out = std::string(3 << 20, 'o');
    return 0;
  });
  EXPECT_EQ(c.exit_code, 0);
  EXPECT_EQ(c.out.size(), size_t{3} << 20);
  EXPECT_EQ(c.err.size(), size_t{1} << 20);
}

TEST(DelegateIds, ListsEveryDelegateOfEveryMethodInOrder) {
  EXPECT_EQ(delegate_ids(make_two_methods_program()),
            std::vector<std::string>{kDeviceAddBackendId});
  EXPECT_EQ(delegate_ids(make_multi_device_program()),
            (std::vector<std::string>{kDeviceAddBackendId, kDeviceAddBackendId}));
  EXPECT_TRUE(delegate_ids(make_cpu_add_program()).empty());
  std::vector<uint8_t> truncated = make_device_add_cuda0_program();
  truncated.resize(truncated.size() / 2);
  EXPECT_TRUE(delegate_ids(truncated).empty());
  EXPECT_TRUE(delegate_ids({}).empty());
}

TEST(DevplanSession, LoadsUnloadsAndFreesThroughTheEnvironment) {
  std::unique_ptr<DeviceEnvironment> env =
      std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
  {
    Result<std::unique_ptr<EngineSession>> s =
        open_session(RuntimeKind::Devplan, make_device_add_cuda0_program(), *env, SessionOptions());
    ASSERT_TRUE(s.ok()) << s.error().to_string();
    EXPECT_EQ((*s)->runtime(), RuntimeKind::Devplan);
    EXPECT_EQ((*s)->method_names(), std::vector<std::string>{"forward"});
    ASSERT_TRUE((*s)->load_method("forward").ok());
    EXPECT_TRUE((*s)->is_method_loaded("forward"));
    const std::vector<BufferOutcome> buffers = (*s)->buffers("forward");
    ASSERT_EQ(buffers.size(), 2u);
    EXPECT_EQ(buffers[0].size, 32u);
    EXPECT_EQ(buffers[0].device, Device::cpu());
    EXPECT_EQ(buffers[1].size, 48u);
    EXPECT_EQ(buffers[1].device, Device::cuda(0));
    EXPECT_TRUE(buffers[1].allocated);
    bool usage_error = true;
    Result<std::vector<OutputValues>> out = (*s)->execute("forward", {"1", "2"}, &usage_error);
    ASSERT_TRUE(out.ok()) << out.error().to_string();
    EXPECT_FALSE(usage_error);
    ASSERT_EQ(out->size(), 1u);
    Result<std::vector<std::string>> values = output_texts((*out)[0]);
    ASSERT_TRUE(values.ok()) << values.error();
    EXPECT_EQ(*values, (std::vector<std::string>{"3", "3", "3", "3"}));
    EXPECT_EQ(env->ledger().size(), 1u);
    EXPECT_TRUE(env->ledger()[0].live);
  }
  ASSERT_EQ(env->ledger().size(), 1u);
  EXPECT_FALSE(env->ledger()[0].live);
  EXPECT_TRUE(env->leak_lines().empty());
}

TEST(DevplanSession, AnInvalidProgramIsAnErrorFromOpen) {
  std::unique_ptr<DeviceEnvironment> env =
      std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
  Result<std::unique_ptr<EngineSession>> s =
      open_session(RuntimeKind::Devplan, std::vector<uint8_t>{1, 2, 3}, *env, SessionOptions());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::InvalidProgram);
}

TEST(ExecutorchAvailability, SaysWhyWhenMissing) {
  if (executorch_available()) {
    EXPECT_EQ(executorch_unavailable_reason(), "");
  } else {
    EXPECT_THAT(executorch_unavailable_reason(), HasSubstr("scripts/bootstrap.sh"));
    std::unique_ptr<DeviceEnvironment> env =
        std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
    Result<std::unique_ptr<EngineSession>> s =
        open_session(RuntimeKind::Executorch, make_cpu_add_program(), *env, SessionOptions());
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.code(), ErrorCode::NotSupported);
  }
}

TEST(ScopedCrashReplay, ACaseThatKillsTheProcessNamesItsReplayCommand) {
  ChildOutcome c = run_in_child([](std::string*) {
    ScopedCrashReplay guard;
    guard.set_case("devplan fuzz --seed 1 --case 6 --differential");
    guard.set_case("devplan fuzz --seed 1 --case 7 --differential");
    std::raise(SIGSEGV);
    return 0;
  });
  EXPECT_EQ(c.signal, SIGSEGV);
  EXPECT_EQ(c.err,
            "\ndevplan fuzz: FINDING: the process died while running a case (a crash or an abort "
            "inside an engine); replay: devplan fuzz --seed 1 --case 7 --differential\n");
}

// The first case of a campaign (the first buffer) is named too; before any case, nothing is
// written.
TEST(ScopedCrashReplay, TheFirstCaseIsNamedAndNoCaseWritesNothing) {
  ChildOutcome first = run_in_child([](std::string*) {
    ScopedCrashReplay guard;
    guard.set_case("devplan fuzz --seed 2 --case 0");
    std::raise(SIGSEGV);
    return 0;
  });
  EXPECT_EQ(first.signal, SIGSEGV);
  EXPECT_EQ(first.err, ScopedCrashReplay::message("devplan fuzz --seed 2 --case 0"));
  ChildOutcome none = run_in_child([](std::string*) {
    ScopedCrashReplay guard;
    std::raise(SIGSEGV);
    return 0;
  });
  EXPECT_EQ(none.signal, SIGSEGV);
  EXPECT_EQ(none.err, "");
}

TEST(ScopedCrashReplay, RestoresTheHandlersBefore) {
  ChildOutcome c = run_in_child([](std::string*) {
    {
      ScopedCrashReplay guard;
      guard.set_case("x");
    }
    std::raise(SIGABRT);
    return 0;
  });
  EXPECT_EQ(c.signal, SIGABRT);
  EXPECT_EQ(c.err, "");
}

}  // namespace
}  // namespace devplan::harness
