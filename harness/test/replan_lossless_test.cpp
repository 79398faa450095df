// `devplan replan` changes a real program only where its plan changed. For every committed real
// program (ExecuTorch's own files and the programs of ExecuTorch 1.5.1's exporter):
// - the original and the re-planned flatbuffer unpack (FlatBuffers' object API) to ProgramT trees
//   that are equal, field by field, once the planned tensors' offsets and the buffer sizes of the
//   re-planned one are put back to the original's;
// - the segment bytes are equal; a rewrite in place keeps the file's size and headers; a program
//   with nothing to re-plan is written back byte for byte;
// - both engines give the same outputs, bit for bit (shortest round-trip text), for both files.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <memory>

#include <harness/engine/engine.h>
#include <harness/services/program_summary.h>
#include <harness/services/replan.h>
#include <runtime_ext/program/extended_header.h>
#include <runtime_ext/program/file_data_loader.h>
#include <runtime_ext/schema/program_generated.h>

#include "commands_test_support.h"

namespace devplan::harness {
namespace {

namespace fb = devplan_flatbuffer;
using testing::run;

std::vector<std::string> committed_real_programs() {
  const std::string root = std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch";
  std::vector<std::string> files;
  for (const char* dir : {"", "/upstream-1.5.1", "/exporter"}) {
    for (const auto& entry : std::filesystem::directory_iterator(root + dir)) {
      if (entry.path().extension() == ".pte") files.push_back(entry.path().string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

// "upstream_1_5_1_transformer" for .../upstream-1.5.1/transformer.pte.
std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  const std::filesystem::path p(info.param);
  std::string name = p.parent_path().filename().string() + "_" + p.stem().string();
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

// The segment bytes of a program file (empty without segments).
std::vector<uint8_t> segment_bytes(const std::vector<uint8_t>& file) {
  Result<std::optional<ExtendedHeader>> h =
      ExtendedHeader::parse(file.data(), file.size(), file.size());
  if (!h.ok() || !*h || (*h)->segment_base_offset == 0) return {};
  const uint64_t base = (*h)->segment_base_offset;
  const uint64_t size = (*h)->segment_data_size != 0 ? (*h)->segment_data_size : file.size() - base;
  return std::vector<uint8_t>(file.begin() + static_cast<std::ptrdiff_t>(base),
                              file.begin() + static_cast<std::ptrdiff_t>(base + size));
}

class ReplanLosslessTest : public ::testing::TestWithParam<std::string> {};

TEST_P(ReplanLosslessTest, OnlyOffsetsAndBufferSizesChange) {
  const std::string& file = GetParam();
  Result<std::vector<uint8_t>> original = read_file(file);
  ASSERT_TRUE(original.ok()) << original.error();
  Result<ReplanResult> r = replan_program(*original, PlannerAlgorithm::Best);
  ASSERT_TRUE(r.ok()) << r.error();

  std::unique_ptr<fb::ProgramT> before(fb::GetProgram(original->data())->UnPack());
  std::unique_ptr<fb::ProgramT> after(fb::GetProgram(r->bytes.data())->UnPack());
  ASSERT_EQ(after->execution_plan.size(), before->execution_plan.size());
  ASSERT_EQ(r->methods.size(), before->execution_plan.size());
  size_t moved = 0;
  for (size_t m = 0; m < before->execution_plan.size(); ++m) {
    fb::ExecutionPlanT& x = *before->execution_plan[m];
    fb::ExecutionPlanT& y = *after->execution_plan[m];
    ASSERT_EQ(y.values.size(), x.values.size()) << x.name;
    ASSERT_EQ(y.non_const_buffer_sizes.size(), x.non_const_buffer_sizes.size()) << x.name;
    // The sizes written are the ones replan reports.
    for (const ReplanBuffer& b : r->methods[m].buffers) {
      EXPECT_EQ(static_cast<uint64_t>(y.non_const_buffer_sizes[b.index + 1]), b.new_size)
          << x.name << " buffer " << b.index;
    }
    y.non_const_buffer_sizes = x.non_const_buffer_sizes;
    for (size_t v = 0; v < x.values.size(); ++v) {
      const fb::TensorT* tx = x.values[v]->val.AsTensor();
      fb::TensorT* ty = y.values[v]->val.AsTensor();
      if (tx == nullptr || ty == nullptr || !tx->allocation_info || !ty->allocation_info) continue;
      fb::AllocationDetailsT& a = *ty->allocation_info;
      moved += a.memory_offset_low != tx->allocation_info->memory_offset_low ||
               a.memory_offset_high != tx->allocation_info->memory_offset_high;
      a.memory_offset_low = tx->allocation_info->memory_offset_low;
      a.memory_offset_high = tx->allocation_info->memory_offset_high;
    }
    EXPECT_TRUE(x == y) << "method " << x.name << " differs beyond offsets and buffer sizes";
  }
  EXPECT_TRUE(*before == *after) << "the program differs beyond offsets and buffer sizes";
  EXPECT_EQ(segment_bytes(r->bytes), segment_bytes(*original));
  bool shrank = false;
  for (const ReplanMethod& m : r->methods) {
    for (const ReplanBuffer& b : m.buffers) shrank |= b.new_size != b.old_size;
  }
  if (!shrank) {
    EXPECT_EQ(r->bytes, *original) << "nothing to re-plan, yet the file changed";
  } else {
    EXPECT_GT(moved, 0u);
  }
  if (r->appended_tables == 0) {
    ASSERT_EQ(r->bytes.size(), original->size());
    EXPECT_TRUE(std::equal(original->begin(), original->begin() + 8, r->bytes.begin()));
  }

  // Both engines, both files: the same exit code and the same output text for every method.
  const std::string replanned = testing::temp_file(r->bytes);
  Result<Program> program = Program::load_from_bytes(Span<const uint8_t>(*original));
  ASSERT_TRUE(program.ok());
  Result<std::vector<MethodSummary>> summary = summarize_program(*program);
  ASSERT_TRUE(summary.ok());
  std::vector<std::string> runtimes = {"devplan"};
  if (executorch_available()) runtimes.push_back("executorch");
  for (const std::string& runtime : runtimes) {
    for (const MethodSummary& method : *summary) {
      testing::CommandResult a =
          run(&run_command, {file, "--method", method.name, "--runtime", runtime});
      testing::CommandResult b =
          run(&run_command, {replanned, "--method", method.name, "--runtime", runtime});
      EXPECT_EQ(b.exit_code, a.exit_code) << runtime << " " << method.name << ": " << b.err;
      EXPECT_EQ(b.out, a.out) << runtime << " " << method.name;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(CommittedRealPrograms, ReplanLosslessTest,
                         ::testing::ValuesIn(committed_real_programs()), test_name);

}  // namespace
}  // namespace devplan::harness
