#include <gtest/gtest.h>

#include <harness/output/chrome_trace.h>
#include <runtime_ext/analysis/plan_check.h>

#include <fixtures/generator/fixture_programs.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <random>

#include <nlohmann/json.hpp>

namespace devplan::harness {
namespace {

using nlohmann::json;

const void* address(uintptr_t a) { return reinterpret_cast<const void*>(a); }

AllocationEvent allocate(Device device, size_t size, size_t alignment, const std::string& owner,
                         uintptr_t ptr) {
  AllocationEvent e;
  e.kind = AllocationEvent::Kind::Allocate;
  e.device = device;
  e.size = size;
  e.alignment = alignment;
  e.owner = owner;
  e.ptr = address(ptr);
  return e;
}

AllocationEvent failed(Device device, size_t size, size_t alignment, const std::string& owner) {
  AllocationEvent e;
  e.kind = AllocationEvent::Kind::FailedAllocate;
  e.device = device;
  e.size = size;
  e.alignment = alignment;
  e.owner = owner;
  return e;
}

// As RecordingDeviceAllocator records it: the size of the allocation, 0 for an unknown pointer.
AllocationEvent free_of(Device device, size_t size, uintptr_t ptr) {
  AllocationEvent e;
  e.kind = AllocationEvent::Kind::Free;
  e.device = device;
  e.size = size;
  e.ptr = address(ptr);
  return e;
}

// Parses a trace and checks the document's shape: an object with an array "traceEvents" and
// "otherData" naming the title and generator, ending in one newline.
json parse_trace(const std::string& text, const std::string& title) {
  EXPECT_FALSE(text.empty());
  EXPECT_EQ(text.back(), '\n');
  EXPECT_EQ(text.find('\n'), text.size() - 1) << "one line";
  json doc = json::parse(text);
  EXPECT_TRUE(doc.is_object());
  EXPECT_EQ(doc.size(), 2u);
  EXPECT_TRUE(doc["traceEvents"].is_array());
  EXPECT_EQ(doc["otherData"]["title"], title);
  EXPECT_EQ(doc["otherData"]["generator"], "devplan");
  EXPECT_TRUE(doc["otherData"]["x_axis"].is_string());
  return doc;
}

void expect_events(const json& actual, const json& expected) {
  ASSERT_TRUE(actual.is_array());
  ASSERT_EQ(actual.size(), expected.size()) << actual.dump(1);
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(actual[i], expected[i]) << "event " << i << "\n actual:   " << actual[i].dump()
                                      << "\n expected: " << expected[i].dump();
  }
}

// Complete events on one (pid, tid) never partly overlap (viewers drop improperly nested
// slices); ours never even touch more than end to start.
void expect_lanes_disjoint(const json& events) {
  std::map<std::pair<int64_t, int64_t>, std::vector<std::pair<int64_t, int64_t>>> by_thread;
  for (const json& e : events) {
    if (e["ph"] != "X") continue;
    EXPECT_GT(e["dur"].get<int64_t>(), 0) << e.dump();
    by_thread[{e["pid"].get<int64_t>(), e["tid"].get<int64_t>()}].emplace_back(
        e["ts"].get<int64_t>(), e["ts"].get<int64_t>() + e["dur"].get<int64_t>());
  }
  for (auto& [thread, spans] : by_thread) {
    std::sort(spans.begin(), spans.end());
    for (size_t k = 1; k < spans.size(); ++k) {
      EXPECT_LE(spans[k - 1].second, spans[k].first)
          << "pid " << thread.first << " tid " << thread.second;
    }
  }
}

// Every pid and tid an event uses is named by metadata; the tids are unique across processes.
void expect_named_tracks(const json& events) {
  std::map<int64_t, std::string> processes;
  std::map<int64_t, int64_t> thread_pid;
  for (const json& e : events) {
    if (e["ph"] != "M") continue;
    const int64_t pid = e["pid"].get<int64_t>(), tid = e["tid"].get<int64_t>();
    if (e["name"] == "process_name") processes[pid] = e["args"]["name"].get<std::string>();
    if (e["name"] == "thread_name") {
      EXPECT_EQ(thread_pid.count(tid), 0u) << "tid " << tid << " named twice";
      EXPECT_EQ(processes.count(pid), 1u) << "thread before its process";
      thread_pid[tid] = pid;
    }
  }
  for (const json& e : events) {
    if (e["ph"] == "M") continue;
    const int64_t pid = e["pid"].get<int64_t>(), tid = e["tid"].get<int64_t>();
    EXPECT_EQ(processes.count(pid), 1u) << e.dump();
    if (tid == pid) {
      EXPECT_NE(e["ph"], "X") << "complete events sit on lanes: " << e.dump();
      EXPECT_EQ(thread_pid.count(tid), 0u);
    } else {
      ASSERT_EQ(thread_pid.count(tid), 1u) << e.dump();
      EXPECT_EQ(thread_pid[tid], pid) << e.dump();
    }
  }
}

TEST(ChromeTraceTest, AllocationTraceHasOneTrackPerDeviceAndAnEventPerAllocation) {
  const Device cuda0 = Device::cuda(0), cuda1 = Device::cuda(1);
  const std::vector<AllocationEvent> events = {
      allocate(cuda0, 48, 16, "forward/buffer 1", 0x1000),  // 0: seq 1, freed at 4
      allocate(cuda1, 32, 256, "", 0x2000),                 // 1: seq 2, freed at 6
      failed(cuda0, 1024, 16, "forward/buffer 2"),          // 2: seq 3
      allocate(cuda0, 64, 16, "forward/buffer 2", 0x3000),  // 3: seq 4, leaked
      free_of(cuda0, 48, 0x1000),                           // 4
      allocate(cuda0, 16, 16, "scratch", 0x4000),           // 5: seq 5, never freed, not a leak
      free_of(cuda1, 32, 0x2000),                           // 6
      free_of(cuda0, 0, 0x9999),                            // 7: unknown pointer
  };
  std::vector<AllocationRecord> leaks;
  for (const AllocationRecord& r : ledger_from_events(events)) {
    if (r.seq == 4) leaks.push_back(r);
  }
  ASSERT_EQ(leaks.size(), 1u);
  ASSERT_TRUE(leaks[0].live);

  const json doc = parse_trace(allocation_trace("prog.pte", events, leaks), "prog.pte");
  EXPECT_EQ(doc["otherData"]["x_axis"].get<std::string>().rfind("allocation event index", 0), 0u);
  // cuda:0 is pid 1 with lanes tid 3 (allocations #1, #5) and tid 4 (#4, overlapping #1);
  // cuda:1 is pid 2 with lane tid 5. Counters and process instants use tid = pid.
  const json expected = R"JSON([
    {"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"cuda:0"}},
    {"name":"process_sort_index","ph":"M","pid":1,"tid":1,"args":{"sort_index":1}},
    {"name":"thread_name","ph":"M","pid":1,"tid":3,"args":{"name":"lane 1"}},
    {"name":"thread_sort_index","ph":"M","pid":1,"tid":3,"args":{"sort_index":3}},
    {"name":"thread_name","ph":"M","pid":1,"tid":4,"args":{"name":"lane 2"}},
    {"name":"thread_sort_index","ph":"M","pid":1,"tid":4,"args":{"sort_index":4}},
    {"name":"process_name","ph":"M","pid":2,"tid":2,"args":{"name":"cuda:1"}},
    {"name":"process_sort_index","ph":"M","pid":2,"tid":2,"args":{"sort_index":2}},
    {"name":"thread_name","ph":"M","pid":2,"tid":5,"args":{"name":"lane 1"}},
    {"name":"thread_sort_index","ph":"M","pid":2,"tid":5,"args":{"sort_index":5}},

    {"name":"#1 forward/buffer 1","cat":"memory_allocation","ph":"X","ts":0,"dur":4,"pid":1,"tid":3,
     "args":{"bytes":48,"alignment":16,"owner":"forward/buffer 1","seq":1,"ptr":"0x1000",
             "alloc_event":0,"free_event":4,"leaked":false}},
    {"name":"live","cat":"live_bytes","ph":"C","ts":0,"pid":1,"tid":1,"args":{"bytes":48}},

    {"name":"#2","cat":"memory_allocation","ph":"X","ts":1,"dur":5,"pid":2,"tid":5,
     "args":{"bytes":32,"alignment":256,"owner":"","seq":2,"ptr":"0x2000",
             "alloc_event":1,"free_event":6,"leaked":false}},
    {"name":"live","cat":"live_bytes","ph":"C","ts":1,"pid":2,"tid":2,"args":{"bytes":32}},

    {"name":"failed allocation of 1024 B","cat":"failed_allocation","ph":"i","s":"p","ts":2,
     "pid":1,"tid":1,"args":{"bytes":1024,"alignment":16,"owner":"forward/buffer 2","seq":3}},

    {"name":"#4 forward/buffer 2 (leaked)","cat":"memory_allocation","ph":"X","ts":3,"dur":5,
     "pid":1,"tid":4,
     "args":{"bytes":64,"alignment":16,"owner":"forward/buffer 2","seq":4,"ptr":"0x3000",
             "alloc_event":3,"free_event":null,"leaked":true}},
    {"name":"leak","cat":"leak","ph":"i","s":"t","ts":3,"pid":1,"tid":4,
     "args":{"report":"#4 cuda:0 64 B align 16 owner forward/buffer 2","seq":4}},
    {"name":"live","cat":"live_bytes","ph":"C","ts":3,"pid":1,"tid":1,"args":{"bytes":112}},

    {"name":"live","cat":"live_bytes","ph":"C","ts":4,"pid":1,"tid":1,"args":{"bytes":64}},

    {"name":"#5 scratch","cat":"memory_allocation","ph":"X","ts":5,"dur":3,"pid":1,"tid":3,
     "args":{"bytes":16,"alignment":16,"owner":"scratch","seq":5,"ptr":"0x4000",
             "alloc_event":5,"free_event":null,"leaked":false}},
    {"name":"live","cat":"live_bytes","ph":"C","ts":5,"pid":1,"tid":1,"args":{"bytes":80}},

    {"name":"live","cat":"live_bytes","ph":"C","ts":6,"pid":2,"tid":2,"args":{"bytes":0}},

    {"name":"free of unknown pointer","cat":"unknown_free","ph":"i","s":"p","ts":7,"pid":1,"tid":1,
     "args":{"ptr":"0x9999"}}
  ])JSON"_json;
  expect_events(doc["traceEvents"], expected);
  expect_lanes_disjoint(doc["traceEvents"]);
  expect_named_tracks(doc["traceEvents"]);
}

