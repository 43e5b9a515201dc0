//===- ImageCompute.cpp - Computes of the image operators -----------------===//
//
/// \file
/// The TE computes of image.resize2d, nn.upsampling (and, at the end,
/// image.grid_sample), following TVM's
/// topi.image.resize2d: each output position maps to an input coordinate by
/// the coordinate transformation mode (computed in float32, as TVM does),
/// then reads the nearest element (by the rounding method), interpolates
/// the 2 x 2 neighbours linearly, or the 4 x 4 neighbours with Keys' cubic
/// kernel (cubic_alpha; cubic_exclude drops and renormalises the weights of
/// neighbours outside the input). Neighbours outside the input read the
/// nearest edge element. nn.upsampling is resize2d to round(extent * scale)
/// with "align_corners" or "asymmetric" coordinates, as in TVM. Integer
/// results round to nearest (ties to even) and saturate.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"

#include <array>
#include <cmath>
#include <optional>

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

namespace {

/// What resize2d needs, from either operator's attributes.
struct ResizeParams {
  StringRef layout, method, mode, rounding;
  double cubicAlpha = -0.5;
  bool cubicExclude = false;
  double extrapolationValue = 0;
  /// (start_h, start_w, end_h, end_w) for "tf_crop_and_resize".
  double roi[4] = {0, 0, 0, 0};
};

} // namespace

/// The input coordinate of output index \p x on an axis resized from \p in
/// to \p out elements (\p start and \p end: the axis's roi). The extents
/// may be symbolic (`?`); the arithmetic is TVM's either way (the scale in
/// float32, the roi's terms in double rounded to float32), so constant
/// extents fold to the same constants.
static te::Expr inputCoordinate(te::Expr x, const te::Expr &in,
                                const te::Expr &out, StringRef mode,
                                double start, double end, DataType ft) {
  DataType f32 = DataType::float32(), f64 = DataType::float64();
  auto f = [&](double v) { return constant(ft, float(v)); };
  // A double value rounded to float32, then in ft.
  auto viaFloat = [&](te::Expr v) { return te::cast(ft, te::cast(f32, v)); };
  auto asDouble = [&](te::Expr e) { return te::cast(f64, e); };
  // float(a) / float(b) in ft.
  auto ratio = [&](te::Expr a, te::Expr b) {
    return te::cast(ft, te::cast(f32, a) / te::cast(f32, b));
  };
  te::Expr fx = te::cast(ft, x);
  te::Expr several = out > te::Expr(int64_t(1));
  // out - 1, never 0 (where out is 1 the other arm is taken).
  te::Expr outSpan = max(out - 1, te::Expr(int64_t(1)));
  te::Expr scale = ratio(in, out);
  if (mode == "align_corners")
    return select(several, ratio(in - 1, outSpan) * fx, f(0));
  if (mode == "asymmetric")
    return scale * fx;
  if (mode == "tf_half_pixel_for_nn")
    return (fx + f(0.5)) * scale;
  if (mode == "tf_crop_and_resize") {
    te::Expr reach = asDouble(in - 1);
    return select(
        several,
        viaFloat(constant(f64, start) * reach) +
            fx * viaFloat(constant(f64, end - start) * reach /
                          asDouble(outSpan)),
        viaFloat(constant(f64, 0.5 * (start + end)) * reach));
  }
  // half_pixel, pytorch_half_pixel (0 for a single output).
  te::Expr c = (fx + f(0.5)) * scale - f(0.5);
  if (mode == "pytorch_half_pixel")
    return select(out == te::Expr(int64_t(1)), f(0), c);
  return c;
}

/// The nearest input index to coordinate \p c by \p rounding.
static te::Expr nearestIndex(te::Expr c, StringRef rounding, DataType ft) {
  auto f = [&](double v) { return constant(ft, v); };
  te::Expr r;
  if (rounding == "round")
    r = call(Intrinsic::Round, {c});
  else if (rounding == "round_prefer_floor")
    r = call(Intrinsic::Ceil, {c - f(0.5)});
  else if (rounding == "round_prefer_ceil")
    r = call(Intrinsic::Floor, {c + f(0.5)});
  else if (rounding == "ceil")
    r = call(Intrinsic::Ceil, {c - f(1e-5)});
  else // floor
    r = call(Intrinsic::Floor, {c + f(1e-5)});
  return te::cast(DataType::int64(), r);
}

