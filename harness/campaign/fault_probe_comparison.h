// The fault part of the differential check (differential_check.h): one method loaded again and
// again with its j-th device allocation failing, in both engines, compared probe by probe.
//
//   std::optional<std::string> d = compare_fault_probes("forward", same_counts, ours, theirs);
//   if (d) report("differential", *d);
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <mocks/ledger_records.h>
#include <runtime_ext/core/result.h>

namespace devplan::harness {

// One load of a method with its j-th device allocation failing.
struct FaultProbe {
  Error load;
  std::vector<AllocationRecord> made;  // the allocations that load made
  size_t live = 0;                     // allocations still live after it
  size_t misuse = 0;                   // 1 when any misuse was recorded so far
};

// What differs between the probes of `method` in runtime_ext (`devplan`) and ExecuTorch
// (`executorch`), probe j against probe j, or nullopt. Every probe of either engine must fail
// its load and leave nothing live and no misuse. When both made the same number of device
// allocations in a plain load (`same_counts`), probe j must also fail with the same code after
// the same allocations (device, size, owner) in both; otherwise only cleanliness is compared.
// The message names the probe: "load_method(forward) failing its device allocation 2: ...".
std::optional<std::string> compare_fault_probes(const std::string& method, bool same_counts,
                                                const std::vector<FaultProbe>& devplan,
                                                const std::vector<FaultProbe>& executorch);

}  // namespace devplan::harness
