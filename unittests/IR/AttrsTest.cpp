//===- AttrsTest.cpp - Tests of attribute records -------------------------===//
//
/// \file
/// The typed records of nnir/Ops/Attrs.h (defaults, keyword initialisation
/// and its diagnostics, field listing, equality and hashing) and DictAttrs.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Attrs.h"
#include "nnir/IR/Expr.h"
#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

#include <cmath>

using namespace llvm;
using namespace nnir;

namespace {

/// The message and location of a DiagnosticError (consumes \p err).
struct Diag {
  std::string message;
  SMLoc loc;
};

Diag takeDiag(Error err) {
  Diag diag;
  handleAllErrors(std::move(err), [&](const DiagnosticError &d) {
    diag.message = d.getMessage();
    diag.loc = d.getLoc();
  });
  return diag;
}

AttrValue ints(std::initializer_list<int64_t> values) {
  std::vector<AttrValue> elems;
  for (int64_t v : values)
    elems.push_back(AttrValue::integer(v));
  return AttrValue::array(std::move(elems));
}

NamedAttrValue kw(StringRef name, AttrValue value, SMLoc loc = {}) {
  return {name.str(), std::move(value), loc};
}

class AttrsTest : public ::testing::Test {
protected:
  void SetUp() override { registerAllOps(); }

