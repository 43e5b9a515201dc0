//===- Algorithm.cpp - Scans, sorts and einsum ----------------------------===//
//
/// \file
/// Registration and type relations of the operators whose loops need more
/// than one output element per input read: cumsum (TVM's scan operator),
/// topk, argsort and sort (TVM's algorithm/topk and sort) and einsum (TVM's tensor/math einsum), with
/// TVM Relay's attributes and result types. Their computes are in
/// AlgorithmCompute.cpp.
//
//===----------------------------------------------------------------------===//

#include "Einsum.h"

#include "nnir/IR/Op.h"
#include "nnir/IR/OpProperties.h"
#include "nnir/Ops/AlgorithmAttrs.h"
#include "nnir/Ops/Ops.h"
#include "nnir/Ops/TypeRelations.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace nnir;

/// cumsum(data): the data's shape (or its element count when axis is None)
/// and the dtype attribute (or the data's).
static RelationResult cumsumRelation(const ScanopAttrs *params,
                                     const TensorType *data,
                                     ArrayRef<const Type *>,
                                     const TypeRelationContext &ctx) {
  DataType dtype = params->dtype.isVoid() ? data->getDType() : params->dtype;
  if (!params->axis) {
    int64_t count = 1;
    for (int64_t d : data->getShape())
      count = isAnyDim(d) || isAnyDim(count) ? kAnyDim : count * d;
    return makeTensorType({count}, dtype, ctx);
  }
  Expected<unsigned> axis = normalizeAxis(*params->axis, data->getRank(), ctx);
  if (!axis)
    return axis.takeError();
  return makeTensorType(data->getShape(), dtype, ctx);
}

/// The axis a sort of \p data runs along: \p axis normalized, for data of
/// rank 1 or more.
static Expected<unsigned> getSortAxis(int64_t axis, const TensorType *data,
                                      const TypeRelationContext &ctx) {
  if (data->getRank() == 0)
    return ctx.error("expected a tensor of rank 1 or more, got " + data->str());
  return normalizeAxis(axis, data->getRank(), ctx);
}

/// topk(data): the data's shape with k elements on the axis (k None or < 1
/// keeps them all); "both" gives (values, indices).
static RelationResult topkRelation(const TopKAttrs *params,
                                   const TensorType *data,
                                   ArrayRef<const Type *>,
                                   const TypeRelationContext &ctx) {
  Expected<unsigned> axis = getSortAxis(params->axis, data, ctx);
  if (!axis)
    return axis.takeError();
  StringRef retType = params->retType;
  if (retType != "both" && retType != "values" && retType != "indices")
    return ctx.error("ret_type must be \"both\", \"values\" or \"indices\", "
                     "got \"" +
                     retType + "\"");
  if (!params->dtype.isInteger() || params->dtype.isBool())
    return ctx.error("dtype must be an integer type, got " +
                     params->dtype.str());
  SmallVector<int64_t, 4> shape(data->getShape());
  int64_t k = params->k.value_or(0);
  if (!isAnyDim(shape[*axis]) && k > shape[*axis])
    return ctx.error("k " + Twine(k) + " exceeds the extent " +
                     Twine(shape[*axis]) + " of axis " + Twine(*axis) + " of " +
                     data->str());
  if (k >= 1)
    shape[*axis] = k;
  Expected<Ref<Type>> values = makeTensorType(shape, data->getDType(), ctx);
  if (!values)
    return values.takeError();
  Expected<Ref<Type>> indices = makeTensorType(shape, params->dtype, ctx);
  if (!indices)
    return indices.takeError();
  if (retType == "values")
    return values;
  if (retType == "indices")
    return indices;
  return Ref<Type>(TupleType::get({*values, *indices}));
}

/// argsort(data) (Indices): the data's shape with the dtype attribute, an
/// integer or floating-point type (TVM's CPU sort writes float indices too);
/// sort(data): the data's type.
template <bool Indices>
static RelationResult sortRelation(const ArgsortAttrs *params,
                                   const TensorType *data,
                                   ArrayRef<const Type *>,
                                   const TypeRelationContext &ctx) {
  Expected<unsigned> axis = getSortAxis(params->axis, data, ctx);
  if (!axis)
    return axis.takeError();
  DataType dtype = Indices ? params->dtype : data->getDType();
  if (Indices && (dtype.isVoid() || dtype.isBool() ||
                  !(dtype.isInteger() || dtype.isFloatingPoint())))
    return ctx.error("dtype must be an integer or floating-point type, got " +
                     (dtype.isVoid() ? std::string("none") : dtype.str()));
  return makeTensorType(data->getShape(), dtype, ctx);
}

