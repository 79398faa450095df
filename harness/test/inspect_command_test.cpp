#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

using testing::fixture_program;
using testing::real_program;
using testing::run;

TEST(InspectCommandTest, RealAddProgram) {
  testing::CommandResult r = run(&inspect_command, {real_program("add.pte")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "file: " + real_program("add.pte") + "\n"
            "method forward: 4 values, 1 instructions, 1 planned buffers\n"
            "  buffer 0: 48 B on cpu:0, 3 planned tensors, max end 36\n"
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
  EXPECT_NE(r.out.find("  buffer 0: 32 B on cpu:0, 3 planned tensors, max end 32\n"
                       "  buffer 1: 48 B on cuda:0, 3 planned tensors, max end 48\n"
                       "  operators: et_copy::_h2d_copy.out, et_copy::_d2h_copy.out\n"
                       "  delegates: DeviceAddBackend\n"),
            std::string::npos)
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
  EXPECT_EQ(r.err, "devplan inspect: AccessFailed: /nonexistent.pte: cannot open '/nonexistent.pte'\n");
}

TEST(InspectCommandTest, UsageErrorsExitTwo) {
  EXPECT_EQ(run(&inspect_command, {}).exit_code, 2);
  EXPECT_EQ(run(&inspect_command, {"a.pte", "b.pte"}).exit_code, 2);
  testing::CommandResult r = run(&inspect_command, {"a.pte", "--bogus"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "devplan inspect: unknown option --bogus\nusage: devplan inspect FILE [--json]\n");
}

}  // namespace
}  // namespace devplan::harness

namespace devplan::harness {
namespace {

TEST(InspectCommandJsonTest, RealAddProgramDocument) {
  testing::CommandResult r = testing::run(&inspect_command, {testing::real_program("add.pte"), "--json"});
  ASSERT_EQ(r.exit_code, 0);
  const std::string tensor = R"("type":"Tensor","dtype":"float32","sizes":[1],"nbytes":4,"device":"cpu:0","storage":"planned"})";
  EXPECT_EQ(r.out,
            R"({"file":")" + testing::real_program("add.pte") +
                R"(","methods":[{"name":"forward","buffers":[{"index":0,"size":48,"device":"cpu:0","planned_tensors":3,"max_end":36}],"values":4,"instructions":1,"operators":["aten::add.out"],"delegates":[],"inputs":[{"value":0,)" +
                tensor + R"(,{"value":1,)" + tensor + R"(],"outputs":[{"value":2,)" + tensor +
                "]}]}\n");
}

TEST(InspectCommandJsonTest, ErrorDocument) {
  testing::CommandResult r = testing::run(&inspect_command, {"/nonexistent.pte", "--json"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            R"({"error":{"code":"AccessFailed","message":"/nonexistent.pte: cannot open '/nonexistent.pte'"}})"
            "\n");
}

}  // namespace
}  // namespace devplan::harness