TEST(ChromeTraceTest, EveryLeakOfTheLedgerIsMarkedAndRunsToTheEnd) {
  const Device cuda0 = Device::cuda(0);
  const std::vector<AllocationEvent> events = {
      allocate(cuda0, 8, 16, "a", 0x10),  // leaked
      allocate(cuda0, 8, 16, "b", 0x20), free_of(cuda0, 8, 0x20),
      allocate(cuda0, 8, 16, "c", 0x20),  // the same address again, leaked
  };
  std::vector<AllocationRecord> leaks;
  for (const AllocationRecord& r : ledger_from_events(events)) {
    if (r.live) leaks.push_back(r);
  }
  ASSERT_EQ(leaks.size(), 2u);
  const json doc = parse_trace(allocation_trace("t", events, leaks), "t");
  std::vector<std::string> leaked_names, leak_reports;
  std::map<std::string, std::pair<int64_t, int64_t>> spans;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "X") {
      const std::string name = e["name"].get<std::string>();
      spans[name] = {e["ts"].get<int64_t>(), e["dur"].get<int64_t>()};
      if (e["args"]["leaked"] == true) leaked_names.push_back(name);
    }
    if (e["ph"] == "i" && e["cat"] == "leak") {
      leak_reports.push_back(e["args"]["report"].get<std::string>());
    }
  }
  EXPECT_EQ(leaked_names, (std::vector<std::string>{"#1 a (leaked)", "#3 c (leaked)"}));
  EXPECT_EQ(leak_reports, (std::vector<std::string>{"#1 cuda:0 8 B align 16 owner a",
                                                    "#3 cuda:0 8 B align 16 owner c"}));
  EXPECT_EQ(spans["#1 a (leaked)"], (std::pair<int64_t, int64_t>{0, 4}));
  EXPECT_EQ(spans["#2 b"], (std::pair<int64_t, int64_t>{1, 1}));
  EXPECT_EQ(spans["#3 c (leaked)"], (std::pair<int64_t, int64_t>{3, 1}));
  expect_lanes_disjoint(doc["traceEvents"]);
}

