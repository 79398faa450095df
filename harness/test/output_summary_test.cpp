// What `run` prints for a large output: when it summarizes (above 4096 elements, never with
// --full), and each figure of the summary.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include <harness/services/output_summary.h>
#include <harness/values/tensor_values.h>

namespace devplan::harness {
namespace {

OutputValues tensor_of(ScalarType dtype, const std::vector<double>& values) {
  OutputValues o;
  o.tag = ValueTag::Tensor;
  o.dtype = dtype;
  o.sizes = {static_cast<int32_t>(values.size())};
  Result<std::vector<uint8_t>> bytes =
      encode_values(values, dtype, static_cast<int64_t>(values.size()));
  EXPECT_TRUE(bytes.ok()) << bytes.error();
  if (bytes.ok()) o.bytes = *bytes;
  return o;
}

TEST(OutputSummary, TensorsAboveTheLimitAreSummarizedUnlessFull) {
  const OutputValues at_limit = tensor_of(ScalarType::Byte, std::vector<double>(4096, 1));
  const OutputValues above = tensor_of(ScalarType::Byte, std::vector<double>(4097, 1));
  EXPECT_FALSE(summarized(at_limit, false));
  EXPECT_TRUE(summarized(above, false));
  EXPECT_FALSE(summarized(above, true));
  // The limit counts elements, not bytes: 4096 doubles are 32 KiB and printed in full.
  EXPECT_FALSE(summarized(tensor_of(ScalarType::Double, std::vector<double>(4096, 1)), false));
  OutputValues scalar;
  scalar.tag = ValueTag::Double;
  scalar.values = {"2"};
  EXPECT_FALSE(summarized(scalar, false));
}

TEST(OutputSummary, FiguresOfAFloatTensor) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> v(5000, 0.5);
  v[0] = nan;
  v[1] = -3.25;
  v[2] = 7;
  v[4999] = nan;
  const OutputSummary s = summarize_output(tensor_of(ScalarType::Float, v));
  EXPECT_EQ(s.elements, 5000u);
  EXPECT_EQ(s.first, (std::vector<std::string>{"nan", "-3.25", "7", "0.5", "0.5"}));
  EXPECT_EQ(s.last, (std::vector<std::string>{"0.5", "0.5", "0.5", "0.5", "nan"}));
  EXPECT_EQ(s.min, "-3.25");
  EXPECT_EQ(s.max, "7");
  EXPECT_DOUBLE_EQ(s.mean, (-3.25 + 7 + 0.5 * 4996) / 4998);  // NaNs left out
  EXPECT_EQ(s.nan, 2u);
  EXPECT_EQ(s.inf, 0u);
  v[3] = -inf;
  const OutputSummary with_inf = summarize_output(tensor_of(ScalarType::Float, v));
  EXPECT_EQ(with_inf.min, "-inf");
  EXPECT_EQ(with_inf.inf, 1u);
  EXPECT_TRUE(std::isinf(with_inf.mean) && with_inf.mean < 0);
}

TEST(OutputSummary, IntegersHaveNoNanCountsAndKeepTheirText) {
  std::vector<double> v(4100);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i) - 100;
  const OutputSummary s = summarize_output(tensor_of(ScalarType::Long, v));
  EXPECT_EQ(s.first, (std::vector<std::string>{"-100", "-99", "-98", "-97", "-96"}));
  EXPECT_EQ(s.last, (std::vector<std::string>{"3995", "3996", "3997", "3998", "3999"}));
  EXPECT_EQ(s.min, "-100");
  EXPECT_EQ(s.max, "3999");
  EXPECT_DOUBLE_EQ(s.mean, 1949.5);
  EXPECT_EQ(s.nan, 0u);
}

// FNV-1a over the bytes: the published check values, and any changed byte changes it.
TEST(OutputSummary, TheChecksumIsFnv1a64OfTheBytes) {
  OutputValues o;
  o.tag = ValueTag::Tensor;
  o.dtype = ScalarType::Byte;
  EXPECT_EQ(checksum_text(summarize_output(o).fnv1a64), "cbf29ce484222325");  // no bytes
  o.bytes = {'a'};
  EXPECT_EQ(checksum_text(summarize_output(o).fnv1a64), "af63dc4c8601ec8c");
  o.bytes = {'f', 'o', 'o', 'b', 'a', 'r'};
  EXPECT_EQ(checksum_text(summarize_output(o).fnv1a64), "85944171f73967e8");
}

}  // namespace
}  // namespace devplan::harness
