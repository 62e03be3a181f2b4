#pragma once
// An allocator for the flow model's large per-link and per-flow arrays that asks the kernel
// for transparent huge pages. Solves and flow updates touch states scattered over the whole
// array (a link state per hop, over hundreds of thousands of links), so with 4 KiB pages
// nearly every touch also misses the TLB; 2 MiB pages cover the arrays with a few entries.
// Only where and how the memory is mapped changes, never what is computed. Small arrays, and
// systems without madvise, get plain aligned memory.

#include <cstddef>
#include <cstdlib>
#include <new>

#if defined(__linux__)
#include <sys/mman.h>
#endif

namespace ctwin::network::detail {

template <typename T>
class HugePageAllocator {
 public:
  using value_type = T;

  HugePageAllocator() = default;
  template <typename U>
  explicit HugePageAllocator(const HugePageAllocator<U>& /*other*/) {}

  [[nodiscard]] T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHugePage) {
      return static_cast<T*>(::operator new(bytes, std::align_val_t{alignof(T)}));
    }
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    void* memory = std::aligned_alloc(kHugePage, rounded);
    if (memory == nullptr) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    // Advice only: where the kernel has no huge page to give, the memory stays usable.
    ::madvise(memory, rounded, MADV_HUGEPAGE);
#endif
    return static_cast<T*>(memory);
  }

  void deallocate(T* memory, std::size_t n) noexcept {
    if (n * sizeof(T) < kHugePage) {
      ::operator delete(memory, std::align_val_t{alignof(T)});
    } else {
      std::free(memory);
    }
  }

  template <typename U>
  bool operator==(const HugePageAllocator<U>& /*other*/) const {
    return true;
  }

 private:
  static constexpr std::size_t kHugePage = std::size_t{2} << 20;
};

}  // namespace ctwin::network::detail
