//===- VisionCompute.cpp - Computes of the vision operators ---------------===//
//
/// \file
/// The TE compute of vision.roi_align, following TVM's
/// topi.vision.roi_align (and ONNX's RoiAlign, whose half_pixel mode is
/// the `aligned` attribute): each output bin (ph, pw) of roi i averages (or
/// takes the maximum of) grid_h x grid_w bilinear samples at the centres of
/// an even grid over the bin. grid is sample_ratio, or ceil(bin extent)
/// when sample_ratio is not positive: a reduction whose extent is read from
/// the roi, as TVM's. A sample more than one pixel outside the data reads 0;
/// others are clamped into it. The adaptive grid is capped at kMaxGrid
/// samples per axis, so a degenerate roi (huge, or not finite) cannot make
/// a kernel run for ever: bins larger than that sample kMaxGrid points.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/IR/Type.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Compute.h"

using namespace llvm;
using namespace nnir;
using namespace nnir::te;

/// The most adaptive samples per bin axis.
static constexpr int64_t kMaxGrid = 1024;

static Expected<std::vector<te::Tensor>>
roiAlignCompute(const ComputeArgs &args) {
  const auto *a = llvm::cast<ROIAlignAttrs>(args.attrs);
  const te::Tensor &data = args.arg(0), &rois = args.arg(1);
  // Every extent may be `?`: the result's from the rois' count, the data's
  // channels and the pooled size.
  ArrayRef<te::Expr> inShape = data.getShape();
  bool nchw = a->layout == "NCHW";
  te::Expr batch = inShape[0];
  te::Expr height = inShape[nchw ? 2 : 1], width = inShape[nchw ? 3 : 2];
  int64_t pooled[2] = {a->pooledSize[0], a->pooledSize[1]};
  te::Expr channels = inShape[nchw ? 1 : 3];
  std::vector<te::Expr> derived =
      nchw ? std::vector<te::Expr>{rois.getShape()[0], channels,
                                   te::Expr(pooled[0]), te::Expr(pooled[1])}
           : std::vector<te::Expr>{rois.getShape()[0], te::Expr(pooled[0]),
                                   te::Expr(pooled[1]), channels};
  DataType dt = data.getDType();
  DataType ft = dt == DataType::float64() ? dt : DataType::float32();
  auto f = [&](double v) { return constant(ft, v); };
  auto i64 = [](int64_t v) { return te::Expr(v); };
  bool avg = a->mode == "avg";
  return std::vector<te::Tensor>{compute(
      args.getResultShape(derived),
      [&](ArrayRef<te::Expr> o) {
        te::Expr i = o[0], c = o[nchw ? 1 : 3];
        te::Expr bin[2] = {o[nchw ? 2 : 1], o[nchw ? 3 : 2]};
        auto roi = [&](int64_t k) {
          return te::cast(ft, rois({i, i64(k)}));
        };
        // The batch index, clamped into the data.
        te::Expr b = min(max(te::cast(DataType::int64(), roi(0)), i64(0)),
                         batch - 1);
        te::Expr offset = f(a->aligned ? 0.5 : 0);
        te::Expr start[2], binSize[2], grid[2];
        IterVar r[2];
        for (int s = 0; s < 2; ++s) {
          // rois hold (x1, y1, x2, y2): axis s (0 = y) reads 2 - s and 4 - s.
          start[s] = roi(2 - s) * f(a->spatialScale) - offset;
          te::Expr extent = roi(4 - s) * f(a->spatialScale) - offset - start[s];
          if (!a->aligned)
            extent = max(extent, f(1));
          binSize[s] = extent / f(double(pooled[s]));
          if (a->sampleRatio > 0) {
            grid[s] = i64(a->sampleRatio);
          } else {
            // ceil(bin), within [0, kMaxGrid] (NaN gives 0).
            te::Expr bounded = select(binSize[s] > f(0),
                                      min(binSize[s], f(double(kMaxGrid))),
                                      f(0));
            grid[s] = te::cast(DataType::int64(),
                               call(Intrinsic::Ceil, {bounded}));
          }
          r[s] = reduceAxis(grid[s], s == 0 ? "ry" : "rx");
        }
        // The bilinear sample at (y, x), 0 more than a pixel outside (or
        // not a number).
        te::Expr p[2], inside = boolImm(true);
        te::Expr size[2] = {height, width};
        for (int s = 0; s < 2; ++s) {
          te::Expr gridF = te::cast(ft, grid[s]);
          p[s] = start[s] + te::cast(ft, bin[s]) * binSize[s] +
                 (te::cast(ft, r[s].var) + f(0.5)) * binSize[s] / gridF;
          inside = logicalAnd(inside, logicalAnd(p[s] >= f(-1),
                                                 p[s] <= te::cast(ft, size[s])));
        }
        te::Expr lo[2], hi[2], t[2];
        for (int s = 0; s < 2; ++s) {
          te::Expr clamped =
              select(inside, min(max(p[s], f(0)), te::cast(ft, size[s] - 1)),
                     f(0));
          te::Expr fl = call(Intrinsic::Floor, {clamped});
          lo[s] = te::cast(DataType::int64(), fl);
          hi[s] = min(lo[s] + i64(1), size[s] - 1);
          t[s] = clamped - fl;
        }
        auto at = [&](te::Expr y, te::Expr x) {
          return te::cast(ft, nchw ? data({b, c, y, x}) : data({b, y, x, c}));
        };
        te::Expr value =
            at(lo[0], lo[1]) * (f(1) - t[0]) * (f(1) - t[1]) +
            at(lo[0], hi[1]) * (f(1) - t[0]) * t[1] +
            at(hi[0], lo[1]) * t[0] * (f(1) - t[1]) +
            at(hi[0], hi[1]) * t[0] * t[1];
        value = select(inside, value, f(0));
        if (!avg)
          return te::cast(dt, max(value, {r[0], r[1]}));
        te::Expr count = max(grid[0] * grid[1], i64(1));
        return te::cast(dt, sum(value, {r[0], r[1]}) / te::cast(ft, count));
      },
      "roi_align")};
}

void nnir::registerVisionComputes() {
  setOpCompute("vision.roi_align", roiAlignCompute);
  markSymbolicShapes({"vision.roi_align"});
}
