// The fault comparison of `devplan fuzz --differential`, probe by probe: a difference at any
// probe (not only the first) is named with the probe, the engine and what differs.
#include <gtest/gtest.h>

#include <harness/campaign/fault_probe_comparison.h>

namespace devplan::harness {
namespace {

AllocationRecord made(size_t size, DeviceIndex index, const std::string& owner) {
  AllocationRecord r;
  r.seq = 1;
  r.device = Device::cuda(index);
  r.size = size;
  r.alignment = 16;
  r.owner = owner;
  r.live = false;
  return r;
}

FaultProbe failed(std::vector<AllocationRecord> allocations) {
  FaultProbe p;
  p.load = Error(ErrorCode::MemoryAllocationFailed, "injected");
  p.made = std::move(allocations);
  return p;
}

// Three probes of a method with three device buffers, as both engines should make them.
std::vector<FaultProbe> clean_probes() {
  return {failed({}), failed({made(32, 0, "forward/buffer 1")}),
          failed({made(32, 0, "forward/buffer 1"), made(64, 1, "forward/buffer 2")})};
}

TEST(FaultProbeComparison, TheSameProbesAgree) {
  EXPECT_EQ(compare_fault_probes("forward", true, clean_probes(), clean_probes()), std::nullopt);
  EXPECT_EQ(compare_fault_probes("forward", true, {}, {}), std::nullopt);
}

TEST(FaultProbeComparison, AnAllocationThatDiffersInTheLastProbeIsNamed) {
  std::vector<FaultProbe> theirs = clean_probes();
  theirs[2].made[1].size = 48;
  EXPECT_EQ(compare_fault_probes("forward", true, clean_probes(), theirs),
            "load_method(forward) failing its device allocation 3: devplan #1 cuda:1 64 B align "
            "16 owner forward/buffer 2; executorch #1 cuda:1 48 B align 16 owner forward/buffer 2");
  theirs = clean_probes();
  theirs[1].made[0].device = Device::cuda(2);
  EXPECT_EQ(compare_fault_probes("forward", true, clean_probes(), theirs),
            "load_method(forward) failing its device allocation 2: devplan #1 cuda:0 32 B align "
            "16 owner forward/buffer 1; executorch #1 cuda:2 32 B align 16 owner forward/buffer 1");
  theirs = clean_probes();
  theirs[2].made[0].owner = "forward/buffer 9";
  EXPECT_EQ(compare_fault_probes("forward", true, clean_probes(), theirs),
            "load_method(forward) failing its device allocation 3: devplan #1 cuda:0 32 B align "
            "16 owner forward/buffer 1; executorch #1 cuda:0 32 B align 16 owner forward/buffer 9");
}

TEST(FaultProbeComparison, CountsAndCodesOfALaterProbe) {
  std::vector<FaultProbe> theirs = clean_probes();
  theirs[2].made.pop_back();
  EXPECT_EQ(compare_fault_probes("forward", true, clean_probes(), theirs),
            "load_method(forward) failing its device allocation 3: devplan made 2 allocations "
            "first, executorch 1");
  theirs = clean_probes();
  theirs[1].load = Error(ErrorCode::InvalidState, "odd");
  EXPECT_EQ(compare_fault_probes("forward", true, clean_probes(), theirs),
            "load_method(forward) failing its device allocation 2: devplan "
            "MemoryAllocationFailed: injected; executorch InvalidState: odd");
}

TEST(FaultProbeComparison, EveryProbeOfEitherEngineMustFailCleanly) {
  std::vector<FaultProbe> bad = clean_probes();
  bad[2].load = Error::success();
  EXPECT_EQ(compare_fault_probes("m", true, clean_probes(), bad),
            "load_method(m) failing its device allocation 3: executorch loaded it");
  EXPECT_EQ(compare_fault_probes("m", true, bad, clean_probes()),
            "load_method(m) failing its device allocation 3: devplan loaded it");
  bad = clean_probes();
  bad[1].live = 2;
  EXPECT_EQ(compare_fault_probes("m", false, clean_probes(), bad),
            "load_method(m) failing its device allocation 2: executorch left 2 allocations live");
  bad = clean_probes();
  bad[2].misuse = 1;
  EXPECT_EQ(compare_fault_probes("m", false, bad, clean_probes()),
            "load_method(m) failing its device allocation 3: devplan misused its allocator");
  // A probe only one engine made (its count was larger) is still checked.
  bad = clean_probes();
  bad.push_back(failed({}));
  bad.back().live = 1;
  EXPECT_EQ(compare_fault_probes("m", false, clean_probes(), bad),
            "load_method(m) failing its device allocation 4: executorch left 1 allocations live");
}

// With different allocation counts (ExecuTorch's 0-byte allocations), only cleanliness is
// compared: other allocations or codes are not a divergence.
TEST(FaultProbeComparison, DifferentCountsCompareOnlyCleanliness) {
  std::vector<FaultProbe> theirs = clean_probes();
  theirs[1].made[0].size = 0;
  theirs[2].load = Error(ErrorCode::InvalidState, "odd");
  theirs.push_back(failed({}));
  EXPECT_EQ(compare_fault_probes("forward", false, clean_probes(), theirs), std::nullopt);
}

}  // namespace
}  // namespace devplan::harness
