//===- TypeRelationsTest.cpp - Tests of the relation adaptor --------------===//
//
/// \file
/// makeRelation() fetches the typed record and the leading tensor arguments
/// in order, reports the standard errors with the operator's name, and hands
/// the typed values to the relation.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/TypeRelations.h"

#include "nnir/Ops/Attrs.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

RelationResult takeLike(const TakeAttrs *attrs, const TensorType *data,
                        const TensorType *indices, ArrayRef<const Type *> args,
                        const TypeRelationContext &ctx) {
  EXPECT_EQ(args.size(), 3u);
  if (attrs->batchDims != 0)
    return ctx.error("batch_dims is " + Twine(attrs->batchDims));
  return makeTensorType({data->getShape()[0], indices->getShape()[0]},
                        data->getDType(), ctx);
}

RelationResult padValueOnly(const TensorType *data, const TensorType *value,
                            ArrayRef<const Type *>,
                            const TypeRelationContext &) {
  EXPECT_EQ(value->getRank(), 0u);
  return Ref<Type>(const_cast<TensorType *>(data));
}

class RelationAdaptorTest : public ::testing::Test {
protected:
  std::string run(const TypeRelationFn &relation,
                  ArrayRef<const Type *> args, const Attrs *attrs) {
    TypeRelationContext ctx{"my_op", SMLoc()};
    Expected<Ref<Type>> result = relation(args, attrs, ctx);
    if (!result)
      return "error: " + toString(result.takeError());
    return (*result)->str();
  }

  Ref<TensorType> f32 = TensorType::get({4}, DataType::float32());
  Ref<TensorType> i64 = TensorType::get({3}, DataType::int64());
  Ref<TensorType> scalar = TensorType::get({}, DataType::float32());
  Ref<TakeAttrs> take = TakeAttrs::create();
};

TEST_F(RelationAdaptorTest, PassesTypedValues) {
  TypeRelationFn relation =
      makeRelation<TakeAttrs>(takeLike, "data", indexArg("indices"));
  EXPECT_EQ(run(relation, {f32.get(), i64.get(), f32.get()}, take.get()),
            TensorType::get({4, 3}, DataType::float32())->str());
  take->batchDims = 2;
  EXPECT_EQ(run(relation, {f32.get(), i64.get(), f32.get()}, take.get()),
            "error: my_op: batch_dims is 2");
}

TEST_F(RelationAdaptorTest, ReportsTheStandardErrorsInOrder) {
  TypeRelationFn relation =
      makeRelation<TakeAttrs>(takeLike, "data", indexArg("indices"));
  // The record first...
  EXPECT_EQ(run(relation, {f32.get()}, nullptr),
            "error: my_op: expected attributes of type "
            "relay.attrs.TakeAttrs, got none");
  Ref<ReshapeAttrs> reshape = ReshapeAttrs::create();
  EXPECT_EQ(run(relation, {f32.get(), i64.get()}, reshape.get()),
            "error: my_op: expected attributes of type "
            "relay.attrs.TakeAttrs, got relay.attrs.ReshapeAttrs");
  // ...then the arguments, in order.
  Ref<TupleType> tuple = TupleType::get({Ref<Type>(f32)});
  EXPECT_EQ(run(relation, {tuple.get(), f32.get()}, take.get()),
            "error: my_op: expected a tensor for 'data', got " + tuple->str());
  EXPECT_EQ(run(relation, {f32.get()}, take.get()),
            "error: my_op: missing argument 'indices'");
  EXPECT_EQ(run(relation, {f32.get(), f32.get()}, take.get()),
            "error: my_op: expected an integer tensor for 'indices', got " +
                f32->str());
}

TEST_F(RelationAdaptorTest, RankedArgumentsAndNoRecord) {
  TypeRelationFn relation =
      makeRelation(padValueOnly, "data", rankedArg("pad_value", 0));
  EXPECT_EQ(run(relation, {f32.get(), scalar.get()}, nullptr), f32->str());
  EXPECT_EQ(run(relation, {f32.get(), f32.get()}, nullptr),
            "error: my_op: expected a 0-d tensor for 'pad_value', got " +
                f32->str());
}

} // namespace