Expected<EinsumSpec> nnir::parseEinsum(StringRef equation,
                                       ArrayRef<unsigned> ranks) {
  auto fail = [&](const Twine &why) {
    return createStringError(inconvertibleErrorCode(),
                             "equation \"" + equation + "\": " + why);
  };
  std::string eq;
  for (char c : equation)
    if (c != ' ')
      eq += c;
  StringRef text(eq);
  auto [lhs, rhs] = text.split("->");
  bool explicitOutput = text.contains("->");
  SmallVector<StringRef, 4> terms;
  lhs.split(terms, ',');
  if (terms.size() != ranks.size())
    return fail("has " + Twine(terms.size()) + " operand(s) for " +
                Twine(ranks.size()) + " input(s)");

  // Ellipsis axes: labels 0 .. maxEllipsis-1, aligned from the right.
  auto ellipsisRank = [&](StringRef term, unsigned rank,
                          unsigned &out) -> Error {
    size_t dots = term.find("...");
    size_t letters = term.size() - (dots == StringRef::npos ? 0 : 3);
    if (dots != StringRef::npos && term.find("...", dots + 3) != StringRef::npos)
      return fail("more than one ellipsis in \"" + term + "\"");
    if (dots == StringRef::npos) {
      if (letters != rank)
        return fail("\"" + term + "\" has " + Twine(letters) +
                    " subscript(s) for an operand of rank " + Twine(rank));
      out = 0;
      return Error::success();
    }
    if (letters > rank)
      return fail("\"" + term + "\" has more subscripts than its operand's " +
                  "rank " + Twine(rank));
    out = rank - letters;
    return Error::success();
  };
  SmallVector<unsigned, 4> ellipsis(ranks.size());
  unsigned maxEllipsis = 0;
  for (unsigned i = 0; i < terms.size(); ++i) {
    if (Error err = ellipsisRank(terms[i], ranks[i], ellipsis[i]))
      return err;
    maxEllipsis = std::max(maxEllipsis, ellipsis[i]);
  }

  EinsumSpec spec;
  spec.numLabels = maxEllipsis;
  spec.isEllipsis.assign(maxEllipsis, true);
  int letterLabel[128];
  std::fill(std::begin(letterLabel), std::end(letterLabel), -1);
  unsigned count[128] = {};
  auto labelOf = [&](char c) -> Expected<unsigned> {
    if (!isAlpha(c))
      return fail("'" + Twine(c) + "' is not a subscript letter");
    if (letterLabel[(unsigned char)c] < 0) {
      letterLabel[(unsigned char)c] = spec.numLabels++;
      spec.isEllipsis.push_back(false);
    }
    return letterLabel[(unsigned char)c];
  };
  auto labelTerm = [&](StringRef term, unsigned numEllipsis, bool counting,
                       SmallVectorImpl<unsigned> &labels) -> Error {
    for (size_t p = 0; p < term.size(); ++p) {
      if (term.substr(p).starts_with("...")) {
        for (unsigned e = 0; e < numEllipsis; ++e)
          labels.push_back(maxEllipsis - numEllipsis + e);
        p += 2;
        continue;
      }
      Expected<unsigned> label = labelOf(term[p]);
      if (!label)
        return label.takeError();
      if (counting)
        ++count[(unsigned char)term[p]];
      labels.push_back(*label);
    }
    return Error::success();
  };
  for (unsigned i = 0; i < terms.size(); ++i) {
    spec.operands.emplace_back();
    if (Error err =
            labelTerm(terms[i], ellipsis[i], true, spec.operands.back()))
      return err;
  }
  if (explicitOutput) {
    if (rhs.contains("...") == false && maxEllipsis != 0)
      return fail("the output drops the ellipsis axes");
    for (char c : rhs)
      if (c != '.' && (!isAlpha(c) || letterLabel[(unsigned char)c] < 0))
        return fail("output subscript '" + Twine(c) +
                    "' is not in any operand");
    if (Error err = labelTerm(rhs, maxEllipsis, false, spec.output))
      return err;
    SmallVector<unsigned, 4> sorted(spec.output);
    llvm::sort(sorted);
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      return fail("an output subscript is repeated");
  } else {
    for (unsigned e = 0; e < maxEllipsis; ++e)
      spec.output.push_back(e);
    for (int c = 0; c < 128; ++c)
      if (count[c] == 1)
        spec.output.push_back(letterLabel[c]);
  }
  return spec;
}

