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
#include <cmath>
#include <cstdio>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/Runtime.h"
#include "helper_thread.h"

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
 * How a long call reports progress (chosen in R, see progress_style()):
 * not at all, one line per report (log files, knitr, RStudio jobs: output
 * that is not a terminal, where a carriage return does not rewind), or
 * one line rewritten in place (a terminal).
 */
enum class ProgressStyle { kNone = 0, kLines = 1, kInPlace = 2 };

/** Seconds as people read them: "4.2 s", "38 s", "3 min 05 s", "2 h 07 min". */
inline std::string format_duration(double seconds) {
  char text[64];
  if (!(seconds >= 0.0) || !std::isfinite(seconds)) seconds = 0.0;
  if (seconds < 9.95) {
    std::snprintf(text, sizeof text, "%.1f s", seconds);
  } else if (seconds < 59.5) {
    std::snprintf(text, sizeof text, "%.0f s", seconds);
  } else if (seconds < 3599.5) {
    const long whole = std::lround(seconds);
    std::snprintf(text, sizeof text, "%ld min %02ld s", whole / 60, whole % 60);
  } else {
    const long minutes = std::lround(seconds / 60.0);
    std::snprintf(text, sizeof text, "%ld h %02ld min", minutes / 60, minutes % 60);
  }
  return text;
}

/**
 * "Growing trees: 45% (225 of 500), 12 s, about 15 s left": the time left
 * extrapolates the time per tree so far (not shown before the first or
 * after the last).
 */
inline std::string progress_text(const std::string& label, size_t done, size_t total,
                                 double elapsed) {
  char head[160];
  std::snprintf(head, sizeof head, "%s: %3d%% (%zu of %zu), ", label.c_str(),
                static_cast<int>(100.0 * static_cast<double>(done) / static_cast<double>(total)),
                done, total);
  std::string text = head + format_duration(elapsed);
  if (done > 0 && done < total) {
    const double left = elapsed / static_cast<double>(done) * static_cast<double>(total - done);
    text += ", about " + format_duration(left) + " left";
  }
  return text;
}

/**
 * The state of an R call that runs core work: the cancel flag its threads
 * poll. Lives on the binding's stack for the duration of the call.
 */
struct RHost {
  std::atomic<bool> cancel{false};
};

/**
 * The R host's runtime. Each batch runs off the main thread, on the helper
 * thread (helper_thread.h; from there on RcppParallel's pool when there are
 * several threads), while the main thread waits and
 * checks for Ctrl-C every 20 ms: an interrupt raises the cancel flag, which
 * trees and prediction blocks poll, and R sees the interrupt as soon as the
 * workers have stopped, not only between batches.
 */
inline Runtime r_runtime(RHost& host, int n_thread, ProgressStyle style,
                         const std::string& label) {
  Runtime runtime;
  // More threads than cores only adds contention (and TBB warns about it).
  const size_t cores = std::max(1u, std::thread::hardware_concurrency());
  const size_t threads = std::min(cores, static_cast<size_t>(n_thread < 1 ? 1 : n_thread));
  runtime.batch_size = 2 * threads;
  runtime.cancel = &host.cancel;
  std::atomic<bool>* cancel = &host.cancel;
  runtime.parallel_for = [threads, cancel](size_t begin, size_t end,
                                           const std::function<void(size_t)>& body) {
    std::exception_ptr failure;
    const std::function<void()> job = [&] {
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
    };
    bool interrupted = false;
    run_on_helper_thread(job, [&] {
      if (interrupted) return;
      interrupted = detail::interrupt_pending();
      if (interrupted) cancel->store(true);
    });
    if (interrupted || cancel->load()) throw Rcpp::internal::InterruptedException();
    if (failure) std::rethrow_exception(failure);
  };
  runtime.check_interrupt = [] {
    if (detail::interrupt_pending()) throw Rcpp::internal::InterruptedException();
  };
  if (style != ProgressStyle::kNone) {
    using Clock = std::chrono::steady_clock;
    auto start = std::make_shared<Clock::time_point>(Clock::now());
    auto last = std::make_shared<Clock::time_point>(Clock::now());
    auto width = std::make_shared<size_t>(0);  // of the line shown in place
    const bool in_place = style == ProgressStyle::kInPlace;
    // A line in a log every 10 s reads like ranger's; in place, every second.
    const auto every = std::chrono::seconds(in_place ? 1 : 10);
    runtime.progress = [start, last, width, label, in_place, every](size_t done, size_t total) {
      const auto now = Clock::now();
      if (done < total && now - *last < every) return;
      *last = now;
      const double elapsed = std::chrono::duration<double>(now - *start).count();
      std::string text = progress_text(label, done, total, elapsed);
      if (!in_place) {
        Rprintf("%s\n", text.c_str());
        return;
      }
      const size_t shown = text.size();
      if (shown < *width) text.append(*width - shown, ' ');  // clear the longer line before
      *width = shown;
      Rprintf("\r%s", text.c_str());
      if (done == total) Rprintf("\n");
    };
  }
  return runtime;
}

}  // namespace ccforest

#endif  // CCFOREST_PARALLEL_H_