TEST(ChromeTraceTest, LeaksThatNoRecordedAllocationReturnedAreNotDrawn) {
  const std::vector<AllocationEvent> events = {allocate(Device::cuda(0), 8, 16, "", 0x10),
                                               free_of(Device::cuda(0), 8, 0x10)};
  AllocationRecord stale;  // freed in the events: not drawn as a leak
  stale.seq = 1;
  stale.device = Device::cuda(0);
  stale.size = 8;
  stale.alignment = 16;
  stale.ptr = address(0x10);
  AllocationRecord elsewhere = stale;  // a pointer never recorded
  elsewhere.ptr = address(0x99);
  const json doc = parse_trace(allocation_trace("t", events, {stale, elsewhere}), "t");
  for (const json& e : doc["traceEvents"]) {
    EXPECT_NE(e.value("cat", ""), "leak");
    if (e["ph"] == "X") {
      EXPECT_EQ(e["args"]["leaked"], false);
    }
  }
}

TEST(ChromeTraceTest, EmptyInputsGiveAnEmptyEventList) {
  json doc = parse_trace(allocation_trace("none", {}, {}), "none");
  EXPECT_EQ(doc["traceEvents"], json::array());
  doc = parse_trace(plan_trace("none", {}), "none");
  EXPECT_EQ(doc["traceEvents"], json::array());
  EXPECT_EQ(doc["otherData"]["x_axis"].get<std::string>().rfind("instruction index", 0), 0u);
}

