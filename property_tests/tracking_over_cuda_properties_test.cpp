// TrackingDeviceAllocator over CudaAllocator (over FakeCudaRuntime, four devices) against the
// simulated TrackingDeviceAllocator, with random calls: allocations of any size (zero included),
// device and alignment; good, double, wrong-device and interior frees; copies inside, past the
// end of, and into freed blocks, and from host pointers passed as device memory. Both must keep
// the same ledger, misuse lines, failed allocations and bytes, and the CUDA side must return
// every block to the device. (Stale pointers are used only while their blocks are quarantined.)
#include <algorithm>
#include <cstdint>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/cuda/cuda_allocator.h>
#include <runtime_ext/cuda/test/fake_cuda_runtime.h>

#include "property.h"

namespace devplan::testing {
namespace {

enum class Op : int { Allocate, Free, DoubleFree, WrongDeviceFree, InteriorFree, Copy, HostCopy };

struct Call {
  Op op = Op::Allocate;
  size_t nbytes = 0;
  DeviceIndex index = 0;
  size_t alignment = 1;
  size_t pick = 0;    // which allocation (modulo the count so far)
  size_t offset = 0;  // where a copy starts, and its length below
  size_t length = 0;
  uint8_t value = 0;
};

rc::Gen<Call> gen_call() {
  return rc::gen::build<Call>(
      rc::gen::set(&Call::op,
                   rc::gen::map(rc::gen::inRange(0, 7), [](int k) { return static_cast<Op>(k); })),
      rc::gen::set(&Call::nbytes,
                   rc::gen::weightedOneOf<size_t>(
                       {{1, rc::gen::just<size_t>(0)}, {6, rc::gen::inRange<size_t>(1, 4097)}})),
      rc::gen::set(&Call::index, rc::gen::inRange<DeviceIndex>(0, 4)),
      rc::gen::set(&Call::alignment,
                   rc::gen::map(rc::gen::inRange(0, 10), [](int k) { return size_t{1} << k; })),
      rc::gen::set(&Call::pick, rc::gen::inRange<size_t>(0, 64)),
      rc::gen::set(&Call::offset, rc::gen::inRange<size_t>(0, 4200)),
      rc::gen::set(&Call::length, rc::gen::inRange<size_t>(0, 300)),
      rc::gen::set(&Call::value, rc::gen::arbitrary<uint8_t>()));
}

// Addresses differ between the two memories; everything else in a line must not.
std::string without_addresses(const std::string& line) {
  static const std::regex kAddress("0x[0-9a-f]+");
  return std::regex_replace(line, kAddress, "0x?");
}

// One side: the allocator and the blocks it handed out, by allocation order.
struct Side {
  TrackingDeviceAllocator& tracking;
  std::vector<std::pair<void*, Call>> blocks;  // every successful allocation
  std::vector<std::string> results;            // each call's outcome, comparable across sides

  void apply(const Call& c, uint8_t* host) {
    if (c.op == Op::Allocate || blocks.empty()) {
      Result<void*> p = tracking.allocate(c.nbytes, c.index, c.alignment);
      results.push_back(p.ok() ? "allocated" : without_addresses(p.error().message()));
      if (p.ok()) blocks.emplace_back(*p, c);
      return;
    }
    const auto& [ptr, made] = blocks[c.pick % blocks.size()];
    uint8_t* start = static_cast<uint8_t*>(ptr);
    switch (c.op) {
      case Op::Free:
      case Op::DoubleFree:
        tracking.deallocate(ptr, made.index);
        if (c.op == Op::DoubleFree) tracking.deallocate(ptr, made.index);
        break;
      case Op::WrongDeviceFree:
        tracking.deallocate(ptr, static_cast<DeviceIndex>((made.index + 1) % 4));
        break;
      case Op::InteriorFree:
        // Inside the block only: past its end, host memory may hold another block's start.
        if (made.nbytes >= 2)
          tracking.deallocate(start + 1 + c.offset % (made.nbytes - 1), made.index);
        break;
      case Op::Copy: {
        std::vector<uint8_t> bytes(c.length, c.value);
        // Starting inside the block (its lengths may run past the end).
        Error in = tracking.copy_host_to_device(start + c.offset % std::max<size_t>(made.nbytes, 1),
                                                bytes.data(), c.length, made.index);
        Error out = tracking.copy_device_to_host(bytes.data(), start, c.length, made.index);
        results.push_back(without_addresses(in.to_string()) + " / " +
                          without_addresses(out.to_string()) + " / " +
                          std::string(bytes.begin(), bytes.end()));
        break;
      }
      case Op::HostCopy: {
        Error e = tracking.copy_host_to_device(host, &c.value, 1, made.index);
        results.push_back(without_addresses(e.to_string()));
        break;
      }
      case Op::Allocate:
        break;
    }
  }

  std::vector<std::string> ledger() const {
    std::vector<std::string> lines;
    for (const AllocationRecord& r : tracking.ledger()) {
      lines.push_back(format_allocation(r) + (r.live ? " live" : " freed"));
    }
    return lines;
  }
  std::vector<std::string> misuse() const {
    std::vector<std::string> lines;
    for (const std::string& line : tracking.misuse_report_lines()) {
      lines.push_back(without_addresses(line));
    }
    return lines;
  }
};

DEVPLAN_PROP(TrackingOverCuda, AnyCallsGiveTheSimulatedLedgerMisuseAndBytes, ()) {
  const std::vector<Call> calls = *rc::gen::container<std::vector<Call>>(gen_call());
  const uint64_t fail_at = *rc::gen::inRange<uint64_t>(0, 12);
  FakeCudaRuntime fake(4, size_t{16} << 20);
  {
    CudaAllocator cuda(fake);
    TrackingDeviceAllocator simulated;
    TrackingDeviceAllocator on_cuda(&cuda);
    // The default quarantine holds every block these calls free, so no address is handed out
    // twice: once a block has left it, which stale pointer meets which new block depends on
    // each memory's own reuse of addresses.
    for (TrackingDeviceAllocator* t : {&simulated, &on_cuda}) t->fail_allocation_at(fail_at);
    Side a{simulated, {}, {}}, b{on_cuda, {}, {}};
    uint8_t host[8] = {};
    for (const Call& c : calls) {
      a.apply(c, host);
      b.apply(c, host);
    }
    RC_ASSERT(b.results == a.results);
    RC_ASSERT(b.ledger() == a.ledger());
    RC_ASSERT(b.misuse() == a.misuse());
    RC_ASSERT(on_cuda.failed_allocations().size() == simulated.failed_allocations().size());
    for (int d = 0; d < 4; ++d) {
      RC_ASSERT(on_cuda.stats(static_cast<DeviceIndex>(d)).current_bytes ==
                simulated.stats(static_cast<DeviceIndex>(d)).current_bytes);
    }
    // Free what is live, as a Module would, so that only the allocator's own blocks remain.
    for (Side* side : {&a, &b}) {
      for (const AllocationRecord& r : side->tracking.live_allocations()) {
        side->tracking.deallocate(const_cast<void*>(r.ptr), r.device.index);
      }
    }
    RC_ASSERT(on_cuda.live_count() == 0u);
  }
  RC_ASSERT(fake.live_allocations() == 0u);  // the destructor gave back the quarantine
}

}  // namespace
}  // namespace devplan::testing
