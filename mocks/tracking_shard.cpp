#include <mocks/tracking_shard.h>

namespace devplan {

TrackingShard::TrackingShard(DeviceType type, const char* name,
                             std::atomic<uint64_t>* sequence_counter, DeviceAllocator* upstream)
    : sequence_(sequence_counter),
      store_(type, name, upstream, &blocks_),
      limits_(&store_, name),
      faults_(&limits_, &sequence_, name),
      devices_(&faults_, name),
      stats_(&devices_, name),
      ledger_(&stats_, &sequence_, name, &blocks_),
      fused_(type, sequence_, blocks_, store_, limits_, faults_, devices_, stats_) {}

}  // namespace devplan
