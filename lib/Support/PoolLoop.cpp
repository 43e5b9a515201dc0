//===- PoolLoop.cpp - A loop on a thread pool the caller joins ------------===//

#include "nnir/Support/PoolLoop.h"

#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>

using namespace nnir;

namespace {
/// The claims of one loop, shared with the pool's workers: a worker that
/// starts after the loop has returned finds nothing to claim and touches
/// only this object, never the caller's stack.
struct Claims {
  std::atomic<size_t> next{0};
  size_t n = 0;
  /// Workers between their first claim attempt and their last iteration's
  /// end.
  std::mutex mutex;
  std::condition_variable idle;
  unsigned busy = 0;
  /// The caller's body; valid while busy > 0 or the caller runs.
  std::function<void(size_t)> run;

  /// Claims and runs iterations until none is left.
  void drain() {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1))
      run(i);
  }
  /// A worker's share: counted busy before it claims, so the caller, which
  /// waits for busy == 0 after its own claims ran out, never returns while
  /// a worker runs an iteration it claimed.
  void work() {
    {
      std::lock_guard<std::mutex> lock(mutex);
      ++busy;
    }
    drain();
    std::lock_guard<std::mutex> lock(mutex);
    if (--busy == 0)
      idle.notify_all();
  }
};
} // namespace

void nnir::runPoolLoop(llvm::ThreadPoolInterface &pool, size_t threads,
                       size_t n, std::function<void(size_t)> body) {
  if (threads < 2 || n < 2) {
    for (size_t i = 0; i != n; ++i)
      body(i);
    return;
  }
  auto claims = std::make_shared<Claims>();
  claims->n = n;
  claims->run = std::move(body);
  for (size_t w = 1, e = std::min(threads, n); w < e; ++w)
    pool.async([claims] { claims->work(); });
  claims->drain();
  std::unique_lock<std::mutex> lock(claims->mutex);
  claims->idle.wait(lock, [&] { return claims->busy == 0; });
  // A worker that has not started yet will find nothing to claim and must
  // not call the body, whose captures die with the caller's frame.
  claims->run = nullptr;
}
