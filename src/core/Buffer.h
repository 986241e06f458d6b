#ifndef CCFOREST_BUFFER_H_
#define CCFOREST_BUFFER_H_

#include <memory>
#include <utility>
#include <vector>

namespace ccforest {

/**
 * An allocator whose value-less construct() leaves trivial types
 * uninitialised, so that resize() does not zero-fill.
 *
 * Scratch vectors are resized to each node's size, up and down as nodes
 * alternate, and are always overwritten before being read; zero-filling them
 * cost more than the rest of some loops.
 */
template <typename T, typename Base = std::allocator<T>>
class NoInitAllocator : public Base {
  using Traits = std::allocator_traits<Base>;

 public:
  template <typename U>
  struct rebind {
    using other = NoInitAllocator<U, typename Traits::template rebind_alloc<U>>;
  };

  using Base::Base;

  template <typename U>
  void construct(U* p) noexcept {
    ::new (static_cast<void*>(p)) U;
  }
  template <typename U, typename... Args>
  void construct(U* p, Args&&... args) {
    Traits::construct(static_cast<Base&>(*this), p, std::forward<Args>(args)...);
  }
};

/** A scratch vector: resize() leaves new elements uninitialised. */
template <typename T>
using Buffer = std::vector<T, NoInitAllocator<T>>;

}  // namespace ccforest

#endif  // CCFOREST_BUFFER_H_
