// ScopedAllocationOwner: names who an allocation is for ("forward/buffer 1"), for the duration
// of a scope on the current thread. Allocators that keep a ledger (TrackingDeviceAllocator)
// read the current owner when they allocate; others ignore it.
//
//   {
//     ScopedAllocationOwner owner("forward/buffer 1");
//     auto buffer = DeviceMemoryBuffer::create(48, DeviceType::CUDA, 0);
//   }
//
//   // One label for many buffers: no string is built per buffer.
//   ScopedAllocationOwner owner(AllocationOwner::label_of("forward"));
//   for (size_t i = 1; i < n; ++i) {
//     owner.set_buffer(i);  // the owner is now "forward/buffer <i>"
//     ...
//   }
//
// Why a label and a number: a loader names thousands of buffers "<method>/buffer <i>"; building
// each name would cost a string per allocation, and a ledger would copy it again. An owner is an
// immutable shared label plus an optional buffer number; its text is built only when a report
// asks for it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace devplan {

// Who an allocation is for: a label and, optionally, a buffer number.
class AllocationOwner {
 public:
  static constexpr int64_t kNoBuffer = -1;

  // No owner (text "").
  AllocationOwner() = default;
  // The owner whose text is `text` (no buffer number).
  explicit AllocationOwner(std::string text);
  // An owner with label `label` and no buffer number yet (see with_buffer, set_buffer).
  static AllocationOwner label_of(std::string label);

  // The label, or nullptr when there is no owner. Stays valid while a copy of this owner (or
  // any owner sharing its label) lives.
  const std::string* label() const { return label_.get(); }
  const std::shared_ptr<const std::string>& shared_label() const { return label_; }
  // The buffer number, or kNoBuffer.
  int64_t buffer() const { return buffer_; }
  void set_buffer(int64_t buffer) { buffer_ = buffer; }

  // "<label>/buffer <n>", "<label>", or "" when there is no owner.
  std::string text() const { return text_of(label(), buffer_); }
  // The text of an owner with `label` (nullptr: none) and `buffer`.
  static std::string text_of(const std::string* label, int64_t buffer);

 private:
  std::shared_ptr<const std::string> label_;
  int64_t buffer_ = kNoBuffer;
};

// The innermost owner set on this thread (no owner when none is).
const AllocationOwner& allocation_owner_of_this_thread();
// Its text: "" when none is set.
std::string current_allocation_owner();

class ScopedAllocationOwner {
 public:
  explicit ScopedAllocationOwner(std::string owner);
  explicit ScopedAllocationOwner(AllocationOwner owner);
  ~ScopedAllocationOwner();
  ScopedAllocationOwner(const ScopedAllocationOwner&) = delete;
  ScopedAllocationOwner& operator=(const ScopedAllocationOwner&) = delete;

  // Makes the owner of this scope buffer `buffer` of its label (this thread's current owner
  // while the scope is the innermost one).
  void set_buffer(int64_t buffer);

 private:
  AllocationOwner previous_;
};

}  // namespace devplan
