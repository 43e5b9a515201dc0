//===- PoolLoopTest.cpp - runPoolLoop -------------------------------------===//

#include "nnir/Support/PoolLoop.h"

#include "llvm/Support/ThreadPool.h"
#include "llvm/Support/Threading.h"

#include "gtest/gtest.h"

#include <atomic>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

using namespace nnir;

namespace {

TEST(PoolLoopTest, EveryIterationRunsOnce) {
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(3));
  std::vector<std::atomic<int>> runs(1000);
  std::mutex mutex;
  std::set<std::thread::id> threads;
  runPoolLoop(pool, 3, runs.size(), [&](size_t i) {
    ++runs[i];
    std::lock_guard<std::mutex> lock(mutex);
    threads.insert(std::this_thread::get_id());
  });
  for (size_t i = 0; i != runs.size(); ++i)
    EXPECT_EQ(runs[i].load(), 1) << i;
  EXPECT_GE(threads.size(), 1u);
  EXPECT_LE(threads.size(), 3u);
  pool.wait();
}

TEST(PoolLoopTest, OneThreadOrOneIterationRunsOnTheCaller) {
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(2));
  std::thread::id self = std::this_thread::get_id();
  std::vector<char> onCaller(8, 0);
  runPoolLoop(pool, 1, onCaller.size(), [&](size_t i) {
    onCaller[i] = std::this_thread::get_id() == self;
  });
  for (size_t i = 0; i != onCaller.size(); ++i)
    EXPECT_TRUE(onCaller[i]) << i;
  char once = 0;
  runPoolLoop(pool, 2, 1,
              [&](size_t) { once = std::this_thread::get_id() == self; });
  EXPECT_TRUE(once);
  runPoolLoop(pool, 2, 0, [&](size_t) { ADD_FAILURE() << "no iterations"; });
  pool.wait();
}

TEST(PoolLoopTest, NestedLoopsOnAOneWorkerPoolFinish) {
  // The one worker may run an outer iteration whose inner loop finds no free
  // worker: its caller (the worker) runs the inner iterations itself.
  llvm::DefaultThreadPool pool(llvm::hardware_concurrency(1));
  std::atomic<int> inner{0};
  runPoolLoop(pool, 2, 4, [&](size_t) {
    runPoolLoop(pool, 2, 16, [&](size_t) { ++inner; });
  });
  EXPECT_EQ(inner.load(), 64);
  pool.wait();
}

} // namespace
