// DataFile over the exporter's wild_external_data.ptd (nn.Linear(4, 3)'s weight and bias), every
// way a file can be malformed, and resolve_external_tensor against a program's tensor.
#include <runtime_ext/program/data_file.h>

#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace devplan {
namespace {

std::vector<uint8_t> fixture() {
  std::ifstream in(
      std::string(DEVPLAN_SOURCE_DIR) + "/fixtures/executorch/exporter/wild_external_data.ptd",
      std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// A copy with a 64-bit little-endian field of the header (at file offset `at`) set to `v`.
std::vector<uint8_t> with_field(std::vector<uint8_t> bytes, size_t at, uint64_t v, size_t n = 8) {
  for (size_t i = 0; i < n; ++i) bytes[at + i] = static_cast<uint8_t>(v >> (8 * i));
  return bytes;
}

std::string parse_error(const std::vector<uint8_t>& bytes) {
  Result<DataFile> f = DataFile::parse(Span<const uint8_t>(bytes.data(), bytes.size()), "w.ptd");
  EXPECT_FALSE(f.ok());
  if (f.ok()) return "";
  EXPECT_EQ(f.code(), ErrorCode::InvalidExternalData);
  return f.error().message();
}

TEST(DataFileTest, TheExportersFileReadsAsExecutorchWroteIt) {
  const std::vector<uint8_t> bytes = fixture();
  ASSERT_EQ(bytes.size(), 524u);
  Result<DataFile> f = DataFile::parse(Span<const uint8_t>(bytes.data(), bytes.size()), "w.ptd");
  ASSERT_TRUE(f.ok()) << f.error();
  EXPECT_EQ(f->version(), 0u);
  EXPECT_EQ(f->segment_base_offset(), 384u);
  EXPECT_EQ(f->segment_data_size(), 140u);
  ASSERT_EQ(f->segments().size(), 2u);
  EXPECT_EQ(f->segments()[0].offset, 384u);
  EXPECT_EQ(f->segments()[0].size, 48u);
  EXPECT_EQ(f->segments()[1].offset, 512u);
  EXPECT_EQ(f->segments()[1].size, 12u);
  ASSERT_EQ(f->entries().size(), 2u);
  const DataEntry* w = f->find("linear.weight");
  ASSERT_NE(w, nullptr);
  EXPECT_TRUE(w->has_layout);
  EXPECT_EQ(w->dtype, ScalarType::Float);
  EXPECT_EQ(w->sizes, (std::vector<int32_t>{3, 4}));
  EXPECT_EQ(w->dim_order, (std::vector<uint8_t>{0, 1}));
  EXPECT_EQ(f->data(*w).data(), bytes.data() + 384);
  EXPECT_EQ(f->data(*w).size(), 48u);
  EXPECT_EQ(f->alignment(*w), 128u);
  const DataEntry* b = f->find("linear.bias");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->sizes, (std::vector<int32_t>{3}));
  EXPECT_EQ(f->alignment(*b), 512u);
  EXPECT_EQ(f->find("linear"), nullptr);
  EXPECT_TRUE(is_data_file(Span<const uint8_t>(bytes.data(), bytes.size())));
}

TEST(DataFileTest, EveryMalformationIsNamedNeverACrash) {
  const std::vector<uint8_t> good = fixture();
  ASSERT_EQ(good.size(), 524u);
  EXPECT_EQ(parse_error(std::vector<uint8_t>(good.begin(), good.begin() + 400)),
            "w.ptd: segments at 384 (140 bytes) end past the 400-byte file: truncated?");
  EXPECT_EQ(parse_error(std::vector<uint8_t>(good.begin(), good.begin() + 30)),
            "w.ptd: no FH01 header at byte 8 (30 bytes)");
  std::vector<uint8_t> other = good;
  other[4] = 'E';
  EXPECT_EQ(parse_error(other), "w.ptd: not a data file (.ptd): file identifier is not FT01");
  std::vector<uint8_t> magic = good;
  magic[10] = '2';
  EXPECT_EQ(parse_error(magic), "w.ptd: no FH01 header at byte 8 (524 bytes)");
  EXPECT_EQ(parse_error(with_field(good, 12, 39, 4)),
            "w.ptd: header length 39, at least 40 expected");
  EXPECT_EQ(parse_error(with_field(good, 24, 600)),
            "w.ptd: the flatbuffer data at 48 (600 bytes) ends past the 524-byte file: truncated?");
  EXPECT_EQ(parse_error(with_field(good, 32, UINT64_MAX)),
            "w.ptd: segments at 18446744073709551615 (140 bytes) end past the 524-byte file: "
            "truncated?");
  // A root offset pointing past the flatbuffer fails verification.
  EXPECT_EQ(parse_error(with_field(good, 0, 4000, 4)),
            "w.ptd: the flatbuffer (328 bytes) failed verification: truncated or corrupt");
  // Segment data shorter than segment 1 needs (512 - 384 + 12 = 140).
  EXPECT_EQ(parse_error(with_field(good, 40, 139)),
            "w.ptd: segment 1 [128, +12) ends past the segment data (139 bytes)");
  for (size_t cut = 0; cut < good.size(); ++cut) {
    std::vector<uint8_t> head(good.begin(), good.begin() + cut);
    Result<DataFile> f = DataFile::parse(Span<const uint8_t>(head.data(), head.size()), "w.ptd");
    EXPECT_FALSE(f.ok()) << "a " << cut << "-byte prefix parsed";
  }
}

TEST(DataFileTest, ExternalTensorsResolveAsExecutorchChecksThem) {
  const std::vector<uint8_t> bytes = fixture();
  Result<DataFile> f = DataFile::parse(Span<const uint8_t>(bytes.data(), bytes.size()), "w.ptd");
  ASSERT_TRUE(f.ok()) << f.error();
  TensorInfo weight;
  weight.dtype = ScalarType::Float;
  weight.sizes = {3, 4};
  weight.dim_order = {0, 1};
  weight.nbytes = 48;
  weight.fully_qualified_name = "linear.weight";
  Result<ExternalTensorData> none = resolve_external_tensor(nullptr, weight);
  EXPECT_EQ(none.code(), ErrorCode::InvalidState);
  EXPECT_EQ(none.error().message(),
            "external tensor 'linear.weight' is kept in a data file (.ptd) and none was given "
            "(--data FILE.ptd)");
  std::vector<DataFiles::Owned> owned;
  owned.push_back({nullptr, *f});
  Result<std::shared_ptr<const DataFiles>> files = DataFiles::make(std::move(owned));
  ASSERT_TRUE(files.ok()) << files.error();
  Result<ExternalTensorData> found = resolve_external_tensor(files->get(), weight);
  ASSERT_TRUE(found.ok()) << found.error();
  EXPECT_EQ(found->data.data(), bytes.data() + 384);
  EXPECT_EQ((*files)->names(), "w.ptd");

  struct Case {
    void (*change)(TensorInfo&);
    ErrorCode code;
    const char* message;
  };
  const std::vector<Case> cases = {
      {[](TensorInfo& t) { t.fully_qualified_name = "linear.w"; }, ErrorCode::NotFound,
       "external tensor 'linear.w' is in none of the data files given (w.ptd)"},
      {[](TensorInfo& t) { t.dtype = ScalarType::Half; }, ErrorCode::InvalidExternalData,
       "external tensor 'linear.weight': dtype float16 in the program, float32 in w.ptd"},
      {[](TensorInfo& t) {
         t.sizes = {4, 3};
       },
       ErrorCode::InvalidExternalData,
       "external tensor 'linear.weight': sizes [4, 3] in the program, [3, 4] in w.ptd"},
      {[](TensorInfo& t) {
         t.dim_order = {1, 0};
       },
       ErrorCode::InvalidExternalData,
       "external tensor 'linear.weight': dim order [1, 0] in the program, [0, 1] in w.ptd"},
      {[](TensorInfo& t) { t.nbytes = 49; }, ErrorCode::InvalidExternalData,
       "external tensor 'linear.weight': bytes 49 in the program, 48 in w.ptd"},
  };
  for (const Case& c : cases) {
    TensorInfo t = weight;
    c.change(t);
    Result<ExternalTensorData> r = resolve_external_tensor(files->get(), t);
    ASSERT_FALSE(r.ok()) << c.message;
    EXPECT_EQ(r.code(), c.code);
    EXPECT_EQ(r.error().message(), c.message);
  }
}

// As ExecuTorch's merged data map: a key in two files is refused.
TEST(DataFileTest, AKeyInTwoFilesIsRefused) {
  const std::vector<uint8_t> bytes = fixture();
  Result<DataFile> a = DataFile::parse(Span<const uint8_t>(bytes.data(), bytes.size()), "a.ptd");
  Result<DataFile> b = DataFile::parse(Span<const uint8_t>(bytes.data(), bytes.size()), "b.ptd");
  ASSERT_TRUE(a.ok() && b.ok());
  std::vector<DataFiles::Owned> owned;
  owned.push_back({nullptr, *a});
  owned.push_back({nullptr, *b});
  Result<std::shared_ptr<const DataFiles>> files = DataFiles::make(std::move(owned));
  ASSERT_FALSE(files.ok());
  EXPECT_EQ(files.code(), ErrorCode::InvalidExternalData);
  EXPECT_EQ(files.error().message(), "key 'linear.weight' is in both a.ptd and b.ptd");
}

}  // namespace
}  // namespace devplan
