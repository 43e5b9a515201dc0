//===- BuildersTest.cpp - Tests of the typed call builders ----------------===//
//
/// \file
/// Each builder calls its operator with the record the operator declares,
/// filled as the same attributes given by name would fill it; builders
/// leave calls untyped at the location given; typeCheck() types a call by
/// its relation and reports the relation's, the arity check's and its own
/// errors.
//
//===----------------------------------------------------------------------===//

#include "nnir/Ops/Builders.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/Printer.h"
#include "nnir/Ops/Ops.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace llvm;
using namespace nnir;

namespace {

class BuildersTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  static Ref<Expr> var(StringRef name, ArrayRef<int64_t> shape,
                       DataType dtype = DataType::float32()) {
    return Var::get(name, TensorType::get(shape, dtype));
  }

  static NamedAttrValue kw(StringRef name, AttrValue value) {
    return NamedAttrValue{name.str(), std::move(value), SMLoc()};
  }
  static AttrValue ints(ArrayRef<int64_t> values) {
    std::vector<AttrValue> elems;
    for (int64_t v : values)
      elems.push_back(AttrValue::integer(v));
    return AttrValue::array(std::move(elems));
  }

  /// Expects \p expr to be an untyped call of \p opName whose record equals
  /// the one the operator builds from \p kwargs (the attributes by name).
  static void expectCall(const Ref<Expr> &expr, StringRef opName,
                         ArrayRef<NamedAttrValue> kwargs) {
    const auto *call = dyn_cast<Call>(expr.get());
    ASSERT_NE(call, nullptr);
    ASSERT_NE(call->getCalledOp(), nullptr);
    EXPECT_EQ(call->getCalledOp()->getName(), opName);
    EXPECT_EQ(call->getCheckedType(), nullptr) << "builders do not type";
    Op *op = Op::lookup(opName);
    Expected<Ref<Attrs>> expected = op->createAttrs(kwargs);
    ASSERT_TRUE(bool(expected)) << toString(expected.takeError());
    if (!*expected) {
      EXPECT_EQ(call->getAttrs(), nullptr) << opName.str();
      return;
    }
    ASSERT_NE(call->getAttrs(), nullptr) << opName.str();
    EXPECT_EQ(call->getAttrs()->getTypeKey(), op->getAttrsTypeKey());
    EXPECT_TRUE(call->getAttrs()->equals(**expected))
        << opName.str() << ": " << toString(expr.get());
  }

  static std::string typeOf(const Ref<Expr> &expr) {
    Expected<Ref<Expr>> typed = ops::typeCheck(expr);
    if (!typed)
      return "error: " + toString(typed.takeError());
    return (*typed)->getCheckedType()->str();
  }
};

TEST_F(BuildersTest, ElementwiseBuildersCallTheirOperators) {
  Ref<Expr> x = var("x", {2}), y = var("y", {2});
#define NNIR_UNARY_BUILDER(NAME, OP_NAME)                                      \
  expectCall(ops::NAME(x), OP_NAME, {});
#define NNIR_BINARY_BUILDER(NAME, OP_NAME)                                     \
  expectCall(ops::NAME(x, y), OP_NAME, {});
#include "nnir/Ops/Builders.def"
  Ref<Expr> c = var("c", {2}, DataType::boolean());
  expectCall(ops::where(c, x, y), "where", {});
  expectCall(ops::cast(x, DataType::int64()), "cast",
             {kw("dtype", AttrValue::string("int64"))});
  expectCall(ops::clip(x, -1, 2), "clip",
             {kw("a_min", AttrValue::floating(-1)),
              kw("a_max", AttrValue::floating(2))});
  expectCall(ops::leakyRelu(x, 0.1), "nn.leaky_relu",
             {kw("alpha", AttrValue::floating(0.1))});
}

