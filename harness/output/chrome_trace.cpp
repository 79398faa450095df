#include <harness/output/chrome_trace.h>

#include <harness/output/json_document.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <map>
#include <unordered_map>
#include <utility>

#include <harness/json/json.h>
#include <runtime_ext/core/text_join.h>

namespace devplan::harness {
namespace {

std::string serialize(const Json& document) { return write_json(document) + "\n"; }

Json metadata(const char* name, int64_t pid, int64_t tid, const char* key, Json value) {
  Json e;
  e["name"] = name;
  e["ph"] = "M";
  e["pid"] = pid;
  e["tid"] = tid;
  e["args"] = Json::object({{key, std::move(value)}});
  return e;
}

// One event with its members in the order the viewers' documentation lists them: a complete
// event ("X") has a duration, an instant ("i") a scope ("t" thread, "p" process).
Json event(const std::string& name, const char* cat, const char* ph, const char* scope, int64_t ts,
           const int64_t* dur, int64_t pid, int64_t tid, Json args) {
  Json e;
  e["name"] = name;
  e["cat"] = cat;
  e["ph"] = ph;
  if (scope != nullptr) e["s"] = scope;
  e["ts"] = ts;
  if (dur != nullptr) e["dur"] = *dur;
  e["pid"] = pid;
  e["tid"] = tid;
  e["args"] = std::move(args);
  return e;
}

Json complete(const std::string& name, const char* cat, int64_t ts, int64_t dur, int64_t pid,
              int64_t tid, Json args) {
  return event(name, cat, "X", nullptr, ts, &dur, pid, tid, std::move(args));
}

Json instant(const std::string& name, const char* cat, const char* scope, int64_t ts, int64_t pid,
             int64_t tid, Json args) {
  return event(name, cat, "i", scope, ts, nullptr, pid, tid, std::move(args));
}

// Greedy interval partitioning: intervals [begin, end) arrive in order of begin; each goes to
// the lowest lane free at its begin.
class Lanes {
 public:
  size_t place(int64_t begin, int64_t end) {
    for (size_t lane = 0; lane < ends_.size(); ++lane) {
      if (ends_[lane] <= begin) {
        ends_[lane] = end;
        return lane;
      }
    }
    ends_.push_back(end);
    return ends_.size() - 1;
  }
  size_t count() const { return ends_.size(); }

