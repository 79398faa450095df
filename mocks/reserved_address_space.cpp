#include <mocks/reserved_address_space.h>

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <utility>
#include <vector>

namespace devplan {
namespace {

std::string errno_text(int err) { return std::system_category().message(err); }

uintptr_t round_up(uintptr_t value, uintptr_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

}  // namespace

size_t ReservedAddressSpace::page_size() {
  static const size_t size = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return size;
}

Result<void*> ReservedAddressSpace::reserve(size_t nbytes, size_t alignment) {
  const size_t page = page_size();
  // Larger requests would overflow the rounding; no address space holds them anyway.
  if (nbytes > (SIZE_MAX >> 2) || alignment > (SIZE_MAX >> 2)) {
    return Error(ErrorCode::MemoryAllocationFailed,
                 "cannot reserve " + std::to_string(nbytes) + " bytes of address space");
  }
  const size_t length = round_up(std::max<size_t>(nbytes, 1), page);
  const size_t slack = alignment > page ? alignment : 0;
  void* base = ::mmap(nullptr, length + slack, PROT_NONE,
                      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (base == MAP_FAILED) {
    return Error(ErrorCode::MemoryAllocationFailed,
                 "cannot reserve " + std::to_string(length) +
                     " bytes of address space: " + errno_text(errno));
  }
  const uintptr_t start = round_up(reinterpret_cast<uintptr_t>(base), alignment);
  const uintptr_t end = reinterpret_cast<uintptr_t>(base) + length + slack;
  // Trim the slack that the alignment did not use, before and after the block.
  if (start > reinterpret_cast<uintptr_t>(base)) {
    ::munmap(base, start - reinterpret_cast<uintptr_t>(base));
  }
  if (end > start + length) ::munmap(reinterpret_cast<void*>(start + length), end - start - length);
  return reinterpret_cast<void*>(start);
}

void ReservedAddressSpace::unreserve(const void* block, size_t nbytes) {
  const auto [begin, end] = page_span(block, std::max<size_t>(nbytes, 1));
  forget(begin, end);
  ::munmap(reinterpret_cast<void*>(begin), end - begin);
}

Error ReservedAddressSpace::back(const void* ptr, size_t nbytes, uint8_t fill) {
  if (nbytes == 0) return Error::success();
  const auto [begin, end] = page_span(ptr, nbytes);
  // The runs of [begin, end) that no backed run covers yet.
  std::vector<std::pair<uintptr_t, uintptr_t>> missing;
  uintptr_t cursor = begin;
  auto next = backed_.upper_bound(begin);
  if (next != backed_.begin()) cursor = std::max(cursor, std::prev(next)->second);
  while (cursor < end) {
    const bool more = next != backed_.end() && next->first < end;
    const uintptr_t stop = more ? next->first : end;
    if (stop > cursor) missing.emplace_back(cursor, stop);
    if (!more) break;
    cursor = std::max(cursor, next->second);
    ++next;
  }
  for (const auto& [run_begin, run_end] : missing) {
    void* run = reinterpret_cast<void*>(run_begin);
    if (::mprotect(run, run_end - run_begin, PROT_READ | PROT_WRITE) != 0) {
      return Error(ErrorCode::MemoryAllocationFailed,
                   "cannot back " + std::to_string(run_end - run_begin) +
                       " bytes of simulated device memory with host memory: " + errno_text(errno));
    }
    std::memset(run, fill, run_end - run_begin);
    backed_bytes_ += run_end - run_begin;
    // Insert [run_begin, run_end), merged with the runs it touches.
    uintptr_t merged_begin = run_begin;
    uintptr_t merged_end = run_end;
    auto it = backed_.lower_bound(run_begin);
    if (it != backed_.begin() && std::prev(it)->second == run_begin) {
      --it;
      merged_begin = it->first;
      it = backed_.erase(it);
    }
    if (it != backed_.end() && it->first == run_end) {
      merged_end = it->second;
      backed_.erase(it);
    }
    backed_.emplace(merged_begin, merged_end);
  }
  return Error::success();
}

void ReservedAddressSpace::drop(const void* block, size_t nbytes) {
  const auto [begin, end] = page_span(block, std::max<size_t>(nbytes, 1));
  void* start = reinterpret_cast<void*>(begin);
  ::madvise(start, end - begin, MADV_DONTNEED);
  ::mprotect(start, end - begin, PROT_NONE);
  forget(begin, end);
}

void ReservedAddressSpace::read(const void* ptr, size_t nbytes, uint8_t unbacked_fill,
                                void* out) const {
  const uintptr_t end = reinterpret_cast<uintptr_t>(ptr) + nbytes;
  uintptr_t cursor = reinterpret_cast<uintptr_t>(ptr);
  uint8_t* dst = static_cast<uint8_t*>(out);
  while (cursor < end) {
    auto next = backed_.upper_bound(cursor);
    const bool inside = next != backed_.begin() && std::prev(next)->second > cursor;
    const uintptr_t stop = inside ? std::min(end, std::prev(next)->second)
                                  : std::min(end, next == backed_.end() ? end : next->first);
    if (inside) {
      std::memcpy(dst, reinterpret_cast<const void*>(cursor), stop - cursor);
    } else {
      std::memset(dst, unbacked_fill, stop - cursor);
    }
    dst += stop - cursor;
    cursor = stop;
  }
}

std::pair<uintptr_t, uintptr_t> ReservedAddressSpace::page_span(const void* ptr, size_t nbytes) {
  const uintptr_t page = page_size();
  const uintptr_t first = reinterpret_cast<uintptr_t>(ptr);
  return {first / page * page, round_up(first + nbytes, page)};
}

void ReservedAddressSpace::forget(uintptr_t begin, uintptr_t end) {
  auto it = backed_.upper_bound(begin);
  if (it != backed_.begin() && std::prev(it)->second > begin) --it;
  while (it != backed_.end() && it->first < end) {
    const uintptr_t run_begin = it->first;
    const uintptr_t run_end = it->second;
    it = backed_.erase(it);
    backed_bytes_ -= std::min(run_end, end) - std::max(run_begin, begin);
    if (run_begin < begin) backed_.emplace(run_begin, begin);
    if (run_end > end) backed_.emplace(end, run_end);
  }
}

}  // namespace devplan
