#include <runtime_ext/planning/plan_verifier.h>

#include <algorithm>
#include <functional>
#include <map>
#include <numeric>
#include <queue>
#include <set>

namespace devplan {

const char* plan_violation_kind_name(PlanViolationKind kind) {
  switch (kind) {
    case PlanViolationKind::Overlap:
      return "overlap";
    case PlanViolationKind::Misaligned:
      return "misaligned";
    case PlanViolationKind::OutOfBuffer:
      return "out_of_buffer";
    case PlanViolationKind::WrongDevice:
      return "wrong_device";
    case PlanViolationKind::BadBuffer:
      return "bad_buffer";
    case PlanViolationKind::NotPlanned:
      return "not_planned";
    case PlanViolationKind::Malformed:
      return "malformed";
  }
  return "unknown";
}

namespace {

struct Extent {
  int32_t id;
  uint64_t begin;
  uint64_t end;  // exclusive; begin <= end is guaranteed by the caller
  int32_t first;
  int32_t last;
};

std::string range(uint64_t b, uint64_t e) {
  return "[" + std::to_string(b) + ", " + std::to_string(e) + ")";
}

std::string steps(int32_t a, int32_t b) { return std::to_string(a) + ".." + std::to_string(b); }

// Calls report(a, b) for every pair of extents that share a step and a byte; a started no
// later than b. Sweeps steps with the live extents ordered by offset.
void find_overlaps(std::vector<Extent> extents,
                   const std::function<void(const Extent&, const Extent&)>& report) {
  extents.erase(std::remove_if(extents.begin(), extents.end(),
                               [](const Extent& e) { return e.begin == e.end; }),
                extents.end());
  std::stable_sort(extents.begin(), extents.end(),
                   [](const Extent& a, const Extent& b) { return a.first < b.first; });
  std::multimap<uint64_t, size_t> live;       // begin -> index into extents
  using Ending = std::pair<int32_t, size_t>;  // (last, index)
  std::priority_queue<Ending, std::vector<Ending>, std::greater<>> endings;
  std::multiset<uint64_t> lengths;  // lengths of live extents, for the scan window
  for (size_t i = 0; i < extents.size(); ++i) {
    const Extent& x = extents[i];
    while (!endings.empty() && endings.top().first < x.first) {
      const size_t j = endings.top().second;
      endings.pop();
      auto range_it = live.equal_range(extents[j].begin);
      for (auto it = range_it.first; it != range_it.second; ++it) {
        if (it->second == j) {
          live.erase(it);
          break;
        }
      }
      lengths.erase(lengths.find(extents[j].end - extents[j].begin));
    }
    if (!live.empty()) {
      const uint64_t longest = *lengths.rbegin();
      const uint64_t from = x.begin > longest ? x.begin - longest : 0;
      for (auto it = live.lower_bound(from); it != live.end() && it->first < x.end; ++it) {
        const Extent& y = extents[it->second];
        if (y.end > x.begin) report(y, x);
      }
    }
    live.emplace(x.begin, i);
    lengths.insert(x.end - x.begin);
    endings.emplace(x.last, i);
  }
}

}  // namespace

std::vector<PlanViolation> verify_plan(const MethodMemoryPlan& plan) {
  std::vector<PlanViolation> out;
  const Graph& g = plan.graph;
  const std::string where = "method '" + g.name + "': ";
  auto add = [&](PlanViolationKind kind, int32_t t, int32_t o, const std::string& msg) {
    out.push_back(PlanViolation{kind, t, o, where + msg});
  };
  Error valid = validate_graph(g);
  if (!valid.ok()) {
    add(PlanViolationKind::Malformed, -1, -1, "the planned graph is invalid: " + valid.message());
    return out;
  }
  if (plan.tensors.size() != g.tensors.size()) {
    add(PlanViolationKind::Malformed, -1, -1,
        std::to_string(plan.tensors.size()) + " planned tensors for " +
            std::to_string(g.tensors.size()) + " graph tensors");
    return out;
  }
  if (!is_power_of_two(plan.alignment)) {
    add(PlanViolationKind::Malformed, -1, -1,
        "alignment " + std::to_string(plan.alignment) + " is not a power of two");
    return out;
  }
  if (plan.buffers.empty()) {
    add(PlanViolationKind::Malformed, -1, -1, "the plan has no buffers (expected at least [0, 0])");
  }
  const std::vector<Lifetime> life = compute_lifetimes(g);
  std::vector<std::vector<Extent>> per_buffer(plan.buffers.size());
  for (size_t i = 0; i < g.tensors.size(); ++i) {
    const int32_t t = static_cast<int32_t>(i);
    const PlannedTensor& pt = plan.tensors[i];
    const std::string name = "tensor '" + g.tensors[i].id + "'";
    if (!life[i].planned()) continue;
    if (!pt.planned) {
      add(PlanViolationKind::NotPlanned, t, -1,
          name + " lives at steps " + steps(life[i].first, life[i].last) + " but has no place");
      continue;
    }
    const uint64_t nbytes = g.tensors[i].nbytes;
    if (pt.nbytes != nbytes) {
      add(PlanViolationKind::Malformed, t, -1,
          name + ": planned nbytes " + std::to_string(pt.nbytes) + " differ from the graph's " +
              std::to_string(nbytes));
    }
    if (pt.buffer_index >= plan.buffers.size()) {
      add(PlanViolationKind::BadBuffer, t, -1,
          name + " is in buffer " + std::to_string(pt.buffer_index) + " but the method has " +
              std::to_string(plan.buffers.size()) + " buffers");
      continue;
    }
    const PlannedBuffer& buffer = plan.buffers[pt.buffer_index];
    const std::string in_buffer =
        " in buffer " + std::to_string(pt.buffer_index) + " (" + buffer.device.to_string() + ")";
    if (buffer.device != pt.device) {
      add(PlanViolationKind::WrongDevice, t, -1,
          name + " on " + pt.device.to_string() + " is" + in_buffer);
    }
    if (pt.offset % plan.alignment != 0) {
      add(PlanViolationKind::Misaligned, t, -1,
          name + " at offset " + std::to_string(pt.offset) + in_buffer + " is not aligned to " +
              std::to_string(plan.alignment));
    }
    if (pt.offset > buffer.size || nbytes > buffer.size - pt.offset) {
      const bool wraps = nbytes > UINT64_MAX - pt.offset;
      add(PlanViolationKind::OutOfBuffer, t, -1,
          name + " at " +
              (wraps ? "offset " + std::to_string(pt.offset) + " + " + std::to_string(nbytes) +
                           " bytes (overflows)"
                     : range(pt.offset, pt.offset + nbytes)) +
              " ends past" + in_buffer + " of " + std::to_string(buffer.size) + " bytes");
      continue;  // its range is meaningless for overlaps
    }
    per_buffer[pt.buffer_index].push_back(
        Extent{t, pt.offset, pt.offset + nbytes, life[i].first, life[i].last});
  }
  for (size_t b = 0; b < per_buffer.size(); ++b) {
    find_overlaps(per_buffer[b], [&](const Extent& x, const Extent& y) {
      const std::string& xa = g.tensors[x.id].id;
      const std::string& ya = g.tensors[y.id].id;
      add(PlanViolationKind::Overlap, x.id, y.id,
          "tensors '" + xa + "' and '" + ya + "' share bytes " +
              range(std::max(x.begin, y.begin), std::min(x.end, y.end)) + " of buffer " +
              std::to_string(b) + " (" + plan.buffers[b].device.to_string() + ") at steps " +
              steps(std::max(x.first, y.first), std::min(x.last, y.last)) + ": '" + xa + "' " +
              range(x.begin, x.end) + " steps " + steps(x.first, x.last) + ", '" + ya + "' " +
              range(y.begin, y.end) + " steps " + steps(y.first, y.last));
    });
  }
  return out;
}

std::vector<PlanViolation> verify_offsets(const std::vector<PlanItem>& items,
                                          const std::vector<uint64_t>& offsets,
                                          uint64_t buffer_size, uint64_t alignment) {
  std::vector<PlanViolation> out;
  if (offsets.size() != items.size()) {
    out.push_back(PlanViolation{PlanViolationKind::Malformed, -1, -1,
                                std::to_string(offsets.size()) + " offsets for " +
                                    std::to_string(items.size()) + " items"});
    return out;
  }
  if (!is_power_of_two(alignment)) {
    out.push_back(
        PlanViolation{PlanViolationKind::Malformed, -1, -1,
                      "alignment " + std::to_string(alignment) + " is not a power of two"});
    return out;
  }
  std::vector<Extent> extents;
  for (size_t i = 0; i < items.size(); ++i) {
    const PlanItem& it = items[i];
    const int32_t id = static_cast<int32_t>(i);
    const std::string name = "item " + std::to_string(i);
    if (it.first < 0) continue;
    if (it.last < it.first) {
      out.push_back(PlanViolation{
          PlanViolationKind::Malformed, id, -1,
          name + ": lifetime " + steps(it.first, it.last) + " ends before it starts"});
      continue;
    }
    if (offsets[i] % alignment != 0) {
      out.push_back(PlanViolation{PlanViolationKind::Misaligned, id, -1,
                                  name + " at offset " + std::to_string(offsets[i]) +
                                      " is not aligned to " + std::to_string(alignment)});
    }
    if (offsets[i] > buffer_size || it.size > buffer_size - offsets[i]) {
      out.push_back(PlanViolation{PlanViolationKind::OutOfBuffer, id, -1,
                                  name + " of " + std::to_string(it.size) + " bytes at offset " +
                                      std::to_string(offsets[i]) + " ends past the buffer of " +
                                      std::to_string(buffer_size) + " bytes"});
      continue;
    }
    extents.push_back(Extent{id, offsets[i], offsets[i] + it.size, it.first, it.last});
  }
  find_overlaps(std::move(extents), [&](const Extent& x, const Extent& y) {
    out.push_back(PlanViolation{
        PlanViolationKind::Overlap, x.id, y.id,
        "items " + std::to_string(x.id) + " and " + std::to_string(y.id) + " share bytes " +
            range(std::max(x.begin, y.begin), std::min(x.end, y.end)) + " at steps " +
            steps(std::max(x.first, y.first), std::min(x.last, y.last))});
  });
  return out;
}

}  // namespace devplan
