#ifndef CCFOREST_PARALLEL_H_
#define CCFOREST_PARALLEL_H_

#include <Rcpp.h>
// RcppParallel's RMatrix derives from std::iterator, deprecated in C++17, and
// this package never uses it: claim its include guard so it is left out.
#ifndef __RCPP_PARALLEL_RMATRIX__
#define __RCPP_PARALLEL_RMATRIX__
#endif
#include <RcppParallel.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "core/Runtime.h"

namespace ccforest {

/** An RcppParallel worker that runs a core body; it never touches the R API. */
struct BodyWorker : public RcppParallel::Worker {
  explicit BodyWorker(const std::function<void(size_t)>& body) : body(body) {}
  void operator()(std::size_t begin, std::size_t end) override {
    for (std::size_t i = begin; i < end; ++i) body(i);
  }
  const std::function<void(size_t)>& body;
};

namespace detail {

inline void check_interrupt_fn(void*) { R_CheckUserInterrupt(); }

/** Whether the user pressed Ctrl-C; safe to call (it cannot jump) on the main thread. */
inline bool interrupt_pending() { return R_ToplevelExec(check_interrupt_fn, nullptr) == FALSE; }

}  // namespace detail

/**
 * The state of an R call that runs core work: the cancel flag its threads
 * poll. Lives on the binding's stack for the duration of the call.
 */
struct RHost {
  std::atomic<bool> cancel{false};
};

/**
 * The R host's runtime. Each batch runs off the main thread (on RcppParallel's
 * pool when there are several threads), while the main thread waits and
 * checks for Ctrl-C every 20 ms: an interrupt raises the cancel flag, which
 * trees and prediction blocks poll, and R sees the interrupt as soon as the
 * workers have stopped, not only between batches.
 */
inline Runtime r_runtime(RHost& host, int n_thread, bool verbose, const std::string& label) {
  Runtime runtime;
  // More threads than cores only adds contention (and TBB warns about it).
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads = std::min(cores, static_cast<size_t>(n_thread < 1 ? 1 : n_thread));
  runtime.batch_size = 2 * threads;
  runtime.cancel = &host.cancel;
  std::atomic<bool>* cancel = &host.cancel;
  runtime.parallel_for = [threads, cancel](size_t begin, size_t end,
                                           const std::function<void(size_t)>& body) {
    std::mutex mutex;
    std::condition_variable finished;
    bool done = false;
    std::exception_ptr failure;
    std::thread worker([&] {
      try {
        if (threads == 1 || end - begin == 1) {
          for (size_t i = begin; i < end; ++i) body(i);
        } else {
          BodyWorker work(body);
          RcppParallel::parallelFor(begin, end, work, 1, static_cast<int>(threads));
        }
      } catch (...) {
        failure = std::current_exception();
      }
      std::lock_guard<std::mutex> lock(mutex);
      done = true;
      finished.notify_one();
    });
    bool interrupted = false;
    {
      std::unique_lock<std::mutex> lock(mutex);
      while (!finished.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; })) {
        if (interrupted) continue;
        lock.unlock();
        interrupted = detail::interrupt_pending();
        if (interrupted) cancel->store(true);
        lock.lock();
      }
    }
    worker.join();
    if (interrupted || cancel->load()) throw Rcpp::internal::InterruptedException();
    if (failure) std::rethrow_exception(failure);
  };
  runtime.check_interrupt = [] {
    if (detail::interrupt_pending()) throw Rcpp::internal::InterruptedException();
  };
  if (verbose) {
    using Clock = std::chrono::steady_clock;
    auto start = std::make_shared<Clock::time_point>(Clock::now());
    auto last = std::make_shared<Clock::time_point>(Clock::now());
    runtime.progress = [start, last, label](size_t done, size_t total) {
      const auto now = Clock::now();
      if (done < total && now - *last < std::chrono::seconds(1)) return;
      *last = now;
      const double elapsed = std::chrono::duration<double>(now - *start).count();
      Rprintf("\r%s: %3d%% (%zu of %zu), %.1fs", label.c_str(),
              static_cast<int>(100.0 * done / total), done, total, elapsed);
      if (done == total) Rprintf("\n");
    };
  }
  return runtime;
}

}  // namespace ccforest

#endif  // CCFOREST_PARALLEL_H_
