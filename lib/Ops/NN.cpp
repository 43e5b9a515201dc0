//===- NN.cpp - Neural-network operators ----------------------------------===//
//
/// \file
/// nn.conv2d, nn.dense, nn.bias_add, nn.batch_norm, nn.softmax,
/// nn.max_pool2d, nn.dropout.
//
//===----------------------------------------------------------------------===//

#include "nnir/IR/Op.h"
#include "nnir/Ops/Attrs.h"
#include "nnir/Ops/Ops.h"

using namespace nnir;

void nnir::registerNNOps() {
  OpRegistry &registry = OpRegistry::instance();
  registry.add("nn.conv2d")
      .describe("2-D convolution")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("weight", "Tensor")
      .setAttrsType<Conv2DAttrs>();
  registry.add("nn.dense")
      .describe("dense layer: data * weight^T")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("weight", "Tensor")
      .setAttrsType<DenseAttrs>();
  registry.add("nn.bias_add")
      .describe("add a 1-D bias along an axis")
      .setNumInputs(2)
      .addArgument("data", "Tensor")
      .addArgument("bias", "Tensor")
      .setAttrsType<BiasAddAttrs>();
  registry.add("nn.batch_norm")
      .describe("batch normalisation; returns (out, mean, var)")
      .setNumInputs(5)
      .addArgument("data", "Tensor")
      .addArgument("gamma", "Tensor")
      .addArgument("beta", "Tensor")
      .addArgument("moving_mean", "Tensor")
      .addArgument("moving_var", "Tensor")
      .setAttrsType<BatchNormAttrs>();
  for (const char *name : {"nn.softmax", "nn.log_softmax"})
    registry.add(name)
        .describe("softmax along an axis")
        .setNumInputs(1)
        .addArgument("data", "Tensor")
        .setAttrsType<SoftmaxAttrs>();
  registry.add("nn.max_pool2d")
      .describe("2-D max pooling")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<MaxPool2DAttrs>();
  registry.add("nn.dropout")
      .describe("dropout; returns (out, mask)")
      .setNumInputs(1)
      .addArgument("data", "Tensor")
      .setAttrsType<DropoutAttrs>();
}