TEST(ChromeTraceTest, TitlesAndOwnersAreEscaped) {
  const std::string odd = "a\"b\\c\n\x01 \xff";
  const std::vector<AllocationEvent> events = {allocate(Device::cuda(0), 1, 1, odd, 0x10)};
  const std::string text = allocation_trace(odd, events, {});
  const json doc = json::parse(text);  // invalid UTF-8 is replaced, not thrown
  EXPECT_EQ(doc["otherData"]["title"], "a\"b\\c\n\x01 \xef\xbf\xbd");
  EXPECT_EQ(text.find('\n'), text.size() - 1);
}

// Many interleaved allocations on three devices: lanes stay disjoint, each allocation is one
// X event lasting until its free, and the last counter of each device is what stays live.
TEST(ChromeTraceTest, LanesNeverOverlapOnAShuffledSequence) {
  std::mt19937 rng(7);
  std::vector<AllocationEvent> events;
  std::vector<std::pair<Device, uintptr_t>> live;
  uintptr_t next = 0x1000;
  std::map<Device, uint64_t> live_bytes;
  size_t allocations = 0;
  for (int k = 0; k < 400; ++k) {
    if (live.empty() || rng() % 3 != 0) {
      const Device d = Device::cuda(static_cast<DeviceIndex>(rng() % 3));
      events.push_back(allocate(d, 16, 16, "", next));
      live.emplace_back(d, next);
      live_bytes[d] += 16;
      next += 0x100;
      ++allocations;
    } else {
      const size_t pick = rng() % live.size();
      events.push_back(free_of(live[pick].first, 16, live[pick].second));
      live_bytes[live[pick].first] -= 16;
      live.erase(live.begin() + static_cast<std::ptrdiff_t>(pick));
    }
  }
  const json doc = parse_trace(allocation_trace("t", events, {}), "t");
  size_t complete = 0;
  std::map<int64_t, uint64_t> last_counter;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "X") ++complete;
    if (e["ph"] == "C") last_counter[e["pid"].get<int64_t>()] = e["args"]["bytes"].get<uint64_t>();
  }
  EXPECT_EQ(complete, allocations);
  ASSERT_EQ(last_counter.size(), 3u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(last_counter[i + 1], live_bytes[Device::cuda(static_cast<DeviceIndex>(i))]);
  }
  expect_lanes_disjoint(doc["traceEvents"]);
  expect_named_tracks(doc["traceEvents"]);
}