TEST_F(BuildersTest, DataMovementRecords) {
  Ref<Expr> x = var("x", {2, 3}), i = var("i", {2}, DataType::int64());
  expectCall(ops::reshape(x, {3, 2}), "reshape", {kw("newshape", ints({3, 2}))});
  expectCall(ops::expandDims(x, 1, 2), "expand_dims",
             {kw("axis", AttrValue::integer(1)),
              kw("num_newaxis", AttrValue::integer(2))});
  expectCall(ops::squeeze(x, IntList{0}), "squeeze", {kw("axis", ints({0}))});
  expectCall(ops::squeeze(x, std::nullopt), "squeeze", {});
  expectCall(ops::repeat(x, 2, 1), "repeat",
             {kw("repeats", AttrValue::integer(2)),
              kw("axis", AttrValue::integer(1))});
  expectCall(ops::transpose(x, IntList{1, 0}), "transpose",
             {kw("axes", ints({1, 0}))});
  expectCall(ops::transpose(x, std::nullopt), "transpose",
             {kw("axes", AttrValue::none())});
  expectCall(ops::broadcastTo(x, {4, 2, 3}), "broadcast_to",
             {kw("shape", ints({4, 2, 3}))});
  expectCall(ops::stridedSlice(x, {0, 1}, {2, std::nullopt}, {1, 1}, {0, 1}),
             "strided_slice",
             {kw("begin", ints({0, 1})),
              kw("end", AttrValue::array({AttrValue::integer(2),
                                          AttrValue::none()})),
              kw("strides", ints({1, 1})), kw("axes", ints({0, 1}))});
  Ref<Expr> pair = Tuple::get({x, x});
  expectCall(ops::concatenate(pair, 1), "concatenate",
             {kw("axis", AttrValue::integer(1))});
  expectCall(ops::stack(pair, 0), "stack", {kw("axis", AttrValue::integer(0))});
  expectCall(ops::take(x, i, 1, "fast"), "take",
             {kw("axis", AttrValue::integer(1)),
              kw("mode", AttrValue::string("fast"))});
  expectCall(ops::gather(x, x, 0), "gather",
             {kw("axis", AttrValue::integer(0))});
  expectCall(ops::gatherND(x, i, 0, 1), "gather_nd",
             {kw("batch_dims", AttrValue::integer(0)),
              kw("index_rank", AttrValue::integer(1))});
  expectCall(ops::scatterElements(x, i, x, 1, "add"), "scatter_elements",
             {kw("axis", AttrValue::integer(1)),
              kw("reduction", AttrValue::string("add"))});
  expectCall(ops::scatterND(x, i, x, "mul"), "scatter_nd",
             {kw("mode", AttrValue::string("mul"))});
  expectCall(ops::reverse(x, 1), "reverse", {kw("axis", AttrValue::integer(1))});
  expectCall(ops::reverseSequence(x, i, 0, 1), "reverse_sequence",
             {kw("seq_axis", AttrValue::integer(0)),
              kw("batch_axis", AttrValue::integer(1))});
  expectCall(ops::tile(x, {2, 1}), "tile", {kw("reps", ints({2, 1}))});
  expectCall(ops::oneHot(i, x, x, 4, -1, DataType::float32()), "one_hot",
             {kw("depth", AttrValue::integer(4)),
              kw("axis", AttrValue::integer(-1)),
              kw("dtype", AttrValue::string("float32"))});
}

