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
#include <chrono>
#include <functional>
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

/**
 * The R host's runtime: RcppParallel for the loop, R's interrupt check and
 * console progress on the main thread between batches. Batches are small
 * (two items per thread) so Ctrl-C is honoured within a batch's time.
 */
inline Runtime r_runtime(int n_thread, bool verbose, const std::string& label) {
  Runtime runtime;
  // More threads than cores only adds contention (and TBB warns about it).
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads = std::min(cores, static_cast<size_t>(n_thread < 1 ? 1 : n_thread));
  runtime.batch_size = 2 * threads;
  runtime.parallel_for = [threads](size_t begin, size_t end,
                                   const std::function<void(size_t)>& body) {
    if (threads == 1 || end - begin == 1) {
      for (size_t i = begin; i < end; ++i) body(i);
      return;
    }
    BodyWorker worker(body);
    RcppParallel::parallelFor(begin, end, worker, 1, static_cast<int>(threads));
  };
  runtime.check_interrupt = [] { Rcpp::checkUserInterrupt(); };
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