ValueInfo planned(uint32_t buffer, uint64_t offset, uint64_t nbytes, Device device,
                  ScalarType dtype = ScalarType::Float) {
  ValueInfo v;
  v.tag = ValueTag::Tensor;
  v.tensor.storage = TensorStorage::Planned;
  v.tensor.dtype = dtype;
  v.tensor.sizes = {static_cast<int32_t>(nbytes / element_size(dtype))};
  v.tensor.nbytes = nbytes;
  v.tensor.device = device;
  v.tensor.buffer_index = buffer;
  v.tensor.offset = offset;
  return v;
}

TEST(ChromeTraceTest, PlanTraceHasALanePerOverlapAndAnEventPerLiveTensor) {
  MethodPlan m;
  m.name = "m";
  m.buffer_sizes = {64, 8};
  m.buffer_devices = {Device::cuda(1), Device::cpu()};
  m.values.resize(8);
  m.values[0].tag = ValueTag::Int;
  m.values[1] = planned(0, 0, 16, Device::cuda(1));
  m.values[2] = planned(0, 16, 32, Device::cuda(1));
  m.values[3] = planned(0, 0, 16, Device::cuda(1));
  m.values[4] = planned(0, 20, 8, Device::cuda(1));   // a view into value 2
  m.values[5] = planned(0, 48, 16, Device::cuda(1));  // never used
  m.values[6] = planned(0, 0, 16, Device::cuda(1));
  m.values[6].tensor.storage = TensorStorage::RuntimeBound;  // not planned
  m.values[7] = planned(1, 0, 8, Device::cuda(1), ScalarType::Int);
  m.values[7].tensor.legacy_host = true;  // a cuda-tagged tensor in the host buffer
  MethodCheck mc;
  mc.name = "m";
  mc.num_steps = 4;
  mc.lifetimes = {{0, 3}, {0, 1}, {1, 3}, {2, 2}, {2, 3}, {-1, -1}, {0, 3}, {0, 3}};
  mc.alias_of = {-1, -1, -1, -1, 2, -1, -1, -1};

  MethodPlan n;
  n.name = "n";
  n.buffer_sizes = {8, 0};
  n.buffer_devices = {Device::cuda(1), Device::cuda(0)};
  n.values = {planned(0, 0, 8, Device::cuda(1))};
  n.values[0].tensor.sizes = {1, 2};
  MethodCheck nc;
  nc.name = "n";
  nc.num_steps = 1;
  nc.lifetimes = {{0, 0}};
  nc.alias_of = {-1};

  const json doc =
      parse_trace(plan_trace("plan", {PlotMethod{&m, mc}, PlotMethod{&n, nc}}), "plan");
  // Devices cpu:0 (pid 1), cuda:0 (pid 2), cuda:1 (pid 3); tids from 4 in (method, buffer,
  // lane) order: m/0 lanes 4, 5, 6; m/1 7; n/0 8; n/1 9 (an empty buffer still has its lane).
  const json expected = R"JSON([
    {"name":"process_name","ph":"M","pid":1,"tid":1,"args":{"name":"cpu:0"}},
    {"name":"process_sort_index","ph":"M","pid":1,"tid":1,"args":{"sort_index":1}},
    {"name":"thread_name","ph":"M","pid":1,"tid":7,"args":{"name":"m: buffer 1"}},
    {"name":"thread_sort_index","ph":"M","pid":1,"tid":7,"args":{"sort_index":7}},
    {"name":"process_name","ph":"M","pid":2,"tid":2,"args":{"name":"cuda:0"}},
    {"name":"process_sort_index","ph":"M","pid":2,"tid":2,"args":{"sort_index":2}},
    {"name":"thread_name","ph":"M","pid":2,"tid":9,"args":{"name":"n: buffer 1"}},
    {"name":"thread_sort_index","ph":"M","pid":2,"tid":9,"args":{"sort_index":9}},
    {"name":"process_name","ph":"M","pid":3,"tid":3,"args":{"name":"cuda:1"}},
    {"name":"process_sort_index","ph":"M","pid":3,"tid":3,"args":{"sort_index":3}},
    {"name":"thread_name","ph":"M","pid":3,"tid":4,"args":{"name":"m: buffer 0"}},
    {"name":"thread_sort_index","ph":"M","pid":3,"tid":4,"args":{"sort_index":4}},
    {"name":"thread_name","ph":"M","pid":3,"tid":5,"args":{"name":"m: buffer 0, lane 2"}},
    {"name":"thread_sort_index","ph":"M","pid":3,"tid":5,"args":{"sort_index":5}},
    {"name":"thread_name","ph":"M","pid":3,"tid":6,"args":{"name":"m: buffer 0, lane 3"}},
    {"name":"thread_sort_index","ph":"M","pid":3,"tid":6,"args":{"sort_index":6}},
    {"name":"thread_name","ph":"M","pid":3,"tid":8,"args":{"name":"n: buffer 0"}},
    {"name":"thread_sort_index","ph":"M","pid":3,"tid":8,"args":{"sort_index":8}},

    {"name":"value 1","cat":"planned_tensor","ph":"X","ts":0,"dur":2,"pid":3,"tid":4,
     "args":{"method":"m","buffer":0,"value":1,"offset":0,"bytes":16,"dtype":"float32",
             "sizes":[4],"device":"cuda:1","first":0,"last":1}},
    {"name":"value 2","cat":"planned_tensor","ph":"X","ts":1,"dur":3,"pid":3,"tid":5,
     "args":{"method":"m","buffer":0,"value":2,"offset":16,"bytes":32,"dtype":"float32",
             "sizes":[8],"device":"cuda:1","first":1,"last":3}},
    {"name":"value 3","cat":"planned_tensor","ph":"X","ts":2,"dur":1,"pid":3,"tid":4,
     "args":{"method":"m","buffer":0,"value":3,"offset":0,"bytes":16,"dtype":"float32",
             "sizes":[4],"device":"cuda:1","first":2,"last":2}},
    {"name":"value 4","cat":"planned_tensor","ph":"X","ts":2,"dur":2,"pid":3,"tid":6,
     "args":{"method":"m","buffer":0,"value":4,"offset":20,"bytes":8,"dtype":"float32",
             "sizes":[2],"device":"cuda:1","first":2,"last":3,"alias_of":2}},
    {"name":"value 7","cat":"planned_tensor","ph":"X","ts":0,"dur":4,"pid":1,"tid":7,
     "args":{"method":"m","buffer":1,"value":7,"offset":0,"bytes":8,"dtype":"int32",
             "sizes":[2],"device":"cuda:1","first":0,"last":3}},
    {"name":"value 0","cat":"planned_tensor","ph":"X","ts":0,"dur":1,"pid":3,"tid":8,
     "args":{"method":"n","buffer":0,"value":0,"offset":0,"bytes":8,"dtype":"float32",
             "sizes":[1,2],"device":"cuda:1","first":0,"last":0}}
  ])JSON"_json;
  expect_events(doc["traceEvents"], expected);
  expect_lanes_disjoint(doc["traceEvents"]);
  expect_named_tracks(doc["traceEvents"]);
}