TEST_F(BuildersTest, ReductionAndAlgorithmRecords) {
  Ref<Expr> x = var("x", {2, 3});
  std::vector<NamedAttrValue> keep{kw("axis", ints({1})),
                                   kw("keepdims", AttrValue::boolean(true))};
  expectCall(ops::sum(x, IntList{1}, true), "sum", keep);
  expectCall(ops::mean(x, IntList{1}, true), "mean", keep);
  expectCall(ops::max(x, IntList{1}, true), "max", keep);
  expectCall(ops::min(x, IntList{1}, true), "min", keep);
  expectCall(ops::prod(x, IntList{1}, true), "prod", keep);
  expectCall(ops::sum(x, std::nullopt, false), "sum", {});
  expectCall(ops::variance(x, x, {1}, true), "variance", keep);
  std::vector<NamedAttrValue> last = keep;
  last.push_back(kw("select_last_index", AttrValue::boolean(true)));
  expectCall(ops::argmax(x, {1}, true, true), "argmax", last);
  expectCall(ops::argmin(x, {1}, true, true), "argmin", last);
  expectCall(ops::cumsum(x, 1, true), "cumsum",
             {kw("axis", AttrValue::integer(1)),
              kw("exclusive", AttrValue::boolean(true))});
  expectCall(ops::topk(x, 2, 1, "both", true, DataType::int64()), "topk",
             {kw("k", AttrValue::integer(2)), kw("axis", AttrValue::integer(1)),
              kw("ret_type", AttrValue::string("both")),
              kw("is_ascend", AttrValue::boolean(true)),
              kw("dtype", AttrValue::string("int64"))});
  expectCall(ops::einsum(Tuple::get({x}), "ij->ji"), "einsum",
             {kw("equation", AttrValue::string("ij->ji"))});
}

TEST_F(BuildersTest, NeuralNetworkRecords) {
  Ref<Expr> x = var("x", {1, 2, 4, 4}), w = var("w", {3, 2, 1, 1});
  Ref<Expr> v = var("v", {2});
  expectCall(ops::dense(x, w, 3), "nn.dense",
             {kw("units", AttrValue::integer(3))});
  expectCall(ops::batchMatmul(x, w, false, true), "nn.batch_matmul",
             {kw("transpose_b", AttrValue::boolean(true))});
  Ref<Conv2DAttrs> conv = Conv2DAttrs::create();
  conv->strides = {2, 2};
  conv->channels = 3;
  expectCall(ops::conv2d(x, w, conv), "nn.conv2d",
             {kw("strides", ints({2, 2})), kw("channels", AttrValue::integer(3))});
  expectCall(ops::conv1d(x, w, Conv1DAttrs::create()), "nn.conv1d", {});
  expectCall(ops::conv3d(x, w, Conv3DAttrs::create()), "nn.conv3d", {});
  expectCall(ops::conv2dTranspose(x, w, Conv2DTransposeAttrs::create()),
             "nn.conv2d_transpose", {});
  expectCall(ops::conv1dTranspose(x, w, Conv1DTransposeAttrs::create()),
             "nn.conv1d_transpose", {});
  expectCall(ops::conv3dTranspose(x, w, Conv3DTransposeAttrs::create()),
             "nn.conv3d_transpose", {});
  Ref<ROIAlignAttrs> roi = ROIAlignAttrs::create();
  roi->pooledSize = {7, 7};
  roi->spatialScale = 0.5;
  roi->aligned = true;
  expectCall(ops::roiAlign(x, w, roi), "vision.roi_align",
             {kw("pooled_size", ints({7, 7})),
              kw("spatial_scale", AttrValue::floating(0.5)),
              kw("aligned", AttrValue::boolean(true))});
  expectCall(ops::biasAdd(x, v, 1), "nn.bias_add",
             {kw("axis", AttrValue::integer(1))});
  Ref<MaxPool2DAttrs> maxPool = MaxPool2DAttrs::create();
  maxPool->poolSize = {2, 2};
  expectCall(ops::maxPool2d(x, maxPool), "nn.max_pool2d",
             {kw("pool_size", ints({2, 2}))});
  Ref<AvgPool2DAttrs> avgPool = AvgPool2DAttrs::create();
  avgPool->poolSize = {2, 2};
  avgPool->countIncludePad = true;
  expectCall(ops::avgPool2d(x, avgPool), "nn.avg_pool2d",
             {kw("pool_size", ints({2, 2})),
              kw("count_include_pad", AttrValue::boolean(true))});
  expectCall(ops::batchNorm(x, v, v, v, v, 1, 1e-3), "nn.batch_norm",
             {kw("axis", AttrValue::integer(1)),
              kw("epsilon", AttrValue::floating(1e-3))});
  expectCall(ops::instanceNorm(x, v, v, 1, 1e-3), "nn.instance_norm",
             {kw("axis", AttrValue::integer(1)),
              kw("epsilon", AttrValue::floating(1e-3))});
  Ref<LRNAttrs> lrn = LRNAttrs::create();
  lrn->size = 3;
  expectCall(ops::lrn(x, lrn), "nn.lrn", {kw("size", AttrValue::integer(3))});
  expectCall(ops::softmax(x, 1), "nn.softmax",
             {kw("axis", AttrValue::integer(1))});
  expectCall(ops::logSoftmax(x, 1), "nn.log_softmax",
             {kw("axis", AttrValue::integer(1))});
  expectCall(ops::pad(x, v, {{0, 0}, {0, 0}, {1, 1}, {1, 1}}, "edge"), "nn.pad",
             {kw("pad_width", AttrValue::array({ints({0, 0}), ints({0, 0}),
                                                ints({1, 1}), ints({1, 1})})),
              kw("pad_mode", AttrValue::string("edge"))});
  Ref<Resize2DAttrs> resize = Resize2DAttrs::create();
  resize->size = IntList{8, 8};
  expectCall(ops::resize2d(x, resize), "image.resize2d",
             {kw("size", ints({8, 8}))});
}