 private:
  std::vector<int64_t> ends_;
};

Json document(const std::string& title, const char* x_axis, Json events) {
  Json doc;
  doc["traceEvents"] = std::move(events);
  doc["otherData"] = Json::object({{"title", title},
                                   {"x_axis", x_axis},
                                   {"generator", "devplan"},
                                   {"devplan_version", devplan_version()},
                                   {"schema_version", kJsonSchemaVersion}});
  return doc;
}

// Writes the process metadata of `devices` (pid = position + 1) and the thread metadata of
// their lanes (lane_names[pid - 1][k] gets tid first_tid[pid - 1] + k).
void write_metadata(Json& out, const std::vector<Device>& devices,
                    const std::vector<int64_t>& first_tid,
                    const std::vector<std::vector<std::string>>& lane_names) {
  for (size_t d = 0; d < devices.size(); ++d) {
    const int64_t pid = static_cast<int64_t>(d) + 1;
    out.push_back(metadata("process_name", pid, pid, "name", devices[d].to_string()));
    out.push_back(metadata("process_sort_index", pid, pid, "sort_index", pid));
    for (size_t k = 0; k < lane_names[d].size(); ++k) {
      const int64_t tid = first_tid[d] + static_cast<int64_t>(k);
      out.push_back(metadata("thread_name", pid, tid, "name", lane_names[d][k]));
      out.push_back(metadata("thread_sort_index", pid, tid, "sort_index", tid));
    }
  }
}

constexpr const char* kAllocationAxis =
    "allocation event index: ts t is the t-th recorded allocator event (0-based; allocations, "
    "failed allocations and frees), dur counts events; the viewer's microseconds are events";
constexpr const char* kPlanAxis =
    "instruction index: ts is the first instruction (0-based, all chains of a method in order) "
    "at which a tensor is live, dur the number of instructions it stays live; the viewer's "
    "microseconds are instructions";

}  // namespace

std::string allocation_trace(const std::string& title, const std::vector<AllocationEvent>& events,
                             const std::vector<AllocationRecord>& leaks) {
  using Kind = AllocationEvent::Kind;
  const int64_t n = static_cast<int64_t>(events.size());

  // Devices (pids) in Device order.
  std::map<Device, size_t> device_slot;
  for (const AllocationEvent& e : events) device_slot.emplace(e.device, 0);
  std::vector<Device> devices;
  for (auto& [device, slot] : device_slot) {
    slot = devices.size();
    devices.push_back(device);
  }

  // Each allocation's free, its sequence number and its lane.
  struct Allocation {
    int64_t free_event = -1;
    uint64_t seq = 0;
    size_t lane = 0;
    const AllocationRecord* leak = nullptr;
  };
  std::map<size_t, Allocation> allocations;      // by event index
  std::unordered_map<const void*, size_t> open;  // pointer -> allocation event index
  std::vector<bool> unknown_free(events.size(), false);
  std::vector<uint64_t> failed_seq(events.size(), 0);
  uint64_t seq = 0;
  for (size_t i = 0; i < events.size(); ++i) {
    const AllocationEvent& e = events[i];
    if (e.kind == Kind::FailedAllocate) {
      failed_seq[i] = ++seq;
    } else if (e.kind == Kind::Allocate) {
      allocations[i].seq = ++seq;
      open[e.ptr] = i;
    } else {
      auto it = open.find(e.ptr);
      if (it == open.end()) {
        unknown_free[i] = true;
      } else {
        allocations[it->second].free_event = static_cast<int64_t>(i);
        open.erase(it);
      }
    }
  }
  for (const AllocationRecord& leak : leaks) {
    auto it = open.find(leak.ptr);
    if (it != open.end() && events[it->second].device == leak.device) {
      allocations[it->second].leak = &leak;
    }
  }
  std::vector<Lanes> lanes(devices.size());
  for (auto& [i, a] : allocations) {
    const int64_t end = a.free_event >= 0 ? a.free_event : n;
    a.lane = lanes[device_slot[events[i].device]].place(static_cast<int64_t>(i), end);
  }

  // Lane tids after the pids.
  std::vector<int64_t> first_tid(devices.size());
  std::vector<std::vector<std::string>> lane_names(devices.size());
  int64_t next_tid = static_cast<int64_t>(devices.size()) + 1;
  for (size_t d = 0; d < devices.size(); ++d) {
    first_tid[d] = next_tid;
    for (size_t k = 0; k < lanes[d].count(); ++k)
      lane_names[d].push_back("lane " + std::to_string(k + 1));
    next_tid += static_cast<int64_t>(lanes[d].count());
  }

  Json out = Json::array();
  write_metadata(out, devices, first_tid, lane_names);
  std::vector<uint64_t> live(devices.size(), 0);
  for (size_t i = 0; i < events.size(); ++i) {
    const AllocationEvent& e = events[i];
    const size_t d = device_slot[e.device];
    const int64_t pid = static_cast<int64_t>(d) + 1;
    const int64_t ts = static_cast<int64_t>(i);
    bool changed = false;
    if (e.kind == Kind::Allocate) {
      const Allocation& a = allocations[i];
      const int64_t tid = first_tid[d] + static_cast<int64_t>(a.lane);
      std::string name = "#" + std::to_string(a.seq);
      if (!e.owner.empty()) name += " " + e.owner;
      if (a.leak != nullptr) name += " (leaked)";
      Json args;
      args["bytes"] = e.size;
      args["alignment"] = e.alignment;
      args["owner"] = e.owner;
      args["seq"] = a.seq;
      args["ptr"] = pointer_text(e.ptr);
      args["alloc_event"] = ts;
      args["free_event"] = a.free_event >= 0 ? Json(a.free_event) : Json(nullptr);
      args["leaked"] = a.leak != nullptr;
      const int64_t end = a.free_event >= 0 ? a.free_event : n;
      out.push_back(complete(name, "memory_allocation", ts, end - ts, pid, tid, std::move(args)));
      if (a.leak != nullptr) {
        out.push_back(
            instant("leak", "leak", "t", ts, pid, tid,
                    Json::object({{"report", format_allocation(*a.leak)}, {"seq", a.leak->seq}})));
      }
      live[d] += e.size;
      changed = true;
    } else if (e.kind == Kind::FailedAllocate) {
      Json args;
      args["bytes"] = e.size;
      args["alignment"] = e.alignment;
      args["owner"] = e.owner;
      args["seq"] = failed_seq[i];
      out.push_back(instant("failed allocation of " + std::to_string(e.size) + " B",
                            "failed_allocation", "p", ts, pid, pid, std::move(args)));
    } else if (unknown_free[i]) {
      out.push_back(instant("free of unknown pointer", "unknown_free", "p", ts, pid, pid,
                            Json::object({{"ptr", pointer_text(e.ptr)}})));
    } else {
      live[d] -= std::min<uint64_t>(live[d], e.size);
      changed = true;
    }
    if (changed) {
      Json c;
      c["name"] = "live";
      c["cat"] = "live_bytes";
      c["ph"] = "C";
      c["ts"] = ts;
      c["pid"] = pid;
      c["tid"] = pid;
      c["args"] = Json::object({{"bytes", live[d]}});
      out.push_back(std::move(c));
    }
  }
  return serialize(document(title, kAllocationAxis, std::move(out)));
}

std::string plan_trace(const std::string& title, const std::vector<PlotMethod>& methods) {
  std::map<Device, size_t> device_slot;
  for (const PlotMethod& m : methods) {
    for (const Device& d : m.plan->buffer_devices) device_slot.emplace(d, 0);
  }
  std::vector<Device> devices;
  for (auto& [device, slot] : device_slot) {
    slot = devices.size();
    devices.push_back(device);
  }

  // Per (method, buffer): its tensors in order of (first, value), each with its lane.
  struct Placed {
    size_t value = 0;
    size_t lane = 0;
  };
  struct Track {
    size_t method = 0;
    size_t buffer = 0;
    size_t device = 0;
    size_t lanes = 1;
    int64_t first_tid = 0;
    std::vector<Placed> tensors;
  };
  std::vector<Track> tracks;
  for (size_t mi = 0; mi < methods.size(); ++mi) {
    const MethodPlan& plan = *methods[mi].plan;
    const MethodCheck& check = methods[mi].check;
    for (size_t b = 0; b < plan.buffer_sizes.size(); ++b) {
      Track track;
      track.method = mi;
      track.buffer = b;
      track.device = device_slot[plan.buffer_devices[b]];
      std::vector<size_t> values;
      for (size_t v = 0; v < plan.values.size() && v < check.lifetimes.size(); ++v) {
        const ValueInfo& value = plan.values[v];
        if (value.tag == ValueTag::Tensor && value.tensor.is_planned() &&
            value.tensor.buffer_index == b && check.lifetimes[v].first >= 0) {
          values.push_back(v);
        }
      }
      std::stable_sort(values.begin(), values.end(), [&](size_t x, size_t y) {
        return check.lifetimes[x].first < check.lifetimes[y].first;
      });
      Lanes lanes;
      for (size_t v : values) {
        const Lifetime& life = check.lifetimes[v];
        track.tensors.push_back({v, lanes.place(life.first, int64_t{life.last} + 1)});
      }
      track.lanes = std::max<size_t>(1, lanes.count());
      tracks.push_back(std::move(track));
    }
  }

  // Tids after the pids, in track order; metadata grouped by process.
  int64_t next_tid = static_cast<int64_t>(devices.size()) + 1;
  for (Track& track : tracks) {
    track.first_tid = next_tid;
    next_tid += static_cast<int64_t>(track.lanes);
  }
  Json out = Json::array();
  for (size_t d = 0; d < devices.size(); ++d) {
    const int64_t pid = static_cast<int64_t>(d) + 1;
    out.push_back(metadata("process_name", pid, pid, "name", devices[d].to_string()));
    out.push_back(metadata("process_sort_index", pid, pid, "sort_index", pid));
    for (const Track& track : tracks) {
      if (track.device != d) continue;
      const std::string base =
          methods[track.method].plan->name + ": buffer " + std::to_string(track.buffer);
      for (size_t k = 0; k < track.lanes; ++k) {
        const int64_t tid = track.first_tid + static_cast<int64_t>(k);
        out.push_back(metadata("thread_name", pid, tid, "name",
                               k == 0 ? base : base + ", lane " + std::to_string(k + 1)));
        out.push_back(metadata("thread_sort_index", pid, tid, "sort_index", tid));
      }
    }
  }

  for (const Track& track : tracks) {
    const MethodPlan& plan = *methods[track.method].plan;
    const MethodCheck& check = methods[track.method].check;
    const int64_t pid = static_cast<int64_t>(track.device) + 1;
    for (const Placed& p : track.tensors) {
      const TensorInfo& t = plan.values[p.value].tensor;
      const Lifetime& life = check.lifetimes[p.value];
      Json args;
      args["method"] = plan.name;
      args["buffer"] = track.buffer;
      args["value"] = p.value;
      args["offset"] = t.offset;
      args["bytes"] = t.nbytes;
      args["dtype"] = scalar_type_name(t.dtype);
      args["sizes"] = t.sizes;
      args["device"] = t.device.to_string();
      args["first"] = life.first;
      args["last"] = life.last;
      if (p.value < check.alias_of.size() && check.alias_of[p.value] >= 0) {
        args["alias_of"] = check.alias_of[p.value];
      }
      out.push_back(complete("value " + std::to_string(p.value), "planned_tensor", life.first,
                             int64_t{life.last} - life.first + 1, pid,
                             track.first_tid + static_cast<int64_t>(p.lane), std::move(args)));
    }
  }
  return serialize(document(title, kPlanAxis, std::move(out)));
}

}  // namespace devplan::harness
