#include <mocks/tracking_shard.h>

namespace devplan {

TrackingShard::TrackingShard(DeviceType type, const char* name,
                             std::atomic<uint64_t>* sequence_counter, DeviceAllocator* upstream)
    : sequence_(sequence_counter),
      host_(type, name, upstream),
      limits_(&host_, name),
      faults_(&limits_, &sequence_, name),
      devices_(&faults_, name),
      stats_(&devices_, name),
      ledger_(&stats_, &sequence_, name) {
  host_.set_release_listener([this](const void* ptr) { ledger_.memory_released(ptr); });
}

}  // namespace devplan
