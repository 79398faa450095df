#include <harness/options/byte_size.h>

#include <gtest/gtest.h>

namespace devplan::cli {
namespace {

struct SizeCase {
  const char* text;
  uint64_t bytes;
};

TEST(ByteSizeTest, ParsesNumbersWithUnits) {
  const SizeCase cases[] = {
      {"0", 0},
      {"4096", 4096},
      {"768B", 768},
      {"512KiB", 524288},
      {"512kib", 524288},
      {"1k", 1024},
      {"64MB", 64000000},
      {"64MiB", 67108864},
      {"1GiB", 1073741824},
      {"1GB", 1000000000},
      {"2TiB", 2199023255552},
      {"1.5KiB", 1536},
      {"0.5MiB", 524288},
      {"18446744073709551615", UINT64_MAX},
  };
  for (const SizeCase& c : cases) {
    Result<uint64_t> bytes = parse_byte_size(c.text);
    ASSERT_TRUE(bytes.ok()) << c.text << ": " << bytes.error();
    EXPECT_EQ(*bytes, c.bytes) << c.text;
  }
}

TEST(ByteSizeTest, RejectsWhatIsNotAByteCount) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "no number"},
      {"GiB", "no number"},
      {"-1", "no number"},
      {"1.", "no digits after '.'"},
      {"1.1B", "not a whole number of bytes"},
      {"0.3KiB", "not a whole number of bytes"},
      {"12 MiB", "unknown unit ' MiB'"},
      {"12XB", "unknown unit 'XB'"},
      {"18446744073709551616", "too large"},
      {"16EiB", "unknown unit 'EiB'"},
      {"17179869184GiB", "too large"},
  };
  for (const auto& [text, why] : cases) {
    Result<uint64_t> bytes = parse_byte_size(text);
    ASSERT_FALSE(bytes.ok()) << text;
    EXPECT_EQ(bytes.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(bytes.error().message(),
              std::string("invalid byte size '") + text + "': " + why +
                  " (expected a whole number of bytes with an optional unit: 4096, 512KiB, 64MB, "
                  "1GiB)")
        << text;
  }
}

TEST(ByteSizeTest, FormatsBytesForPeople) {
  EXPECT_EQ(format_bytes(0), "0 B");
  EXPECT_EQ(format_bytes(768), "768 B");
  EXPECT_EQ(format_bytes(1023), "1023 B");
  EXPECT_EQ(format_bytes(1024), "1024 B (1.0 KiB)");
  EXPECT_EQ(format_bytes(1536), "1536 B (1.5 KiB)");
  EXPECT_EQ(format_bytes(1056768), "1056768 B (1.0 MiB)");
  EXPECT_EQ(format_bytes(1048575), "1048575 B (1.0 MiB)");  // 1023.999 KiB rounds up a unit
  EXPECT_EQ(format_bytes(1073741824), "1073741824 B (1.0 GiB)");
  EXPECT_EQ(format_bytes(5368709120), "5368709120 B (5.0 GiB)");
  EXPECT_EQ(format_bytes(UINT64_MAX), "18446744073709551615 B (16.0 EiB)");
}

}  // namespace
}  // namespace devplan::cli
