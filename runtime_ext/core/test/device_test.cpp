#include <runtime_ext/core/device.h>

#include <gtest/gtest.h>

#include <unordered_set>

namespace devplan {
namespace {

TEST(DeviceTest, TypeValuesAreFixedByTheFileFormat) {
  EXPECT_EQ(static_cast<int>(DeviceType::CPU), 0);
  EXPECT_EQ(static_cast<int>(DeviceType::CUDA), 1);
  EXPECT_TRUE(is_known_device_type(0));
  EXPECT_TRUE(is_known_device_type(1));
  EXPECT_FALSE(is_known_device_type(2));
  EXPECT_FALSE(is_known_device_type(-1));
}

TEST(DeviceTest, DefaultIsCpu0) {
  Device d;
  EXPECT_TRUE(d.is_cpu());
  EXPECT_EQ(d.index, 0);
  EXPECT_EQ(d, Device::cpu());
}

TEST(DeviceTest, ToString) {
  EXPECT_EQ(Device::cpu().to_string(), "cpu:0");
  EXPECT_EQ(Device::cuda(1).to_string(), "cuda:1");
  EXPECT_EQ(Device::cuda(127).to_string(), "cuda:127");
  EXPECT_EQ(Device(static_cast<DeviceType>(7), 0).to_string(), "unknown(7):0");
}

TEST(DeviceTest, EqualityAndOrder) {
  EXPECT_EQ(Device::cuda(0), Device(DeviceType::CUDA, 0));
  EXPECT_NE(Device::cuda(0), Device::cuda(1));
  EXPECT_NE(Device::cuda(0), Device::cpu());
  EXPECT_FALSE(Device::cuda(0).is_cpu());
  EXPECT_LT(Device::cpu(), Device::cuda(0));
  EXPECT_LT(Device::cuda(0), Device::cuda(1));
  EXPECT_FALSE(Device::cuda(1) < Device::cuda(0));
  std::unordered_set<Device> set{Device::cpu(), Device::cuda(0), Device::cuda(0)};
  EXPECT_EQ(set.size(), 2u);
}

TEST(DeviceTest, ParsesCanonicalForms) {
  for (const char* text : {"cpu:0", "cuda:0", "cuda:1", "cuda:9", "cuda:10", "cuda:127"}) {
    Result<Device> d = parse_device(text);
    ASSERT_TRUE(d.ok()) << text << ": " << d.error();
    EXPECT_EQ(d->to_string(), text);
  }
  EXPECT_EQ(*parse_device("cuda:3"), Device::cuda(3));
}

TEST(DeviceTest, RejectsEverythingElse) {
  for (const char* text : {"",         "cpu",      "cuda",
                           "CUDA",     "CUDA:0",   "Cuda:0",
                           "cuda:",    ":0",       "cuda:-1",
                           "cuda:+1",  "cuda:x",   "cuda:1x",
                           "cuda:01",  "cuda:128", "cuda:1000",
                           "cuda:0:0", " cuda:0",  "cuda:0 ",
                           "gpu:0",    "cpu:1",    "cuda:99999999999999999999"}) {
    Result<Device> d = parse_device(text);
    EXPECT_FALSE(d.ok()) << "accepted '" << text << "'";
    EXPECT_EQ(d.code(), ErrorCode::InvalidArgument) << text;
  }
}

TEST(DeviceTest, EveryDeviceReadsBackFromItsText) {
  // Whatever to_string writes, parse_any_device reads back: every type byte and index byte.
  for (int type = -128; type <= 127; ++type) {
    for (int index = -128; index <= 127; ++index) {
      const Device d(static_cast<DeviceType>(type), static_cast<DeviceIndex>(index));
      Result<Device> back = parse_any_device(d.to_string());
      ASSERT_TRUE(back.ok()) << d.to_string() << ": " << back.error();
      ASSERT_EQ(*back, d) << d.to_string();
    }
  }
  EXPECT_EQ(Device(static_cast<DeviceType>(5), 0).to_string(), "unknown(5):0");
  for (const char* text :
       {"unknown(1):0", "unknown(0):0", "unknown(05):0", "unknown(128):0", "cuda:128", "cuda:-0",
        "cuda:+1", "cuda:-129", "unknown():0", "unknown(5)", "tpu:0", "cuda:01"}) {
    EXPECT_FALSE(parse_any_device(text).ok()) << text;
  }
  EXPECT_EQ(parse_any_device("tpu:0").error().message(),
            "invalid device 'tpu:0': unknown device type 'tpu' (expected cpu or cuda)");
}

TEST(DeviceTest, ParseErrorNamesTheText) {
  Result<Device> d = parse_device("cuda:x");
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.error().message(), "invalid device 'cuda:x': index must be a number from 0 to 127");
  EXPECT_EQ(parse_device("CUDA").error().message(),
            "invalid device 'CUDA': expected TYPE:INDEX such as cpu:0 or cuda:1");
  EXPECT_EQ(parse_device("tpu:0").error().message(),
            "invalid device 'tpu:0': unknown device type 'tpu' (expected cpu or cuda)");
}

}  // namespace
}  // namespace devplan
