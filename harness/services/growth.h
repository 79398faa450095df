// Growth between two figures, as `devplan diff` and `devplan budget check` judge and print it.
//
//   grows_beyond(48, 64, 10.0)   -> true (64 > 48 * 1.10)
//   byte_change_text(48, 64)     -> "48 B -> 64 B (+16 B, +33.33%)"
//   count_change_text(1, 2)      -> "1 -> 2 (+1, +100.00%)"
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>

#include <runtime_ext/core/device.h>

namespace devplan::harness {

// True when `now` exceeds `before` by more than `tolerance_pct` percent of `before` (anything
// above zero grows beyond every tolerance when `before` is zero).
bool grows_beyond(uint64_t before, uint64_t now, double tolerance_pct);

// (now - before) / before in percent; nullopt when `before` is zero.
std::optional<double> growth_percent(uint64_t before, uint64_t now);

// "+33.33%", "-25.00%", "+0.00%"; "new" when `before` is zero and `now` is not.
std::string percent_change_text(uint64_t before, uint64_t now);

// "48 B -> 64 B (+16 B, +33.33%)", sizes with units.
std::string byte_change_text(uint64_t before, uint64_t now);

// "1 -> 2 (+1, +100.00%)".
std::string count_change_text(uint64_t before, uint64_t now);

// "0%", "2.5%": a tolerance as the user wrote it.
std::string tolerance_text(double pct);

// The devices either of two per-device figures has (maps keyed by Device), in order.
template <typename Map>
std::set<Device> devices_of(const Map& before, const Map& now) {
  std::set<Device> devices;
  for (const auto& entry : before) devices.insert(entry.first);
  for (const auto& entry : now) devices.insert(entry.first);
  return devices;
}

}  // namespace devplan::harness
