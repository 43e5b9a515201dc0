//===- TypeIdTest.cpp - Tests of TypeId -----------------------------------===//
//
/// \file
/// Explicit and named type identities. That they hold across a plugin built
/// with -fvisibility=hidden is tested in test/Plugin/hidden-visibility.nnir.
//
//===----------------------------------------------------------------------===//

#include "nnir/Support/TypeId.h"

#include "llvm/ADT/DenseMap.h"

#include "gtest/gtest.h"

#include <string>
#include <thread>
#include <vector>

using namespace nnir;

namespace {
struct First {};
struct Second {};
} // namespace

NNIR_DECLARE_EXPLICIT_TYPE_ID(First)
NNIR_DEFINE_EXPLICIT_TYPE_ID(First)
NNIR_DECLARE_EXPLICIT_TYPE_ID(Second)
NNIR_DEFINE_EXPLICIT_TYPE_ID(Second)

namespace {

TEST(TypeIdTest, ExplicitIdsAreStableAndDistinct) {
  EXPECT_EQ(TypeId::get<First>(), TypeId::get<First>());
  EXPECT_NE(TypeId::get<First>(), TypeId::get<Second>());
  llvm::DenseMap<TypeId, int> map;
  map[TypeId::get<First>()] = 1;
  map[TypeId::get<Second>()] = 2;
  EXPECT_EQ(map.lookup(TypeId::get<First>()), 1);
  EXPECT_EQ(map.lookup(TypeId::get<Second>()), 2);
}

TEST(TypeIdTest, NamedIdsAreInterned) {
  std::string name = "relay.attrs.TestAttrs";
  TypeId a = TypeId::getFromName(name);
  // Another copy of the same characters gives the same id.
  EXPECT_EQ(TypeId::getFromName(std::string(name)), a);
  EXPECT_NE(TypeId::getFromName("relay.attrs.OtherAttrs"), a);
  EXPECT_NE(a, TypeId::get<First>());
}

TEST(TypeIdTest, NamedIdsAgreeAcrossThreads) {
  std::vector<TypeId> ids(8, TypeId::getFromOpaquePointer(nullptr));
  std::vector<std::thread> threads;
  for (unsigned i = 0; i != ids.size(); ++i)
    threads.emplace_back(
        [&ids, i] { ids[i] = TypeId::getFromName("concurrently.interned"); });
  for (std::thread &thread : threads)
    thread.join();
  for (TypeId id : ids)
    EXPECT_EQ(id, ids.front());
}

} // namespace