/// Keys' cubic convolution weights of the neighbours at offsets -1, 0, 1, 2
/// for the fraction \p t.
static std::array<te::Expr, 4> cubicWeights(te::Expr t, double alpha,
                                            DataType ft) {
  auto f = [&](double v) { return constant(ft, v); };
  te::Expr t2 = t * t, t3 = t2 * t;
  return {f(alpha) * (t3 - f(2) * t2 + t),
          f(alpha + 2) * t3 - f(alpha + 3) * t2 + f(1),
          f(-(alpha + 2)) * t3 + f(2 * alpha + 3) * t2 - f(alpha) * t,
          f(-alpha) * t3 + f(alpha) * t2};
}

/// round(\p in * \p scale) (half to even, in double, as nn.upsampling's
/// relation computes it) in integer arithmetic, so a symbolic extent's value
/// is computable from the kernel's dims: the scale is m / 2^k exactly (a
/// float attribute has few mantissa bits), the product in * m is exact,
/// and the division rounds half to even. Nothing for a scale that is not a
/// positive finite number of at most 31 significant bits (a constant
/// \p in is scaled as it is).
static std::optional<te::Expr> scaledExtent(const te::Expr &in, double scale) {
  if (!(scale > 0) || !std::isfinite(scale))
    return std::nullopt;
  if (std::optional<int64_t> fixed = in.getConstInt())
    return te::Expr(int64_t(std::nearbyint(double(*fixed) * scale)));
  int exponent;
  double fraction = std::frexp(scale, &exponent);
  int64_t m = int64_t(std::ldexp(fraction, 53));
  int k = 53 - exponent;
  while (k > 0 && m % 2 == 0) {
    m /= 2;
    --k;
  }
  if (m >= (int64_t(1) << 31) || k < -30 || k > 61)
    return std::nullopt;
  if (k <= 0)
    return in * te::Expr(m << -k);
  te::Expr product = m == 1 ? in : in * te::Expr(m);
  int64_t divisor = int64_t(1) << k, half = divisor / 2;
  te::Expr q = floorDiv(product + te::Expr(half), te::Expr(divisor));
  te::Expr tie = floorMod(product, te::Expr(divisor)) == te::Expr(half);
  te::Expr odd = floorMod(q, te::Expr(int64_t(2))) == te::Expr(int64_t(1));
  return select(tie, select(odd, q - te::Expr(int64_t(1)), q), q);
}