  /// Locations inside a fake source buffer, so that diagnostics can be
  /// checked for their position.
  SMLoc at(size_t offset) { return SMLoc::getFromPointer(text + offset); }
  const char text[64] = "nn.conv2d(%x, %w, strides=[1, 1], groups=\"a\")";
};

TEST_F(AttrsTest, CreateAppliesTvmDefaults) {
  Ref<Conv2DAttrs> conv = Conv2DAttrs::create();
  EXPECT_EQ(conv->strides, IntList({1, 1}));
  EXPECT_EQ(conv->padding, IntList({0, 0}));
  EXPECT_EQ(conv->dilation, IntList({1, 1}));
  EXPECT_EQ(conv->groups, 1);
  EXPECT_FALSE(conv->channels.has_value());
  EXPECT_FALSE(conv->kernelSize.has_value());
  EXPECT_EQ(conv->dataLayout, "NCHW");
  EXPECT_EQ(conv->kernelLayout, "OIHW");
  EXPECT_EQ(conv->outLayout, "");
  EXPECT_TRUE(conv->outDtype.isVoid());
  EXPECT_EQ(conv->getTypeKey(), "relay.attrs.Conv2DAttrs");

  Ref<BatchNormAttrs> bn = BatchNormAttrs::create();
  EXPECT_EQ(bn->axis, 1);
  EXPECT_DOUBLE_EQ(bn->epsilon, 1e-5);
  EXPECT_TRUE(bn->center);
  EXPECT_TRUE(bn->scale);
  EXPECT_DOUBLE_EQ(DropoutAttrs::create()->rate, 0.5);
  EXPECT_EQ(SoftmaxAttrs::create()->axis, -1);
}

TEST_F(AttrsTest, CreateFromValuesConvertsEveryFieldType) {
  Expected<Ref<Attrs>> attrs = Conv2DAttrs::createFromValues(
      {kw("strides", ints({2, 2})), kw("groups", AttrValue::integer(4)),
       kw("channels", AttrValue::integer(16)), kw("kernel_size", ints({3, 3})),
       kw("data_layout", AttrValue::string("NHWC")),
       kw("out_dtype", AttrValue::string("int8"))},
      SMLoc(), "nn.conv2d");
  ASSERT_TRUE(bool(attrs)) << toString(attrs.takeError());
  auto *conv = static_cast<Conv2DAttrs *>(attrs->get());
  EXPECT_EQ(conv->strides, IntList({2, 2}));
  EXPECT_EQ(conv->padding, IntList({0, 0}));
  EXPECT_EQ(conv->groups, 4);
  EXPECT_EQ(conv->channels, std::optional<int64_t>(16));
  EXPECT_EQ(conv->kernelSize, std::optional<IntList>(IntList({3, 3})));
  EXPECT_EQ(conv->dataLayout, "NHWC");
  EXPECT_EQ(conv->outDtype, DataType::int8());

  Expected<Ref<Attrs>> bn = BatchNormAttrs::createFromValues(
      {kw("epsilon", AttrValue::integer(1)),
       kw("center", AttrValue::boolean(false))},
      SMLoc(), "nn.batch_norm");
  ASSERT_TRUE(bool(bn)) << toString(bn.takeError());
  EXPECT_DOUBLE_EQ(static_cast<BatchNormAttrs *>(bn->get())->epsilon, 1.0);
  EXPECT_FALSE(static_cast<BatchNormAttrs *>(bn->get())->center);

  // An optional field accepts None; an AttrValue field accepts anything.
  Expected<Ref<Attrs>> reduce = ReduceAttrs::createFromValues(
      {kw("axis", AttrValue::none())}, SMLoc(), "sum");
  ASSERT_TRUE(bool(reduce)) << toString(reduce.takeError());
  EXPECT_FALSE(static_cast<ReduceAttrs *>(reduce->get())->axis.has_value());
  Expected<Ref<Attrs>> split = SplitAttrs::createFromValues(
      {kw("indices_or_sections", ints({1, 3}))}, SMLoc(), "split");
  ASSERT_TRUE(bool(split)) << toString(split.takeError());
  EXPECT_EQ(static_cast<SplitAttrs *>(split->get())->indicesOrSections,
            ints({1, 3}));
}

TEST_F(AttrsTest, UnknownKeyListsTheValidOnes) {
  Diag diag =
      takeDiag(Conv2DAttrs::createFromValues(
                   {kw("stride", ints({1, 1}), at(18))}, at(0), "nn.conv2d")
                   .takeError());
  EXPECT_EQ(diag.message,
            "unknown attribute 'stride' of nn.conv2d; valid attributes are: "
            "strides, padding, dilation, groups, channels, kernel_size, "
            "data_layout, kernel_layout, out_layout, out_dtype");
  EXPECT_EQ(diag.loc, at(18));
}

TEST_F(AttrsTest, OpWithoutRecordTakesNoAttributes) {
  Op *add = Op::lookup("add");
  ASSERT_NE(add, nullptr);
  EXPECT_FALSE(add->hasAttrsType());
  EXPECT_EQ(add->getAttrsTypeKey(), "");
  Expected<Ref<Attrs>> none = add->createAttrs({});
  ASSERT_TRUE(bool(none));
  EXPECT_FALSE(*none);
  Diag diag = takeDiag(
      add->createAttrs({kw("axis", AttrValue::integer(1), at(5))}, at(0))
          .takeError());
  EXPECT_EQ(diag.message, "unknown attribute 'axis': add takes no attributes");
  EXPECT_EQ(diag.loc, at(5));
}

TEST_F(AttrsTest, MissingRequiredFieldIsReportedAtTheCall) {
  Diag diag =
      takeDiag(DenseAttrs::createFromValues({}, at(3), "nn.dense").takeError());
  EXPECT_EQ(diag.message, "missing required attribute 'units' of nn.dense");
  EXPECT_EQ(diag.loc, at(3));

  // Through the registry, with the op's name.
  Diag viaOp =
      takeDiag(Op::lookup("reshape")->createAttrs({}, at(7)).takeError());
  EXPECT_EQ(viaOp.message, "missing required attribute 'newshape' of reshape");
  EXPECT_EQ(viaOp.loc, at(7));
}

TEST_F(AttrsTest, MisspelledRequiredFieldIsReportedAsUnknown) {
  Diag diag = takeDiag(
      DenseAttrs::createFromValues({kw("unit", AttrValue::integer(4), at(9))},
                                   at(0), "nn.dense")
          .takeError());
  EXPECT_EQ(diag.message, "unknown attribute 'unit' of nn.dense; valid "
                          "attributes are: units, out_dtype");
  EXPECT_EQ(diag.loc, at(9));
}

TEST_F(AttrsTest, MistypedValuesNameTheExpectedType) {
  Diag scalar =
      takeDiag(Conv2DAttrs::createFromValues(
                   {kw("groups", AttrValue::string("a", at(41)), at(34))},
                   at(0), "nn.conv2d")
                   .takeError());
  EXPECT_EQ(scalar.message,
            "attribute 'groups' of nn.conv2d: expected int, got a string");
  EXPECT_EQ(scalar.loc, at(41)); // the value, not the name

  Diag list =
      takeDiag(Conv2DAttrs::createFromValues(
                   {kw("strides", AttrValue::integer(2))}, at(0), "nn.conv2d")
                   .takeError());
  EXPECT_EQ(list.message, "attribute 'strides' of nn.conv2d: expected list "
                          "of int, got an integer");
  EXPECT_EQ(list.loc, at(0)); // no location of its own: the call's

  Diag element =
      takeDiag(Conv2DAttrs::createFromValues(
                   {kw("padding", AttrValue::array({AttrValue::integer(1),
                                                    AttrValue::string("x")}))},
                   SMLoc(), "nn.conv2d")
                   .takeError());
  EXPECT_EQ(element.message, "attribute 'padding' of nn.conv2d: expected "
                             "list of int, got a string");

  Diag dtype =
      takeDiag(CastAttrs::createFromValues(
                   {kw("dtype", AttrValue::string("floaty"))}, SMLoc(), "cast")
                   .takeError());
  EXPECT_EQ(dtype.message,
            "attribute 'dtype' of cast: unknown dtype \"floaty\"; expected "
            "one of bool, int8, int16, int32, int64, uint8, uint16, uint32, "
            "uint64, float16, bfloat16, float32, float64");

  Diag boolean =
      takeDiag(ReduceAttrs::createFromValues(
                   {kw("keepdims", AttrValue::string("yes"))}, SMLoc(), "sum")
                   .takeError());
  EXPECT_EQ(boolean.message,
            "attribute 'keepdims' of sum: expected bool, got a string");
}

TEST_F(AttrsTest, DuplicateKeyIsReportedAtItsSecondOccurrence) {
  Diag diag = takeDiag(Conv2DAttrs::createFromValues(
                           {kw("groups", AttrValue::integer(1), at(10)),
                            kw("groups", AttrValue::integer(2), at(20))},
                           at(0), "nn.conv2d")
                           .takeError());
  EXPECT_EQ(diag.message, "attribute 'groups' of nn.conv2d is given twice");
  EXPECT_EQ(diag.loc, at(20));
}

TEST_F(AttrsTest, FirstProblemInSourceOrderWins) {
  // A mistyped value before an unknown key: the mistyped value is reported.
  Diag first =
      takeDiag(Conv2DAttrs::createFromValues(
                   {kw("groups", AttrValue::string("a", at(12)), at(5)),
                    kw("bogus", AttrValue::integer(1), at(30))},
                   at(0), "nn.conv2d")
                   .takeError());
  EXPECT_EQ(first.message,
            "attribute 'groups' of nn.conv2d: expected int, got a string");
  // An unknown key before a mistyped value: the unknown key is reported.
  Diag second =
      takeDiag(Conv2DAttrs::createFromValues(
                   {kw("bogus", AttrValue::integer(1), at(5)),
                    kw("groups", AttrValue::string("a", at(40)), at(30))},
                   at(0), "nn.conv2d")
                   .takeError());
  EXPECT_EQ(second.loc, at(5));
  EXPECT_EQ(StringRef(second.message).take_front(26),
            "unknown attribute 'bogus' ");
}

TEST_F(AttrsTest, GetFieldsListsInDeclarationOrder) {
  Ref<Conv2DAttrs> conv = Conv2DAttrs::create();
  SmallVector<NamedAttrValue, 16> all;
  conv->getFields(all);
  ASSERT_EQ(all.size(), 10u);
  EXPECT_EQ(all[0].name, "strides");
  EXPECT_EQ(all[0].value, ints({1, 1}));
  EXPECT_EQ(all[4].name, "channels");
  EXPECT_TRUE(all[4].value.isNone());
  EXPECT_EQ(all[6].name, "data_layout");
  EXPECT_EQ(all[6].value, AttrValue::string("NCHW"));
  EXPECT_EQ(all[9].name, "out_dtype");
  EXPECT_EQ(all[9].value, AttrValue::string(""));

  SmallVector<NamedAttrValue, 16> nonDefault;
  conv->getFields(nonDefault, /*nonDefaultOnly=*/true);
  EXPECT_TRUE(nonDefault.empty());

  conv->padding = {1, 1};
  conv->channels = 8;
  nonDefault.clear();
  conv->getFields(nonDefault, /*nonDefaultOnly=*/true);
  ASSERT_EQ(nonDefault.size(), 2u);
  EXPECT_EQ(nonDefault[0].name, "padding");
  EXPECT_EQ(nonDefault[0].value, ints({1, 1}));
  EXPECT_EQ(nonDefault[1].name, "channels");
  EXPECT_EQ(nonDefault[1].value, AttrValue::integer(8));

  // Required fields are always listed.
  Ref<DenseAttrs> dense = DenseAttrs::create();
  SmallVector<NamedAttrValue, 4> denseFields;
  dense->getFields(denseFields, /*nonDefaultOnly=*/true);
  ASSERT_EQ(denseFields.size(), 1u);
  EXPECT_EQ(denseFields[0].name, "units");
}

TEST_F(AttrsTest, DescribeFieldsGivesTypesAndDefaults) {
  SmallVector<AttrFieldInfo, 16> fields;
  Conv2DAttrs::create()->describeFields(fields);
  ASSERT_EQ(fields.size(), 10u);
  EXPECT_EQ(fields[0].name, "strides");
  EXPECT_EQ(fields[0].typeName, "list of int");
  EXPECT_EQ(fields[0].defaultText, std::optional<std::string>("[1, 1]"));
  EXPECT_EQ(fields[4].typeName, "optional int");
  EXPECT_EQ(fields[4].defaultText, std::optional<std::string>("None"));
  EXPECT_EQ(fields[9].typeName, "dtype");

  SmallVector<AttrFieldInfo, 4> dense;
  DenseAttrs::create()->describeFields(dense);
  ASSERT_EQ(dense.size(), 2u);
  EXPECT_EQ(dense[0].name, "units");
  EXPECT_FALSE(dense[0].defaultText.has_value());
}

TEST_F(AttrsTest, EqualityAndHashFollowTheFields) {
  Ref<Conv2DAttrs> a = Conv2DAttrs::create();
  Ref<Conv2DAttrs> b = Conv2DAttrs::create();
  EXPECT_TRUE(a->equals(*b));
  EXPECT_EQ(a->hash(), b->hash());
  EXPECT_TRUE(attrsEqual(a.get(), b.get()));

  b->strides = {2, 2};
  EXPECT_FALSE(a->equals(*b));
  EXPECT_FALSE(b->equals(*a));
  EXPECT_NE(a->hash(), b->hash());
  a->strides = {2, 2};
  EXPECT_TRUE(a->equals(*b));
  EXPECT_EQ(hashAttrs(a.get()), hashAttrs(b.get()));

  // Different record types never compare equal, even with equal fields.
  Ref<SoftmaxAttrs> softmax = SoftmaxAttrs::create();
  Ref<BiasAddAttrs> bias = BiasAddAttrs::create();
  softmax->axis = 1;
  EXPECT_FALSE(softmax->equals(*bias));
  EXPECT_FALSE(attrsEqual(softmax.get(), bias.get()));

  // Floats compare bitwise: NaN equals NaN, -0 differs from 0.
  Ref<DropoutAttrs> d1 = DropoutAttrs::create(), d2 = DropoutAttrs::create();
  d1->rate = std::nan("");
  d2->rate = std::nan("");
  EXPECT_TRUE(d1->equals(*d2));
  d1->rate = 0.0;
  d2->rate = -0.0;
  EXPECT_FALSE(d1->equals(*d2));
}

TEST_F(AttrsTest, NullEqualsAnEmptyDict) {
  Ref<DictAttrs> empty = DictAttrs::get({});
  EXPECT_TRUE(attrsEqual(nullptr, nullptr));
  EXPECT_TRUE(attrsEqual(nullptr, empty.get()));
  EXPECT_TRUE(attrsEqual(empty.get(), nullptr));
  EXPECT_EQ(hashAttrs(nullptr), hashAttrs(empty.get()));
  Ref<Conv2DAttrs> conv = Conv2DAttrs::create();
  EXPECT_FALSE(attrsEqual(nullptr, conv.get()));
  EXPECT_FALSE(attrsEqual(conv.get(), empty.get()));
}

TEST_F(AttrsTest, DictAttrsWithAndWithout) {
  Ref<DictAttrs> dict =
      DictAttrs::get({kw("Primitive", AttrValue::integer(1)),
                      kw("Compiler", AttrValue::string("ccompiler"))});
  EXPECT_EQ(dict->getTypeKey(), "DictAttrs");
  EXPECT_TRUE(isa<DictAttrs>(dict.get()));
  EXPECT_FALSE(
      isa<DictAttrs>(static_cast<Attrs *>(Conv2DAttrs::create().get())));
  ASSERT_NE(dict->lookup("Compiler"), nullptr);
  EXPECT_EQ(dict->lookup("Compiler")->getString(), "ccompiler");
  EXPECT_EQ(dict->lookup("Missing"), nullptr);

  // with() replaces in place or appends; the original is unchanged.
  Ref<DictAttrs> replaced = dict->with("Primitive", AttrValue::integer(0));
  ASSERT_EQ(replaced->getEntries().size(), 2u);
  EXPECT_EQ(replaced->getEntries()[0].name, "Primitive");
  EXPECT_EQ(replaced->lookup("Primitive")->getInt(), 0);
  EXPECT_EQ(dict->lookup("Primitive")->getInt(), 1);
  Ref<DictAttrs> appended = dict->with("Extern", AttrValue::boolean(true));
  ASSERT_EQ(appended->getEntries().size(), 3u);
  EXPECT_EQ(appended->getEntries()[2].name, "Extern");

  Ref<DictAttrs> removed = dict->without("Primitive");
  ASSERT_EQ(removed->getEntries().size(), 1u);
  EXPECT_EQ(removed->getEntries()[0].name, "Compiler");
  EXPECT_EQ(dict->without("Missing")->getEntries().size(), 2u);

  // Equality is entry by entry; equal dicts hash alike.
  Ref<DictAttrs> same =
      DictAttrs::get({kw("Primitive", AttrValue::integer(1)),
                      kw("Compiler", AttrValue::string("ccompiler"))});
  EXPECT_TRUE(dict->equals(*same));
  EXPECT_EQ(dict->hash(), same->hash());
  EXPECT_FALSE(dict->equals(*replaced));
  EXPECT_FALSE(dict->equals(*Conv2DAttrs::create()));

  SmallVector<NamedAttrValue, 4> fields;
  dict->getFields(fields, /*nonDefaultOnly=*/true);
  ASSERT_EQ(fields.size(), 2u);
  EXPECT_EQ(fields[1].name, "Compiler");
}

//===----------------------------------------------------------------------===//
// Typed access: RTTI, the call's record or the op's defaults, copies
//===----------------------------------------------------------------------===//

TEST_F(AttrsTest, DynCastFollowsTheRecordType) {
  Ref<Attrs> conv = Conv2DAttrs::create();
  EXPECT_TRUE(isa<Conv2DAttrs>(conv.get()));
  EXPECT_FALSE(isa<Conv1DAttrs>(conv.get()));
  EXPECT_FALSE(isa<DictAttrs>(conv.get()));
  EXPECT_EQ(dyn_cast<Conv2DAttrs>(conv.get()), conv.get());
  EXPECT_EQ(dyn_cast<DenseAttrs>(conv.get()), nullptr);
  EXPECT_EQ(dyn_cast_or_null<Conv2DAttrs>(static_cast<Attrs *>(nullptr)),
            nullptr);
  EXPECT_EQ(conv->getTypeId(), Conv2DAttrs::getStaticTypeId());
  EXPECT_NE(Conv2DAttrs::getStaticTypeId(), Conv3DAttrs::getStaticTypeId());
  // The identity is the interned type key.
  EXPECT_EQ(Conv2DAttrs::getStaticTypeId(),
            TypeId::getFromName("relay.attrs.Conv2DAttrs"));
  EXPECT_TRUE(isa<DictAttrs>(static_cast<Attrs *>(DictAttrs::get({}).get())));

  // A record created from keyword arguments is the same type.
  Op *conv2d = Op::lookup("nn.conv2d");
  Expected<Ref<Attrs>> parsed =
      conv2d->createAttrs({kw("groups", AttrValue::integer(2))});
  ASSERT_TRUE(bool(parsed)) << toString(parsed.takeError());
  ASSERT_TRUE(isa<Conv2DAttrs>(parsed->get()));
  EXPECT_EQ(cast<Conv2DAttrs>(parsed->get())->groups, 2);
  EXPECT_EQ((*parsed)->getTypeId(), conv2d->getAttrsTypeId());
}

TEST_F(AttrsTest, CallRecordOrTheOpDefaults) {
  Op *conv2d = Op::lookup("nn.conv2d");
  Op *add = Op::lookup("add");
  Ref<Var> x = Var::get("x"), w = Var::get("w");
  const Attrs *defaults = conv2d->getDefaultAttrs().get();
  ASSERT_NE(defaults, nullptr);
  EXPECT_TRUE(isa<Conv2DAttrs>(defaults));
  // One shared record per operator.
  EXPECT_EQ(conv2d->getDefaultAttrs(), conv2d->getDefaultAttrs());
  EXPECT_EQ(add->getDefaultAttrs(), nullptr);

  // No record, or an empty DictAttrs: the op's defaults.
  Ref<Call> bare = Call::get(conv2d, {x, w});
  EXPECT_EQ(bare->getAttrsOrDefaults(), defaults);
  ASSERT_NE(bare->getAttrsAs<Conv2DAttrs>(), nullptr);
  EXPECT_EQ(bare->getAttrsAs<Conv2DAttrs>()->dataLayout, "NCHW");
  EXPECT_EQ(bare->getAttrsAs<DenseAttrs>(), nullptr);
  Ref<Call> emptyDict = Call::get(conv2d, {x, w}, DictAttrs::get({}));
  EXPECT_EQ(emptyDict->getAttrsOrDefaults(), defaults);

  // Its own record otherwise.
  Ref<Conv2DAttrs> strided =
      Conv2DAttrs::create()->with([](Conv2DAttrs &a) { a.strides = {2, 2}; });
  Ref<Call> own = Call::get(conv2d, {x, w}, strided);
  EXPECT_EQ(own->getAttrsOrDefaults(), strided.get());
  EXPECT_EQ(own->getAttrsAs<Conv2DAttrs>()->strides, IntList({2, 2}));

  // An op without a record type, and calls of non-operators.
  EXPECT_EQ(Call::get(add, {x, x})->getAttrsOrDefaults(), nullptr);
  EXPECT_EQ(Call::get(add, {x, x}, DictAttrs::get({}))->getAttrsOrDefaults(),
            nullptr);
  Ref<DictAttrs> dict = DictAttrs::get({kw("k", AttrValue::integer(1))});
  Ref<GlobalVar> f = GlobalVar::get("f");
  EXPECT_EQ(Call::get(f, {x})->getAttrsOrDefaults(), nullptr);
  EXPECT_EQ(Call::get(f, {x}, dict)->getAttrsOrDefaults(), dict.get());
}

TEST_F(AttrsTest, WithCopiesAndLeavesTheOriginal) {
  Ref<Conv2DAttrs> original = Conv2DAttrs::create();
  original->padding = {1, 1, 1, 1};
  original->channels = 8;
  Ref<Conv2DAttrs> copy = original->clone();
  EXPECT_NE(copy.get(), original.get());
  EXPECT_TRUE(copy->equals(*original));
  EXPECT_EQ(copy->hash(), original->hash());

  Ref<Conv2DAttrs> nhwc = original->with([](Conv2DAttrs &a) {
    a.dataLayout = "NHWC";
    a.kernelLayout = "HWIO";
  });
  EXPECT_EQ(nhwc->dataLayout, "NHWC");
  EXPECT_EQ(nhwc->kernelLayout, "HWIO");
  // Unchanged fields are copied, and the original is untouched.
  EXPECT_EQ(nhwc->padding, IntList({1, 1, 1, 1}));
  EXPECT_EQ(nhwc->channels, std::optional<int64_t>(8));
  EXPECT_EQ(original->dataLayout, "NCHW");
  EXPECT_FALSE(nhwc->equals(*original));

  // Every field type is copied: optional lists, dtypes, AttrValues.
  Ref<StridedSliceAttrs> slice = StridedSliceAttrs::create();
  slice->begin = OptionalIntList{0, std::nullopt};
  slice->axes = IntList{2};
  EXPECT_TRUE(slice->clone()->equals(*slice));
  Ref<OnDeviceAttrs> onDevice = OnDeviceAttrs::create();
  onDevice->virtualDevice = AttrValue::string("cuda");
  EXPECT_TRUE(onDevice->clone()->equals(*onDevice));
}

TEST_F(AttrsTest, WithValuesConvertsByName) {
  Ref<Conv2DAttrs> original = Conv2DAttrs::create();
  Expected<Ref<Attrs>> changed = original->withValues(
      {kw("strides", ints({2, 2})),
       kw("data_layout", AttrValue::string("NHWC"))},
      "nn.conv2d");
  ASSERT_TRUE(bool(changed)) << toString(changed.takeError());
  const auto *conv = dyn_cast<Conv2DAttrs>(changed->get());
  ASSERT_NE(conv, nullptr);
  EXPECT_EQ(conv->strides, IntList({2, 2}));
  EXPECT_EQ(conv->dataLayout, "NHWC");
  EXPECT_EQ(conv->kernelLayout, "OIHW");
  EXPECT_EQ(original->strides, IntList({1, 1}));

  // Required fields need not be given when updating.
  Ref<DenseAttrs> dense = DenseAttrs::create();
  dense->units = 4;
  Expected<Ref<Attrs>> dtype =
      dense->withValues({kw("out_dtype", AttrValue::string("int32"))});
  ASSERT_TRUE(bool(dtype)) << toString(dtype.takeError());
  EXPECT_EQ(cast<DenseAttrs>(dtype->get())->units, std::optional<int64_t>(4));
  EXPECT_EQ(cast<DenseAttrs>(dtype->get())->outDtype, DataType::int32());

  EXPECT_EQ(takeDiag(original->withValues({kw("stride", ints({2}))},
                                          "nn.conv2d")
                         .takeError())
                .message,
            "unknown attribute 'stride' of nn.conv2d; valid attributes are: "
            "strides, padding, dilation, groups, channels, kernel_size, "
            "data_layout, kernel_layout, out_layout, out_dtype");
  EXPECT_EQ(
      takeDiag(original->withValues({kw("groups", AttrValue::string("a"))})
                   .takeError())
          .message,
      "attribute 'groups' of relay.attrs.Conv2DAttrs: expected int, got a "
      "string");

  Ref<DictAttrs> dict =
      DictAttrs::get({kw("Primitive", AttrValue::integer(1))});
  Expected<Ref<Attrs>> newDict =
      dict->withValues({kw("Primitive", AttrValue::integer(0)),
                        kw("Compiler", AttrValue::string("c"))});
  ASSERT_TRUE(bool(newDict));
  const auto *d = cast<DictAttrs>(newDict->get());
  EXPECT_EQ(d->lookup("Primitive")->getInt(), 0);
  EXPECT_EQ(d->lookup("Compiler")->getString(), "c");
}

//===----------------------------------------------------------------------===//
// Operator attribute maps
//===----------------------------------------------------------------------===//

struct TestCost {
  int64_t cycles;
};

} // namespace

