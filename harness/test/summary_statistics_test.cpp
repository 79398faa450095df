// The SUMMARY line and the per-device statistics of `devplan simulate`.
#include <harness/output/json_document.h>
#include <harness/output/summary_line.h>
#include <harness/services/device_statistics.h>

#include <gtest/gtest.h>

namespace devplan::harness {
namespace {

AllocationEvent allocate(Device device, size_t size, uintptr_t ptr) {
  AllocationEvent e;
  e.kind = AllocationEvent::Kind::Allocate;
  e.device = device;
  e.size = size;
  e.ptr = reinterpret_cast<const void*>(ptr);
  e.alignment = 16;
  return e;
}

AllocationEvent free_of(Device device, size_t size, uintptr_t ptr) {
  AllocationEvent e = allocate(device, size, ptr);
  e.kind = AllocationEvent::Kind::Free;
  e.alignment = 0;
  return e;
}

TEST(JsonDocumentTest, VersionIsTheProjectsAndSchemaIsOne) {
  EXPECT_STREQ(devplan_version(), DEVPLAN_PROJECT_VERSION);
  EXPECT_EQ(write_json(json_document()), std::string(R"({"devplan_version":")") +
                                             DEVPLAN_PROJECT_VERSION + R"(","schema_version":1})");
}

TEST(SummaryLineTest, SanitizerStyleLines) {
  EXPECT_EQ(summary_line({6, 6, 0, 0, 0}),
            "SUMMARY: devplan: no leaks, no misuse (6 allocations, 6 frees)");
  EXPECT_EQ(summary_line({1, 1, 0, 0, 0}),
            "SUMMARY: devplan: no leaks, no misuse (1 allocation, 1 free)");
  EXPECT_EQ(summary_line({0, 0, 0, 0, 0}),
            "SUMMARY: devplan: no leaks, no misuse (0 allocations, 0 frees)");
  EXPECT_EQ(summary_line({4, 2, 768, 2, 0}), "SUMMARY: devplan: 768 bytes leaked in 2 allocations");
  EXPECT_EQ(summary_line({4, 3, 1, 1, 1}),
            "SUMMARY: devplan: 1 byte leaked in 1 allocation; 1 misuse");
  EXPECT_EQ(summary_line({6, 5, 0, 0, 2}),
            "SUMMARY: devplan: no leaks, 2 misuse (6 allocations, 5 frees)");
}

TEST(SummaryLineTest, FuzzCampaign) {
  CampaignResult clean;
  clean.cases = 1000;
  clean.totals.allocations = 5210;
  clean.totals.frees = 5210;
  EXPECT_EQ(fuzz_summary_line(clean, 1, ""),
            "SUMMARY: devplan: no leaks, no misuse (5210 allocations, 5210 frees in 1000 cases)");
  CampaignResult failed = clean;
  failed.failure = CampaignFailure{};
  failed.failure->case_index = 17;
  failed.failure->finding.check = "cleanup";
  EXPECT_EQ(
      fuzz_summary_line(failed, 9, "devplan fuzz --seed 9 --case 17"),
      "SUMMARY: devplan: fuzz case 17 failed (cleanup), seed 9; replay: devplan fuzz --seed 9 "
      "--case 17");
}

TEST(DeviceStatisticsTest, CurrentPeakAndTotalPerDevice) {
  const Device cuda0 = Device::cuda(0), cuda1 = Device::cuda(1);
  AllocationEvent failed = allocate(cuda0, 4096, 0);
  failed.kind = AllocationEvent::Kind::FailedAllocate;
  const std::vector<AllocationEvent> events =
      {
          allocate(cuda1, 64, 0x900),
          allocate(cuda0, 256, 0x100),
          allocate(cuda0, 512, 0x200),
          failed,
          free_of(cuda0, 256, 0x100),
          allocate(cuda0, 128, 0x300),
          free_of(cuda0, 0, 0x999),  // unknown pointer: changes nothing
          free_of(cuda0, 512, 0x200),
          free_of(cuda0, 512, 0x200),  // a double free: changes nothing
          allocate(cuda1, 0, 0xA00),   // a zero-byte allocation is an allocation
          free_of(cuda1, 0, 0xA00),
      };
  const std::vector<DeviceStatistics> stats = device_statistics(events);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_EQ(stats[0].device, cuda0);
  EXPECT_EQ(stats[0].bytes.current, 128u);
  EXPECT_EQ(stats[0].bytes.peak, 768u);
  EXPECT_EQ(stats[0].bytes.total, 896u);
  EXPECT_EQ(stats[0].allocations.current, 1u);
  EXPECT_EQ(stats[0].allocations.peak, 2u);
  EXPECT_EQ(stats[0].allocations.total, 3u);
  EXPECT_EQ(stats[1].device, cuda1);
  EXPECT_EQ(stats[1].bytes.current, 64u);
  EXPECT_EQ(stats[1].bytes.peak, 64u);
  EXPECT_EQ(stats[1].bytes.total, 64u);
  EXPECT_EQ(stats[1].allocations.current, 1u);
  EXPECT_EQ(stats[1].allocations.peak, 2u);
  EXPECT_EQ(stats[1].allocations.total, 2u);
}

}  // namespace
}  // namespace devplan::harness