/// Resizes \p data's H and W axes: to the result type's extents, or where
/// they are `?`, to round(extent * scales[s]) (nn.upsampling's; resize2d's
/// are static). Every other extent may be symbolic too.
static Expected<std::vector<te::Tensor>>
resize2d(const ComputeArgs &args, const ResizeParams &p,
         std::optional<std::array<double, 2>> scales = std::nullopt) {
  const te::Tensor &data = args.arg(0);
  int axes[2] = {int(p.layout.find('H')), int(p.layout.find('W'))};
  if (axes[0] < 0 || axes[1] < 0 || p.layout.size() != data.getRank())
    return computeError("layout '" + p.layout + "' is not supported");
  std::vector<te::Expr> derived = data.getShape();
  if (scales)
    for (unsigned s = 0; s < 2; ++s) {
      std::optional<te::Expr> extent =
          scaledExtent(derived[axes[s]], (*scales)[s]);
      if (!extent)
        return computeError("needs a static extent for this scale");
      derived[axes[s]] = *extent;
    }
  std::vector<te::Expr> outShape = args.getResultShape(derived);
  const auto *result = llvm::cast<TensorType>(args.resultType);
  DataType outType = result->getDType();
  DataType ft = data.getDType() == DataType::float64() ? DataType::float64()
                                                       : DataType::float32();
  StringRef rounding = p.rounding;
  if (rounding.empty())
    rounding = p.mode == "align_corners" ? "round" : "floor";
  te::Expr in[2], out[2];
  for (unsigned s = 0; s < 2; ++s) {
    in[s] = data.getShape()[axes[s]];
    out[s] = outShape[axes[s]];
  }
  return std::vector<te::Tensor>{compute(
      outShape,
      [&](ArrayRef<te::Expr> o) {
        auto f = [&](double v) { return constant(ft, v); };
        te::Expr coord[2];
        for (unsigned s = 0; s < 2; ++s)
          coord[s] = inputCoordinate(o[axes[s]], in[s], out[s], p.mode,
                                     p.roi[s], p.roi[s + 2], ft);
        // The element at input rows/columns (y, x), clamped into the input.
        auto read = [&](te::Expr y, te::Expr x) {
          SmallVector<te::Expr, 5> idx(o.begin(), o.end());
          te::Expr yx[2] = {y, x};
          for (unsigned s = 0; s < 2; ++s)
            idx[axes[s]] = max(min(yx[s], in[s] - 1), te::Expr(0));
          return data(idx);
        };
        auto at = [&](te::Expr y, te::Expr x) {
          return te::cast(ft, read(y, x));
        };
        te::Expr value;
        bool exact = false;
        if (p.method == "nearest_neighbor") {
          // An element as it is: exact for every dtype.
          value = read(nearestIndex(coord[0], rounding, ft),
                       nearestIndex(coord[1], rounding, ft));
          exact = true;
        } else {
          te::Expr base[2], frac[2];
          for (unsigned s = 0; s < 2; ++s) {
            te::Expr fl = call(Intrinsic::Floor, {coord[s]});
            base[s] = te::cast(DataType::int64(), fl);
            frac[s] = coord[s] - fl;
          }
          if (p.method == "linear") {
            auto lerp = [&](te::Expr a, te::Expr b, te::Expr t) {
              return a * (f(1) - t) + b * t;
            };
            te::Expr top =
                lerp(at(base[0], base[1]), at(base[0], base[1] + 1), frac[1]);
            te::Expr bottom = lerp(at(base[0] + 1, base[1]),
                                   at(base[0] + 1, base[1] + 1), frac[1]);
            value = lerp(top, bottom, frac[0]);
          } else {
            std::array<te::Expr, 4> w[2];
            for (unsigned s = 0; s < 2; ++s) {
              w[s] = cubicWeights(frac[s], p.cubicAlpha, ft);
              if (!p.cubicExclude)
                continue;
              te::Expr total = f(0);
              for (int k = 0; k < 4; ++k) {
                te::Expr pos = base[s] + (k - 1);
                w[s][k] =
                    select(logicalOr(pos < 0, pos >= in[s]), f(0), w[s][k]);
                total = total + w[s][k];
              }
              for (int k = 0; k < 4; ++k)
                w[s][k] = w[s][k] / total;
            }
            value = f(0);
            for (int j = 0; j < 4; ++j) {
              te::Expr row = f(0);
              for (int i = 0; i < 4; ++i)
                row = row + at(base[0] + (j - 1), base[1] + (i - 1)) * w[1][i];
              value = value + row * w[0][j];
            }
          }
        }
        if (p.mode == "tf_crop_and_resize") {
          te::Expr outside = boolImm(false);
          for (unsigned s = 0; s < 2; ++s)
            outside = logicalOr(
                outside, logicalOr(coord[s] < f(0),
                                   coord[s] > te::cast(ft, in[s] - 1)));
          value =
              select(outside,
                     exact ? constant(value.getDType(), p.extrapolationValue)
                           : f(p.extrapolationValue),
                     value);
        }
        if (!exact && !outType.isFloatingPoint())
          value = call(Intrinsic::Round, {value});
        return te::cast(outType, value);
      },
      "resize2d")};
}

