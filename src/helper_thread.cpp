// The helper thread (see helper_thread.h).
#include "helper_thread.h"

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <thread>

#ifdef _WIN32
#include <process.h>
#define CCFOREST_PID _getpid
#else
#include <unistd.h>
#define CCFOREST_PID getpid
#endif

namespace ccforest {

namespace {

struct Helper {
  std::mutex mutex;
  std::condition_variable wake, finished;
  const std::function<void()>* job = nullptr;  // the job waiting or running
  bool done = false;
  bool stop = false;
  bool busy = false;          // a caller is waiting for it (read by the caller's thread only)
  long pid = 0;               // the process that made it
  std::thread::id caller;     // the thread that made it: R's main thread
  std::thread thread;
};

/**
 * Never destroyed at exit: the helper then still waits on its condition
 * variable, and destroying a condition variable that has a waiter blocks
 * (exit would hang). Only stop_helper_thread() ends it.
 */
Helper* helper = nullptr;

void serve(Helper* h) {
  std::unique_lock<std::mutex> lock(h->mutex);
  while (true) {
    h->wake.wait(lock, [h] { return h->job != nullptr || h->stop; });
    if (h->stop) return;
    const std::function<void()>* job = h->job;
    lock.unlock();
    (*job)();
    lock.lock();
    h->job = nullptr;
    h->done = true;
    h->finished.notify_one();
  }
}

/**
 * `job` on a thread of its own, while the caller polls: for a call that
 * arrives while the helper is busy, from R code that `poll` ran (an event
 * handler that R_CheckUserInterrupt() lets run, say).
 */
void run_on_own_thread(const std::function<void()>& job, const std::function<void()>& poll) {
  std::mutex mutex;
  std::condition_variable finished;
  bool done = false;
  std::thread thread([&] {
    job();
    std::lock_guard<std::mutex> lock(mutex);
    done = true;
    finished.notify_one();
  });
  std::unique_lock<std::mutex> lock(mutex);
  while (!finished.wait_for(lock, std::chrono::milliseconds(20), [&] { return done; })) {
    lock.unlock();
    poll();
    lock.lock();
  }
  lock.unlock();
  thread.join();
}

}  // namespace

void run_on_helper_thread(const std::function<void()>& job, const std::function<void()>& poll) {
  // A forked child's copy of the helper has no thread: it is left as it is
  // (its mutex may not be destroyed safely) and a new one made.
  if (helper != nullptr && helper->pid != static_cast<long>(CCFOREST_PID())) helper = nullptr;
  if (helper != nullptr && std::this_thread::get_id() != helper->caller) {
    job();
    return;
  }
  if (helper == nullptr) {
    auto made = std::make_unique<Helper>();
    made->pid = static_cast<long>(CCFOREST_PID());
    made->caller = std::this_thread::get_id();
    made->thread = std::thread(serve, made.get());
    helper = made.release();
  }
  Helper* h = helper;
  if (h->busy) {
    run_on_own_thread(job, poll);
    return;
  }
  h->busy = true;
  {
    std::lock_guard<std::mutex> lock(h->mutex);
    h->job = &job;
    h->done = false;
  }
  h->wake.notify_one();
  std::unique_lock<std::mutex> lock(h->mutex);
  while (!h->finished.wait_for(lock, std::chrono::milliseconds(20), [h] { return h->done; })) {
    lock.unlock();
    poll();
    lock.lock();
  }
  h->busy = false;
}

void stop_helper_thread() {
  Helper* h = helper;
  helper = nullptr;
  if (h == nullptr || h->pid != static_cast<long>(CCFOREST_PID())) return;
  {
    std::lock_guard<std::mutex> lock(h->mutex);
    h->stop = true;
  }
  h->wake.notify_one();
  h->thread.join();
  delete h;
}

}  // namespace ccforest
