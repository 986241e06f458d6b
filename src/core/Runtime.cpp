#include "Runtime.h"

#include <algorithm>
#include <exception>
#include <mutex>

namespace ccforest {

void run_batched(const Runtime& runtime, size_t n, const std::function<void(size_t)>& body,
                 const std::function<void(size_t, size_t)>& after_batch) {
  const size_t batch = std::max<size_t>(1, runtime.batch_size);
  std::exception_ptr failure;
  std::mutex failure_mutex;
  auto guarded = [&](size_t i) {
    try {
      body(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failure_mutex);
      if (!failure) failure = std::current_exception();
    }
  };
  for (size_t begin = 0; begin < n; begin += batch) {
    const size_t end = std::min(n, begin + batch);
    runtime.parallel_for(begin, end, guarded);
    if (failure) std::rethrow_exception(failure);
    if (after_batch) after_batch(begin, end);
    runtime.check_interrupt();
    runtime.progress(end, n);
  }
}

}  // namespace ccforest
