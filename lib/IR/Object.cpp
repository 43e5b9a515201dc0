//===- Object.cpp - Shared, reference-counted IR objects ------------------===//
//
/// \file
/// Non-recursive destruction: the outermost release on a thread destroys the
/// object; releases that reach zero during that destruction are queued and
/// destroyed in a loop, so the stack depth does not grow with graph depth.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Object.h"

#include <vector>

using namespace nnir;

Object::~Object() = default;

/// Set when this thread's queue has been destroyed. A thread's thread_local
/// objects are destroyed before the static ones at exit, and statics such as
/// the op registry (operators own their default attribute records) release
/// objects after that: those are deleted directly. A bool has no destructor,
/// so it stays readable until the thread is gone.
static thread_local bool queueDestroyed = false;

namespace {
struct DestroyQueue {
  bool draining = false;
  std::vector<const Object *> pending;
  ~DestroyQueue() { queueDestroyed = true; }
};
} // namespace

static thread_local DestroyQueue destroyQueue;

void Object::destroy(const Object *object) {
  if (queueDestroyed) {
    // At thread exit: the few objects left are freed recursively.
    delete object;
    return;
  }
  DestroyQueue &queue = destroyQueue;
  if (queue.draining) {
    queue.pending.push_back(object);
    return;
  }
  queue.draining = true;
  delete object;
  // Hand-written: a queue of objects to free, not a walk of the graph.
  while (!queue.pending.empty()) {
    const Object *next = queue.pending.back();
    queue.pending.pop_back();
    delete next;
  }
  queue.draining = false;
  // Do not keep a large buffer alive after freeing a huge graph.
  if (queue.pending.capacity() > 4096)
    std::vector<const Object *>().swap(queue.pending);
}
