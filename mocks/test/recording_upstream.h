// RecordingUpstream: the bottom of a stack under test. It records every call that arrives from
// the layers above with all its arguments, hands out distinct fake addresses (never
// dereferenced: copies are recorded, not performed), answers find_live_block for the blocks it
// handed out, and fails the next allocation when told to.
//
//   RecordingUpstream below;
//   StatisticsDeviceAllocator counted(&below);
//   void* p = *counted.allocate(48, 2, 16);
//   below.calls();   // {Allocate, p, 48 bytes, cuda:2, alignment 16}
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <mocks/sized_device_allocator.h>

namespace devplan::testing {

struct UpstreamCall {
  enum class Kind : uint8_t { Allocate, Free, FreeSized, HostToDevice, DeviceToHost };
  Kind kind = Kind::Allocate;
  const void* ptr = nullptr;  // the block (allocate, frees) or the copy's destination
  const void* src = nullptr;  // copies only
  size_t nbytes = 0;          // allocate, sized frees and copies
  DeviceIndex index = 0;
  size_t alignment = 0;  // allocate only

  friend bool operator==(const UpstreamCall& a, const UpstreamCall& b) {
    return a.kind == b.kind && a.ptr == b.ptr && a.src == b.src && a.nbytes == b.nbytes &&
           a.index == b.index && a.alignment == b.alignment;
  }
  friend std::ostream& operator<<(std::ostream& os, const UpstreamCall& c) {
    static const char* const kNames[] = {"Allocate", "Free", "FreeSized", "HostToDevice",
                                         "DeviceToHost"};
    return os << kNames[static_cast<int>(c.kind)] << "{ptr " << c.ptr << ", src " << c.src << ", "
              << c.nbytes << " B, index " << static_cast<int>(c.index) << ", align " << c.alignment
              << "}";
  }
};

class RecordingUpstream final : public SizedDeviceAllocator {
 public:
  explicit RecordingUpstream(DeviceType type = DeviceType::CUDA) : type_(type) {}

  Result<void*> allocate(size_t nbytes, DeviceIndex index, size_t alignment) override {
    if (fail_next_) {
      Error e = *fail_next_;
      fail_next_.reset();
      calls_.push_back({UpstreamCall::Kind::Allocate, nullptr, nullptr, nbytes, index, alignment});
      return e;
    }
    next_ += 0x1000;  // distinct, aligned to 4 KiB, far from any real object
    void* p = reinterpret_cast<void*>(next_);
    calls_.push_back({UpstreamCall::Kind::Allocate, p, nullptr, nbytes, index, alignment});
    live_[p] = LiveBlock{nbytes, index};
    return p;
  }
  void deallocate(void* ptr, DeviceIndex index) override {
    calls_.push_back({UpstreamCall::Kind::Free, ptr, nullptr, 0, index, 0});
    live_.erase(ptr);
  }
  void deallocate_sized(void* ptr, size_t nbytes, DeviceIndex index) override {
    calls_.push_back({UpstreamCall::Kind::FreeSized, ptr, nullptr, nbytes, index, 0});
    live_.erase(ptr);
  }
  std::optional<LiveBlock> find_live_block(const void* ptr) const override {
    auto it = live_.find(const_cast<void*>(ptr));
    if (it == live_.end()) return std::nullopt;
    return it->second;
  }
  Error copy_host_to_device(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    calls_.push_back({UpstreamCall::Kind::HostToDevice, dst, src, nbytes, index, 0});
    return Error::success();
  }
  Error copy_device_to_host(void* dst, const void* src, size_t nbytes, DeviceIndex index) override {
    calls_.push_back({UpstreamCall::Kind::DeviceToHost, dst, src, nbytes, index, 0});
    return Error::success();
  }
  DeviceType device_type() const override { return type_; }

  // The next allocate() records its call and returns `error`.
  void fail_next_allocation(Error error) { fail_next_ = std::move(error); }
  const std::vector<UpstreamCall>& calls() const { return calls_; }
  void clear_calls() { calls_.clear(); }
  size_t live_blocks() const { return live_.size(); }

 private:
  const DeviceType type_;
  uintptr_t next_ = 0x7e0000000000;
  std::map<void*, LiveBlock> live_;
  std::vector<UpstreamCall> calls_;
  std::optional<Error> fail_next_;
};

}  // namespace devplan::testing
