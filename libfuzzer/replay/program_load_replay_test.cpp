// Replays the committed program_load corpus and its regression inputs (fixtures/corpus/)
// through the same entry point as the libFuzzer target fuzz_program_load, built with the normal
// compiler, and proves that the entry point's checks catch a real leak and a real double free.
#include <libfuzzer/program_load_entry.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include <fixtures/generator/fixture_programs.h>
#include <libfuzzer/replay/corpus_files.h>
#include <runtime_ext/module/module.h>
#include <runtime_ext/program/program.h>

#include <gtest/gtest.h>

namespace devplan::fuzz {
namespace {

namespace fs = std::filesystem;

ProgramLoadOutcome run(const std::vector<uint8_t>& bytes,
                       const ProgramLoadOptions& options = ProgramLoadOptions()) {
  return run_program_load(Span<const uint8_t>(bytes.data(), bytes.size()), options);
}

TEST(ProgramLoadReplayTest, EveryFixtureProgramRunsToTheEndCleanly) {
  for (const FixtureProgram& fixture : all_fixture_programs()) {
    const std::vector<uint8_t> bytes = fixture.bytes();
    Result<Program> program = Program::load_from_bytes(bytes);
    ASSERT_TRUE(program.ok()) << fixture.name;
    const size_t methods = program->num_methods();
    ProgramLoadOutcome outcome = run(bytes);
    EXPECT_TRUE(outcome.clean()) << fixture.name << ":\n" << outcome.finding;
    EXPECT_TRUE(outcome.program_loaded) << fixture.name;
    EXPECT_EQ(outcome.methods, methods) << fixture.name;
    EXPECT_EQ(outcome.valid_methods, methods) << fixture.name;
    EXPECT_EQ(outcome.loaded_methods, methods) << fixture.name;
    EXPECT_EQ(outcome.executed_methods, methods) << fixture.name;
  }
}

TEST(ProgramLoadReplayTest, DeviceAllocationsFollowTheFixtureLayouts) {
  // One allocation per non-empty device buffer and load; the first method is loaded twice.
  EXPECT_EQ(run(make_cpu_add_program()).device_allocations, 0u);
  EXPECT_EQ(run(make_device_add_cuda0_program()).device_allocations, 2u);  // cuda:0 48 B
  EXPECT_EQ(run(make_multi_device_program()).device_allocations, 4u);      // cuda:0, cuda:1
  EXPECT_EQ(run(make_zero_size_device_buffer_program()).device_allocations, 2u);
  EXPECT_EQ(run(make_no_buffers_program()).device_allocations, 0u);
  // cpu_forward first (loaded twice, no device buffer), then device_forward once.
  EXPECT_EQ(run(make_two_methods_program()).device_allocations, 1u);
}

TEST(ProgramLoadReplayTest, EmptyAndTruncatedInputsAreCleanErrors) {
  const std::vector<uint8_t> full = make_device_add_cuda0_program();
  for (size_t size : {size_t{0}, size_t{3}, size_t{8}, full.size() / 2, full.size() - 1}) {
    std::vector<uint8_t> cut(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(size));
    ProgramLoadOutcome outcome = run(cut);
    EXPECT_TRUE(outcome.clean()) << size << ":\n" << outcome.finding;
    EXPECT_FALSE(outcome.program_loaded) << size;
    EXPECT_EQ(outcome.methods, 0u) << size;
    EXPECT_EQ(outcome.device_allocations, 0u) << size;
  }
}

TEST(ProgramLoadReplayTest, ALeakingUnloadIsAFinding) {
  ProgramLoadOptions options;
  options.unload_bug = UnloadBug::SkipFree;
  ProgramLoadOutcome outcome = run(make_device_add_cuda0_program(), options);
  EXPECT_EQ(outcome.finding,
            "method 'forward': 1 device allocation(s) live after unload_method\n"
            "2 live device allocation(s) and 0 misuse record(s) after ~Module\n"
            "  leak: #1 cuda:0 48 B align 16 owner forward/buffer 1\n"
            "  leak: #2 cuda:0 48 B align 16 owner forward/buffer 1\n");
}

TEST(ProgramLoadReplayTest, ADoubleFreeIsAFinding) {
  ProgramLoadOptions options;
  options.unload_bug = UnloadBug::DoubleFree;
  ProgramLoadOutcome outcome = run(make_device_add_cuda0_program(), options);
  EXPECT_EQ(outcome.finding,
            "0 live device allocation(s) and 2 misuse record(s) after ~Module\n"
            "  misuse: double free of #1 cuda:0 48 B owner forward/buffer 1\n"
            "  misuse: double free of #2 cuda:0 48 B owner forward/buffer 1\n");
}

TEST(ProgramLoadReplayTest, CommittedCorpusReplaysCleanly) {
  const std::vector<fs::path> files = corpus_files(corpus_dir() / "program_load");
  // The seeds include every fixture program and the two real ExecuTorch files.
  EXPECT_GE(files.size(), all_fixture_programs().size() + 2);
  size_t loaded = 0;
  for (const fs::path& file : files) {
    ProgramLoadOutcome outcome = run(read_bytes(file));
    EXPECT_TRUE(outcome.clean()) << file << ":\n" << outcome.finding;
    if (outcome.program_loaded) ++loaded;
  }
  EXPECT_GE(loaded, all_fixture_programs().size() + 2);
}

// Regression inputs whose fix is visible without a sanitizer: the exact error each now gets.
TEST(ProgramLoadReplayTest, MisalignedPlannedTensorIsInvalidProgram) {
  // add.pte with value 1 ("b") planned at offset 15: kernels read floats there (UBSan:
  // misaligned load in aten::add.out). Found by fuzz_program_load.
  const std::vector<uint8_t> bytes = read_bytes(corpus_dir() / "regressions" / "program_load" /
                                                "misaligned_planned_float_tensor.pte");
  ASSERT_EQ(bytes.size(), 728u);
  Module module(bytes);
  Error e = module.load_method("forward");
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(),
            "method 'forward': value 1: float32 tensor planned at offset 15 of buffer 0 is not "
            "aligned to its element size 4");
  EXPECT_FALSE(module.is_method_loaded("forward"));
}

TEST(ProgramLoadReplayTest, RegressionInputsReplayCleanly) {
  const std::vector<fs::path> files = corpus_files(corpus_dir() / "regressions" / "program_load");
  for (const fs::path& file : files) {
    ProgramLoadOutcome outcome = run(read_bytes(file));
    EXPECT_TRUE(outcome.clean()) << file << ":\n" << outcome.finding;
  }
  std::cout << "replayed " << files.size() << " program_load regression input(s)\n";
}

}  // namespace
}  // namespace devplan::fuzz
