// Program::load: identification, headers, verification, segments, method bookkeeping.
#include <gtest/gtest.h>
#include <runtime_ext/program/buffer_data_loader.h>
#include <runtime_ext/program/program.h>
#include <runtime_ext/schema/program_generated.h>
#include <runtime_ext/writer/program_builder.h>

#include <cstring>
#include <memory>

#include "program_test_util.h"

namespace devplan {
namespace {

using testing_util::float_bytes;
using testing_util::read_u64_le;

namespace fb = devplan_flatbuffer;

Error load_error(const std::vector<uint8_t>& bytes) {
  Result<Program> program = Program::load_from_bytes(bytes);
  return program.ok() ? Error::success() : program.error();
}

// A small valid program with one constant (so it has a segment and an extended header).
std::vector<uint8_t> program_with_constant() {
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_buffer(16);
  const int32_t c =
      m.add_constant_tensor(TensorSpec::of(ScalarType::Float, {4}), float_bytes({1, 2, 3, 4}));
  const int32_t x = m.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}), 0, 0);
  m.add_kernel_call("aten::mul", "out", {c, x, x, x});
  m.set_inputs({x});
  m.set_outputs({x});
  return builder.build();
}

TEST(ProgramLoadTest, LoadInPlaceReadsTheGivenBytesAndKeepsTheirOwner) {
  auto owned = std::make_shared<std::vector<uint8_t>>(program_with_constant());
  std::weak_ptr<std::vector<uint8_t>> watch = owned;
  const uint8_t* data = owned->data();
  const size_t size = owned->size();
  Result<Program> program = Program::load_in_place(Span<const uint8_t>(data, size), owned);
  ASSERT_TRUE(program.ok()) << program.error();
  owned.reset();
  EXPECT_FALSE(watch.expired());  // the Program keeps its bytes alive
  EXPECT_EQ(program->bytes().data(), data);
  EXPECT_EQ(program->bytes().size(), size);
  ASSERT_EQ(program->segments().size(), 1u);
  EXPECT_GT(program->segments()[0].data(), data);
  EXPECT_LT(program->segments()[0].data(), data + size);
  Program moved = std::move(program).value();
  EXPECT_EQ(moved.bytes().data(), data);
  ASSERT_TRUE(moved.method_meta("forward").ok());
}

TEST(ProgramLoadTest, LoadInPlaceCopiesMisalignedBytesAndChecksAsLoadDoes) {
  const std::vector<uint8_t> bytes = program_with_constant();
  std::vector<uint8_t> shifted(bytes.size() + 16);
  // An address one past a multiple of 16: the tables would be misaligned where they are.
  uint8_t* base = shifted.data() + (16 - reinterpret_cast<uintptr_t>(shifted.data()) % 16) % 16;
  std::memcpy(base + 1, bytes.data(), bytes.size());
  Result<Program> copied = Program::load_in_place(Span<const uint8_t>(base + 1, bytes.size()), {});
  ASSERT_TRUE(copied.ok()) << copied.error();
  EXPECT_NE(copied->bytes().data(), base + 1);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(copied->bytes().data()) % 16, 0u);

  const uint8_t short_file[4] = {1, 2, 3, 4};
  alignas(16) uint8_t aligned[4];
  std::memcpy(aligned, short_file, 4);
  Result<Program> too_short = Program::load_in_place(Span<const uint8_t>(aligned, 4), {});
  EXPECT_EQ(too_short.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(too_short.error().message(),
            "not a program: the file has 4 bytes, fewer than the 8-byte header");
}

TEST(ProgramLoadTest, FilesShorterThanTheHeaderAreNotPrograms) {
  Error e = load_error({});
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "not a program: the file has 0 bytes, fewer than the 8-byte header");
  e = load_error({1});
  EXPECT_EQ(e.message(), "not a program: the file has 1 byte, fewer than the 8-byte header");
  e = load_error({8, 0, 0, 0, 'E', 'T', '1'});
  EXPECT_EQ(e.message(), "not a program: the file has 7 bytes, fewer than the 8-byte header");
}

