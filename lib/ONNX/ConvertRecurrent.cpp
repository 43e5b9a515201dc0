//===- ConvertRecurrent.cpp - RNN, GRU and LSTM ---------------------------===//
//
/// \file
/// RNN, GRU and LSTM (opsets 7-14), unrolled over the static sequence length.
//
//===----------------------------------------------------------------------===//

#include "Converters.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>
#include <limits>

using namespace llvm;

namespace nnir {
namespace onnximport {

/// Slice \p index of axis 0 of \p x, without that axis.
static Expected<Value> takeFirstAxis(NodeContext &ctx, const Value &x,
                                     int64_t index) {
  TRY(s, sliceAxis(ctx, x, 0, index, index + 1));
  return reshape(ctx, s, x.shape().drop_front());
}

/// An RNN activation function by its ONNX name, with its alpha and beta
/// (NaN when the node gives none).
static Expected<Value> rnnActivation(NodeContext &ctx, StringRef name,
                                     const Value &x, double alpha,
                                     double beta) {
  auto orDefault = [](double v, double def) { return std::isnan(v) ? def : v; };
  auto affine = [&](double a, double b) -> Expected<Value> {
    TRY(ax, ctx.typed(ops::multiply(x, scalarLike(ctx, x, a))));
    return ctx.typed(ops::add(ax, scalarLike(ctx, x, b)));
  };
  if (name == "Tanh")
    return ctx.typed(ops::tanh(x));
  if (name == "Sigmoid")
    return ctx.typed(ops::sigmoid(x));
  if (name == "Relu")
    return ctx.typed(ops::relu(x));
  if (name == "Affine")
    return affine(orDefault(alpha, 1), orDefault(beta, 0));
  if (name == "LeakyRelu")
    return ctx.typed(ops::leakyRelu(x, orDefault(alpha, 0.01)));
  if (name == "ScaledTanh") {
    TRY(bx,
        ctx.typed(ops::multiply(x, scalarLike(ctx, x, orDefault(beta, 1)))));
    TRY(t, ctx.typed(ops::tanh(bx)));
    return ctx.typed(ops::multiply(t, scalarLike(ctx, x, orDefault(alpha, 1))));
  }
  if (name == "HardSigmoid") {
    TRY(axb, affine(orDefault(alpha, 0.2), orDefault(beta, 0.5)));
    return ctx.typed(ops::clip(axb, 0, 1));
  }
  return ctx.unsupported("the RNN activation '" + name + "'");
}

namespace {

/// The weights and state of one direction of a recurrent layer.
struct Direction {
  int64_t index;
  /// R (all gates), and for GRU without linear_before_reset R's z and r
  /// rows and its h rows (otherwise both R).
  Value r, rZR, rH;
  /// X W^T for every step, with the biases that apply before the gates.
  Value xwb;
  /// GRU's Rb of the hidden gate, applied after the reset gate.
  std::optional<Value> rbH;
  /// LSTM's peepholes i, o, f.
  std::optional<Value> peephole[3];
  /// The hidden (and LSTM's cell) state.
  Value h, c;
};

/// RNN, GRU and LSTM (opsets 7-14), unrolled over the static sequence
/// length: per direction, X times W for every step at once, then one
/// dense of the hidden state by R per step, the gates' activations and the
/// state update. Outputs Y, Y_h (and Y_c), in layout 0 or 1.
class RecurrentLayer {
public:
  RecurrentLayer(NodeContext &ctx, RecurrentKind kind)
      : ctx(ctx), isLSTM(kind == RecurrentKind::LSTM),
        isGRU(kind == RecurrentKind::GRU), gates(isLSTM  ? 4
                                                 : isGRU ? 3
                                                         : 1) {}

  Result convert();

private:
  Error readAttributes();
  Error readInputs();
  Expected<std::optional<Value>> initialState(size_t input);
  Expected<Direction> prepareDirection(int64_t d);
  Expected<Value> biasedInput(int64_t d, const Value &xw,
                              std::optional<Value> &rbH);
  Error initializeState(Direction &dir);
  Error stepGRU(Direction &dir, const Value &xt);
  Error stepRNNOrLSTM(Direction &dir, const Value &xt);
  Result collectOutputs(ArrayRef<Value> ys, ArrayRef<Value> lastH,
                        ArrayRef<Value> lastC);

