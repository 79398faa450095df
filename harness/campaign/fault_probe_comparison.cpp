#include <harness/campaign/fault_probe_comparison.h>

#include <algorithm>

namespace devplan::harness {

std::optional<std::string> compare_fault_probes(const std::string& method, bool same_counts,
                                                const std::vector<FaultProbe>& devplan,
                                                const std::vector<FaultProbe>& executorch) {
  for (size_t j = 0; j < std::max(devplan.size(), executorch.size()); ++j) {
    const std::string when =
        "load_method(" + method + ") failing its device allocation " + std::to_string(j + 1) + ": ";
    for (const std::vector<FaultProbe>* probes : {&devplan, &executorch}) {
      if (j >= probes->size()) continue;
      const FaultProbe& p = (*probes)[j];
      const char* side = probes == &devplan ? "devplan" : "executorch";
      if (p.load.ok()) return when + side + " loaded it";
      if (p.live != 0) return when + side + " left " + std::to_string(p.live) + " allocations live";
      if (p.misuse != 0) return when + side + " misused its allocator";
    }
    if (!same_counts || j >= devplan.size() || j >= executorch.size()) continue;
    const FaultProbe& x = devplan[j];
    const FaultProbe& y = executorch[j];
    if (x.load.code() != y.load.code()) {
      return when + "devplan " + x.load.to_string() + "; executorch " + y.load.to_string();
    }
    if (x.made.size() != y.made.size()) {
      return when + "devplan made " + std::to_string(x.made.size()) +
             " allocations first, executorch " + std::to_string(y.made.size());
    }
    for (size_t k = 0; k < x.made.size(); ++k) {
      if (x.made[k].device != y.made[k].device || x.made[k].size != y.made[k].size ||
          x.made[k].owner != y.made[k].owner) {
        return when + "devplan " + format_allocation(x.made[k]) + "; executorch " +
               format_allocation(y.made[k]);
      }
    }
  }
  return std::nullopt;
}

}  // namespace devplan::harness
