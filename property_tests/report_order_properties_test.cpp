// The orders the tracking allocator's reports promise, with calls on several devices
// interleaved: the ledger, the live allocations, the failed calls, the leak report and the
// ledger text go by sequence number (the call's place in time), not by device or shard.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <mocks/ledger_text.h>
#include <mocks/tracking_device_allocator.h>

#include "property.h"

namespace devplan::testing {
namespace {

// What the allocator was asked, in order: the model the reports are checked against.
struct ModelCall {
  uint64_t seq = 0;
  DeviceIndex index = 0;
  size_t size = 0;
  bool failed = false;
  bool freed = false;
  void* ptr = nullptr;
};

DEVPLAN_PROP(ReportOrder, EveryReportGoesBySequenceNumberAcrossDevices, ()) {
  TrackingDeviceAllocator tracking;
  tracking.set_fill_patterns(false);
  std::vector<ModelCall> calls;
  const int steps = *rc::gen::inRange(1, 60);
  for (int step = 0; step < steps; ++step) {
    const int action = *rc::gen::inRange(0, 10);
    std::vector<size_t> live;
    for (size_t i = 0; i < calls.size(); ++i) {
      if (!calls[i].failed && !calls[i].freed) live.push_back(i);
    }
    if (action < 3 && !live.empty()) {
      // Free a live block, on its own device.
      ModelCall& c = calls[live[*rc::gen::inRange<size_t>(0, live.size())]];
      tracking.deallocate(c.ptr, c.index);
      c.freed = true;
      continue;
    }
    ModelCall c;
    c.seq = calls.size() + 1;
    // Devices drawn out of order, so shards are made and used in any order.
    c.index = static_cast<DeviceIndex>(*rc::gen::element(3, 0, 7, 1));
    c.size = *rc::gen::inRange<size_t>(1, 257);
    c.failed = action == 9;
    if (c.failed) tracking.fail_allocation_at(c.seq);
    Result<void*> p = tracking.allocate(c.size, c.index);
    RC_ASSERT(p.ok() == !c.failed);
    if (p.ok()) c.ptr = *p;
    calls.push_back(c);
  }

  std::vector<uint64_t> ok_seqs, live_seqs, failed_seqs;
  for (const ModelCall& c : calls) {
    (c.failed ? failed_seqs : ok_seqs).push_back(c.seq);
    if (!c.failed && !c.freed) live_seqs.push_back(c.seq);
  }
  auto seqs_of = [](const auto& records) {
    std::vector<uint64_t> out;
    for (const auto& r : records) out.push_back(r.seq);
    return out;
  };
  RC_ASSERT(seqs_of(tracking.ledger()) == ok_seqs);
  RC_ASSERT(seqs_of(tracking.live_allocations()) == live_seqs);
  RC_ASSERT(seqs_of(tracking.failed_allocations()) == failed_seqs);
  // ledger_from(k) is the ledger's tail from its k-th record.
  const size_t from = *rc::gen::inRange<size_t>(0, ok_seqs.size() + 1);
  RC_ASSERT(
      seqs_of(tracking.ledger_from(from)) ==
      std::vector<uint64_t>(ok_seqs.begin() + static_cast<std::ptrdiff_t>(from), ok_seqs.end()));
  // Each record carries the device and size of its own call.
  for (const AllocationRecord& r : tracking.ledger()) {
    const ModelCall& c = calls[r.seq - 1];
    RC_ASSERT(r.device.index == c.index);
    RC_ASSERT(r.size == c.size);
    RC_ASSERT(r.live == !c.freed);
  }
  // The leak report: one line per live block, in sequence order.
  const std::vector<std::string> leaks = tracking.leak_report_lines();
  RC_ASSERT(leaks.size() == live_seqs.size());
  for (size_t i = 0; i < leaks.size(); ++i) {
    const ModelCall& c = calls[live_seqs[i] - 1];
    RC_ASSERT(leaks[i].rfind("#" + std::to_string(c.seq) + " cuda:" + std::to_string(c.index) +
                                 " " + std::to_string(c.size) + " B ",
                             0) == 0u);
  }
  // The ledger text: every call, failed ones too, in sequence order.
  const std::vector<std::string> text = ledger_report_lines(tracking);
  RC_ASSERT(text.size() == calls.size());
  for (size_t i = 0; i < text.size(); ++i) {
    RC_ASSERT(text[i].rfind("#" + std::to_string(i + 1) + " ", 0) == 0u);
  }
  // The counters per device add up to the calls made on each.
  std::map<DeviceIndex, uint64_t> made;
  for (const ModelCall& c : calls) made[c.index] += c.failed ? 0 : 1;
  for (const auto& [index, count] : made) {
    RC_ASSERT(tracking.stats(index).total_allocations == count);
  }
}

}  // namespace
}  // namespace devplan::testing
