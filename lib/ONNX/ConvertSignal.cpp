//===- ConvertSignal.cpp - DFT, STFT and MelWeightMatrix ------------------===//
//
/// \file
/// ONNX's signal operators without an operator of their own: a DFT of length
/// n along an axis is a contraction with the constant matrices cos(2 pi k j
/// / n) and sin(2 pi k j / n) (contractAxis), computed in float64 and cast
/// back; STFT gathers its frames first and folds the window into the
/// matrices; MelWeightMatrix has constant inputs only and becomes a
/// constant.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace llvm;

namespace nnir {
namespace onnximport {

namespace {
/// The real and imaginary weights of one DFT (K x L, row-major): output bin
/// k = sum_j (xr + i xi)[j] * w[j] * e^(-+2 pi i k j / n) (/ n when
/// inverse), for the first min(L, n) inputs (the rest are truncated; a
/// shorter input is zero-padded).
struct DFTWeights {
  std::vector<double> cos, sin;
};
} // namespace

static DFTWeights dftWeights(int64_t bins, int64_t length, int64_t n,
                             bool inverse, ArrayRef<double> window) {
  DFTWeights w{std::vector<double>(bins * length, 0.0),
               std::vector<double>(bins * length, 0.0)};
  double scale = inverse ? 1.0 / double(n) : 1.0;
  for (int64_t k = 0; k < bins; ++k)
    for (int64_t j = 0; j < std::min(length, n); ++j) {
      // The angle of (k * j) mod n, so whole quarter turns are exact.
      int64_t phase = (k % n) * (j % n) % n;
      double angle = 2 * M_PI * double(phase) / double(n);
      double c = std::cos(angle), s = std::sin(angle);
      if (4 * phase % n == 0) {
        int quarter = int(4 * phase / n);
        c = quarter == 0 ? 1 : quarter == 2 ? -1 : 0;
        s = quarter == 1 ? 1 : quarter == 3 ? -1 : 0;
      }
      double weight = scale * (window.empty() ? 1.0 : window[j]);
      w.cos[k * length + j] = weight * c;
      w.sin[k * length + j] = weight * s;
    }
  return w;
}

/// The DFT of the complex signal (\p re, \p im; \p im null when real) along
/// \p axis, as (re, im) stacked on a new last axis of \p dtype.
static Result dftAlong(NodeContext &ctx, Value re, std::optional<Value> im,
                       int64_t axis, int64_t bins, int64_t n, bool inverse,
                       ArrayRef<double> window, DataType dtype) {
  int64_t length = re.shape()[axis];
  DFTWeights w = dftWeights(bins, length, n, inverse, window);
  // e^(-i theta) forward, e^(+i theta) inverse: yr = xr cos + sign xi sin,
  // yi = xi cos - sign xr sin.
  double sign = inverse ? -1 : 1;
  std::vector<double> sinR(w.sin), sinI(w.sin);
  for (size_t i = 0; i < w.sin.size(); ++i) {
    sinR[i] *= sign;
    sinI[i] *= -sign;
  }
  TRY(yr, contractAxis(ctx, re, axis, bins, w.cos));
  TRY(yi, contractAxis(ctx, re, axis, bins, sinI));
  if (im) {
    TRY(r2, contractAxis(ctx, *im, axis, bins, sinR));
    TRY(i2, contractAxis(ctx, *im, axis, bins, w.cos));
    TRY(sr, ctx.typed(ops::add(yr, r2)));
    TRY(si, ctx.typed(ops::add(yi, i2)));
    yr = sr;
    yi = si;
  }
  TRY(stacked, ctx.typed(ops::stack(ctx.tuple({yr, yi}), -1)));
  TRY(out, cast(ctx, stacked, dtype));
  return one(out);
}

/// The real and imaginary parts of \p x's last axis (1: real, 2: complex)
/// in float64.
static Expected<std::pair<Value, std::optional<Value>>>
splitComplex(NodeContext &ctx, const Value &x) {
  int64_t parts = x.rank() ? x.shape().back() : 0;
  if (x.rank() < 2 || (parts != 1 && parts != 2))
    return ctx.error("the input must end in an axis of 1 (real) or 2 "
                     "(complex) values");
  if (!x.dtype().isFloatingPoint())
    return ctx.error("the input must be a floating-point tensor");
  TRY(x64, cast(ctx, x, DataType::float64()));
  auto part = [&](int64_t i) {
    return ctx.typed(ops::take(x64, ctx.scalar(DataType::int64(), i),
                               x.rank() - 1, "fast"));
  };
  TRY(re, part(0));
  if (parts == 1)
    return std::make_pair(re, std::optional<Value>());
  TRY(im, part(1));
  return std::make_pair(re, std::optional<Value>(im));
}

/// A 0-d or 1-element constant integer input.
static Expected<int64_t> scalarInput(NodeContext &ctx, size_t i,
                                     StringRef what) {
  TRY(values, ctx.constantInts(i, what));
  if (values.size() != 1)
    return ctx.error(what + " must have one value");
  return values[0];
}

/// DFT-17: inputs (input, dft_length?); attributes axis (1), inverse,
/// onesided.
Result convertDFT(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(1, 2))
    return err;
  const Value &x = ctx.input(0);
  TRY(axisAttr, ctx.getInt("axis", 1));
  TRY(inverse, ctx.getInt("inverse", 0));
  TRY(onesided, ctx.getInt("onesided", 0));
  TRY(parts, splitComplex(ctx, x));
  TRY(axis, ctx.normalizeAxis(axisAttr, x.rank()));
  if (axis == x.rank() - 1)
    return ctx.error("axis " + Twine(axisAttr) +
                     " is the axis of the real and imaginary parts");
  int64_t n = x.shape()[axis];
  if (ctx.hasInput(1)) {
    TRY(length, scalarInput(ctx, 1, "dft_length"));
    n = length;
  }
  if (n < 1)
    return ctx.error("dft_length must be positive, got " + Twine(n));
  int64_t bins = onesided ? n / 2 + 1 : n;
  return dftAlong(ctx, parts.first, parts.second, axis, bins, n, inverse != 0,
                  {}, x.dtype());
}

/// STFT-17: inputs (signal [batch, length, 1|2], frame_step, window?,
/// frame_length?); attribute onesided (1). The frames are gathered with
/// constant indices, then transformed along their last axis with the
/// window folded into the weights.
Result convertSTFT(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(2, 4))
    return err;
  const Value &signal = ctx.input(0);
  TRY(onesided, ctx.getInt("onesided", 1));
  if (signal.rank() != 3)
    return ctx.error("the signal must be [batch, length, 1 or 2]");
  TRY(step, scalarInput(ctx, 1, "frame_step"));
  std::vector<double> window;
  if (ctx.hasInput(2)) {
    TRY(w, ctx.constantFloats(2, "window"));
    window = w;
  }
  int64_t frameLength = window.size();
  if (ctx.hasInput(3)) {
    TRY(length, scalarInput(ctx, 3, "frame_length"));
    if (!window.empty() && length != frameLength)
      return ctx.error("frame_length " + Twine(length) +
                       " differs from the window's length " +
                       Twine(frameLength));
    frameLength = length;
  }
  int64_t length = signal.shape()[1];
  if (frameLength < 1 || frameLength > length || step < 1)
    return ctx.error(formatv("frame_length {0} and frame_step {1} do not fit "
                             "a signal of length {2}",
                             frameLength, step, length)
                         .str());
  int64_t frames = (length - frameLength) / step + 1;
  TRY(parts, splitComplex(ctx, signal));
  TRY(indices, NDArray::create(DataType::int64(), {frames, frameLength}));
  for (int64_t f = 0; f < frames; ++f)
    for (int64_t j = 0; j < frameLength; ++j)
      indices.setElementFromDouble(f * frameLength + j, double(f * step + j));
  Value idx = ctx.constant(indices);
  auto frame = [&](const Value &v) {
    return ctx.typed(ops::take(v, idx, 1, "fast"));
  };
  TRY(re, frame(parts.first));
  std::optional<Value> im;
  if (parts.second) {
    TRY(i, frame(*parts.second));
    im = i;
  }
  int64_t bins = onesided ? frameLength / 2 + 1 : frameLength;
  return dftAlong(ctx, re, im, 2, bins, frameLength, false, window,
                  signal.dtype());
}

