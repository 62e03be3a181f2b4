#pragma once
// The flows crossing one link, as the flow model keeps them: a list that holds its first four
// entries inside the link's own state and spills to the heap only beyond that. A link that
// enters a solve carries two to four flows nineteen times in twenty (flow bench case), so
// walking its flows then costs no second cache miss.

#include <algorithm>
#include <cstdint>
#include <memory>

namespace ctwin::network {

// One word, so four fit where two did. Ids of flows in progress are recycled, so 2^26 of them
// at once (17 GB of flow state) is far beyond any run; hops are below 64 (one bit per hop
// in the flow model's binding mask).
struct FlowOnLink {
  static constexpr std::uint32_t kFlowLimit = std::uint32_t{1} << 26;
  static constexpr std::uint32_t kHopLimit = 64;

  std::uint32_t flow : 26;
  std::uint32_t hop : 6;  // where the link sits on the flow's path
};
static_assert(sizeof(FlowOnLink) == 4, "a link's entries are packed words");

class LinkFlows {
 public:
  LinkFlows() = default;
  LinkFlows(const LinkFlows&) = delete;
  LinkFlows& operator=(const LinkFlows&) = delete;
  ~LinkFlows() {
    if (spilled()) delete[] heap_;
  }

  [[nodiscard]] std::uint32_t size() const { return size_; }
  [[nodiscard]] bool empty() const { return size_ == 0; }
  [[nodiscard]] const FlowOnLink* begin() const { return spilled() ? heap_ : inline_; }
  [[nodiscard]] const FlowOnLink* end() const { return begin() + size_; }
  [[nodiscard]] FlowOnLink& operator[](std::uint32_t i) { return (spilled() ? heap_ : inline_)[i]; }
  [[nodiscard]] const FlowOnLink& back() const { return begin()[size_ - 1]; }

  void push_back(FlowOnLink entry) {
    if (size_ == capacity()) grow();
    (*this)[size_++] = entry;
  }
  void pop_back() {
    --size_;
    // Back inside once it fits again, so a link that was busy once does not keep a pointer
    // to chase for the rest of the run.
    if (spilled() && size_ <= kInline) {
      FlowOnLink* heap = heap_;
      std::copy(heap, heap + size_, inline_);
      delete[] heap;
      heap_capacity_ = 0;
    }
  }

 private:
  static constexpr std::uint32_t kInline = 4;

  [[nodiscard]] bool spilled() const { return heap_capacity_ != 0; }
  [[nodiscard]] std::uint32_t capacity() const { return spilled() ? heap_capacity_ : kInline; }
  void grow() {
    const std::uint32_t grown = std::max<std::uint32_t>(2 * capacity(), 4);
    auto* heap = new FlowOnLink[grown];
    std::copy(begin(), end(), heap);
    if (spilled()) delete[] heap_;
    heap_ = heap;
    heap_capacity_ = grown;
  }

  std::uint32_t size_ = 0;
  std::uint32_t heap_capacity_ = 0;  // 0 while the entries are inline
  union {
    FlowOnLink inline_[kInline];
    FlowOnLink* heap_;
  };
};

}  // namespace ctwin::network
