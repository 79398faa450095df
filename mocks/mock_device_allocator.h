// MockDeviceAllocator: a GoogleMock DeviceAllocator for call-expectation tests. By default every
// call is delegated to a TrackingDeviceAllocator (an owned one, or one you pass in), so the mock
// behaves like a working simulated device and the ledger still sees every allocation; a test
// overrides single calls with EXPECT_CALL / ON_CALL.
//
//   ::testing::NiceMock<MockDeviceAllocator> cuda;       // owns a TrackingDeviceAllocator
//   ScopedDeviceAllocator scoped(&cuda);
//   EXPECT_CALL(cuda, allocate(48, 0, kDefaultAlignment)).Times(1);   // still delegates
//   EXPECT_CALL(cuda, deallocate(::testing::_, 0)).Times(1);
//   { auto buffer = DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0); }
//   EXPECT_FALSE(cuda.tracking().has_leaks());
//
// Header-only; link devplan::mocks_gmock (devplan::mocks plus GTest::gmock), so that
// devplan::mocks itself does not depend on GoogleMock.
// Threading: as GoogleMock mocks are (safe to call from many threads; set expectations first).
// Ownership: a given delegate must outlive the mock.
#pragma once

#include <memory>

#include <gmock/gmock.h>

#include <mocks/tracking_device_allocator.h>
#include <runtime_ext/core/device_allocator.h>

namespace devplan {

class MockDeviceAllocator : public DeviceAllocator {
 public:
  // Delegates to a TrackingDeviceAllocator of `type` that the mock owns.
  explicit MockDeviceAllocator(DeviceType type = DeviceType::CUDA)
      : owned_(std::make_unique<TrackingDeviceAllocator>(type)), delegate_(owned_.get()) {
    delegate_to_tracking();
  }

  // Delegates to `delegate` (not owned; must not be null and must outlive the mock).
  explicit MockDeviceAllocator(TrackingDeviceAllocator* delegate) : delegate_(delegate) {
    delegate_to_tracking();
  }

  MOCK_METHOD(Result<void*>, allocate, (size_t nbytes, DeviceIndex index, size_t alignment),
              (override));
  MOCK_METHOD(void, deallocate, (void* ptr, DeviceIndex index), (override));
  MOCK_METHOD(Error, copy_host_to_device,
              (void* dst, const void* src, size_t nbytes, DeviceIndex index), (override));
  MOCK_METHOD(Error, copy_device_to_host,
              (void* dst, const void* src, size_t nbytes, DeviceIndex index), (override));
  MOCK_METHOD(DeviceType, device_type, (), (const, override));

  // The allocator the default actions delegate to.
  TrackingDeviceAllocator& tracking() const { return *delegate_; }

 private:
  void delegate_to_tracking() {
    TrackingDeviceAllocator* d = delegate_;
    ON_CALL(*this, allocate).WillByDefault([d](size_t nbytes, DeviceIndex index, size_t alignment) {
      return d->allocate(nbytes, index, alignment);
    });
    ON_CALL(*this, deallocate).WillByDefault([d](void* ptr, DeviceIndex index) {
      d->deallocate(ptr, index);
    });
    ON_CALL(*this, copy_host_to_device)
        .WillByDefault([d](void* dst, const void* src, size_t nbytes, DeviceIndex index) {
          return d->copy_host_to_device(dst, src, nbytes, index);
        });
    ON_CALL(*this, copy_device_to_host)
        .WillByDefault([d](void* dst, const void* src, size_t nbytes, DeviceIndex index) {
          return d->copy_device_to_host(dst, src, nbytes, index);
        });
    ON_CALL(*this, device_type).WillByDefault([d]() { return d->device_type(); });
  }

  std::unique_ptr<TrackingDeviceAllocator> owned_;
  TrackingDeviceAllocator* delegate_;
};

}  // namespace devplan
