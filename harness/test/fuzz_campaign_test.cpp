// The campaign under `devplan fuzz`: what minimisation keeps, what progress says while the
// cases run, and the allocation totals of clean cases.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include <harness/campaign/fuzz_campaign.h>
#include <harness/campaign/progress_pacer.h>
#include <harness/engine/device_environment.h>
#include <harness/options/fuzz_command_line.h>
#include <harness/scenario/seeded_generator.h>
#include <harness/scenario/writer.h>

namespace devplan::harness {
namespace {

CampaignOptions campaign(uint64_t seed) {
  CampaignOptions o;
  o.seed = seed;
  o.scenario.max_buffer_bytes = uint64_t{64} * 1024;
  return o;
}

// A leak needs one device buffer and nothing else: minimisation removes every other item of
// every list, the first ones included, whatever the case it starts from.
TEST(FuzzCampaign, AMinimisedLeakIsOneDeviceBufferAlone) {
  for (uint64_t seed = 1; seed <= 12; ++seed) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    CampaignOptions o = campaign(seed);
    o.max_cases = 50;
    o.checks.unload_bug = UnloadBug::SkipFree;
    const CampaignResult r = run_campaign(o, {});
    ASSERT_TRUE(r.failure.has_value());
    EXPECT_EQ(r.failure->finding.check, "cleanup");
    const ProgramScenario& minimal = r.failure->minimal;
    ASSERT_EQ(minimal.methods.size(), 1u);
    const MethodScenario& m = minimal.methods[0];
    ASSERT_EQ(m.buffers.size(), 1u);
    EXPECT_FALSE(m.buffers[0].device.is_cpu());
    EXPECT_GT(m.buffers[0].size, 0u);
    EXPECT_TRUE(m.tensors.empty());
    EXPECT_TRUE(m.values.empty());
    EXPECT_TRUE(m.instructions.empty());
    EXPECT_TRUE(m.inputs.empty());
    EXPECT_TRUE(m.outputs.empty());
    EXPECT_GT(r.failure->shrink_steps, 0u);
  }
}

// While a clean campaign runs, progress counts the cases so far and no failure; the last call
// gives the totals.
TEST(FuzzCampaign, ProgressCountsCasesAndNoFailureUntilOne) {
  CampaignOptions o = campaign(4);
  o.max_seconds = 1.0;  // progress comes every 200 ms: several calls even when a case is slow
  std::vector<CampaignProgress> seen;
  const CampaignResult r = run_campaign(o, [&](const CampaignProgress& p) { seen.push_back(p); });
  ASSERT_GE(seen.size(), 2u);  // at least one on the way (every 200 ms) and the last
  for (size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].failures, 0u) << "call " << i;
    if (i > 0) EXPECT_GE(seen[i].cases, seen[i - 1].cases);
  }
  EXPECT_EQ(seen.back().cases, r.cases);
  EXPECT_FALSE(r.failure.has_value());
}

// In clean cases every device allocation is freed: the totals say as many frees as allocations.
TEST(FuzzCampaign, CleanCasesFreeEveryAllocationTheyMake) {
  CampaignOptions o = campaign(6);
  o.max_cases = 40;
  const CampaignResult r = run_campaign(o, {});
  ASSERT_FALSE(r.failure.has_value()) << r.failure->finding.message;
  EXPECT_EQ(r.cases, 40u);
  // The cases come from the seed alone, so their allocations are fixed.
  EXPECT_EQ(r.totals.allocations, 2123u);
  EXPECT_EQ(r.totals.frees, 2123u);
  EXPECT_EQ(r.totals.allocated_bytes, 13725406u);
}

// Plain progress lines come one interval apart, measured from the last line written.
TEST(ProgressPacer, OneLineEachIntervalFromTheLastOne) {
  ProgressPacer pacer(2.0);
  EXPECT_FALSE(pacer.due(0.0));
  EXPECT_FALSE(pacer.due(1.99));
  EXPECT_TRUE(pacer.due(2.0));
  EXPECT_FALSE(pacer.due(3.9));
  EXPECT_TRUE(pacer.due(4.5));  // the next is due at 6.5, not at 6 nor at 9
  EXPECT_FALSE(pacer.due(6.4));
  EXPECT_TRUE(pacer.due(6.5));
  EXPECT_TRUE(pacer.due(30.0));  // after a long case, one line, not one per missed interval
  EXPECT_FALSE(pacer.due(31.0));
}

// The placement check holds a load to its ledger entry by entry: the device, size, alignment,
// owner and pointer of each device buffer's allocation. A ledger that names another owner for
// the buffer is a finding that shows the allocation.
TEST(FuzzCampaign, PlacementChecksEveryFieldOfTheAllocation) {
  ProgramScenario s;
  size_t mi = 0;
  for (uint64_t seed = 1; s.methods.empty(); ++seed) {
    ProgramScenario candidate =
        resolve_program_draft(generate_program_draft(seed, command_line_scenario()));
    for (size_t i = 0; i < candidate.methods.size(); ++i) {
      for (const ScenarioBuffer& b : candidate.methods[i].buffers) {
        if (!b.device.is_cpu() && b.size > 0 && s.methods.empty()) {
          s = candidate;
          mi = i;
        }
      }
    }
  }
  const MethodScenario& m = s.methods[mi];
  std::unique_ptr<DeviceEnvironment> env =
      std::move(DeviceEnvironment::create(DeviceKind::Simulated)).value();
  Module module(build_program(s), env->module_options());
  ASSERT_TRUE(module.load_method(m.name).ok());
  std::vector<AllocationRecord> ledger = env->tracking()->ledger();
  ASSERT_FALSE(ledger.empty());
  EXPECT_EQ(check_placement(m, module, ledger, 0), std::nullopt);
  const std::string right_owner = ledger[0].owner;
  ledger[0].owner = m.name + "/buffer 99";
  std::optional<FuzzFinding> f = check_placement(m, module, ledger, 0);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->check, "placement");
  EXPECT_EQ(f->message,
            "buffer 0 of encode (3440 B on cuda:1) got #1 cuda:1 3440 B (3.4 KiB) align 16 owner "
            "encode/buffer 99");
  ledger[0].owner = right_owner;
  ledger[0].alignment = 8;
  EXPECT_EQ(check_placement(m, module, ledger, 0).value_or(FuzzFinding()).message,
            "buffer 0 of encode (3440 B on cuda:1) got #1 cuda:1 3440 B (3.4 KiB) align 8 owner "
            "encode/buffer 0");
  ledger[0].alignment = 16;
  ledger[0].size += 1;
  EXPECT_EQ(check_placement(m, module, ledger, 0).value_or(FuzzFinding()).message,
            "buffer 0 of encode (3440 B on cuda:1) got #1 cuda:1 3441 B (3.4 KiB) align 16 owner "
            "encode/buffer 0");
}

}  // namespace
}  // namespace devplan::harness
