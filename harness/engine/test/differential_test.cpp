// The differential check (label `executorch`): both engines on the real exporter's programs and
// ours, known divergences counted by id, an unexplained one reported, and `fuzz --differential`.
#include <algorithm>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fixtures/generator/fixture_programs.h>
#include <harness/campaign/differential_check.h>
#include <harness/engine/engine.h>
#include <harness/json/json.h>
#include <harness/test/commands_test_support.h>

namespace devplan::harness {
namespace {

using ::testing::HasSubstr;

using Known = std::map<std::string, uint64_t>;

// The member `key` of `object` when it is a non-negative integer; nullopt otherwise.
std::optional<uint64_t> uint_member(const Json& object, const char* key) {
  const auto it = object.find(key);
  if (it == object.end() || !it->is_number_unsigned()) return std::nullopt;
  return it->get<uint64_t>();
}

std::vector<uint8_t> bytes_of(const std::string& relative) {
  std::ifstream in(std::string(DEVPLAN_SOURCE_DIR) + "/" + relative, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

class Differential : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!executorch_available()) GTEST_SKIP() << executorch_unavailable_reason();
  }
};

// Every real-exporter program through both engines: no unexplained divergence, and exactly the
// known ones docs/executorch-divergences.md lists for it.
TEST_F(Differential, TheRealExportersProgramsDifferOnlyAsDocumented) {
  const std::vector<std::pair<std::string, Known>> corpus = {
      {"upstream-1.5.1/device_add.pte", {{"missing-backend", 1}}},
      {"upstream-1.5.1/device_mixed.pte", {{"missing-backend", 1}}},
      {"upstream-1.5.1/device_skip_io.pte", {{"missing-backend", 1}}},
      {"upstream-1.5.1/device_legacy_no_device_planning.pte", {{"missing-backend", 1}}},
      {"upstream-1.5.1/mlp.pte", {{"missing-kernel", 1}}},
      {"upstream-1.5.1/residual.pte", {{"missing-kernel", 1}}},
      {"upstream-1.5.1/transformer.pte", {{"missing-kernel", 1}}},
      {"upstream-1.5.1/mutable_buffer.pte", {{"missing-kernel", 1}}},
      {"exporter/devplan_one_delegate.pte", {{"device-alignment", 1}}},
      {"exporter/devplan_broadcast.pte", {{"device-alignment", 1}}},
      {"exporter/devplan_two_delegates.pte", {{"device-alignment", 1}}},
      {"exporter/devplan_two_devices.pte", {{"device-alignment", 1}}},
      {"exporter/devplan_cpu_around_device.pte", {{"device-alignment", 1}, {"missing-kernel", 1}}},
      {"exporter/devplan_two_methods.pte", {{"device-alignment", 1}, {"missing-kernel", 1}}},
      {"exporter/devplan_transformer.pte", {{"missing-kernel", 1}}},
      // Both load it as host memory; runtime_ext runs it, ExecuTorch refuses to set its
      // device-tagged inputs (the same refusal as for inputs planned on a device).
      {"exporter/devplan_legacy.pte", {{"device-planned-input", 1}}},
      // The caller's device inputs and outputs: allocated by the harness in both engines.
      {"exporter/devplan_skip_io.pte", {}},
      {"exporter/devplan_skip_io_chain.pte", {{"device-alignment", 1}}},
  };
  for (const auto& [file, known] : corpus) {
    SCOPED_TRACE(file);
    const std::vector<uint8_t> bytes = bytes_of("fixtures/executorch/" + file);
    ASSERT_FALSE(bytes.empty());
    const DifferentialResult r = compare_engines(bytes);
    EXPECT_FALSE(r.divergence.has_value()) << r.divergence->message;
    EXPECT_EQ(r.known, known);
  }
}

TEST_F(Differential, OurGeneratedFixturesDifferOnlyInAlignmentAndEmptyBuffers) {
  for (const FixtureProgram& f : all_fixture_programs()) {
    SCOPED_TRACE(f.name);
    const DifferentialResult r = compare_engines(f.bytes());
    EXPECT_FALSE(r.divergence.has_value()) << r.divergence->message;
    Known expected;
    if (std::string(f.name) != "cpu_add" && std::string(f.name) != "no_buffers") {
      expected["device-alignment"] = 1;
    }
    if (std::string(f.name) == "zero_size_device_buffer") expected["zero-size-device-buffer"] = 1;
    EXPECT_EQ(r.known, expected);
  }
}

TEST_F(Differential, AnUndocumentedDifferenceIsADivergenceNamingBothSides) {
  // An unbounded dynamic tensor: ExecuTorch refuses the method, runtime_ext loads it (a looser
  // row of docs/executorch-parser-comparison.md, listed in no divergence id).
  ProgramBuilder builder = device_add_cuda0_program_builder();
  TensorSpec unbounded = TensorSpec::of(ScalarType::Float, {2, 2});
  unbounded.dynamism = TensorShapeDynamism::DynamicUnbound;
  builder.method(0).add_runtime_tensor(unbounded);
  const DifferentialResult r = compare_engines(builder.build());
  ASSERT_TRUE(r.divergence.has_value());
  EXPECT_EQ(r.divergence->check, "differential");
  EXPECT_EQ(r.divergence->message,
            "load_method(forward): devplan ok; executorch NotSupported: ExecuTorch: "
            "load_method('forward') failed: Fully dynamic tensor shapes not yet supported: "
            "T175194371; Failed parsing tensor at index 6: 0x10");
}

TEST_F(Differential, FuzzDifferentialReportsKnownDivergencesInJson) {
  testing::CommandResult r =
      testing::run(&fuzz_command, {"--differential", "--cases", "150", "--seed", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  Result<Json> doc = parse_json(r.out);
  ASSERT_TRUE(doc.ok()) << doc.error().to_string() << r.out;
  ASSERT_TRUE(doc->is_object()) << r.out;
  EXPECT_EQ(uint_member(*doc, "cases"), std::optional<uint64_t>(150));
  EXPECT_EQ(doc->value("runtime", Json()), Json("devplan"));
  EXPECT_EQ(doc->value("differential", Json()), Json(true));
  EXPECT_EQ(uint_member(*doc, "divergences"), std::optional<uint64_t>(0));
  const auto known = doc->find("known_divergences");
  ASSERT_NE(known, doc->end());
  ASSERT_TRUE(known->is_object());
  const std::vector<std::string> ids = {"device-alignment", "zero-size-device-buffer",
                                        "device-planned-input"};
  for (auto it = known->begin(); it != known->end(); ++it) {
    EXPECT_NE(std::find(ids.begin(), ids.end(), it.key()), ids.end()) << it.key();
    const std::optional<uint64_t> count = uint_member(*known, it.key().c_str());
    ASSERT_TRUE(count.has_value()) << it.key() << ": " << write_json(it.value());
    EXPECT_GT(*count, 0u) << it.key();
    EXPECT_LE(*count, 150u) << it.key();
  }
  EXPECT_GT(uint_member(*known, "device-alignment").value_or(0), 100u);
}

TEST_F(Differential, RuntimeExecutorchMakesFuzzDifferentialAndReplayable) {
  testing::CommandResult r =
      testing::run(&fuzz_command, {"--runtime", "executorch", "--cases", "20", "--seed", "4"});
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_THAT(r.out, HasSubstr("fuzz: 20 cases in ")) << r.out;
  EXPECT_THAT(
      r.out,
      HasSubstr("differential: devplan and executorch compared on every case; known divergences: "))
      << r.out;
}

TEST_F(Differential, ReportUnderExecutorchNamesTheRuntimeAndRunsDifferentialFuzz) {
  testing::CommandResult r =
      testing::run(&report_command, {"--runtime", "executorch", "--fuzz-cases", "20", "--out",
                                     "/tmp", testing::fixture_program("device_add_cuda0")});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(r.out.rfind("runtime: executorch\n", 0), 0u) << r.out;
  EXPECT_THAT(r.out, HasSubstr("device_add_cuda0                   1  cpu:0=1 cuda:0=1             "
                               "   1     0      0        0  1/1  clean\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("fuzz: 20 cases in "));
  EXPECT_THAT(r.out, HasSubstr(", 0 failures (seed 1), differential against ExecuTorch\n"))
      << r.out;
  EXPECT_THAT(r.out, HasSubstr("result: ok\n")) << r.out;
}

}  // namespace
}  // namespace devplan::harness
