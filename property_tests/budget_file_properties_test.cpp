// A budget file reads back to what was written (budget_file.h promises
// read_budget(write_budget(b)) == b): program names with quotes, backslashes and non-ASCII
// letters, every kind of device (unknown types too), sizes up to 2^64 - 1, fractional
// tolerances, failed loads and placeholders.
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <harness/services/budget_file.h>

#include "property.h"

namespace devplan::testing {
namespace {

using harness::Budget;
using harness::BudgetLoad;
using harness::BudgetMethod;
using harness::BudgetProgram;

std::string gen_name() {
  const std::vector<std::string> parts = {"model", "a\"b", "back\\slash", "ü", "x.pte", " ", ""};
  std::string name;
  const int n = *rc::gen::inRange(1, 4);
  for (int i = 0; i < n; ++i) name += *rc::gen::elementOf(parts);
  return name;
}

Device gen_device() {
  const int type = *rc::gen::element(0, 1, 2, 9, 200);  // cpu, cuda, others, unknown
  const int index = *rc::gen::element(0, 1, 127, -1);
  return Device(static_cast<DeviceType>(type), static_cast<DeviceIndex>(index));
}

uint64_t gen_size() {
  return *rc::gen::element<uint64_t>(0, 1, 48, uint64_t{1} << 40, UINT64_MAX,
                                     *rc::gen::arbitrary<uint64_t>());
}

BudgetMethod gen_method() {
  BudgetMethod m;
  const int buffers = *rc::gen::inRange(0, 4);
  for (int i = 0; i < buffers; ++i) m.buffers.push_back({gen_device(), gen_size()});
  for (const char* engine : {"devplan", "executorch"}) {
    if (!*rc::gen::arbitrary<bool>()) continue;
    BudgetLoad load;
    load.loaded = *rc::gen::arbitrary<bool>();
    const int devices = *rc::gen::inRange(0, 3);
    for (int i = 0; i < devices; ++i) {
      load.allocations[gen_device()] = {gen_size(), gen_size()};
    }
    load.leaks = *rc::gen::inRange<uint64_t>(0, 3);
    load.misuse = *rc::gen::inRange<uint64_t>(0, 3);
    if (*rc::gen::arbitrary<bool>()) load.placeholders = {"kernel aten::copy_", "backend \"X\""};
    m.loads[engine] = load;
  }
  for (int i = *rc::gen::inRange(0, 3); i > 0; --i) m.peak_device_bytes[gen_device()] = gen_size();
  for (int i = *rc::gen::inRange(0, 3); i > 0; --i) m.planned_bytes[gen_device()] = gen_size();
  // Ratios are kept to 4 decimals.
  m.plan_ratio = static_cast<double>(*rc::gen::inRange(10000, 400000)) / 10000.0;
  return m;
}

std::optional<double> gen_tolerance() {
  if (!*rc::gen::arbitrary<bool>()) return std::nullopt;
  return *rc::gen::element(0.0, 0.5, 5.0, 12.25, 1e6);
}

DEVPLAN_PROP(BudgetFile, ReadsBackToWhatWasWritten, ()) {
  Budget budget;
  budget.tolerance_pct = gen_tolerance();
  for (int p = *rc::gen::inRange(0, 3); p > 0; --p) {
    BudgetProgram program;
    program.tolerance_pct = gen_tolerance();
    for (int m = *rc::gen::inRange(1, 3); m > 0; --m) program.methods[gen_name()] = gen_method();
    budget.programs[gen_name()] = program;
  }
  const std::string text = harness::write_budget(budget);
  char path[] = "/tmp/devplan_budget_XXXXXX";
  const int fd = ::mkstemp(path);
  RC_ASSERT(fd >= 0);
  ::close(fd);
  std::ofstream(path) << text;
  Result<Budget> back = harness::read_budget(path);
  std::remove(path);
  RC_ASSERT(back.ok());
  RC_ASSERT(harness::write_budget(*back) == text);
  RC_ASSERT(back->tolerance_pct == budget.tolerance_pct);
  RC_ASSERT(back->programs.size() == budget.programs.size());
  for (const auto& [name, program] : budget.programs) {
    const auto found = back->programs.find(name);
    RC_ASSERT(found != back->programs.end());
    const BudgetProgram& q = found->second;
    RC_ASSERT(q.tolerance_pct == program.tolerance_pct);
    RC_ASSERT(q.methods.size() == program.methods.size());
    for (const auto& [method, m] : program.methods) {
      const BudgetMethod& n = q.methods.at(method);
      RC_ASSERT(n.buffers.size() == m.buffers.size());
      for (size_t i = 0; i < m.buffers.size(); ++i) {
        RC_ASSERT(n.buffers[i].device == m.buffers[i].device);
        RC_ASSERT(n.buffers[i].size == m.buffers[i].size);
      }
      RC_ASSERT(n.peak_device_bytes == m.peak_device_bytes);
      RC_ASSERT(n.planned_bytes == m.planned_bytes);
      RC_ASSERT(n.plan_ratio == m.plan_ratio);
      RC_ASSERT(n.loads.size() == m.loads.size());
      for (const auto& [engine, load] : m.loads) {
        const BudgetLoad& l = n.loads.at(engine);
        RC_ASSERT(l.loaded == load.loaded);
        RC_ASSERT(l.leaks == load.leaks);
        RC_ASSERT(l.misuse == load.misuse);
        RC_ASSERT(l.placeholders == load.placeholders);
        RC_ASSERT(l.allocations.size() == load.allocations.size());
        for (const auto& [device, figures] : load.allocations) {
          RC_ASSERT(l.allocations.at(device).allocations == figures.allocations);
          RC_ASSERT(l.allocations.at(device).bytes == figures.bytes);
        }
      }
    }
  }
}

}  // namespace
}  // namespace devplan::testing
