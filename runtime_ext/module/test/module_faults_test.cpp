// Every failure of load_method returns its error and leaves nothing allocated.
#include "module_test_support.h"

namespace devplan {
namespace {

using testing::ModuleTestBase;
using ModuleFaultsTest = ModuleTestBase;

// Device allocations a successful load of every method of `name` makes.
uint64_t device_allocations_of(const char* name) {
  TrackingDeviceAllocator counter;
  ScopedDeviceAllocator scoped(&counter);
  Module module(find_fixture_program(name)->bytes());
  const std::vector<std::string> names = module.method_names().value();
  for (const std::string& method : names) {
    EXPECT_TRUE(module.load_method(method).ok()) << name << "/" << method;
  }
  return counter.allocate_calls();
}

TEST_F(ModuleFaultsTest, FailingTheKthAllocationLeavesNothingLive) {
  int cases = 0;
  for (const FixtureProgram& fixture : all_fixture_programs()) {
    const uint64_t n = device_allocations_of(fixture.name);
    for (uint64_t k = 1; k <= n; ++k) {
      TrackingDeviceAllocator device;
      ScopedDeviceAllocator scoped(&device);
      device.fail_allocation_at(k);
      Module module(fixture.bytes());
      Error first_error;
      const std::vector<std::string> names = module.method_names().value();
      for (const std::string& method : names) {
        Error e = module.load_method(method);
        if (!e.ok() && first_error.ok()) first_error = e;
        if (!e.ok()) {
          EXPECT_FALSE(module.is_method_loaded(method));
        }
      }
      EXPECT_EQ(first_error.code(), ErrorCode::MemoryAllocationFailed)
          << fixture.name << " k=" << k << ": " << first_error;
      // Whatever loaded before the failure is still live; unloading everything frees it all.
      for (const std::string& method : names) {
        if (module.is_method_loaded(method)) {
          ASSERT_TRUE(module.unload_method(method).ok());
        }
      }
      EXPECT_EQ(device.live_count(), 0u) << fixture.name << " k=" << k << "\n"
                                         << device.leak_report();
      EXPECT_FALSE(device.has_misuse()) << device.misuse_report();
      ++cases;
    }
  }
  EXPECT_GE(cases, 6);
}

TEST_F(ModuleFaultsTest, FailureAtTheSecondBufferFreesTheFirst) {
  auto module = fixture_module("multi_device");
  tracking().fail_allocation_at(2);
  Error e = module->load_method("forward");
  ASSERT_EQ(e.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(e.message().rfind("method 'forward': buffer ", 0), 0u) << e.message();
  ASSERT_EQ(tracking().ledger().size(), 1u);
  EXPECT_FALSE(tracking().ledger()[0].live);
  ASSERT_EQ(tracking().failed_allocations().size(), 1u);
  EXPECT_EQ(tracking().failed_allocations()[0].seq, 2u);
  EXPECT_FALSE(module->is_method_loaded("forward"));
  tracking().clear_faults();
  ASSERT_TRUE(module->load_method("forward").ok());  // the next load without the fault works
}

TEST_F(ModuleFaultsTest, NoAllocatorRegisteredIsNotFound) {
  ScopedDeviceAllocator none(DeviceType::CUDA, nullptr);
  auto module = fixture_module("device_add_cuda0");
  Error e = module->load_method("forward");
  EXPECT_EQ(e.code(), ErrorCode::NotFound);
  EXPECT_EQ(e.message(),
            "method 'forward': buffer 1 (48 bytes on cuda:0): no device allocator registered "
            "for cuda:0");
  EXPECT_FALSE(module->is_method_loaded("forward"));
}

TEST_F(ModuleFaultsTest, CapacityExceededIsMemoryAllocationFailed) {
  ASSERT_TRUE(tracking().set_capacity(0, 40).ok());
  auto module = fixture_module("device_add_cuda0");
  Error e = module->load_method("forward");
  EXPECT_EQ(e.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(tracking().live_count(), 0u);
  ASSERT_TRUE(tracking().set_capacity(0, 48).ok());
  EXPECT_TRUE(module->load_method("forward").ok());
}

TEST_F(ModuleFaultsTest, FailingMethodInitFreesThePlannedMemory) {
  // A backend whose init fails makes Method::load fail after the buffers were allocated.
  class FailingBackend : public Backend {
   public:
    Result<std::unique_ptr<DelegateHandle>> init(const DelegateInfo&,
                                                 const BackendContext&) override {
      return Error(ErrorCode::DelegateInvalidCompatibility, "refused");
    }
    Error execute(DelegateHandle*, const BackendContext&, Span<EValue*>) override {
      return Error::success();
    }
  } failing;
  ScopedBackend scoped(kDeviceAddBackendId, &failing);
  auto module = fixture_module("device_add_cuda0");
  Error e = module->load_method("forward");
  EXPECT_EQ(e.code(), ErrorCode::DelegateInvalidCompatibility);
  EXPECT_EQ(e.message(), "method 'forward': delegate 0 (backend DeviceAddBackend): refused");
  EXPECT_EQ(tracking().allocate_calls(), 1u);
  EXPECT_EQ(tracking().live_count(), 0u);
}

TEST_F(ModuleFaultsTest, HostBufferLimitIsMemoryAllocationFailed) {
  ModuleOptions options;
  options.max_host_buffer_bytes = 16;
  auto module = fixture_module("device_add_cuda0", options);
  Error e = module->load_method("forward");
  EXPECT_EQ(e.code(), ErrorCode::MemoryAllocationFailed);
  EXPECT_EQ(e.message(),
            "method 'forward': buffer 0 (32 bytes on cpu:0): host buffers would exceed the limit "
            "of 16 bytes");
  EXPECT_EQ(tracking().allocate_calls(), 0u);
}

}  // namespace
}  // namespace devplan
