#include "Runtime.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>

namespace ccforest {

void run_batched(const Runtime& runtime, size_t n, const std::function<void(size_t)>& body,
                 const std::function<void(size_t, size_t)>& after_batch) {
  // Each batch ends with every thread waiting for the slowest, which costs a
  // scheduler time slice when the machine is busy. Batches therefore grow
  // until one takes a noticeable time, which still leaves interrupts and
  // progress reports a fraction of a second apart.
  using Clock = std::chrono::steady_clock;
  const auto target = std::chrono::milliseconds(100);
  size_t batch = std::max<size_t>(1, runtime.batch_size);
  std::exception_ptr failure;
  std::mutex failure_mutex;
  // Once an item has failed, or the host has asked to stop, the batch's
  // other items are skipped: a batch can hold every item of a long call, and
  // going on with them would delay the error (or Ctrl-C) until the end.
  std::atomic<bool> failed{false};
  auto guarded = [&](size_t i) {
    if (failed.load(std::memory_order_relaxed)) return;
    try {
      runtime.throw_if_cancelled();
      body(i);
    } catch (...) {
      failed.store(true, std::memory_order_relaxed);
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  for (size_t begin = 0; begin < n;) {
    const size_t end = std::min(n, begin + batch);
    const auto started = Clock::now();
    runtime.parallel_for(begin, end, guarded);
    if (Clock::now() - started < target) batch *= 2;
    if (failure) std::rethrow_exception(failure);
    if (after_batch) after_batch(begin, end);
    runtime.check_interrupt();
    runtime.progress(end, n);
    begin = end;
  }
}

}  // namespace ccforest
