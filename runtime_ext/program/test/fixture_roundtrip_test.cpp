// Every fixture program (fixtures/generator) is written and read back equal to what was built,
// and flatc reads a written fixture with runtime_ext/schema/program.fbs.
#include <fixtures/generator/fixture_programs.h>
#include <gtest/gtest.h>
#include <runtime_ext/analysis/method_plan_compare.h>
#include <runtime_ext/program/program.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

namespace devplan {
namespace {

TEST(FixtureRoundTripTest, EveryFixtureReadsBackAsBuilt) {
  ASSERT_EQ(all_fixture_programs().size(), 7u);
  for (const FixtureProgram& fixture : all_fixture_programs()) {
    SCOPED_TRACE(fixture.name);
    const ProgramBuilder builder = fixture.builder();
    const std::vector<uint8_t> bytes = builder.build();
    EXPECT_EQ(bytes, fixture.bytes()) << "building is deterministic";
    Result<Program> program = Program::load_from_bytes(bytes);
    ASSERT_TRUE(program.ok()) << program.error();
    ASSERT_EQ(program->num_methods(), builder.num_methods());
    for (size_t i = 0; i < builder.num_methods(); ++i) {
      Result<const MethodPlan*> plan = program->method_plan_at(i);
      ASSERT_TRUE(plan.ok()) << plan.error();
      EXPECT_EQ(method_plan_difference(builder.method(i).plan(), **plan), "");
      // And written again from what was read, it reads back the same once more.
      ProgramBuilder again;
      again.add_method(**plan);
      Result<Program> reread = Program::load_from_bytes(again.build());
      ASSERT_TRUE(reread.ok()) << reread.error();
      EXPECT_EQ(method_plan_difference(**plan, **reread->method_plan_at(0)), "");
    }
  }
}

TEST(FixtureRoundTripTest, FindByNameOrFileName) {
  ASSERT_NE(find_fixture_program("device_add_cuda0"), nullptr);
  EXPECT_EQ(find_fixture_program("device_add_cuda0.pte"), find_fixture_program("device_add_cuda0"));
  EXPECT_STREQ(find_fixture_program("cpu_add")->file_name, "cpu_add.pte");
  EXPECT_EQ(find_fixture_program("nope"), nullptr);
}

std::string without_whitespace(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') out += c;
  }
  return out;
}

TEST(FixtureRoundTripTest, FlatcReadsAWrittenFixture) {
  const std::string flatc = DEVPLAN_FLATC;
  struct stat st;
  if (stat(flatc.c_str(), &st) != 0) GTEST_SKIP() << "flatc not found at " << flatc;
  const std::string dir = ::testing::TempDir() + "devplan_flatc_" + std::to_string(getpid());
  ASSERT_EQ(std::system(("mkdir -p '" + dir + "'").c_str()), 0);
  const std::string pte = dir + "/device_add_cuda0.pte";
  {
    const std::vector<uint8_t> bytes = make_device_add_cuda0_program();
    std::ofstream out(pte, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()),
              static_cast<std::streamsize>(bytes.size()));
  }
  const std::string command = "'" + flatc + "' --json --raw-binary --strict-json -o '" + dir +
                              "' '" + DEVPLAN_SCHEMA_FBS + "' -- '" + pte + "' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  std::ifstream in(dir + "/device_add_cuda0.json");
  ASSERT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  const std::string json = without_whitespace(text.str());
  EXPECT_NE(json.find("\"non_const_buffer_sizes\":[0,32,48]"), std::string::npos) << json;
  EXPECT_NE(json.find("\"non_const_buffer_device\":[{\"buffer_idx\":2,\"device_type\":\"CUDA\"}]"),
            std::string::npos)
      << json;
  EXPECT_NE(json.find("\"name\":\"et_copy::_h2d_copy\",\"overload\":\"out\""), std::string::npos);
  EXPECT_NE(json.find("\"instr_args_type\":\"DelegateCall\",\"instr_args\":{\"args\":[2,3,4]}"),
            std::string::npos);
  EXPECT_NE(json.find("\"id\":\"DeviceAddBackend\""), std::string::npos);
  std::system(("rm -rf '" + dir + "'").c_str());
}

TEST(FixtureRoundTripTest, FlatcReadsTheRealFilesWithOurSchema) {
  const std::string flatc = DEVPLAN_FLATC;
  struct stat st;
  if (stat(flatc.c_str(), &st) != 0) GTEST_SKIP() << "flatc not found at " << flatc;
  const std::string dir = ::testing::TempDir() + "devplan_flatc_real_" + std::to_string(getpid());
  const std::string source = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/";
  const std::string command = "'" + flatc + "' --json --raw-binary --strict-json -o '" + dir +
                              "' '" + DEVPLAN_SCHEMA_FBS + "' -- '" + source + "add.pte' '" +
                              source + "linear_no_constant_segment.pte' 2>&1";
  ASSERT_EQ(std::system(command.c_str()), 0) << command;
  auto read_json = [&](const std::string& name) {
    std::ifstream in(dir + "/" + name);
    std::stringstream text;
    text << in.rdbuf();
    return without_whitespace(text.str());
  };
  const std::string add = read_json("add.json");
  EXPECT_NE(add.find("\"non_const_buffer_sizes\":[0,48]"), std::string::npos) << add;
  EXPECT_NE(add.find("\"instr_args\":{\"args\":[0,1,3,2,2]}"), std::string::npos) << add;
  EXPECT_NE(add.find("\"name\":\"aten::add\",\"overload\":\"out\""), std::string::npos);
  const std::string linear = read_json("linear_no_constant_segment.json");
  // Constant buffer 1 holds 3.0f four times (0x40400000, little-endian).
  EXPECT_NE(linear.find("{\"storage\":[0,0,64,64,0,0,64,64,0,0,64,64,0,0,64,64]}"),
            std::string::npos)
      << linear;
  EXPECT_NE(linear.find("\"non_const_buffer_sizes\":[0,32]"), std::string::npos);
  std::system(("rm -rf '" + dir + "'").c_str());
}

}  // namespace
}  // namespace devplan
