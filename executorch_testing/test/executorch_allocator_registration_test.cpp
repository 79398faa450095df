// ScopedExecutorchAllocator against ExecuTorch's real registry: one registration per process,
// scopes that nest and end in any order, calls with nothing installed.
#include <executorch_testing/executorch_allocator_registration.h>

#include <gtest/gtest.h>

#include <executorch/runtime/platform/runtime.h>

#include <executorch_testing/tracking_executorch_allocator.h>

namespace devplan::executorch_testing {
namespace {

class ExecutorchAllocatorRegistration : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { et::runtime_init(); }
};

TEST_F(ExecutorchAllocatorRegistration, ManyScopesRegisterOnce) {
  et::DeviceAllocator* registered = nullptr;
  for (int i = 0; i < 5; ++i) {
    TrackingExecutorchAllocator cuda;
    ScopedExecutorchAllocator scoped(cuda);
    ASSERT_TRUE(scoped.status().ok()) << scoped.status().message();
    EXPECT_TRUE(router_registered(EtDeviceType::CUDA));
    EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), &cuda);
    et::DeviceAllocator* now = et::get_device_allocator(EtDeviceType::CUDA);
    ASSERT_NE(now, nullptr);
    if (registered != nullptr) {
      EXPECT_EQ(now, registered);
    }
    registered = now;
    et::Result<void*> p = now->allocate(48, 0, 8);
    ASSERT_TRUE(p.ok());
    now->deallocate(*p, 0);
    EXPECT_EQ(cuda.tracking().ledger_size(), 1u);
    EXPECT_EQ(cuda.tracking().live_count(), 0u);
  }
  EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), nullptr);
}

TEST_F(ExecutorchAllocatorRegistration, ScopesNestAndEndInAnyOrder) {
  TrackingExecutorchAllocator a;
  TrackingExecutorchAllocator b;
  TrackingExecutorchAllocator c;
  auto sa = std::make_unique<ScopedExecutorchAllocator>(a);
  auto sb = std::make_unique<ScopedExecutorchAllocator>(b);
  EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), &b);
  {
    ScopedExecutorchAllocator sc(c);
    EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), &c);
  }
  EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), &b);
  sa.reset();  // the outer scope ends first
  EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), &b);
  sb.reset();
  EXPECT_EQ(installed_allocator(EtDeviceType::CUDA), nullptr);
}

TEST_F(ExecutorchAllocatorRegistration, AFreeGoesToTheAllocatorThatAllocated) {
  TrackingExecutorchAllocator outer;
  ScopedExecutorchAllocator outer_scope(outer);
  et::DeviceAllocator* router = et::get_device_allocator(EtDeviceType::CUDA);
  ASSERT_NE(router, nullptr);
  et::Result<void*> p = router->allocate(48, 0, 8);
  ASSERT_TRUE(p.ok());
  {
    TrackingExecutorchAllocator inner;
    ScopedExecutorchAllocator inner_scope(inner);
    router->deallocate(*p, 0);  // made under `outer`, freed while `inner` is installed
    EXPECT_EQ(inner.tracking().misuse_report(), "");
    EXPECT_EQ(inner.tracking().allocate_calls(), 0u);
  }
  EXPECT_EQ(outer.ledger_report(), "#1 cuda:0 48 B align 8 owner -  freed\n");
  EXPECT_EQ(outer.tracking().misuse_report(), "");
}

TEST_F(ExecutorchAllocatorRegistration, AFreeAfterItsAllocatorsScopeEndedIsTheCurrentOnesMisuse) {
  TrackingExecutorchAllocator later;
  et::DeviceAllocator* router = nullptr;
  void* stale = nullptr;
  {
    TrackingExecutorchAllocator gone;
    ScopedExecutorchAllocator scope(gone);
    router = et::get_device_allocator(EtDeviceType::CUDA);
    et::Result<void*> p = router->allocate(16, 0, 8);
    ASSERT_TRUE(p.ok());
    stale = *p;
    gone.deallocate(stale, 0);  // freed directly, so `gone` has nothing live at its end
  }
  ScopedExecutorchAllocator scope(later);
  router->deallocate(stale, 0);
  EXPECT_EQ(later.tracking().misuse().size(), 1u) << later.tracking().misuse_report();
}

TEST_F(ExecutorchAllocatorRegistration, WithNothingInstalledCallsFailAndAreCounted) {
  ASSERT_TRUE(ensure_router_registered(EtDeviceType::CUDA).ok());
  et::DeviceAllocator* router = et::get_device_allocator(EtDeviceType::CUDA);
  ASSERT_NE(router, nullptr);
  const uint64_t before = calls_without_allocator(EtDeviceType::CUDA);
  et::Result<void*> p = router->allocate(16, 0, 8);
  EXPECT_EQ(p.error(), et::Error::NotFound);
  int host = 0;
  EXPECT_EQ(router->copy_host_to_device(&host, &host, 4, 0), et::Error::NotFound);
  router->deallocate(&host, 0);
  EXPECT_EQ(calls_without_allocator(EtDeviceType::CUDA), before + 3);
}

TEST_F(ExecutorchAllocatorRegistration, CpuAndUnknownTypesAreRefused) {
  const Error cpu = ensure_router_registered(EtDeviceType::CPU);
  EXPECT_EQ(cpu.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(cpu.message(),
            "cpu has no device allocator in ExecuTorch (host memory comes from the "
            "MemoryManager's allocators)");
  const Error unknown = ensure_router_registered(static_cast<EtDeviceType>(9));
  EXPECT_EQ(unknown.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(unknown.message(), "device type 9 is outside ExecuTorch's registry (" +
                                   std::to_string(kExecutorchDeviceTypes) + " device types)");
  EXPECT_FALSE(router_registered(EtDeviceType::CPU));
  EXPECT_EQ(installed_allocator(EtDeviceType::CPU), nullptr);
}

}  // namespace
}  // namespace devplan::executorch_testing
