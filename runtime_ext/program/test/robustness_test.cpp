// Untrusted bytes: every truncation and a set of single-byte corruptions of every fixture
// program and of both real ExecuTorch files give an error or a valid program, never a crash.
// (Run under the sanitizers for the full guarantee; about 50,000 loads, well under a second in a
// release build.)
#include <fixtures/generator/fixture_programs.h>
#include <gtest/gtest.h>
#include <runtime_ext/analysis/method_plan_compare.h>
#include <runtime_ext/program/program.h>

#include "program_test_util.h"

namespace devplan {
namespace {

struct Sample {
  std::string name;
  std::vector<uint8_t> bytes;
};

std::vector<Sample> samples() {
  std::vector<Sample> out;
  for (const FixtureProgram& f : all_fixture_programs()) out.push_back({f.name, f.bytes()});
  for (const char* name : {"add.pte", "linear_no_constant_segment.pte"}) {
    out.push_back({name, read_file(testing_util::executorch_fixture_path(name)).value()});
  }
  return out;
}

// Loads `bytes`; when it loads, reads every byte every valid plan points at and asks every
// MethodMeta question, so a bad span would be caught (by the sanitizers, or a crash).
// Returns true when the program loaded.
bool load_and_touch(const std::vector<uint8_t>& bytes, uint64_t* checksum) {
  Result<Program> program = Program::load_from_bytes(bytes);
  if (!program.ok()) {
    EXPECT_FALSE(program.error().message().empty());
    return false;
  }
  for (size_t m = 0; m < program->num_methods(); ++m) {
    Result<const MethodPlan*> plan = program->method_plan_at(m);
    if (!plan.ok()) {
      EXPECT_EQ(plan.code(), ErrorCode::InvalidProgram);
      continue;
    }
    const MethodPlan& p = **plan;
    for (const ValueInfo& v : p.values) {
      for (uint8_t b : v.tensor.data) *checksum += b;
    }
    for (const DelegateInfo& d : p.delegates) {
      for (uint8_t b : d.processed) *checksum += b;
      for (const CompileSpecInfo& s : d.compile_specs) {
        for (uint8_t b : s.value) *checksum += b;
      }
    }
    Result<MethodMeta> meta = program->method_meta(p.name);
    EXPECT_TRUE(meta.ok());
    if (!meta.ok()) continue;
    for (size_t i = 0; i < meta->num_memory_planned_buffers(); ++i) {
      *checksum += static_cast<uint64_t>(*meta->memory_planned_buffer_size(i));
      *checksum += static_cast<uint64_t>(meta->memory_planned_buffer_device(i)->index);
    }
    for (size_t i = 0; i < meta->num_inputs(); ++i) {
      Result<TensorMeta> t = meta->input_tensor_meta(i);
      if (t.ok()) *checksum += t->nbytes;
    }
  }
  return true;
}

TEST(RobustnessTest, EveryTruncationIsAnErrorOrAProgram) {
  uint64_t checksum = 0;
  for (const Sample& s : samples()) {
    ASSERT_FALSE(s.bytes.empty()) << s.name;
    for (size_t len = 0; len < s.bytes.size(); ++len) {
      const std::vector<uint8_t> prefix(s.bytes.begin(), s.bytes.begin() + len);
      if (load_and_touch(prefix, &checksum)) {
        // Only the flatbuffer's trailing alignment padding, which no table uses, may be cut
        // off; what loads then is the same program.
        EXPECT_GE(len + 16, s.bytes.size()) << s.name << " loads when cut to " << len;
        Result<Program> whole = Program::load_from_bytes(s.bytes);
        Result<Program> cut = Program::load_from_bytes(prefix);
        ASSERT_TRUE(whole.ok() && cut.ok());
        for (size_t m = 0; m < whole->num_methods(); ++m) {
          EXPECT_EQ(method_plan_difference(**whole->method_plan_at(m), **cut->method_plan_at(m)),
                    "")
              << s.name << " cut to " << len;
        }
      }
    }
    EXPECT_TRUE(load_and_touch(s.bytes, &checksum)) << s.name;
  }
}

// The oracle here is the sanitizers (the asan preset runs this under ASan and UBSan): a
// corrupted byte may give an error or a different valid program, so the test itself asserts
// only that every load returns and that the corpus is large; an out-of-bounds read, overflow or
// leak on any of the ~50,000 loads is the failure.
TEST(RobustnessTest, EverySingleByteCorruptionLoadsCleanUnderTheSanitizers) {
  uint64_t checksum = 0;
  size_t loads = 0;
  for (const Sample& s : samples()) {
    std::vector<uint8_t> bytes = s.bytes;
    for (size_t pos = 0; pos < bytes.size(); ++pos) {
      const uint8_t original = bytes[pos];
      for (uint8_t value :
           {uint8_t{0x00}, uint8_t{0xFF}, uint8_t{0x80}, static_cast<uint8_t>(original ^ 0x01),
            static_cast<uint8_t>(original + 16)}) {
        if (value == original) continue;
        bytes[pos] = value;
        load_and_touch(bytes, &checksum);
        ++loads;
      }
      bytes[pos] = original;
    }
  }
  EXPECT_GT(loads, 40000u);
}

}  // namespace
}  // namespace devplan