NNIR_DECLARE_EXPLICIT_TYPE_ID(TestCost)
NNIR_DEFINE_EXPLICIT_TYPE_ID(TestCost)

namespace {

TEST_F(AttrsTest, AttrMapsAreKeyedByExplicitTypeIds) {
  OpRegistry &registry = OpRegistry::instance();
  Op *relu = Op::lookup("nn.relu");
  Op *exp = Op::lookup("exp");
  OpAttrMap<TestCost> &costs = registry.getAttrMap<TestCost>("TestCost");
  costs.set(relu, {3});
  EXPECT_EQ(&registry.getAttrMap<TestCost>("TestCost"), &costs);
  const OpAttrMap<TestCost> *found = registry.findAttrMap<TestCost>("TestCost");
  ASSERT_EQ(found, &costs);
  EXPECT_EQ(found->getValueTypeId(), TypeId::get<TestCost>());
  EXPECT_TRUE(found->has(relu));
  EXPECT_EQ(found->get(relu).cycles, 3);
  EXPECT_FALSE(found->has(exp));
  EXPECT_EQ(found->lookup(exp, {7}).cycles, 7);
  // Another value type under the same key is not found.
  EXPECT_EQ(registry.findAttrMap<bool>("TestCost"), nullptr);
  EXPECT_EQ(registry.findAttrMap<TestCost>("NoSuchProperty"), nullptr);
  EXPECT_NE(TypeId::get<TestCost>(), TypeId::get<bool>());
}

#ifndef NDEBUG
TEST_F(AttrsTest, MissingAttrMapEntryIsAsserted) {
  Op *exp = Op::lookup("exp");
  OpAttrMap<TestCost> &costs =
      OpRegistry::instance().getAttrMap<TestCost>("TestCostAsserted");
  EXPECT_DEATH(costs.get(exp), "operator has no entry in this attribute map");
}
#endif

} // namespace