/// MelWeightMatrix-17: every input is a constant scalar, so the matrix
/// [dft_length / 2 + 1, num_mel_bins] of triangular filters (ONNX's
/// reference: bin edges evenly spaced on the mel scale, each mapped to the
/// DFT bin floor((dft_length + 1) * hertz / sample_rate)) is a constant.
Result convertMelWeightMatrix(NodeContext &ctx) {
  if (Error err = ctx.checkNumInputs(5, 5))
    return err;
  TRY(melBins, scalarInput(ctx, 0, "num_mel_bins"));
  TRY(dftLength, scalarInput(ctx, 1, "dft_length"));
  TRY(sampleRate, scalarInput(ctx, 2, "sample_rate"));
  TRY(lower, ctx.constantFloats(3, "lower_edge_hertz"));
  TRY(upper, ctx.constantFloats(4, "upper_edge_hertz"));
  TRY(outputType, ctx.getInt("output_datatype", 1));
  if (melBins < 1 || dftLength < 1 || sampleRate < 1 || lower.size() != 1 ||
      upper.size() != 1)
    return ctx.error("num_mel_bins, dft_length and sample_rate must be "
                     "positive scalars, the edges scalars");
  if (outputType != 1)
    return ctx.unsupported("output_datatype " + Twine(outputType) +
                           " (nnir writes float32)");
  if (melBins > 100000 || dftLength > 10000000)
    return ctx.error("the matrix would be too large");
  int64_t spectrumBins = dftLength / 2 + 1;
  // The reference computes in float32 inputs and float64 arithmetic.
  double lowMel = 2595 * std::log10(1 + float(lower[0]) / 700.0);
  double highMel = 2595 * std::log10(1 + float(upper[0]) / 700.0);
  double melStep = (highMel - lowMel) / double(melBins + 2);
  std::vector<int64_t> edges(melBins + 2);
  for (int64_t i = 0; i < melBins + 2; ++i) {
    double hertz = 700 * (std::pow(10, (double(i) * melStep + lowMel) / 2595) -
                          1);
    edges[i] = int64_t(std::floor(double(dftLength + 1) * hertz /
                                  double(sampleRate)));
  }
  TRY(matrix, NDArray::create(DataType::float32(), {spectrumBins, melBins}));
  auto set = [&](int64_t row, int64_t col, double v) -> Error {
    if (row < 0 || row >= spectrumBins)
      return ctx.error("the filters run past the DFT's bins");
    matrix.setElementFromDouble(row * melBins + col, v);
    return Error::success();
  };
  for (int64_t i = 0; i < melBins; ++i) {
    int64_t lo = edges[i], center = edges[i + 1], hi = edges[i + 2];
    if (center == lo) {
      if (Error err = set(center, i, 1))
        return err;
    } else {
      for (int64_t j = lo; j <= center; ++j)
        if (Error err = set(j, i, double(j - lo) / double(center - lo)))
          return err;
    }
    for (int64_t j = center; j < hi; ++j)
      if (Error err = set(j, i, double(hi - j) / double(hi - center)))
        return err;
  }
  return one(ctx.constant(matrix));
}

} // namespace onnximport
} // namespace nnir
