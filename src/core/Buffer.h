#ifndef CCFOREST_BUFFER_H_
#define CCFOREST_BUFFER_H_

#include <cstddef>
#include <memory>
#include <new>
#include <utility>
#include <vector>

namespace ccforest {

/**
 * An allocator whose value-less construct() leaves trivial types
 * uninitialised, so that resize() does not zero-fill, and whose memory is
 * aligned to a cache line.
 *
 * Scratch vectors are resized to each node's size, up and down as nodes
 * alternate, and are always overwritten before being read; zero-filling them
 * cost more than the rest of some loops.
 *
 * The alignment is for reproducibility, not speed: vectorised reductions
 * (Eigen's sums and dot products over a Map, say) start their packets at the
 * first aligned element, so the order of their additions, and the rounding
 * of the result, would otherwise depend on where malloc() happened to put
 * the buffer, which depends on everything allocated before it. A tree must
 * be a pure function of its data, options, seed and number.
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

  static constexpr std::size_t kAlignment = 64;

  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(n * sizeof(T), std::align_val_t(kAlignment)));
  }
  void deallocate(T* p, std::size_t) noexcept {
    ::operator delete(p, std::align_val_t(kAlignment));
  }

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
