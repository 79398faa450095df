#include <gtest/gtest.h>
#include <runtime_ext/program/extended_header.h>

#include <cstring>
#include <limits>
#include <vector>

#include "program_test_util.h"

namespace devplan {
namespace {

using testing_util::write_u32_le;
using testing_util::write_u64_le;

// A file of `file_size` bytes whose header is {length, program_size, base, data_size}.
std::vector<uint8_t> file_with_header(uint32_t length, uint64_t program_size, uint64_t base,
                                      uint64_t data_size, size_t file_size) {
  std::vector<uint8_t> b(file_size, 0);
  std::memcpy(b.data() + 4, "ET12", 4);
  std::memcpy(b.data() + 8, "eh00", 4);
  write_u32_le(&b, 12, length);
  write_u64_le(&b, 16, program_size);
  write_u64_le(&b, 24, base);
  if (file_size >= 40) write_u64_le(&b, 32, data_size);
  return b;
}

Result<std::optional<ExtendedHeader>> parse(const std::vector<uint8_t>& b) {
  return ExtendedHeader::parse(b.data(), b.size(), b.size());
}

TEST(ExtendedHeaderTest, AbsentWhenTheMagicIsNotThere) {
  std::vector<uint8_t> b(64, 0);
  Result<std::optional<ExtendedHeader>> h = parse(b);
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(h->has_value());
  // Fewer than 12 bytes cannot hold the magic.
  std::vector<uint8_t> small = {0, 0, 0, 0, 'E', 'T', '1', '2', 'e', 'h', '0'};
  h = parse(small);
  ASSERT_TRUE(h.ok());
  EXPECT_FALSE(h->has_value());
}

TEST(ExtendedHeaderTest, ReadsAllFieldsOfALength32Header) {
  const auto b = file_with_header(32, 100, 112, 40, 160);
  Result<std::optional<ExtendedHeader>> h = parse(b);
  ASSERT_TRUE(h.ok()) << h.error();
  ASSERT_TRUE(h->has_value());
  EXPECT_EQ((*h)->length, 32u);
  EXPECT_EQ((*h)->program_size, 100u);
  EXPECT_EQ((*h)->segment_base_offset, 112u);
  EXPECT_EQ((*h)->segment_data_size, 40u);
}

TEST(ExtendedHeaderTest, Length24HasNoSegmentDataSize) {
  // Bytes 32..39 belong to the flatbuffer then; whatever they hold is not read.
  auto b = file_with_header(24, 100, 112, 0, 160);
  write_u64_le(&b, 32, 999999);
  Result<std::optional<ExtendedHeader>> h = parse(b);
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->length, 24u);
  EXPECT_EQ((*h)->segment_data_size, 0u);
}

TEST(ExtendedHeaderTest, LongerHeadersAreAccepted) {
  const auto b = file_with_header(40, 100, 0, 0, 100);
  Result<std::optional<ExtendedHeader>> h = parse(b);
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->length, 40u);
}

TEST(ExtendedHeaderTest, LengthBelow24IsRejected) {
  const auto b = file_with_header(23, 100, 0, 0, 100);
  Result<std::optional<ExtendedHeader>> h = parse(b);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(h.error().message(), "extended header: length 23 is less than the minimum 24");
}

TEST(ExtendedHeaderTest, CutOffHeaderIsRejected) {
  auto b = file_with_header(32, 100, 0, 0, 100);
  b.resize(14);
  Result<std::optional<ExtendedHeader>> h = parse(b);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message(),
            "extended header: cut off before its length field (the file has 14 bytes)");
  b = file_with_header(32, 100, 0, 0, 100);
  b.resize(36);
  h = parse(b);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message(),
            "extended header: length 32 runs past the end of the file (the file has 36 bytes)");
}

TEST(ExtendedHeaderTest, ProgramSizeMustCoverTheHeadersAndFitTheFile) {
  Result<std::optional<ExtendedHeader>> h = parse(file_with_header(32, 39, 0, 0, 100));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message(),
            "extended header: program_size 39 is smaller than the headers (40 bytes)");
  h = parse(file_with_header(32, 101, 0, 0, 100));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(h.error().message(),
            "extended header: program_size 101 is larger than the file (truncated? the file "
            "has 100 bytes)");
}

