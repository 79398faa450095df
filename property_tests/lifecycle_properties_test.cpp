// Model-based lifecycle test (RapidCheck's stateful testing): random sequences of module
// creation, load_method, unload_method, execute, reload and module destruction over several
// Modules, each running its own generated program, checked after every command against a model
// of which buffers must be live on which device.
#include <memory>
#include <set>
#include <sstream>

#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/state.h>

#include <harness/scenario/writer.h>
#include <runtime_ext/module/module.h>

#include <harness/scenario/rapidcheck_generators.h>
#include "property.h"
#include "simulated_devices.h"

namespace devplan::testing {
namespace {

constexpr size_t kSlots = 3;  // Modules alive at once, at most

struct LifecycleModel {
  std::vector<ProgramScenario> programs;  // one per slot, fixed for the case
  std::vector<bool> alive = std::vector<bool>(kSlots, false);
  std::vector<std::set<size_t>> loaded = std::vector<std::set<size_t>>(kSlots);  // method indices

  // What must be live: one allocation per device buffer of every loaded method.
  std::multiset<AllocationKey> expected_live() const {
    std::multiset<AllocationKey> out;
    for (size_t slot = 0; slot < kSlots; ++slot) {
      if (!alive[slot]) continue;
      for (size_t m : loaded[slot]) {
        for (const AllocationKey& key : expected_allocations(programs[slot].methods[m]))
          out.insert(key);
      }
    }
    return out;
  }
};

struct LifecycleSut {
  SimulatedDevices devices;
  std::vector<std::vector<uint8_t>> bytes;
  std::vector<std::unique_ptr<Module>> modules = std::vector<std::unique_ptr<Module>>(kSlots);
};

using Command = rc::state::Command<LifecycleModel, LifecycleSut>;

// Checks the system against the model after a command has been applied.
void check_against_model(const LifecycleModel& next, const LifecycleSut& sut) {
  const std::multiset<AllocationKey> live = live_allocations(sut.devices.cuda);
  const std::multiset<AllocationKey> expected = next.expected_live();
  RC_ASSERT(live == expected);
  RC_ASSERT(!sut.devices.cuda.has_misuse());
  RC_ASSERT(sut.devices.cpu.allocate_calls() == 0u);
  for (size_t slot = 0; slot < kSlots; ++slot) {
    RC_ASSERT((sut.modules[slot] != nullptr) == next.alive[slot]);
    if (!next.alive[slot]) continue;
    const ProgramScenario& p = next.programs[slot];
    for (size_t m = 0; m < p.methods.size(); ++m) {
      RC_ASSERT(sut.modules[slot]->is_method_loaded(p.methods[m].name) ==
                (next.loaded[slot].count(m) == 1));
    }
  }
}

// A command on one slot; most also name a method of that slot's program.
struct SlotCommand : Command {
  size_t slot = 0;
  size_t method = 0;

