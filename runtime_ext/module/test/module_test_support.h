// Shared pieces of the Module tests: a leak-checked fixture with the simulated add backend
// installed, and a Module over an in-memory fixture program.
#pragma once

#include <fixtures/generator/fixture_programs.h>
#include <fixtures/leak_checked_test.h>
#include <mocks/simulated_device_backend.h>
#include <runtime_ext/module/module.h>

#include <gtest/gtest.h>

namespace devplan::testing {

class ModuleTestBase : public LeakCheckedTest {
 protected:
  SimulatedDeviceBackend add_backend_{SimulatedDeviceBackend::Op::Add};
  ScopedBackend scoped_add_{kDeviceAddBackendId, &add_backend_};

  static std::unique_ptr<Module> fixture_module(const char* name,
                                                ModuleOptions options = ModuleOptions()) {
    const FixtureProgram* f = find_fixture_program(name);
    EXPECT_NE(f, nullptr) << name;
    return std::make_unique<Module>(f->bytes(), options);
  }
};

}  // namespace devplan::testing
