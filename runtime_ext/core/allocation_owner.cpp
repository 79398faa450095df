#include <runtime_ext/core/allocation_owner.h>

#include <utility>

namespace devplan {
namespace {

std::string& thread_owner() {
  thread_local std::string owner;
  return owner;
}

}  // namespace

const std::string& current_allocation_owner() { return thread_owner(); }

ScopedAllocationOwner::ScopedAllocationOwner(std::string owner)
    : previous_(std::exchange(thread_owner(), std::move(owner))) {}

ScopedAllocationOwner::~ScopedAllocationOwner() { thread_owner() = std::move(previous_); }

}  // namespace devplan