  explicit SlotCommand(const LifecycleModel& s0, bool needs_alive) {
    slot = *rc::gen::inRange<size_t>(0, kSlots);
    RC_PRE(s0.alive[slot] == needs_alive);
    method = *rc::gen::inRange<size_t>(0, s0.programs[slot].methods.size());
  }
  const std::string& name(const LifecycleModel& s) const {
    return s.programs[slot].methods[method].name;
  }
};

struct CreateModule : SlotCommand {
  explicit CreateModule(const LifecycleModel& s0) : SlotCommand(s0, false) {}
  void checkPreconditions(const LifecycleModel& s0) const override { RC_PRE(!s0.alive[slot]); }
  void apply(LifecycleModel& s) const override {
    s.alive[slot] = true;
    s.loaded[slot].clear();
  }
  void run(const LifecycleModel& s0, LifecycleSut& sut) const override {
    sut.modules[slot] = std::make_unique<Module>(sut.bytes[slot]);
    check_against_model(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "create module " << slot; }
};

struct DestroyModule : SlotCommand {
  explicit DestroyModule(const LifecycleModel& s0) : SlotCommand(s0, true) {}
  void checkPreconditions(const LifecycleModel& s0) const override { RC_PRE(s0.alive[slot]); }
  void apply(LifecycleModel& s) const override {
    s.alive[slot] = false;
    s.loaded[slot].clear();
  }
  void run(const LifecycleModel& s0, LifecycleSut& sut) const override {
    sut.modules[slot].reset();
    check_against_model(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "destroy module " << slot; }
};

struct LoadMethod : SlotCommand {
  explicit LoadMethod(const LifecycleModel& s0) : SlotCommand(s0, true) {}
  void checkPreconditions(const LifecycleModel& s0) const override { RC_PRE(s0.alive[slot]); }
  void apply(LifecycleModel& s) const override { s.loaded[slot].insert(method); }
  void run(const LifecycleModel& s0, LifecycleSut& sut) const override {
    RC_ASSERT(sut.modules[slot]->load_method(name(s0)).ok());
    check_against_model(nextState(s0), sut);
  }
  void show(std::ostream& os) const override {
    os << "module " << slot << ": load_method " << method;
  }
};

struct UnloadMethod : SlotCommand {
  explicit UnloadMethod(const LifecycleModel& s0) : SlotCommand(s0, true) {}
  void checkPreconditions(const LifecycleModel& s0) const override { RC_PRE(s0.alive[slot]); }
  void apply(LifecycleModel& s) const override { s.loaded[slot].erase(method); }
  void run(const LifecycleModel& s0, LifecycleSut& sut) const override {
    const Error err = sut.modules[slot]->unload_method(name(s0));
    RC_ASSERT(err.code() == (s0.loaded[slot].count(method) ? ErrorCode::Ok : ErrorCode::NotFound));
    check_against_model(nextState(s0), sut);
  }
  void show(std::ostream& os) const override {
    os << "module " << slot << ": unload_method " << method;
  }
};

// execute loads the method when needed.
struct Execute : SlotCommand {
  explicit Execute(const LifecycleModel& s0) : SlotCommand(s0, true) {}
  void checkPreconditions(const LifecycleModel& s0) const override { RC_PRE(s0.alive[slot]); }
  void apply(LifecycleModel& s) const override { s.loaded[slot].insert(method); }
  void run(const LifecycleModel& s0, LifecycleSut& sut) const override {
    Result<std::vector<EValue>> out = sut.modules[slot]->execute(name(s0), {});
    RC_ASSERT(out.ok());
    RC_ASSERT(out->size() == s0.programs[slot].methods[method].outputs.size());
    check_against_model(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "module " << slot << ": execute " << method; }
};

// unload (if loaded) then load again: new allocations, the old ones freed.
struct Reload : SlotCommand {
  explicit Reload(const LifecycleModel& s0) : SlotCommand(s0, true) {}
  void checkPreconditions(const LifecycleModel& s0) const override { RC_PRE(s0.alive[slot]); }
  void apply(LifecycleModel& s) const override { s.loaded[slot].insert(method); }
  void run(const LifecycleModel& s0, LifecycleSut& sut) const override {
    Module& module = *sut.modules[slot];
    if (module.is_method_loaded(name(s0))) RC_ASSERT(module.unload_method(name(s0)).ok());
    RC_ASSERT(module.load_method(name(s0)).ok());
    check_against_model(nextState(s0), sut);
  }
  void show(std::ostream& os) const override { os << "module " << slot << ": reload " << method; }
};

ScenarioOptions lifecycle_options() {
  ScenarioOptions o = property_scenario_options();
  o.max_buffers = 8;
  o.max_buffer_bytes = 4096;
  return o;
}

DEVPLAN_PROP(Lifecycle, LiveBuffersMatchTheModelAfterEveryCommand, ()) {
  LifecycleModel initial;
  for (size_t slot = 0; slot < kSlots; ++slot) {
    initial.programs.push_back(*gen_program_scenario(lifecycle_options()));
  }
  LifecycleSut sut;
  for (const ProgramScenario& p : initial.programs) sut.bytes.push_back(build_program(p));
  rc::state::check(initial, sut,
                   rc::state::gen::execOneOfWithArgs<CreateModule, DestroyModule, LoadMethod,
                                                     UnloadMethod, Execute, Reload>());
  // Destroying every Module leaves nothing live.
  for (auto& module : sut.modules) module.reset();
  RC_ASSERT(sut.devices.cuda.live_count() == 0u);
  RC_ASSERT(!sut.devices.cuda.has_misuse());
}

}  // namespace
}  // namespace devplan::testing
