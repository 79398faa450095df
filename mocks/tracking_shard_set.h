// TrackingShardSet: the shards of a TrackingDeviceAllocator (one TrackingShard per device index
// in use, made on first use with the current settings), the locks that let them act as one
// allocator, the sequence counter they share, the settings and the misuse list.
//
// Locking: allocate() and a good free take one shard's lock (shard_for(), existing()); making a
// shard takes the set's lock, then each existing shard's in turn (to tell it that it is no longer
// the only one numbering calls: AllocationSequence::set_sole_user). Anything that may involve
// several devices holds a Locked: the set's own lock, then every shard's in slot order, so no
// shard is made meanwhile and all of them are seen as one. Settings and misuse are written only
// under a Locked and read under the set's lock alone (read()).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include <mocks/block_registry_set.h>
#include <mocks/ledger_records.h>
#include <mocks/tracking_settings.h>
#include <mocks/tracking_shard.h>

namespace devplan {

class TrackingShardSet {
 public:
  // One slot per index 0..kMaxDeviceIndex; negative indices share the last (their calls only fail).
  static constexpr size_t kSlots = kMaxDeviceIndex + 2;

  // `name` starts every layer's messages; with an `upstream`, blocks come from it.
  TrackingShardSet(DeviceType type, const char* name, DeviceAllocator* upstream);
  // Each shard's bottom layer frees every block it still holds.
  ~TrackingShardSet();
  TrackingShardSet(const TrackingShardSet&) = delete;
  TrackingShardSet& operator=(const TrackingShardSet&) = delete;

  // Every existing shard locked, with the set's lock taken first: the allocator as one whole.
  class Locked {
   public:
    explicit Locked(const TrackingShardSet& set);
    ~Locked();
    Locked(const Locked&) = delete;
    Locked& operator=(const Locked&) = delete;

    const std::vector<TrackingShard*>& shards() const { return shards_; }
    // Every shard's blocks as one set (valid while this object lives).
    BlockRegistrySet blocks() const {
      return BlockRegistrySet(registries_.data(), registries_.size());
    }

   private:
    std::lock_guard<std::mutex> set_lock_;
    std::vector<TrackingShard*> shards_;
    std::vector<const BlockRegistry*> registries_;
  };

  // The shard of `index`, made (with the current settings) when it does not exist yet.
  TrackingShard& shard_for(DeviceIndex index);
  // The shard of `index`, or nullptr when no call made one yet. Lock-free.
  TrackingShard* existing(DeviceIndex index) const { return existing_at(slot_of(index)); }
  // The shard in `slot` (< kSlots), or nullptr.
  TrackingShard* existing_at(size_t slot) const {
    return shards_[slot].load(std::memory_order_acquire);
  }

  // Under a Locked: changes the settings with `change(TrackingSettings&)`, then applies them to
  // every shard.
  template <typename Change>
  void change_settings(Change&& change) {
    Locked all(*this);
    change(settings_);
    for (TrackingShard* shard : all.shards()) settings_.apply_to(*shard);
  }
  // Returns `read(settings, misuse)` under the set's lock only.
  template <typename Read>
  auto read(Read&& read) const {
    std::lock_guard<std::mutex> lock(mu_);
    return read(static_cast<const TrackingSettings&>(settings_),
                static_cast<const std::vector<MisuseRecord>&>(misuse_));
  }

  // Appends to the misuse list; `all` proves every lock is held, so the order is the order the
  // misuse happened in.
  void record_misuse(const Locked& all, MisuseRecord record);
  // Forgets every misuse record and restarts the shared sequence (under `all`).
  void clear_misuse_and_calls(const Locked& all);
  // The number of allocate() calls so far (the last sequence number handed out).
  uint64_t calls() const { return calls_.load(std::memory_order_relaxed); }

 private:
  static size_t slot_of(DeviceIndex index) {
    return index < 0 ? kSlots - 1 : static_cast<size_t>(index);
  }

  const DeviceType type_;
  const char* const name_;
  DeviceAllocator* const upstream_;
  std::atomic<uint64_t> calls_{0};  // the sequence counter every shard numbers calls from
  // Guards making shards, settings_ and misuse_; taken before any shard's lock.
  mutable std::mutex mu_;
  std::array<std::atomic<TrackingShard*>, kSlots> shards_{};
  std::array<std::unique_ptr<TrackingShard>, kSlots> owned_;
  TrackingSettings settings_;
  std::vector<MisuseRecord> misuse_;
};

}  // namespace devplan
