// The thread a binding's work runs on while R's main thread waits for it and
// watches for Ctrl-C (see r_runtime() in parallel.h): one per process, made
// on first use and kept, since starting a thread for every call cost 30 us
// on an idle machine and 70 us on a busy one, several times per fit and once
// per prediction (issue 38). Bindings only.
#ifndef CCFOREST_HELPER_THREAD_H_
#define CCFOREST_HELPER_THREAD_H_

#include <functional>

namespace ccforest {

/**
 * Runs `job` on the helper thread and returns when it has finished; the
 * calling thread meanwhile runs `poll` every 20 ms. `job` must catch its
 * own exceptions and `poll` must neither throw nor jump (the helper may
 * still be running `job`, which refers to the caller's frame). Called from
 * any thread but the one that made the helper (R's main thread) --- the
 * helper itself, or a pool thread, through a nested call --- it runs `job`
 * right there; called again from the main thread while the helper is busy
 * (from R code that `poll` let run), on a thread of its own. In a child
 * process forked by R (the parallel package) the parent's helper does not
 * exist: the child makes its own.
 */
void run_on_helper_thread(const std::function<void()>& job, const std::function<void()>& poll);

/** Stops and joins the helper thread (the package's code is being unloaded). */
void stop_helper_thread();

}  // namespace ccforest

#endif  // CCFOREST_HELPER_THREAD_H_
