// Chrome trace-event JSON (the format chrome://tracing and Perfetto open) of the simulated
// allocations (`devplan simulate --trace OUT.json`) and of a memory plan's tensor lifetimes
// (`devplan plot --trace OUT.json`).
//
// The document is one object: {"traceEvents": [...], "otherData": {...}}, written compactly on
// one line with a trailing newline. "otherData" holds "title" (the given title), "x_axis" (what
// ts and dur count, in words), "generator" ("devplan"), "devplan_version" and "schema_version"
// (as every devplan JSON document has them); chrome://tracing lists it under
// Metadata. As in ExecuTorch's own memory-planning trace (generate_memory_trace in
// util/activation_memory_profiler.py), the axes are repurposed: the viewers label ts and dur
// in microseconds, but here one unit is one allocation event or one instruction; every tensor
// or allocation is a complete event ("ph": "X") and "pid" is the memory space. Unlike that
// trace, time runs along x (ExecuTorch puts byte offsets on x and one step per thread) and the
// processes and threads are named.
//
// Common to both documents:
// - pid: one process per device, named by the device ("cpu:0", "cuda:1") with a "process_name"
//   metadata event; pid 1, 2, ... in Device order (CPU first, then by type and index), the
//   same order in "process_sort_index".
// - tid: unique across the whole document (viewers that treat tids as system-wide then keep
//   every track apart). Events of a process as a whole (counters, process-scoped instants) use
//   tid = pid; the threads ("lanes") are numbered from (number of devices + 1) upwards in the
//   order they are listed below, each named by a "thread_name" and ordered by a
//   "thread_sort_index" (= its tid) metadata event.
// - Lanes. Complete events on one thread must nest, and lifetimes overlap without nesting, so
//   the events of one track are spread over lanes: in order of start, each event goes to the
//   lowest-numbered lane whose previous event has ended (ended at or before the new start),
//   or to a new lane. This uses the fewest lanes possible (the most events live at once).
// - Event order in "traceEvents": every metadata ("M") event first (per process: process_name,
//   process_sort_index, then thread_name and thread_sort_index per lane), then the others.
//
// allocation_trace (one track per device, x = allocation event index):
// - ts t is events[t] (0-based index into `events`); event t occupies [t, t + 1), and the
//   trace ends at events.size().
// - One "X" event per successful allocation, cat "memory_allocation", on a lane of its device:
//   ts = the allocation's index, dur = (index of the free that returned its pointer) - ts, or
//   events.size() - ts when nothing freed it. name "#<seq> <owner>" ("#<seq>" without owner),
//   with " (leaked)" appended for a leak. args: "bytes", "alignment", "owner" ("" when none),
//   "seq" (the allocator's sequence number: allocation attempts, failed ones included, counted
//   from 1 as ledger_from_events does), "ptr" ("0x..." lower-case hex), "alloc_event" (= ts),
//   "free_event" (the free's index, or null), "leaked" (bool).
// - A leak is an entry of `leaks` whose pointer an allocation that was never freed returned; it
//   gets "leaked": true and an instant event ("ph": "i", "s": "t", cat "leak", name "leak") on
//   the same lane at the allocation's ts with args "report" (format_allocation: "#7 cuda:0 48 B
//   align 16 owner forward/buffer 1") and "seq". Entries of `leaks` no recorded allocation
//   matches are not drawn. An allocation never freed but not in `leaks` still runs to the end,
//   with "free_event": null and "leaked": false.
// - A failed allocation is a process-scoped instant ("s": "p", tid = pid), cat
//   "failed_allocation", name "failed allocation of <n> B", at its index, args "bytes",
//   "alignment", "owner", "seq". A free of a pointer that no live allocation returned (double
//   or unknown free) is the same with cat "unknown_free", name "free of unknown pointer", args
//   "ptr".
// - Live bytes: a counter ("ph": "C", tid = pid, cat "live_bytes", name "live", args
//   {"bytes": n}) per device at each index whose event changes that device's live bytes (an
//   allocation, or a free of a known pointer), holding the value after the event.
// Output order after the metadata: by event index; at one index the X event, then its leak
// instant, then the counter.
//
// plan_trace (one track per device holding planned buffers, x = instruction index):
// - pid: the devices of the methods' planned buffers (plan.buffer_devices).
// - Threads: one or more lanes per (method, planned buffer), in method order, then buffer
//   order, then lane order; every (method, buffer) has at least one lane, also when no tensor
//   of it is live. The first lane is named "<method>: buffer <b>", further ones
//   "<method>: buffer <b>, lane <k>" (k = 2, 3, ...); b is the buffer index of MethodPlan
//   (the file's memory_id - 1), as in plan_svg.
// - One "X" event per planned tensor that has a lifetime (MethodCheck::lifetimes, aliases
//   folded in), cat "planned_tensor", name "value <v>": ts = first instruction, dur = last -
//   first + 1 (both ends inclusive). args: "method", "buffer", "value", "offset", "bytes",
//   "dtype" ("float32"), "sizes" (array), "device" (the tensor's device tag, which differs from
//   the track's device for a legacy tensor in a host buffer), "first", "last", and "alias_of"
//   (the base value) only for an alias. Planned tensors that are never used have no lifetime
//   and no event. Instructions of every method count from 0, so methods share the axis.
// Output order after the metadata: by method, buffer, then (first, value index).
#pragma once

#include <string>
#include <vector>

#include <harness/output/plan_svg.h>
#include <mocks/recording_device_allocator.h>
#include <mocks/tracking_device_allocator.h>

namespace devplan::harness {

std::string allocation_trace(const std::string& title, const std::vector<AllocationEvent>& events,
                             const std::vector<AllocationRecord>& leaks);

std::string plan_trace(const std::string& title, const std::vector<PlotMethod>& methods);

}  // namespace devplan::harness