TEST(ProgramLoadTest, AnEightByteFileWithTheIdentifierReachesVerification) {
  // 8 bytes is the smallest file past the size check; its root offset 0 fails verification.
  const Error e = load_error({0, 0, 0, 0, 'E', 'T', '1', '2'});
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(),
            "the program data (8 bytes) failed flatbuffer verification: truncated or corrupt");
}

TEST(ProgramLoadTest, OtherIdentifiersAreNotPrograms) {
  std::vector<uint8_t> zip = {16, 0, 0, 0, 'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0, 0, 0};
  Error e = load_error(zip);
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "not a program: file identifier is 'PK\\x03\\x04' (expected 'ET12')");
  std::vector<uint8_t> lower = program_with_constant();
  lower[4] = 'e';
  EXPECT_EQ(load_error(lower).message(),
            "not a program: file identifier is 'eT12' (expected 'ET12')");
  // ExecuTorch's external data file is named for what it is.
  std::vector<uint8_t> ptd = {16, 0, 0, 0, 'F', 'T', '0', '1', 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(load_error(ptd).message(),
            "not a program: a .ptd data file (FlatTensor, file identifier 'FT01') that holds "
            "constants of a program; give the program (.pte) that uses it, with --data FILE.ptd");
}

// Printable bytes show as they are, from the space up to '~', except the backslash and the
// quote that delimits them; every other byte shows as \xNN.
TEST(ProgramLoadTest, IdentifierBytesShowPrintableOrEscaped) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {" !&(", " !&("},
      {"~\\'\x1f", "~\\x5c\\x27\\x1f"},
      {std::string("a\x7f\x80") + '\0', "a\\x7f\\x80\\x00"},
  };
  for (const auto& [bytes, shown] : cases) {
    std::vector<uint8_t> file = {16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    std::copy(bytes.begin(), bytes.end(), file.begin() + 4);
    EXPECT_EQ(load_error(file).message(),
              "not a program: file identifier is '" + shown + "' (expected 'ET12')");
  }
}

TEST(ProgramLoadTest, OtherEtVersionsAreIncompatibleVersions) {
  for (const char* id : {"ET11", "ET13", "ET00", "ETab"}) {
    ProgramBuilderOptions options;
    options.file_identifier = id;
    ProgramBuilder builder(options);
    builder.add_method("forward");
    const Error e = load_error(builder.build());
    EXPECT_EQ(e.code(), ErrorCode::InvalidProgram) << id;
    EXPECT_EQ(e.message(), std::string("incompatible program version: file identifier '") + id +
                               "', this reader reads 'ET12'");
  }
}

TEST(ProgramLoadTest, TruncatedProgramDataFailsVerification) {
  ProgramBuilder builder;
  builder.add_method("forward").add_buffer(16);
  std::vector<uint8_t> bytes = builder.build();
  ASSERT_TRUE(load_error(bytes).ok());
  bytes.resize(bytes.size() - 4);
  const Error e = load_error(bytes);
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "the program data (" + std::to_string(bytes.size()) +
                             " bytes) failed flatbuffer verification: truncated or corrupt");
}

TEST(ProgramLoadTest, TruncatedSegmentDataIsRejectedByTheHeader) {
  std::vector<uint8_t> bytes = program_with_constant();
  Result<Program> ok = Program::load_from_bytes(bytes);
  ASSERT_TRUE(ok.ok()) << ok.error();
  ASSERT_TRUE(ok->extended_header().has_value());
  const uint64_t base = ok->extended_header()->segment_base_offset;
  const uint64_t data = ok->extended_header()->segment_data_size;
  EXPECT_EQ(data, 16u);
  EXPECT_EQ(bytes.size(), base + data);

  bytes.resize(bytes.size() - 1);
  Error e = load_error(bytes);
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "extended header: segment_base_offset " + std::to_string(base) +
                             " + segment_data_size 16 runs past the end of the file "
                             "(truncated? the file has " +
                             std::to_string(bytes.size()) + " bytes)");
  const uint64_t program_size = ok->extended_header()->program_size;
  bytes.resize(program_size - 1);
  e = load_error(bytes);
  EXPECT_EQ(e.message(), "extended header: program_size " + std::to_string(program_size) +
                             " is larger than the file (truncated? the file has " +
                             std::to_string(program_size - 1) + " bytes)");
}