TEST(ExtendedHeaderTest, SegmentFieldsAreCheckedAsExecutorchChecksThem) {
  // ExecuTorch checks base + segment_data_size against the file only when the size is given;
  // a base inside the program data, or past the file without a size, is read as written (the
  // segments then fail when something uses them).
  Result<std::optional<ExtendedHeader>> h = parse(file_with_header(32, 100, 96, 0, 200));
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->segment_base_offset, 96u);
  h = parse(file_with_header(32, 100, 201, 0, 200));
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->segment_base_offset, 201u);
  h = parse(file_with_header(32, 100, 201, 1, 200));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message(),
            "extended header: segment_base_offset 201 + segment_data_size 1 runs past the "
            "end of the file (truncated? the file has 200 bytes)");
  h = parse(file_with_header(32, 100, 112, 89, 200));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message(),
            "extended header: segment_base_offset 112 + segment_data_size 89 runs past the "
            "end of the file (truncated? the file has 200 bytes)");
  // A size without a base: no segment data (ExecuTorch loads no segment then).
  h = parse(file_with_header(32, 100, 0, 16, 200));
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->segment_data_size, 16u);
  // Exactly fitting is fine.
  h = parse(file_with_header(32, 100, 112, 88, 200));
  ASSERT_TRUE(h.ok()) << h.error();
}

TEST(ExtendedHeaderTest, HugeValuesDoNotOverflow) {
  const uint64_t max = std::numeric_limits<uint64_t>::max();
  Result<std::optional<ExtendedHeader>> h = parse(file_with_header(32, 100, 112, max, 200));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.code(), ErrorCode::InvalidProgram);
  h = parse(file_with_header(32, max, 112, 0, 200));
  ASSERT_FALSE(h.ok());
  h = parse(file_with_header(std::numeric_limits<uint32_t>::max(), 100, 0, 0, 200));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.error().message(),
            "extended header: length 4294967295 runs past the end of the file (the file has "
            "200 bytes)");
}

TEST(ExtendedHeaderTest, EncodeWritesTheLayoutParseReads) {
  ExtendedHeader h;
  h.program_size = 0x1122334455667788ull % 1000 + 40;
  h.segment_base_offset = 1024;
  h.segment_data_size = 77;
  const auto encoded = h.encode();
  EXPECT_EQ(std::string(reinterpret_cast<const char*>(encoded.data()), 4), "eh00");
  std::vector<uint8_t> file(2000, 0);
  std::memcpy(file.data() + 8, encoded.data(), encoded.size());
  Result<std::optional<ExtendedHeader>> back = parse(file);
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ((*back)->length, 32u);
  EXPECT_EQ((*back)->program_size, h.program_size);
  EXPECT_EQ((*back)->segment_base_offset, 1024u);
  EXPECT_EQ((*back)->segment_data_size, 77u);
}

TEST(ExtendedHeaderTest, ProgramSizeEqualToTheHeadersIsTheLeastAccepted) {
  Result<std::optional<ExtendedHeader>> h = parse(file_with_header(32, 40, 0, 0, 100));
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->program_size, 40u);
  // A length-24 header ends at byte 32.
  h = parse(file_with_header(24, 32, 0, 0, 100));
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->program_size, 32u);
  h = parse(file_with_header(24, 31, 0, 0, 100));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(h.error().message(),
            "extended header: program_size 31 is smaller than the headers (32 bytes)");
}

TEST(ExtendedHeaderTest, SegmentBaseFromTheEndOfTheProgramToTheEndOfTheFile) {
  Result<std::optional<ExtendedHeader>> h = parse(file_with_header(32, 100, 100, 0, 200));
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->segment_base_offset, 100u);
  h = parse(file_with_header(32, 100, 99, 0, 200));  // inside the program: not checked
  ASSERT_TRUE(h.ok()) << h.error();
  // At the very end of the file: no segment data, but not past the end.
  h = parse(file_with_header(32, 100, 200, 0, 200));
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->segment_base_offset, 200u);
}

TEST(ExtendedHeaderTest, HeaderEndingExactlyAtTheEndOfTheFile) {
  std::vector<uint8_t> b = file_with_header(32, 40, 0, 0, 40);
  Result<std::optional<ExtendedHeader>> h = parse(b);
  ASSERT_TRUE(h.ok()) << h.error();
  EXPECT_EQ((*h)->length, 32u);
  b.resize(39);
  h = parse(b);
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.code(), ErrorCode::InvalidProgram);
  EXPECT_EQ(h.error().message(),
            "extended header: length 32 runs past the end of the file (the file has 39 bytes)");
}

}  // namespace
}  // namespace devplan