/// image.grid_sample (topi's _grid_sample_2d): output (n, c, y, x) samples
/// data[n, c] at the grid's (x, y) = grid[n, 0 / 1, y, x], mapped from
/// [-1, 1] to the corner pixels' centres (align_corners) or their outer
/// edges. padding_mode "border" clamps the coordinate into the input,
/// "reflection" reflects it at the edges (then clamps); elements outside
/// the input read 0. Bicubic (Keys, alpha -0.75) applies the padding mode
/// to each of the 4 x 4 neighbours' indices instead.
static Expected<std::vector<te::Tensor>>
gridSampleCompute(const ComputeArgs &args) {
  const auto *a = llvm::cast<GridSampleAttrs>(args.attrs);
  const te::Tensor &data = args.arg(0), &grid = args.arg(1);
  // Every extent may be symbolic (`?`): the result is (N, C) of the data
  // by (H', W') of the grid.
  const std::vector<te::Expr> &inShape = data.getShape();
  std::vector<te::Expr> derived = {inShape[0], inShape[1],
                                   grid.getShape()[2], grid.getShape()[3]};
  DataType dt = data.getDType();
  DataType ft = dt == DataType::float64() ? dt : DataType::float32();
  te::Expr size[2] = {inShape[2], inShape[3]};
  te::Expr one(int64_t(1));
  StringRef padding = a->paddingMode;
  bool align = a->alignCorners;
  auto f = [&](double v) { return constant(ft, v); };
  // [-1, 1] to input coordinates.
  auto unnormalize = [&](te::Expr g, const te::Expr &n) {
    return align ? (g + f(1)) * (te::cast(ft, n - one) * f(0.5))
                 : (g + f(1)) * (te::cast(ft, n) * f(0.5)) - f(0.5);
  };
  auto clip = [&](te::Expr c, const te::Expr &n) {
    return min(max(c, f(0)), te::cast(ft, n - one));
  };
  // topi's _reflect_coordinates: into [lo, lo + span] by reflections.
  auto reflect = [&](te::Expr c, const te::Expr &n) {
    te::Expr spanExtent = align ? n - one : n;
    te::Expr span = te::cast(ft, spanExtent);
    double lo = align ? 0 : -0.5;
    if (std::optional<int64_t> fixed = spanExtent.getConstInt())
      if (*fixed <= 0)
        return f(0);
    te::Expr d = call(Intrinsic::Abs, {c - f(lo)});
    te::Expr times = call(Intrinsic::Trunc, {d / span});
    te::Expr extra = d - times * span;
    te::Expr even = floorMod(te::cast(DataType::int64(), times),
                             te::Expr(int64_t(2))) == te::Expr(int64_t(0));
    te::Expr reflected = select(even, extra + f(lo), span - extra + f(lo));
    te::Expr value =
        select(logicalAnd(c >= f(lo), c <= f(lo) + span), c, reflected);
    if (spanExtent.getConstInt())
      return value;
    // A symbolic span of 0 (one element, align_corners) reflects to 0.
    return select(spanExtent <= te::Expr(int64_t(0)), f(0), value);
  };
  auto pad = [&](te::Expr c, const te::Expr &n) {
    if (padding == "border")
      return clip(c, n);
    if (padding == "reflection")
      return clip(reflect(c, n), n);
    return c;
  };
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        // The element at integer (y, x), or 0 outside the input.
        auto at = [&](te::Expr y, te::Expr x) {
          te::Expr inside = logicalAnd(logicalAnd(y >= te::Expr(int64_t(0)),
                                                  y < size[0]),
                                       logicalAnd(x >= te::Expr(int64_t(0)),
                                                  x < size[1]));
          te::Expr cy = max(min(y, size[0] - one), te::Expr(int64_t(0)));
          te::Expr cx = max(min(x, size[1] - one), te::Expr(int64_t(0)));
          return select(inside, te::cast(ft, data({o[0], o[1], cy, cx})),
                        f(0));
        };
        auto toInt = [](te::Expr v) {
          return te::cast(DataType::int64(), call(Intrinsic::Floor, {v}));
        };
        te::Expr c[2];
        for (int s = 0; s < 2; ++s)
          c[s] = unnormalize(
              te::cast(ft, grid({o[0], te::Expr(int64_t(1 - s)), o[2], o[3]})),
              size[s]);
        te::Expr value;
        if (a->method == "nearest") {
          te::Expr p[2];
          for (int s = 0; s < 2; ++s)
            p[s] = te::cast(DataType::int64(),
                            call(Intrinsic::Round, {pad(c[s], size[s])}));
          value = at(p[0], p[1]);
        } else if (a->method == "bilinear") {
          te::Expr b[2], t[2];
          for (int s = 0; s < 2; ++s) {
            te::Expr pc = pad(c[s], size[s]);
            te::Expr fl = call(Intrinsic::Floor, {pc});
            b[s] = te::cast(DataType::int64(), fl);
            t[s] = pc - fl;
          }
          value = at(b[0], b[1]) * (f(1) - t[0]) * (f(1) - t[1]) +
                  at(b[0], b[1] + one) * (f(1) - t[0]) * t[1] +
                  at(b[0] + one, b[1]) * t[0] * (f(1) - t[1]) +
                  at(b[0] + one, b[1] + one) * t[0] * t[1];
        } else {
          const double alpha = -0.75;
          auto w1 = [&](te::Expr t) {
            return (f(alpha + 2) * t - f(alpha + 3)) * t * t + f(1);
          };
          auto w2 = [&](te::Expr t) {
            return ((f(alpha) * t - f(5 * alpha)) * t + f(8 * alpha)) * t -
                   f(4 * alpha);
          };
          te::Expr b[2], w[2][4];
          for (int s = 0; s < 2; ++s) {
            te::Expr fl = call(Intrinsic::Floor, {c[s]});
            b[s] = te::cast(DataType::int64(), fl);
            te::Expr t = c[s] - fl;
            w[s][0] = w2(t + f(1));
            w[s][1] = w1(t);
            w[s][2] = w1(f(1) - t);
            w[s][3] = w2(f(2) - t);
          }
          // A neighbour's index under the padding mode.
          auto index = [&](te::Expr i, int s) {
            if (padding == "zeros")
              return i;
            return toInt(pad(te::cast(ft, i), size[s]));
          };
          value = f(0);
          for (int j = 0; j < 4; ++j) {
            te::Expr row = f(0);
            te::Expr y = index(b[0] + te::Expr(int64_t(j - 1)), 0);
            for (int i = 0; i < 4; ++i)
              row = row +
                    at(y, index(b[1] + te::Expr(int64_t(i - 1)), 1)) * w[1][i];
            value = value + row * w[0][j];
          }
        }
        return te::cast(dt, value);
      },
      "grid_sample")};
}