// As in ExecuTorch, a segment is read when something uses it, from segment_base_offset to the
// end of the file: an unused one that lies past the file is never checked.
TEST(ProgramLoadTest, SegmentsPastTheFileFailOnlyWhatUsesThem) {
  ProgramBuilder builder;
  builder.add_method("forward");
  builder.add_raw_segment(0, 16);
  EXPECT_TRUE(load_error(builder.build()).ok());
  ProgramBuilder huge;
  huge.add_method("forward");
  huge.add_raw_segment(UINT64_MAX, 2);
  EXPECT_TRUE(load_error(huge.build()).ok());

  // The delegate's data is segment 0, 64 bytes at the end of the file. Cut the file 8 bytes
  // short and drop segment_data_size from the header (ExecuTorch then checks no file size).
  ProgramBuilder with_delegate;
  MethodBuilder& m = with_delegate.add_method("forward");
  m.add_delegate("SomeBackend", std::vector<uint8_t>(64, 1));
  m.add_chain();
  std::vector<uint8_t> bytes = with_delegate.build();
  Result<Program> whole = Program::load_from_bytes(bytes);
  ASSERT_TRUE(whole.ok()) << whole.error();
  EXPECT_TRUE(whole->method_status("forward").ok());
  const uint64_t base = whole->extended_header()->segment_base_offset;
  ASSERT_EQ(bytes.size(), base + 64);
  bytes.resize(bytes.size() - 8);
  for (size_t i = 0; i < 8; ++i) bytes[ExtendedHeader::kOffset + 24 + i] = 0;
  Result<Program> cut = Program::load_from_bytes(bytes);
  ASSERT_TRUE(cut.ok()) << cut.error();
  const Error e = cut->method_status("forward");
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(),
            "method 'forward': delegate 0: segment 0: 64 bytes at offset 0 run past "
            "the end of the file (segment data from offset " +
                std::to_string(base) + ", 56 bytes)");
}

TEST(ProgramLoadTest, ABadConstantSegmentFailsTheLoad) {
  // ExecuTorch loads the constant segment with the program. It holds 16 bytes; a constant
  // segment one byte longer than the file's data is refused.
  ProgramBuilder builder;
  builder.add_method("forward").add_constant_tensor(TensorSpec::of(ScalarType::Float, {4}),
                                                    float_bytes({1, 2, 3, 4}));
  std::vector<uint8_t> bytes = builder.build();
  Result<Program> whole = Program::load_from_bytes(bytes);
  ASSERT_TRUE(whole.ok()) << whole.error();
  const uint64_t base = whole->extended_header()->segment_base_offset;
  bytes.resize(bytes.size() - 1);
  for (size_t i = 0; i < 8; ++i) bytes[ExtendedHeader::kOffset + 24 + i] = 0;
  const Error e = load_error(bytes);
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(),
            "constant_segment: segment 0: 16 bytes at offset 0 run past the end of "
            "the file (segment data from offset " +
                std::to_string(base) + ", 15 bytes)");
}

