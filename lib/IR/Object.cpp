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

namespace {
struct DestroyQueue {
  bool draining = false;
  std::vector<const Object *> pending;
};
} // namespace

static thread_local DestroyQueue destroyQueue;

void Object::destroy(const Object *object) {
  DestroyQueue &queue = destroyQueue;
  if (queue.draining) {
    queue.pending.push_back(object);
    return;
  }
  queue.draining = true;
  delete object;
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
