#include <mocks/tracking_shard_set.h>

#include <utility>

namespace devplan {

TrackingShardSet::Locked::Locked(const TrackingShardSet& set) : set_lock_(set.mu_) {
  for (const std::unique_ptr<TrackingShard>& shard : set.owned_) {
    if (shard == nullptr) continue;
    shard->mutex().lock();
    shards_.push_back(shard.get());
    registries_.push_back(&shard->ledger().blocks());
  }
}

TrackingShardSet::Locked::~Locked() {
  for (auto it = shards_.rbegin(); it != shards_.rend(); ++it) (*it)->mutex().unlock();
}

TrackingShardSet::TrackingShardSet(DeviceType type, const char* name, DeviceAllocator* upstream)
    : type_(type), name_(name), upstream_(upstream), settings_(upstream != nullptr) {}

TrackingShardSet::~TrackingShardSet() = default;

TrackingShard& TrackingShardSet::shard_for(DeviceIndex index) {
  if (TrackingShard* shard = existing(index)) return *shard;
  std::lock_guard<std::mutex> lock(mu_);
  const size_t slot = slot_of(index);
  if (owned_[slot] == nullptr) {
    auto shard = std::make_unique<TrackingShard>(type_, name_, &calls_, upstream_);
    settings_.apply_to(*shard);
    // A shard alone numbers calls without a locked instruction; the others stop doing so, each
    // under its own lock, before this one can take a number.
    bool alone = true;
    for (const std::unique_ptr<TrackingShard>& other : owned_) {
      if (other == nullptr) continue;
      alone = false;
      std::lock_guard<std::mutex> other_lock(other->mutex());
      other->set_sole_numbering(false);
    }
    shard->set_sole_numbering(alone);
    shards_[slot].store(shard.get(), std::memory_order_release);
    owned_[slot] = std::move(shard);
  }
  return *owned_[slot];
}

void TrackingShardSet::record_misuse(const Locked& /*all*/, MisuseRecord record) {
  misuse_.push_back(std::move(record));
}

void TrackingShardSet::clear_misuse_and_calls(const Locked& /*all*/) {
  misuse_.clear();
  calls_.store(0, std::memory_order_relaxed);
}

}  // namespace devplan