// A program written straight with the flatbuffer API, for shapes the builder does not make.
std::vector<uint8_t> raw_program(bool segment_without_header, bool bad_constant_segment) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans{
      fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"))};
  std::vector<flatbuffers::Offset<fb::DataSegment>> segments;
  if (segment_without_header)
    segments.push_back(fb::CreateDataSegment(fbb, uint64_t{0}, uint64_t{4}));
  flatbuffers::Offset<fb::SubsegmentOffsets> constants = 0;
  if (bad_constant_segment) {
    constants = fb::CreateSubsegmentOffsets(fbb, 3, fbb.CreateVector(std::vector<uint64_t>{0, 0}));
  }
  auto root = fb::CreateProgram(fbb, 0, fbb.CreateVector(plans), 0, 0, fbb.CreateVector(segments),
                                constants);
  fbb.Finish(root, fb::ProgramIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(ProgramLoadTest, SegmentsWithoutAnExtendedHeaderHaveNoData) {
  // Unused: the program loads, as in ExecuTorch (which loads no segment without the header).
  const std::vector<uint8_t> unused = raw_program(true, false);
  Result<Program> program = Program::load_from_bytes(unused);
  ASSERT_TRUE(program.ok()) << program.error();
  ASSERT_EQ(program->segments().size(), 1u);
  // A delegate whose data is that segment: its method fails, naming why.
  flatbuffers::FlatBufferBuilder fbb;
  auto reference = fb::CreateBackendDelegateDataReference(fbb, fb::DataLocation::SEGMENT, 0);
  std::vector<flatbuffers::Offset<fb::BackendDelegate>> delegates{
      fb::CreateBackendDelegate(fbb, fbb.CreateString("SomeBackend"), reference)};
  std::vector<flatbuffers::Offset<fb::Chain>> chains{fb::CreateChain(fbb)};
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans{
      fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"), 0, 0, 0, 0,
                              fbb.CreateVector(chains), 0, fbb.CreateVector(delegates))};
  std::vector<flatbuffers::Offset<fb::DataSegment>> segments{
      fb::CreateDataSegment(fbb, uint64_t{0}, uint64_t{4})};
  fbb.Finish(fb::CreateProgram(fbb, 0, fbb.CreateVector(plans), 0, 0, fbb.CreateVector(segments)),
             fb::ProgramIdentifier());
  program = Program::load_from_bytes(
      Span<const uint8_t>(fbb.GetBufferPointer(), static_cast<size_t>(fbb.GetSize())));
  ASSERT_TRUE(program.ok()) << program.error();
  const Error e = program->method_status("forward");
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(),
            "method 'forward': delegate 0: segment 0: the file has no segment data (no extended "
            "header, or a segment_base_offset of 0)");
}

TEST(ProgramLoadTest, ASegmentBasePastTheFileFailsWhatUsesItsSegments) {
  // A 64-byte delegate segment; the header's base moved past the file, its data size dropped.
  ProgramBuilder builder;
  MethodBuilder& m = builder.add_method("forward");
  m.add_delegate("SomeBackend", std::vector<uint8_t>(64, 1));
  m.add_chain();
  std::vector<uint8_t> bytes = builder.build();
  const uint64_t past = bytes.size() + 1;
  for (size_t i = 0; i < 8; ++i) {
    bytes[ExtendedHeader::kOffset + 16 + i] = static_cast<uint8_t>(past >> (8 * i));
    bytes[ExtendedHeader::kOffset + 24 + i] = 0;
  }
  Result<Program> program = Program::load_from_bytes(bytes);
  ASSERT_TRUE(program.ok()) << program.error();
  ASSERT_EQ(program->segments().size(), 1u);
  EXPECT_TRUE(program->segments()[0].empty());
  EXPECT_EQ(program->method_status("forward").message(),
            "method 'forward': delegate 0: segment 0: segment_base_offset " + std::to_string(past) +
                " is past the end of the file (" + std::to_string(bytes.size()) + " bytes)");
}

TEST(ProgramLoadTest, ConstantSegmentNamingAMissingSegmentIsRejected) {
  const Error e = load_error(raw_program(false, true));
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "constant_segment: segment_index 3 is out of range (0 segments)");
}

