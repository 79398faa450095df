#include <runtime_ext/core/device_allocator_registry.h>

#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "counting_allocator.h"

namespace devplan {
namespace {

using testing::CountingAllocator;

TEST(DeviceAllocatorRegistryTest, EmptyRegistryHasNoAllocators) {
  DeviceAllocatorRegistry registry;
  EXPECT_EQ(registry.get(DeviceType::CPU), nullptr);
  EXPECT_EQ(registry.get(DeviceType::CUDA), nullptr);
  EXPECT_EQ(registry.get(static_cast<DeviceType>(5)), nullptr);
}

TEST(DeviceAllocatorRegistryTest, RegisterThenGet) {
  DeviceAllocatorRegistry registry;
  CountingAllocator cuda;
  ASSERT_TRUE(registry.register_allocator(&cuda).ok());
  EXPECT_EQ(registry.get(DeviceType::CUDA), &cuda);
  EXPECT_EQ(registry.get(DeviceType::CPU), nullptr);
}

TEST(DeviceAllocatorRegistryTest, SecondRegistrationIsAnErrorAndKeepsTheFirst) {
  DeviceAllocatorRegistry registry;
  CountingAllocator first, second;
  ASSERT_TRUE(registry.register_allocator(&first).ok());
  Error e = registry.register_allocator(&second);
  EXPECT_EQ(e.code(), ErrorCode::AlreadyRegistered);
  EXPECT_EQ(e.message(), "a device allocator is already registered for cuda");
  EXPECT_EQ(registry.register_allocator(&first).code(), ErrorCode::AlreadyRegistered);
  EXPECT_EQ(registry.get(DeviceType::CUDA), &first);
}

TEST(DeviceAllocatorRegistryTest, NullAndUnknownTypeAreInvalidArgument) {
  DeviceAllocatorRegistry registry;
  EXPECT_EQ(registry.register_allocator(nullptr).code(), ErrorCode::InvalidArgument);
  CountingAllocator odd(static_cast<DeviceType>(9));
  Error e = registry.register_allocator(&odd);
  EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(e.message(), "cannot register an allocator for device type unknown(9)");
}

TEST(DeviceAllocatorRegistryTest, UnregisterOnlyTheRegisteredOne) {
  DeviceAllocatorRegistry registry;
  CountingAllocator a, b;
  ASSERT_TRUE(registry.register_allocator(&a).ok());
  EXPECT_EQ(registry.unregister_allocator(&b).code(), ErrorCode::NotFound);
  EXPECT_EQ(registry.get(DeviceType::CUDA), &a);
  EXPECT_TRUE(registry.unregister_allocator(&a).ok());
  EXPECT_EQ(registry.get(DeviceType::CUDA), nullptr);
  EXPECT_TRUE(registry.register_allocator(&b).ok());
  EXPECT_EQ(registry.get(DeviceType::CUDA), &b);
}

TEST(DeviceAllocatorRegistryTest, UnregisterNullOrUnknownTypeIsAnErrorAndKeepsTheSlot) {
  DeviceAllocatorRegistry registry;
  CountingAllocator cuda;
  ASSERT_TRUE(registry.register_allocator(&cuda).ok());
  Error null = registry.unregister_allocator(nullptr);
  EXPECT_EQ(null.code(), ErrorCode::InvalidArgument);
  EXPECT_EQ(null.message(), "cannot unregister a null device allocator");
  CountingAllocator odd(static_cast<DeviceType>(9));
  Error unknown = registry.unregister_allocator(&odd);
  EXPECT_EQ(unknown.code(), ErrorCode::NotFound);
  EXPECT_EQ(unknown.message(), "no slot for device type unknown(9)");
  EXPECT_EQ(registry.get(DeviceType::CUDA), &cuda);
}

TEST(DeviceAllocatorRegistryTest, ScopedRegistrationRestoresPrevious) {
  DeviceAllocatorRegistry registry;
  CountingAllocator outer, inner, innermost;
  ASSERT_TRUE(registry.register_allocator(&outer).ok());
  {
    ScopedDeviceAllocator scoped(&inner, registry);
    EXPECT_EQ(scoped.previous(), &outer);
    EXPECT_EQ(registry.get(DeviceType::CUDA), &inner);
    {
      ScopedDeviceAllocator nested(&innermost, registry);
      EXPECT_EQ(registry.get(DeviceType::CUDA), &innermost);
    }
    EXPECT_EQ(registry.get(DeviceType::CUDA), &inner);
  }
  EXPECT_EQ(registry.get(DeviceType::CUDA), &outer);
}

TEST(DeviceAllocatorRegistryTest, ScopedRegistrationIntoEmptySlotLeavesItEmpty) {
  DeviceAllocatorRegistry registry;
  CountingAllocator a;
  {
    ScopedDeviceAllocator scoped(&a, registry);
    EXPECT_EQ(scoped.previous(), nullptr);
    EXPECT_EQ(registry.get(DeviceType::CUDA), &a);
  }
  EXPECT_EQ(registry.get(DeviceType::CUDA), nullptr);
}

TEST(DeviceAllocatorRegistryTest, ScopedNullHidesARegisteredAllocator) {
  DeviceAllocatorRegistry registry;
  CountingAllocator a;
  ASSERT_TRUE(registry.register_allocator(&a).ok());
  {
    ScopedDeviceAllocator hide(DeviceType::CUDA, nullptr, registry);
    EXPECT_EQ(registry.get(DeviceType::CUDA), nullptr);
  }
  EXPECT_EQ(registry.get(DeviceType::CUDA), &a);
}

TEST(DeviceAllocatorRegistryTest, GlobalRegistryShorthands) {
  CountingAllocator a;
  ASSERT_EQ(get_device_allocator(DeviceType::CUDA), nullptr);
  {
    ScopedDeviceAllocator scoped(&a);
    EXPECT_EQ(get_device_allocator(DeviceType::CUDA), &a);
    EXPECT_EQ(register_device_allocator(&a).code(), ErrorCode::AlreadyRegistered);
  }
  EXPECT_EQ(get_device_allocator(DeviceType::CUDA), nullptr);
}

// Many readers while a writer swaps scoped registrations: every lookup sees one of the two
// installed allocators, never anything else.
TEST(DeviceAllocatorRegistryTest, ConcurrentLookupsDuringScopedSwaps) {
  DeviceAllocatorRegistry registry;
  CountingAllocator base, swapped;
  ASSERT_TRUE(registry.register_allocator(&base).ok());
  std::atomic<bool> stop{false};
  std::atomic<long> lookups{0}, bad{0}, saw_swapped{0};
  std::vector<std::thread> readers;
  for (int t = 0; t < 4; ++t) {
    readers.emplace_back([&] {
      while (!stop.load()) {
        DeviceAllocator* a = registry.get(DeviceType::CUDA);
        if (a != &base && a != &swapped) ++bad;
        if (a == &swapped) ++saw_swapped;
        ++lookups;
      }
    });
  }
  for (int i = 0; i < 20000; ++i) {
    ScopedDeviceAllocator scoped(&swapped, registry);
    if (i % 64 == 0) std::this_thread::yield();
  }
  // Keep readers going until every reader has certainly run.
  while (lookups.load() < 20000) std::this_thread::yield();
  stop = true;
  for (auto& t : readers) t.join();
  EXPECT_EQ(bad.load(), 0);
  EXPECT_EQ(registry.get(DeviceType::CUDA), &base);
}

}  // namespace
}  // namespace devplan
