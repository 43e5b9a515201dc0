#!/usr/bin/env python3
"""Writes ResNet-50 or MobileNet (v1) in Relay text, as TVM prints them.

  make_cnn.py resnet50|mobilenet [--batch N] [--logits] [-o FILE]
              [--npz FILE [--seed S]]

The program is `@main(%data, <one parameter per weight>)` with real
`nn.batch_norm` calls (their `.0` projected, as TVM's relay.testing models
and its importers produce them); nothing is downloaded. Bind the weights
with `nnir-opt FILE --passes='BindParams{random=true}'` (every parameter but
%data in [0.1, 1.0), which is fine for timing but overflows float32 through
fifty layers) or, for checking values, with `BindParams{npz=FILE}` and the
archive `--npz` writes: He-initialised convolutions and dense, batch norms
with mean ~0, variance ~1, gamma ~1, beta ~0, so activations stay finite.
`--logits` leaves out the final softmax (which saturates on such weights,
so comparing its output would prove little).

ResNet-50 is He et al.'s v1 (torchvision's layout: 7x7/2 stem, max pool,
bottleneck stages of 3, 4, 6, 3 blocks with the stride on the 3x3
convolution, 1x1 projection shortcuts, global average pool, dense 1000,
softmax): 53 convolutions, 53 batch norms, 25.6 M weights. MobileNet is
Howard et al.'s v1 (width 1.0, 224x224): 27 convolutions (13 depthwise),
27 batch norms, 4.2 M weights.
"""

import argparse
import sys


class Builder:
    def __init__(self):
        self.lines = []
        self.params = []  # (name, shape)
        self.next = 0

    def param(self, name, shape):
        self.params.append((name, shape))
        return "%" + name

    def emit(self, text):
        name = f"%{self.next}"
        self.next += 1
        self.lines.append(f"  {name} = {text};")
        return name

    def conv(self, x, name, cin, cout, kernel, stride=1, pad=0, groups=1):
        w = self.param(name + "_weight", (cout, cin // groups, kernel, kernel))
        attrs = [f"strides=[{stride}, {stride}]"] if stride != 1 else []
        attrs.append(f"padding=[{pad}, {pad}, {pad}, {pad}]")
        if groups != 1:
            attrs.append(f"groups={groups}")
        attrs += [f"channels={cout}", f"kernel_size=[{kernel}, {kernel}]"]
        return self.emit(f"nn.conv2d({x}, {w}, {', '.join(attrs)})")

    def bn(self, x, name, channels):
        args = [self.param(f"{name}_{p}", (channels,))
                for p in ("gamma", "beta", "moving_mean", "moving_var")]
        t = self.emit(f"nn.batch_norm({x}, {', '.join(args)})")
        return self.emit(f"{t}.0")

    def relu(self, x):
        return self.emit(f"nn.relu({x})")

    def text(self, result_type):
        header = ['#[version = "0.0.5"]']
        params = ", ".join(
            f"%{n}: Tensor[({', '.join(map(str, s))}), float32]"
            for n, s in self.params)
        header.append(f"def @main({params}) -> {result_type} {{")
        body = self.lines[:-1] + [self.lines[-1].split(" = ", 1)[1][:-1]]
        body[-1] = "  " + body[-1]
        return "\n".join(header + body + ["}"]) + "\n"


def resnet50(batch, logits):
    b = Builder()
    x = b.param("data", (batch, 3, 224, 224))
    x = b.relu(b.bn(b.conv(x, "conv0", 3, 64, 7, 2, 3), "bn0", 64))
    x = b.emit(f"nn.max_pool2d({x}, pool_size=[3, 3], strides=[2, 2], "
               "padding=[1, 1, 1, 1])")
    cin = 64
    for stage, (blocks, width) in enumerate(
            [(3, 64), (4, 128), (6, 256), (3, 512)], start=1):
        for unit in range(1, blocks + 1):
            p = f"stage{stage}_unit{unit}"
            stride = 2 if unit == 1 and stage > 1 else 1
            y = b.relu(b.bn(b.conv(x, p + "_conv1", cin, width, 1),
                            p + "_bn1", width))
            y = b.relu(b.bn(b.conv(y, p + "_conv2", width, width, 3, stride,
                                   1), p + "_bn2", width))
            y = b.bn(b.conv(y, p + "_conv3", width, width * 4, 1),
                     p + "_bn3", width * 4)
            shortcut = x
            if unit == 1:
                shortcut = b.bn(b.conv(x, p + "_sc", cin, width * 4, 1,
                                       stride), p + "_sc_bn", width * 4)
            x = b.relu(b.emit(f"add({y}, {shortcut})"))
            cin = width * 4
    return head(b, x, cin, batch, logits)


def mobilenet(batch, logits):
    b = Builder()
    x = b.param("data", (batch, 3, 224, 224))
    x = b.relu(b.bn(b.conv(x, "conv0", 3, 32, 3, 2, 1), "bn0", 32))
    cin = 32
    for i, (cout, stride) in enumerate(
            [(64, 1), (128, 2), (128, 1), (256, 2), (256, 1), (512, 2)] +
            [(512, 1)] * 5 + [(1024, 2), (1024, 1)], start=1):
        x = b.relu(b.bn(b.conv(x, f"dw{i}", cin, cin, 3, stride, 1, cin),
                        f"dw{i}_bn", cin))
        x = b.relu(b.bn(b.conv(x, f"pw{i}", cin, cout, 1), f"pw{i}_bn",
                        cout))
        cin = cout
    return head(b, x, cin, batch, logits)


def head(b, x, channels, batch, logits):
    x = b.emit(f"nn.global_avg_pool2d({x})")
    x = b.emit(f"nn.batch_flatten({x})")
    w = b.param("fc_weight", (1000, channels))
    bias = b.param("fc_bias", (1000,))
    x = b.emit(f"nn.dense({x}, {w}, units=1000)")
    x = b.emit(f"nn.bias_add({x}, {bias})")
    if not logits:
        b.emit(f"nn.softmax({x})")
    return b, f"Tensor[({batch}, 1000), float32]"


def write_npz(builder, path, seed):
    import numpy as np
    rng = np.random.default_rng(seed)
    arrays = {}
    for name, shape in builder.params[1:]:
        if name.endswith("_weight"):
            fan_in = int(np.prod(shape[1:]))
            value = rng.normal(0, np.sqrt(2.0 / fan_in), shape)
        elif name.endswith("_gamma"):
            value = rng.uniform(0.5, 1.5, shape)
        elif name.endswith("_moving_var"):
            value = rng.uniform(0.5, 2.0, shape)
        else:  # beta, moving_mean, fc_bias
            value = rng.uniform(-0.2, 0.2, shape)
        arrays[name] = value.astype(np.float32)
    np.savez(path, **arrays)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("model", choices=["resnet50", "mobilenet"])
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("-o", "--output", default="-")
    parser.add_argument("--logits", action="store_true")
    parser.add_argument("--npz")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    builder, result_type = {"resnet50": resnet50,
                            "mobilenet": mobilenet}[args.model](args.batch,
                                                                args.logits)
    text = builder.text(result_type)
    if args.output == "-":
        sys.stdout.write(text)
    else:
        with open(args.output, "w") as f:
            f.write(text)
    if args.npz:
        write_npz(builder, args.npz, args.seed)


if __name__ == "__main__":
    main()