/// einsum(tuple): the extents of the output subscripts; every letter has
/// one extent, ellipsis axes broadcast; one dtype.
static RelationResult einsumRelation(const EinsumAttrs *params,
                                     ArrayRef<const Type *> args,
                                     const TypeRelationContext &ctx) {
  SmallVector<const TensorType *, 4> operands;
  if (Error err = getTensorTuple(args, "contract", operands, ctx))
    return err;
  SmallVector<unsigned, 4> ranks;
  for (const TensorType *t : operands) {
    if (t->getDType() != operands[0]->getDType())
      return ctx.error("dtype mismatch " + operands[0]->getDType().str() +
                       " vs " + t->getDType().str());
    ranks.push_back(t->getRank());
  }
  Expected<EinsumSpec> spec = parseEinsum(params->equation, ranks);
  if (!spec)
    return ctx.error(toString(spec.takeError()));
  SmallVector<int64_t, 8> extent(spec->numLabels, -1);
  for (unsigned i = 0; i < operands.size(); ++i) {
    for (unsigned a = 0; a < ranks[i]; ++a) {
      unsigned label = spec->operands[i][a];
      int64_t d = operands[i]->getShape()[a];
      int64_t &e = extent[label];
      if (e < 0 || (spec->isEllipsis[label] && e == 1))
        e = d;
      else if (d != e && !(spec->isEllipsis[label] && d == 1))
        return ctx.error("axis " + Twine(a) + " of operand " + Twine(i) + " " +
                         operands[i]->str() + " has extent " + Twine(d) +
                         " where the equation needs " + Twine(e));
    }
  }
  SmallVector<int64_t, 4> shape;
  for (unsigned label : spec->output)
    shape.push_back(extent[label]);
  return makeTensorType(shape, operands[0]->getDType(), ctx);
}

void nnir::registerAlgorithmOps() {
  using P = OpPatternKind;
  OpRegistry &registry = OpRegistry::instance();
  registry.add("cumsum")
      .describe("cumulative sum along an axis")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<ScanopAttrs>()
      .setAttr<OpPatternKind>(kOpPatternAttr, P::Opaque)
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr, makeRelation<ScanopAttrs>(cumsumRelation, "data"));
  registry.add("topk")
      .describe("the k largest (or smallest) elements along an axis")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<TopKAttrs>()
      .setAttr<OpPatternKind>(kOpPatternAttr, P::Opaque)
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation<TopKAttrs>(topkRelation, "data"));
  registry.add("argsort")
      .describe("the indices that sort the data along an axis (stable)")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<ArgsortAttrs>()
      .setAttr<OpPatternKind>(kOpPatternAttr, P::Opaque)
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<ArgsortAttrs>(sortRelation<true>, "data"));
  registry.add("sort")
      .describe("the data sorted along an axis")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<ArgsortAttrs>()
      .setAttr<OpPatternKind>(kOpPatternAttr, P::Opaque)
      .setAttr<TypeRelationFn>(
          kTypeRelationAttr,
          makeRelation<ArgsortAttrs>(sortRelation<false>, "data"));
  registry.add("einsum")
      .describe("Einstein summation over a tuple of tensors")
      .setNumInputs(1)
      .addArgument("data", "Tuple of Tensors")
      .setAttrsType<EinsumAttrs>()
      .setAttr<OpPatternKind>(kOpPatternAttr, P::Injective)
      .setAttr<TypeRelationFn>(kTypeRelationAttr,
                               makeRelation<EinsumAttrs>(einsumRelation));
  // `?` extents: cumsum's flat count and the sorts' axis stay `?` (a static
  // k is the result's extent); einsum's subscripts match `?` only to `?`.
  markDynamicShapeRelations({"cumsum", "topk", "argsort", "sort", "einsum"});
}