// The multi_device fixture (fixtures/generator/README.md): buffers 0 on cpu:0, 1 on cuda:0,
// 2 on cuda:1, ten float32 [2, 2] tensors, lifetimes from the plan check.
TEST(ChromeTraceTest, PlanTraceOfTheMultiDeviceFixture) {
  ProgramBuilder builder = multi_device_program_builder();
  const MethodPlan plan = builder.method(0).plan();
  const MethodCheck check = check_method_plan(plan);
  ASSERT_EQ(check.num_steps, 8);
  const json doc =
      parse_trace(plan_trace("multi_device.pte", {PlotMethod{&plan, check}}), "multi_device.pte");
  const json& events = doc["traceEvents"];
  expect_lanes_disjoint(events);
  expect_named_tracks(events);

  std::map<int64_t, std::string> process;
  std::map<int64_t, std::string> thread;
  for (const json& e : events) {
    if (e["name"] == "process_name") {
      process[e["pid"].get<int64_t>()] = e["args"]["name"].get<std::string>();
    }
    if (e["name"] == "thread_name") {
      thread[e["tid"].get<int64_t>()] = e["args"]["name"].get<std::string>();
    }
  }
  EXPECT_EQ(process, (std::map<int64_t, std::string>{{1, "cpu:0"}, {2, "cuda:0"}, {3, "cuda:1"}}));
  // Buffer 0: a [0, 0] and b [0, 5] overlap, host_sum [3, 4] and out [7, 7] follow a.
  // Buffer 1: a0 [0, 2], b0 [1, 2], sum0 [2, 3] all overlap at 2; buffer 2 likewise at 6.
  EXPECT_EQ(thread, (std::map<int64_t, std::string>{{4, "forward: buffer 0"},
                                                    {5, "forward: buffer 0, lane 2"},
                                                    {6, "forward: buffer 1"},
                                                    {7, "forward: buffer 1, lane 2"},
                                                    {8, "forward: buffer 1, lane 3"},
                                                    {9, "forward: buffer 2"},
                                                    {10, "forward: buffer 2, lane 2"},
                                                    {11, "forward: buffer 2, lane 3"}}));

  struct Expected {
    int value, ts, dur, pid, tid, buffer, offset;
    const char* device;
  };
  const std::vector<Expected> expected = {
      {0, 0, 1, 1, 4, 0, 0, "cpu:0"},    {1, 0, 6, 1, 5, 0, 16, "cpu:0"},
      {5, 3, 2, 1, 4, 0, 0, "cpu:0"},    {9, 7, 1, 1, 4, 0, 0, "cpu:0"},
      {2, 0, 3, 2, 6, 1, 0, "cuda:0"},   {3, 1, 2, 2, 7, 1, 16, "cuda:0"},
      {4, 2, 2, 2, 8, 1, 32, "cuda:0"},  {6, 4, 3, 3, 9, 2, 0, "cuda:1"},
      {7, 5, 2, 3, 10, 2, 16, "cuda:1"}, {8, 6, 2, 3, 11, 2, 32, "cuda:1"},
  };
  std::vector<json> complete;
  for (const json& e : events) {
    if (e["ph"] == "X") complete.push_back(e);
  }
  ASSERT_EQ(complete.size(), expected.size());
  EXPECT_EQ(events.size(), 3 * 2 + 8 * 2 + expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    const Expected& x = expected[i];
    const json& e = complete[i];
    SCOPED_TRACE(e.dump());
    EXPECT_EQ(e["name"], "value " + std::to_string(x.value));
    EXPECT_EQ(e["cat"], "planned_tensor");
    EXPECT_EQ(e["ts"], x.ts);
    EXPECT_EQ(e["dur"], x.dur);
    EXPECT_EQ(e["pid"], x.pid);
    EXPECT_EQ(e["tid"], x.tid);
    const json args = {{"method", "forward"},     {"buffer", x.buffer}, {"value", x.value},
                       {"offset", x.offset},      {"bytes", 16},        {"dtype", "float32"},
                       {"sizes", {2, 2}},         {"device", x.device}, {"first", x.ts},
                       {"last", x.ts + x.dur - 1}};
    EXPECT_EQ(e["args"], args);
  }
}

}  // namespace
}  // namespace devplan::harness