void nnir::registerImageComputes() {
  setOpCompute("image.grid_sample", gridSampleCompute);
  setOpCompute(
      "image.resize2d",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const auto *attrs = llvm::cast<Resize2DAttrs>(args.attrs);
        ResizeParams p;
        p.layout = attrs->layout;
        p.method = attrs->method;
        p.mode = attrs->coordinateTransformationMode;
        p.rounding = attrs->roundingMethod;
        p.cubicAlpha = attrs->cubicAlpha;
        p.cubicExclude = attrs->cubicExclude != 0;
        p.extrapolationValue = attrs->extrapolationValue;
        if (attrs->roi)
          for (unsigned i = 0; i < 4; ++i)
            p.roi[i] = (*attrs->roi)[i];
        return resize2d(args, p);
      });
  setOpCompute(
      "nn.upsampling",
      [](const ComputeArgs &args) -> Expected<std::vector<te::Tensor>> {
        const auto *attrs = llvm::cast<UpSamplingAttrs>(args.attrs);
        ResizeParams p;
        p.layout = attrs->layout;
        p.method = attrs->method == "bilinear"  ? "linear"
                   : attrs->method == "bicubic" ? "cubic"
                                                : "nearest_neighbor";
        p.mode = attrs->alignCorners ? "align_corners" : "asymmetric";
        return resize2d(args, p,
                        std::array<double, 2>{attrs->scaleH, attrs->scaleW});
      });
  // Each derives its result's extents from its arguments (upsampling's
  // by the relation's rounding of extent * scale).
  markSymbolicShapes(
      {"image.grid_sample", "image.resize2d", "nn.upsampling"});
}
