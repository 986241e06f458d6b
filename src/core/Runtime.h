#ifndef CCFOREST_RUNTIME_H_
#define CCFOREST_RUNTIME_H_

#include <atomic>
#include <cstddef>
#include <exception>
#include <functional>

namespace ccforest {

/** Thrown by work that noticed the host asked it to stop. */
struct Cancelled : std::exception {
  const char* what() const noexcept override { return "cancelled"; }
};

/**
 * What the host (R, or a plain C++ test) lends the core. The core never
 * includes R: bindings fill these in. Defaults run serially and silently.
 */
struct Runtime {
  /** Calls body(i) for every i in [begin, end), possibly on several threads. */
  std::function<void(size_t begin, size_t end, const std::function<void(size_t)>& body)>
      parallel_for = [](size_t begin, size_t end, const std::function<void(size_t)>& body) {
        for (size_t i = begin; i < end; ++i) body(i);
      };
  /** Called on the calling thread between batches; may throw to abort. */
  std::function<void()> check_interrupt = [] {};
  /** Called on the calling thread between batches with work done so far. */
  std::function<void(size_t done, size_t total)> progress = [](size_t, size_t) {};
  /** Work items in the first batch (batches grow while they run quickly). */
  size_t batch_size = 4;
  /**
   * Raised by the host while a batch runs (Ctrl-C, say); long work polls it
   * through cancelled() and throws Cancelled.
   */
  const std::atomic<bool>* cancel = nullptr;

  bool cancelled() const { return cancel != nullptr && cancel->load(std::memory_order_relaxed); }
  void throw_if_cancelled() const {
    if (cancelled()) throw Cancelled();
  }
};

/**
 * Runs body over [0, n) in batches through the runtime, checking for
 * interrupts and reporting progress between batches. Exceptions thrown by the
 * body on worker threads are kept and rethrown here, on the calling thread.
 * `after_batch(begin, end)`, if given, runs on the calling thread after each
 * batch, in order: the place for reductions that must not depend on threads.
 */
void run_batched(const Runtime& runtime, size_t n, const std::function<void(size_t)>& body,
                 const std::function<void(size_t, size_t)>& after_batch = nullptr);

/**
 * Rows a prediction runs on the calling thread: starting a worker thread
 * costs more than walking a served row through hundreds of trees, and work
 * this short needs no Ctrl-C polling.
 */
constexpr size_t kInlineRows = 4;

/** run_batched() over [0, n), or, for a request of few rows, body(i) here. */
inline void run_rows(const Runtime& runtime, size_t n, size_t n_rows,
                     const std::function<void(size_t)>& body) {
  if (n_rows <= kInlineRows) {
    for (size_t i = 0; i < n; ++i) body(i);
    return;
  }
  run_batched(runtime, n, body);
}

}  // namespace ccforest

#endif  // CCFOREST_RUNTIME_H_