// A program with one empty segment {0, 0} and a constant_segment {segment_index, offsets}.
std::vector<uint8_t> program_with_one_segment(uint32_t segment_index,
                                              const std::vector<uint64_t>& offsets) {
  flatbuffers::FlatBufferBuilder fbb;
  std::vector<flatbuffers::Offset<fb::ExecutionPlan>> plans{
      fb::CreateExecutionPlan(fbb, fbb.CreateString("forward"))};
  std::vector<flatbuffers::Offset<fb::DataSegment>> segments{
      fb::CreateDataSegment(fbb, uint64_t{0}, uint64_t{0})};
  auto constants = fb::CreateSubsegmentOffsets(fbb, segment_index, fbb.CreateVector(offsets));
  auto root = fb::CreateProgram(fbb, 0, fbb.CreateVector(plans), 0, 0, fbb.CreateVector(segments),
                                constants);
  fbb.Finish(root, fb::ProgramIdentifier());
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

TEST(ProgramLoadTest, ConstantSegmentIndexOnePastTheLastSegmentIsRejected) {
  EXPECT_TRUE(load_error(program_with_one_segment(0, {0, 0})).ok());
  const Error e = load_error(program_with_one_segment(1, {0, 0}));
  EXPECT_EQ(e.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(e.message(), "constant_segment: segment_index 1 is out of range (1 segment)");
  // With only the placeholder offset there are no constants, and the index is not used.
  EXPECT_TRUE(load_error(program_with_one_segment(3, {0})).ok());
}

TEST(ProgramLoadTest, ExtendedHeaderAndSegmentsAsWritten) {
  const std::vector<uint8_t> bytes = program_with_constant();
  EXPECT_EQ(std::string(bytes.begin() + 4, bytes.begin() + 8), "ET12");
  EXPECT_EQ(std::string(bytes.begin() + 8, bytes.begin() + 12), "eh00");
  EXPECT_EQ(testing_util::read_u32_le(bytes, 12), 32u);
  Result<Program> program = Program::load_from_bytes(bytes);
  ASSERT_TRUE(program.ok()) << program.error();
  const ExtendedHeader& h = *program->extended_header();
  EXPECT_EQ(h.length, 32u);
  EXPECT_EQ(h.program_size, read_u64_le(bytes, 16));
  EXPECT_EQ(h.segment_base_offset % 16, 0u);
  EXPECT_GE(h.segment_base_offset, h.program_size);
  EXPECT_LT(h.segment_base_offset, h.program_size + 16);
  ASSERT_EQ(program->segments().size(), 1u);
  EXPECT_EQ(program->segments()[0].data(), program->bytes().data() + h.segment_base_offset);
  EXPECT_EQ(program->segments()[0].size(), 16u);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(program->bytes().data()) % 16, 0u);
}

TEST(ProgramLoadTest, HeaderLength24IsReadLikeExecuTorchWritesOlderFiles) {
  // Rewrite the header's length to 24: segment_data_size (bytes 32..39) is then not read and
  // the segment data runs to the end of the file.
  std::vector<uint8_t> bytes = program_with_constant();
  testing_util::write_u32_le(&bytes, 12, 24);
  Result<Program> program = Program::load_from_bytes(bytes);
  ASSERT_TRUE(program.ok()) << program.error();
  EXPECT_EQ(program->extended_header()->length, 24u);
  EXPECT_EQ(program->extended_header()->segment_data_size, 0u);
  testing_util::write_u32_le(&bytes, 12, 20);
  EXPECT_EQ(load_error(bytes).message(), "extended header: length 20 is less than the minimum 24");
}

// ExecuTorch loads a program whose methods share a name and finds the first by that name.
TEST(ProgramLoadTest, DuplicateMethodNamesAreReadAndTheFirstIsFound) {
  ProgramBuilder builder;
  builder.add_method("forward").add_buffer(16);
  builder.add_method("other");
  builder.add_method("forward").add_buffer(48);
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  ASSERT_EQ(program->num_methods(), 3u);
  Result<const MethodPlan*> first = program->method_plan("forward");
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ((*first)->buffer_sizes, (std::vector<uint64_t>{16}));
  Result<const MethodPlan*> third = program->method_plan_at(2);
  ASSERT_TRUE(third.ok()) << third.error();
  EXPECT_EQ((*third)->buffer_sizes, (std::vector<uint64_t>{48}));
}

TEST(ProgramLoadTest, ABadMethodKeepsItsErrorAndTheOthersStillWork) {
  ProgramBuilder builder;
  MethodBuilder& bad = builder.add_method("bad");
  bad.add_buffer(16);
  bad.add_planned_tensor(TensorSpec::of(ScalarType::Float, {8}), 0, 0);  // 32 bytes in 16
  MethodBuilder& good = builder.add_method("good");
  good.add_buffer(16);
  good.add_planned_tensor(TensorSpec::of(ScalarType::Float, {4}), 0, 0);

  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok()) << program.error();
  ASSERT_EQ(program->num_methods(), 2u);
  EXPECT_STREQ(*program->method_name(0), "bad");
  EXPECT_STREQ(*program->method_name(1), "good");
  const std::string expected =
      "method 'bad': value 0: 32 bytes at offset 0 run past the end of buffer 0 (16 bytes)";
  const Error status = program->method_status("bad");
  EXPECT_EQ(status.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(status.message(), expected);
  EXPECT_EQ(program->method_plan("bad").error().message(), expected);
  EXPECT_EQ(program->method_meta("bad").error().message(), expected);
  EXPECT_EQ(program->method_plan_at(0).error().message(), expected);
  EXPECT_TRUE(program->method_status("good").ok());
  ASSERT_TRUE(program->method_meta("good").ok());
  EXPECT_EQ(*program->method_meta("good")->memory_planned_buffer_size(0), 16);
  ASSERT_TRUE(program->method_plan_at(1).ok());
  EXPECT_EQ((*program->method_plan_at(1))->name, "good");
}

TEST(ProgramLoadTest, LookupErrors) {
  ProgramBuilder builder;
  builder.add_method("a");
  builder.add_method("b");
  Result<Program> program = Program::load_from_bytes(builder.build());
  ASSERT_TRUE(program.ok());
  Result<MethodMeta> meta = program->method_meta("c");
  EXPECT_EQ(meta.code(), ErrorCode::NotFound);
  EXPECT_EQ(meta.error().message(), "no method named 'c' (the program has 'a', 'b')");
  EXPECT_EQ(program->method_plan("c").code(), ErrorCode::NotFound);
  EXPECT_EQ(program->method_status("c").code(), ErrorCode::NotFound);
  Result<const char*> name = program->method_name(2);
  EXPECT_EQ(name.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(name.error().message(), "method index 2 is out of range (the program has 2 methods)");
  EXPECT_EQ(program->method_plan_at(2).code(), ErrorCode::InvalidArgument);

  ProgramBuilder empty;
  Result<Program> none = Program::load_from_bytes(empty.build());
  ASSERT_TRUE(none.ok()) << none.error();
  EXPECT_EQ(none->num_methods(), 0u);
  EXPECT_EQ(none->method_meta("forward").error().message(),
            "no method named 'forward' (the program has no methods)");
}

TEST(ProgramLoadTest, MovingAProgramKeepsItsSpansValid) {
  const std::vector<uint8_t> bytes = program_with_constant();
  Result<Program> loaded = Program::load_from_bytes(bytes);
  ASSERT_TRUE(loaded.ok());
  const MethodPlan* before = *loaded->method_plan("forward");
  const uint8_t* data_before = before->values[0].tensor.data.data();
  Program moved = std::move(*loaded);
  Program again = std::move(moved);
  const MethodPlan* after = *again.method_plan("forward");
  EXPECT_EQ(after, before);
  EXPECT_EQ(after->values[0].tensor.data.data(), data_before);
  EXPECT_EQ(testing_util::as_floats(after->values[0].tensor.data),
            std::vector<float>({1, 2, 3, 4}));
  // The Program owns a copy: the source bytes may go away.
  std::vector<uint8_t> scratch = program_with_constant();
  Result<Program> owned = Program::load_from_bytes(scratch);
  ASSERT_TRUE(owned.ok());
  std::fill(scratch.begin(), scratch.end(), 0xEE);
  scratch.clear();
  scratch.shrink_to_fit();
  EXPECT_EQ(testing_util::as_floats((*owned->method_plan("forward"))->values[0].tensor.data),
            std::vector<float>({1, 2, 3, 4}));
}

TEST(ProgramLoadTest, LoaderErrorsPassThrough) {
  class FailingLoader final : public DataLoader {
   public:
    Result<size_t> size() const override { return size_t{64}; }
    Error load_into(size_t, size_t, void*) override {
      return Error(ErrorCode::AccessFailed, "disk on fire");
    }
  };
  FailingLoader loader;
  Result<Program> program = Program::load(loader);
  ASSERT_FALSE(program.ok());
  EXPECT_EQ(program.code(), ErrorCode::AccessFailed);
  EXPECT_EQ(program.error().message(), "disk on fire");
}

}  // namespace
}  // namespace devplan