  /// Activation \p k (f, g, h) of direction \p d applied to \p v.
  Expected<Value> activation(int64_t d, size_t k, const Value &v) {
    size_t i = d * perDirection + k;
    double nan = std::numeric_limits<double>::quiet_NaN();
    return rnnActivation(ctx, names[i], v, i < alphas.size() ? alphas[i] : nan,
                         i < betas.size() ? betas[i] : nan);
  }
  Expected<Value> clip(const Value &v) {
    if (clipAttr <= 0)
      return v;
    return ctx.typed(ops::clip(v, -clipAttr, clipAttr));
  }
  /// Gate \p k of the [batch, gates * hidden] \p v.
  Expected<Value> gate(const Value &v, int64_t k) {
    return sliceAxis(ctx, v, 1, k * hidden, (k + 1) * hidden);
  }

  NodeContext &ctx;
  bool isLSTM, isGRU;
  int64_t gates;
  // Attributes.
  int64_t layout = 0, linearBeforeReset = 0, numDirections = 1;
  std::string direction;
  std::optional<int64_t> hiddenAttr;
  double clipAttr = 0;
  std::vector<std::string> names;
  std::vector<double> alphas, betas;
  size_t perDirection = 1;
  // Inputs.
  Value x, x2;
  int64_t steps = 0, batch = 0, inputSize = 0, hidden = 0;
  std::optional<Value> initialH, initialC;
};

} // namespace

Error RecurrentLayer::readAttributes() {
  if (Error err = ctx.checkNumInputs(3, isLSTM ? 8 : 6))
    return err;
  TRY(layoutAttr, ctx.getInt("layout", 0));
  TRY(directionAttr, ctx.getString("direction", "forward"));
  TRY(hiddenSize, ctx.getOptInt("hidden_size"));
  TRY(clipValue, ctx.getFloat("clip", 0));
  TRY(linear,
      isGRU ? ctx.getInt("linear_before_reset", 0) : Expected<int64_t>(0));
  TRY(inputForget,
      isLSTM ? ctx.getInt("input_forget", 0) : Expected<int64_t>(0));
  TRY(activations, ctx.getStrings("activations"));
  TRY(activationAlphas, ctx.getFloats("activation_alpha"));
  TRY(activationBetas, ctx.getFloats("activation_beta"));
  layout = layoutAttr;
  direction = directionAttr;
  hiddenAttr = hiddenSize;
  clipAttr = clipValue;
  linearBeforeReset = linear;
  names = std::move(activations);
  alphas = std::move(activationAlphas);
  betas = std::move(activationBetas);
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return ctx.error("unknown direction '" + direction + "'");
  if (inputForget)
    return ctx.unsupported("input_forget=1");
  numDirections = direction == "bidirectional" ? 2 : 1;
  return Error::success();
}

Error RecurrentLayer::readInputs() {
  x = ctx.input(0);
  const Value &w = ctx.input(1), &r = ctx.input(2);
  if (x.rank() != 3 || w.rank() != 3 || r.rank() != 3)
    return ctx.error("X, W and R must have rank 3");
  if (layout) {
    TRY(t, ctx.typed(ops::transpose(x, IntList{1, 0, 2})));
    x = t;
  }
  steps = x.shape()[0], batch = x.shape()[1], inputSize = x.shape()[2];
  hidden = r.shape()[2];
  // The sequence is unrolled: its length must be static; the batch may be
  // `?` (the steps are N-D dense calls and broadcasts over it).
  if (isAnyDim(steps) || isAnyDim(inputSize) || steps == 0)
    if (Error err = ctx.staticShape(0, layout ? 1 : 0).takeError())
      return err;
  if (hiddenAttr && *hiddenAttr != hidden)
    return ctx.error(
        formatv("hidden_size {0} does not match R's {1}", *hiddenAttr, hidden)
            .str());
  if (w.shape()[0] != numDirections || w.shape()[1] != gates * hidden ||
      w.shape()[2] != inputSize || r.shape()[0] != numDirections ||
      r.shape()[1] != gates * hidden)
    return ctx.error("W or R does not match X, the direction and the hidden "
                     "size");
  if (ctx.hasInput(4)) {
    TRY(lens, ctx.constantInts(4, "sequence_lens"));
    for (int64_t len : lens)
      if (len != steps)
        return ctx.unsupported(formatv("sequence_lens other than the "
                                       "sequence length {0}",
                                       steps));
  }
  // The activations: f, g (and h) per direction.
  perDirection = isLSTM ? 3 : isGRU ? 2 : 1;
  std::vector<std::string> defaults =
      isLSTM  ? std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"}
      : isGRU ? std::vector<std::string>{"Sigmoid", "Tanh"}
              : std::vector<std::string>{"Tanh"};
  if (names.empty())
    for (int64_t d = 0; d < numDirections; ++d)
      names.insert(names.end(), defaults.begin(), defaults.end());
  if (names.size() != perDirection * numDirections)
    return ctx.error(formatv("activations has {0} entries, expected {1}",
                             names.size(), perDirection * numDirections)
                         .str());
  TRY(h0, initialState(5));
  TRY(c0,
      isLSTM ? initialState(6) : Expected<std::optional<Value>>(std::nullopt));
  initialH = h0;
  initialC = c0;
  if (isAnyDim(batch)) {
    x2 = x;
    return Error::success();
  }
  TRY(flat, reshape(ctx, x, {steps * batch, inputSize}));
  x2 = flat;
  return Error::success();
}

/// The initial state of input \p input, [D, B, H], in layout 1 [B, D, H].
Expected<std::optional<Value>> RecurrentLayer::initialState(size_t input) {
  if (!ctx.hasInput(input))
    return std::nullopt;
  Value v = ctx.input(input);
  if (layout) {
    TRY(t, ctx.typed(ops::transpose(v, IntList{1, 0, 2})));
    v = t;
  }
  auto fits = [](int64_t a, int64_t b) {
    return a == b || isAnyDim(a) || isAnyDim(b);
  };
  if (v.rank() != 3 || v.shape()[0] != numDirections ||
      !fits(v.shape()[1], batch) || v.shape()[2] != hidden)
    return ctx.error("an initial state does not match [directions, batch, "
                     "hidden_size]");
  return std::optional<Value>(v);
}

/// X W^T plus Wb, and Rb where it is not applied after the reset gate (GRU
/// with linear_before_reset keeps its hidden rows in \p rbH).
Expected<Value> RecurrentLayer::biasedInput(int64_t d, const Value &xw,
                                            std::optional<Value> &rbH) {
  if (!ctx.hasInput(3))
    return xw;
  TRY(bd, takeFirstAxis(ctx, ctx.input(3), d));
  if (bd.shape()[0] != 2 * gates * hidden)
    return ctx.error("B does not match the hidden size");
  TRY(wb, sliceAxis(ctx, bd, 0, 0, gates * hidden));
  TRY(rb, sliceAxis(ctx, bd, 0, gates * hidden, 2 * gates * hidden));
  Value bias = wb;
  if (isGRU && linearBeforeReset) {
    TRY(rzr, sliceAxis(ctx, rb, 0, 0, 2 * hidden));
    TRY(rh, sliceAxis(ctx, rb, 0, 2 * hidden, 3 * hidden));
    TRY(zeros, ctx.typed(ops::multiply(rh, scalarLike(ctx, rh, 0))));
    TRY(rb2, ctx.typed(ops::concatenate(ctx.tuple({rzr, zeros}), 0)));
    rbH = rh;
    TRY(sum, ctx.typed(ops::add(wb, rb2)));
    bias = sum;
  } else {
    TRY(sum, ctx.typed(ops::add(wb, rb)));
    bias = sum;
  }
  return ctx.typed(ops::add(xw, bias));
}

Expected<Direction> RecurrentLayer::prepareDirection(int64_t d) {
  Direction dir;
  dir.index = d;
  TRY(wd, takeFirstAxis(ctx, ctx.input(1), d));
  TRY(rd, takeFirstAxis(ctx, ctx.input(2), d));
  dir.r = dir.rZR = dir.rH = rd;
  // GRU without linear_before_reset multiplies r * H by R's h rows alone.
  if (isGRU && !linearBeforeReset) {
    TRY(zr, sliceAxis(ctx, rd, 0, 0, 2 * hidden));
    TRY(hRows, sliceAxis(ctx, rd, 0, 2 * hidden, 3 * hidden));
    dir.rZR = zr;
    dir.rH = hRows;
  }
  TRY(xw, ctx.typed(ops::dense(x2, wd, gates * hidden)));
  TRY(xwb, biasedInput(d, xw, dir.rbH));
  dir.xwb = xwb;
  if (isLSTM && ctx.hasInput(7)) {
    TRY(pd, takeFirstAxis(ctx, ctx.input(7), d));
    if (pd.shape()[0] != 3 * hidden)
      return ctx.error("P does not match the hidden size");
    for (int64_t k = 0; k < 3; ++k) {
      TRY(pk, sliceAxis(ctx, pd, 0, k * hidden, (k + 1) * hidden));
      dir.peephole[k] = pk;
    }
  }
  if (Error err = initializeState(dir))
    return err;
  return dir;
}

/// The initial hidden (and cell) state of \p dir: given, or zeros.
Error RecurrentLayer::initializeState(Direction &dir) {
  auto stateOf = [&](const std::optional<Value> &initial) -> Expected<Value> {
    if (initial)
      return takeFirstAxis(ctx, *initial, dir.index);
    // With a `?` batch, one row that the first step broadcasts.
    TRY(zero, ctx.createArray(x.dtype(),
                              {isAnyDim(batch) ? 1 : batch, hidden}));
    return ctx.constant(zero);
  };
  TRY(h, stateOf(initialH));
  dir.h = h;
  if (isLSTM) {
    TRY(c, stateOf(initialC));
    dir.c = c;
  }
  return Error::success();
}

/// One GRU step: gates z, r, h.
Error RecurrentLayer::stepGRU(Direction &dir, const Value &xt) {
  int64_t d = dir.index;
  const Value &h = dir.h;
  TRY(hr, ctx.typed(ops::dense(h, dir.rZR, dir.rZR.shape()[0])));
  TRY(xz, gate(xt, 0));
  TRY(xr, gate(xt, 1));
  TRY(xh, gate(xt, 2));
  TRY(hz, gate(hr, 0));
  TRY(hrr, gate(hr, 1));
  TRY(zs, ctx.typed(ops::add(xz, hz)));
  TRY(zc, clip(zs));
  TRY(z, activation(d, 0, zc));
  TRY(rs, ctx.typed(ops::add(xr, hrr)));
  TRY(rc, clip(rs));
  TRY(rg, activation(d, 0, rc));
  Value hh;
  if (linearBeforeReset) {
    TRY(hhr, gate(hr, 2));
    Value lin = hhr;
    if (dir.rbH) {
      TRY(b, ctx.typed(ops::add(hhr, *dir.rbH)));
      lin = b;
    }
    TRY(m, ctx.typed(ops::multiply(rg, lin)));
    hh = m;
  } else {
    TRY(rh, ctx.typed(ops::multiply(rg, h)));
    TRY(m, ctx.typed(ops::dense(rh, dir.rH, hidden)));
    hh = m;
  }
  TRY(hs, ctx.typed(ops::add(xh, hh)));
  TRY(hc, clip(hs));
  TRY(ht, activation(d, 1, hc));
  // H = (1 - z) * ht + z * H = ht + z * (H - ht).
  TRY(diff, ctx.typed(ops::subtract(h, ht)));
  TRY(zd, ctx.typed(ops::multiply(z, diff)));
  TRY(next, ctx.typed(ops::add(ht, zd)));
  dir.h = next;
  return Error::success();
}

/// One RNN step, or one LSTM step (gates i, o, f, c; peepholes i, o, f).
Error RecurrentLayer::stepRNNOrLSTM(Direction &dir, const Value &xt) {
  int64_t d = dir.index;
  TRY(hr, ctx.typed(ops::dense(dir.h, dir.r, gates * hidden)));
  TRY(pre, ctx.typed(ops::add(xt, hr)));
  if (!isLSTM) {
    TRY(pc, clip(pre));
    TRY(next, activation(d, 0, pc));
    dir.h = next;
    return Error::success();
  }
  auto withPeephole = [&](Value v, int p,
                          const Value &state) -> Expected<Value> {
    if (dir.peephole[p]) {
      TRY(ps, ctx.typed(ops::multiply(*dir.peephole[p], state)));
      TRY(sum, ctx.typed(ops::add(v, ps)));
      v = sum;
    }
    return clip(v);
  };
  TRY(pi, gate(pre, 0));
  TRY(po, gate(pre, 1));
  TRY(pf, gate(pre, 2));
  TRY(pcg, gate(pre, 3));
  TRY(ii, withPeephole(pi, 0, dir.c));
  TRY(ig, activation(d, 0, ii));
  TRY(ff, withPeephole(pf, 2, dir.c));
  TRY(fg, activation(d, 0, ff));
  TRY(cc, clip(pcg));
  TRY(cg, activation(d, 1, cc));
  TRY(fc, ctx.typed(ops::multiply(fg, dir.c)));
  TRY(icg, ctx.typed(ops::multiply(ig, cg)));
  TRY(nextC, ctx.typed(ops::add(fc, icg)));
  dir.c = nextC;
  TRY(oo, withPeephole(po, 1, dir.c));
  TRY(og, activation(d, 0, oo));
  TRY(hc, activation(d, 2, dir.c));
  TRY(next, ctx.typed(ops::multiply(og, hc)));
  dir.h = next;
  return Error::success();
}

/// Y [T, D, B, H]; Y_h, Y_c [D, B, H]; layout 1: [B, T, D, H], [B, D, H].
Result RecurrentLayer::collectOutputs(ArrayRef<Value> ys, ArrayRef<Value> lastH,
                                      ArrayRef<Value> lastC) {
  TRY(y, ctx.typed(ops::stack(ctx.tuple(ys), 1)));
  TRY(yh, ctx.typed(ops::stack(ctx.tuple(lastH), 0)));
  Outputs outs{y, yh};
  if (isLSTM) {
    TRY(yc, ctx.typed(ops::stack(ctx.tuple(lastC), 0)));
    outs.push_back(yc);
  }
  if (layout) {
    TRY(yt, ctx.typed(ops::transpose(outs[0], IntList{2, 0, 1, 3})));
    outs[0] = yt;
    for (size_t i = 1; i < outs.size(); ++i) {
      TRY(t, ctx.typed(ops::transpose(outs[i], IntList{1, 0, 2})));
      outs[i] = t;
    }
  }
  outs.resize(std::min<size_t>(outs.size(), ctx.getNode().output_size()));
  return outs;
}

Result RecurrentLayer::convert() {
  if (Error err = readAttributes())
    return err;
  if (Error err = readInputs())
    return err;
  std::vector<Value> ys, lastH, lastC;
  for (int64_t d = 0; d < numDirections; ++d) {
    TRY(dir, prepareDirection(d));
    bool reverse = direction == "reverse" || d == 1;
    std::vector<Value> outputs(steps);
    for (int64_t i = 0; i < steps; ++i) {
      int64_t t = reverse ? steps - 1 - i : i;
      Value xt;
      if (isAnyDim(batch)) {
        // X W^T is [steps, batch, gates * hidden]: step t's row of it.
        TRY(row, sliceAxis(ctx, dir.xwb, 0, t, t + 1));
        TRY(squeezed, ctx.typed(ops::squeeze(row, IntList{0})));
        xt = squeezed;
      } else {
        TRY(rows, sliceAxis(ctx, dir.xwb, 0, t * batch, (t + 1) * batch));
        xt = rows;
      }
      if (Error err = isGRU ? stepGRU(dir, xt) : stepRNNOrLSTM(dir, xt))
        return err;
      outputs[t] = dir.h;
    }
    TRY(y, ctx.typed(ops::stack(ctx.tuple(outputs), 0)));
    ys.push_back(y);
    lastH.push_back(dir.h);
    if (isLSTM)
      lastC.push_back(dir.c);
  }
  return collectOutputs(ys, lastH, lastC);
}

Result convertRecurrent(NodeContext &ctx, RecurrentKind kind) {
  return RecurrentLayer(ctx, kind).convert();
}

} // namespace onnximport
} // namespace nnir
