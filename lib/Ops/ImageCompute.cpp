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
/// to \p out elements (\p start and \p end: the axis's roi).
static te::Expr inputCoordinate(te::Expr x, int64_t in, int64_t out,
                                StringRef mode, double start, double end,
                                DataType ft) {
  // TVM computes the scale and the coordinate in float32.
  auto f = [&](double v) { return constant(ft, float(v)); };
  te::Expr fx = te::cast(ft, x);
  float scale = float(in) / float(out);
  if (mode == "align_corners")
    return out > 1 ? f(float(in - 1) / float(out - 1)) * fx : f(0);
  if (mode == "asymmetric")
    return f(scale) * fx;
  if (mode == "tf_half_pixel_for_nn")
    return (fx + f(0.5)) * f(scale);
  if (mode == "tf_crop_and_resize")
    return out > 1 ? f(start * (in - 1)) +
                         fx * f((end - start) * (in - 1) / double(out - 1))
                   : f(0.5 * (start + end) * (in - 1));
  if (mode == "pytorch_half_pixel" && out == 1)
    return f(0);
  // half_pixel, pytorch_half_pixel.
  return (fx + f(0.5)) * f(scale) - f(0.5);
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

static Expected<std::vector<te::Tensor>>
resize2d(const te::Tensor &data, const ResizeParams &p,
         const nnir::Type *resultType) {
  int axes[2] = {int(p.layout.find('H')), int(p.layout.find('W'))};
  if (axes[0] < 0 || axes[1] < 0 || p.layout.size() != data.getRank())
    return computeError("layout '" + p.layout + "' is not supported");
  auto inShape = getConstShape(data.getShape());
  if (!inShape)
    return computeError("needs a static input shape");
  const auto *result = llvm::cast<TensorType>(resultType);
  DataType outType = result->getDType();
  DataType ft = data.getDType() == DataType::float64() ? DataType::float64()
                                                       : DataType::float32();
  StringRef rounding = p.rounding;
  if (rounding.empty())
    rounding = p.mode == "align_corners" ? "round" : "floor";
  int64_t in[2], out[2];
  for (unsigned s = 0; s < 2; ++s) {
    in[s] = (*inShape)[axes[s]];
    out[s] = result->getShape()[axes[s]];
  }
  return std::vector<te::Tensor>{compute(
      makeShape(result->getShape()),
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
            idx[axes[s]] = max(min(yx[s], te::Expr(in[s] - 1)), te::Expr(0));
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
            outside = logicalOr(outside, logicalOr(coord[s]<f(0), coord[s]> f(
                                             double(in[s] - 1))));
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
  auto inShape = getConstShape(data.getShape());
  if (!inShape)
    return computeError("needs a static input shape");
  const auto *result = llvm::cast<TensorType>(args.resultType);
  DataType dt = data.getDType();
  DataType ft = dt == DataType::float64() ? dt : DataType::float32();
  int64_t size[2] = {(*inShape)[2], (*inShape)[3]};
  StringRef padding = a->paddingMode;
  bool align = a->alignCorners;
  auto f = [&](double v) { return constant(ft, v); };
  // [-1, 1] to input coordinates.
  auto unnormalize = [&](te::Expr g, int64_t n) {
    return align ? (g + f(1)) * f(double(n - 1) / 2)
                 : (g + f(1)) * f(double(n) / 2) - f(0.5);
  };
  auto clip = [&](te::Expr c, int64_t n) {
    return min(max(c, f(0)), f(double(n - 1)));
  };
  // topi's _reflect_coordinates: into [lo, lo + span] by reflections.
  auto reflect = [&](te::Expr c, int64_t n) {
    double span = align ? double(n - 1) : double(n);
    double lo = align ? 0 : -0.5;
    if (span <= 0)
      return f(0);
    te::Expr d = call(Intrinsic::Abs, {c - f(lo)});
    te::Expr times = call(Intrinsic::Trunc, {d / f(span)});
    te::Expr extra = d - times * f(span);
    te::Expr even = floorMod(te::cast(DataType::int64(), times),
                             te::Expr(int64_t(2))) == te::Expr(int64_t(0));
    te::Expr reflected =
        select(even, extra + f(lo), f(span) - extra + f(lo));
    return select(logicalAnd(c >= f(lo), c <= f(lo + span)), c, reflected);
  };
  auto pad = [&](te::Expr c, int64_t n) {
    if (padding == "border")
      return clip(c, n);
    if (padding == "reflection")
      return clip(reflect(c, n), n);
    return c;
  };
  return std::vector<te::Tensor>{compute(
      makeShape(result->getShape()),
      [&](ArrayRef<te::Expr> o) {
        // The element at integer (y, x), or 0 outside the input.
        auto at = [&](te::Expr y, te::Expr x) {
          te::Expr inside = logicalAnd(logicalAnd(y >= te::Expr(int64_t(0)),
                                                  y < te::Expr(size[0])),
                                       logicalAnd(x >= te::Expr(int64_t(0)),
                                                  x < te::Expr(size[1])));
          te::Expr cy = max(min(y, te::Expr(size[0] - 1)), te::Expr(int64_t(0)));
          te::Expr cx = max(min(x, te::Expr(size[1] - 1)), te::Expr(int64_t(0)));
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
          te::Expr one(int64_t(1));
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
        return resize2d(args.arg(0), p, args.resultType);
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
        return resize2d(args.arg(0), p, args.resultType);
      });
}