TEST_F(BuildersTest, BuildersKeepTheLocation) {
  SourceMgr sm;
  sm.AddNewSourceBuffer(MemoryBuffer::getMemBuffer("add(x, y)"), SMLoc());
  SMLoc loc = SMLoc::getFromPointer(
      sm.getMemoryBuffer(1)->getBufferStart());
  Ref<Expr> x = var("x", {2});
  EXPECT_EQ(ops::add(x, x, loc)->getLoc().getPointer(), loc.getPointer());
  EXPECT_EQ(ops::reshape(x, {2}, loc)->getLoc().getPointer(),
            loc.getPointer());
}

TEST_F(BuildersTest, TypeCheckRunsTheRelation) {
  Ref<Expr> x = var("x", {2, 3}), row = var("row", {3});
  EXPECT_EQ(typeOf(ops::reshape(x, {3, 2})), "Tensor[(3, 2), float32]");
  EXPECT_EQ(typeOf(ops::add(x, row)), "Tensor[(2, 3), float32]");
  EXPECT_EQ(typeOf(ops::sum(x, IntList{1}, false)), "Tensor[(2), float32]");
  EXPECT_EQ(typeOf(ops::cast(x, DataType::int32())), "Tensor[(2, 3), int32]");
  // The typed call is a copy of the built one, with its type.
  Ref<Expr> built = ops::transpose(x, std::nullopt);
  Expected<Ref<Expr>> typed = ops::typeCheck(built);
  ASSERT_TRUE(bool(typed));
  EXPECT_NE(typed->get(), built.get());
  EXPECT_EQ(built->getCheckedType(), nullptr);
  EXPECT_EQ(cast<Call>(typed->get())->getAttrs(),
            cast<Call>(built.get())->getAttrs());
}

TEST_F(BuildersTest, TypeCheckReportsErrors) {
  Ref<Expr> x = var("x", {2, 3}), other = var("o", {4});
  // The relation's error.
  std::string reshape = typeOf(ops::reshape(x, {4}));
  EXPECT_EQ(reshape.rfind("error: reshape: ", 0), 0u) << reshape;
  std::string add = typeOf(ops::add(x, other));
  EXPECT_EQ(add.rfind("error: add: ", 0), 0u) << add;
  // The arity check.
  Ref<Expr> threeArgs = Call::get(Ref<Expr>(Op::lookup("add")), {x, x, x});
  EXPECT_EQ(typeOf(threeArgs), "error: add expects 2 arguments, got 3");
  // An untyped argument.
  EXPECT_EQ(typeOf(ops::negative(Var::get("u"))),
            "error: negative: an argument has no type");
  // Not a call of an operator.
  EXPECT_EQ(typeOf(x), "error: typeCheck expects a call of an operator");
}

} // namespace
