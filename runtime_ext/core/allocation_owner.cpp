#include <runtime_ext/core/allocation_owner.h>

#include <utility>

namespace devplan {
namespace {

AllocationOwner& thread_owner() {
  thread_local AllocationOwner owner;
  return owner;
}

}  // namespace

AllocationOwner::AllocationOwner(std::string text)
    : label_(std::make_shared<const std::string>(std::move(text))) {}

AllocationOwner AllocationOwner::label_of(std::string label) {
  return AllocationOwner(std::move(label));
}

std::string AllocationOwner::text_of(const std::string* label, int64_t buffer) {
  if (label == nullptr) return "";
  if (buffer == kNoBuffer) return *label;
  return *label + "/buffer " + std::to_string(buffer);
}

const AllocationOwner& allocation_owner_of_this_thread() { return thread_owner(); }

std::string current_allocation_owner() { return thread_owner().text(); }

ScopedAllocationOwner::ScopedAllocationOwner(std::string owner)
    : ScopedAllocationOwner(AllocationOwner(std::move(owner))) {}

ScopedAllocationOwner::ScopedAllocationOwner(AllocationOwner owner)
    : previous_(std::exchange(thread_owner(), std::move(owner))) {}

ScopedAllocationOwner::~ScopedAllocationOwner() { thread_owner() = std::move(previous_); }

void ScopedAllocationOwner::set_buffer(int64_t buffer) { thread_owner().set_buffer(buffer); }

}  // namespace devplan
