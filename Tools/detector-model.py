#!/usr/bin/env python3
"""Writes the learned text detector's model for `analyze`: PP-OCRv4's detection network with its
elementwise operators folded together, the same function computed in about half the time.

    detector-model.py SOURCE.onnx OUT.onnx [--input HEIGHTxWIDTH]

Called by Tools/setup.sh --detector with the models inside the rapidocr-onnxruntime wheel: the
detection network (checked on a 640x480 input) and the line recogniser the reading check uses
(`--input 48x320`: it reads strips 48 pixels high). Why: the
published graph (exported from PaddlePaddle by paddle2onnx) spells every activation out as small
elementwise operators — each convolution is followed by a learnable scale and shift
(`Mul`, `Add` by one number), each hard-swish is `x * clip(x + 3, 0, 6) / 6` in four operators,
and each of those is followed by another scale and shift. ONNX Runtime runs each of them as a pass
over the whole feature map and converts the map's memory layout around them; measured on a
1280×960 page (one thread, 2 Xeon cores) they were 58 % of the forward pass (233 of 425 ms).

What is rewritten, each step exact in real arithmetic (only float rounding changes):
  1. Conv → Mul(a) → Add(b) becomes one Conv with weights a·W and bias a·B + b.
  2. x·clip(x + 3, 0, 6) / 6 becomes HardSwish(x) (opset 14).
  3. HardSwish → Mul(a) → Add(b): when every reader is an unpadded 1×1 convolution, folded into
     them (weights a·W, bias B + b·ΣW — exact because a 1×1 convolution without padding never
     reads a padded zero); otherwise one BatchNormalization with scale a, shift b, mean 0 and
     variance 1 − ε, which ONNX Runtime fuses into its neighbours.
  4. ConvTranspose → Add(bias) → BatchNormalization becomes one ConvTranspose.

Nothing is rewritten that does not match exactly; the script then runs both graphs through ONNX
Runtime on a fixed page-like input and refuses to write the new one unless their outputs agree to
1e-3 everywhere (the detector's probability maps agree to about 2e-5, the recogniser's character
probabilities to about 1e-5). Exit 0 and OUT written atomically, or exit 1
with the reason and nothing written (setup then links the published model unchanged).
"""
import os
import sys
import tempfile

import numpy as np
import onnx
from onnx import helper, numpy_helper, version_converter

TOLERANCE = 1e-3


def rewrite(model):
    model = version_converter.convert_version(model, 14)  # HardSwish needs opset 14
    graph = model.graph
    const = {}
    for node in graph.node:
        if node.op_type == "Constant":
            const[node.output[0]] = numpy_helper.to_array(node.attribute[0].t)
    for init in graph.initializer:
        const[init.name] = numpy_helper.to_array(init)
    added = {}
    outputs = {o.name for o in graph.output}
    counts = {}

    def note(what):
        counts[what] = counts.get(what, 0) + 1

    def add_const(name, array):
        const[name] = array
        added[name] = array

    def readers(name):
        return [n for n in graph.node if name in n.input]

    def producer(name):
        return next((n for n in graph.node if name in n.output), None)

    def scalar(name):
        a = const.get(name)
        return None if a is None or a.size != 1 else float(a.reshape(-1)[0])

    def attributes(node):
        return {a.name: helper.get_attribute_value(a) for a in node.attribute}

    def reroute(old, new):
        for n in graph.node:
            for k, name in enumerate(n.input):
                if name == old:
                    n.input[k] = new

    def scale_shift_after(name):
        """name → Mul(one number) → Add(one number), each the only reader: (mul, add, a, b)."""
        if name in outputs:
            return None
        r = readers(name)
        if len(r) != 1 or r[0].op_type != "Mul":
            return None
        mul = r[0]
        other = [i for i in mul.input if i != name]
        if len(other) != 1 or scalar(other[0]) is None or mul.output[0] in outputs:
            return None
        r = readers(mul.output[0])
        if len(r) != 1 or r[0].op_type != "Add":
            return None
        add = r[0]
        other2 = [i for i in add.input if i != mul.output[0]]
        if len(other2) != 1 or scalar(other2[0]) is None or add.output[0] in outputs:
            return None
        return mul, add, scalar(other[0]), scalar(other2[0])

    def conv_weights(node, out_axis):
        w = const[node.input[1]].astype(np.float64)
        count = w.shape[out_axis]
        b = const[node.input[2]].reshape(-1).astype(np.float64) if len(node.input) > 2 else np.zeros(count)
        return w, b

    def set_weights(node, w, b, tag):
        wn, bn = f"{node.output[0]}.{tag}.w", f"{node.output[0]}.{tag}.b"
        add_const(wn, w.astype(np.float32))
        add_const(bn, b.astype(np.float32))
        node.input[1] = wn
        if len(node.input) > 2:
            node.input[2] = bn
        else:
            node.input.append(bn)

    # 1. Conv → Mul(a) → Add(b)
    for conv in [n for n in graph.node if n.op_type == "Conv"]:
        if len(conv.input) < 2 or conv.input[1] not in const:
            continue
        found = scale_shift_after(conv.output[0])
        if not found:
            continue
        mul, add, a, b = found
        w, bias = conv_weights(conv, 0)
        set_weights(conv, w * a, bias * a + b, "affine")
        reroute(add.output[0], conv.output[0])
        graph.node.remove(mul)
        graph.node.remove(add)
        note("scale and shift folded into a convolution")

    # 2. x·clip(x + 3, 0, 6) / 6 → HardSwish(x)
    for first in [n for n in graph.node if n.op_type == "Add"]:
        if first not in graph.node:
            continue
        three = [i for i in first.input if scalar(i) == 3.0]
        if len(three) != 1 or len(first.input) != 2:
            continue
        x = next(i for i in first.input if i != three[0])
        r = readers(first.output[0])
        if len(r) != 1 or r[0].op_type != "Clip" or len(r[0].input) < 3:
            continue
        clip = r[0]
        if scalar(clip.input[1]) != 0.0 or scalar(clip.input[2]) != 6.0:
            continue
        r = readers(clip.output[0])
        if len(r) != 1 or r[0].op_type != "Mul" or sorted(r[0].input) != sorted([x, clip.output[0]]):
            continue
        mul = r[0]
        r = readers(mul.output[0])
        if len(r) != 1 or r[0].op_type != "Div" or r[0].input[0] != mul.output[0] or scalar(r[0].input[1]) != 6.0:
            continue
        div = r[0]
        if any(o in outputs for o in (first.output[0], clip.output[0], mul.output[0])):
            continue
        at = list(graph.node).index(first)
        for n in (first, clip, mul, div):
            graph.node.remove(n)
        graph.node.insert(at, helper.make_node("HardSwish", [x], [div.output[0]], name=div.output[0] + ".hardswish"))
        note("hard-swish as one operator")

    # 3. HardSwish → Mul(a) → Add(b)
    for hs in [n for n in graph.node if n.op_type == "HardSwish"]:
        found = scale_shift_after(hs.output[0])
        if not found:
            continue
        mul, add, a, b = found
        out = add.output[0]
        targets = readers(out)

        def unpadded_1x1(c):
            if c.op_type != "Conv" or c.input[0] != out or c.input[1] not in const:
                return False
            at = attributes(c)
            return (const[c.input[1]].shape[2:] == (1, 1) and all(p == 0 for p in at.get("pads", [0]))
                    and at.get("group", 1) == 1 and at.get("auto_pad", b"NOTSET") in (b"NOTSET", "NOTSET", b"VALID", "VALID"))

        if targets and all(unpadded_1x1(c) for c in targets):
            for c in targets:
                w, bias = conv_weights(c, 0)
                set_weights(c, w * a, bias + b * w.sum(axis=(1, 2, 3)), "input-affine")
                c.input[0] = hs.output[0]
            graph.node.remove(mul)
            graph.node.remove(add)
            note("scale and shift folded into the next 1x1 convolutions")
            continue
        source = producer(hs.input[0])
        if source is None or source.op_type != "Conv" or source.input[1] not in const:
            continue
        channels = const[source.input[1]].shape[0]
        eps = 1e-5
        names = [f"{out}.affine.{s}" for s in ("scale", "shift", "mean", "variance")]
        for name, value in zip(names, (a, b, 0.0, 1.0 - eps)):
            add_const(name, np.full(channels, value, np.float32))
        at = list(graph.node).index(mul)
        graph.node.remove(mul)
        graph.node.remove(add)
        graph.node.insert(at, helper.make_node("BatchNormalization", [hs.output[0]] + names, [out],
                                               epsilon=eps, name=out + ".affine"))
        note("scale and shift as one normalisation")

    # 4. ConvTranspose → Add(bias) → BatchNormalization
    for ct in [n for n in graph.node if n.op_type == "ConvTranspose"]:
        if ct.input[1] not in const or attributes(ct).get("group", 1) != 1:
            continue
        r = readers(ct.output[0])
        if ct.output[0] in outputs or len(r) != 1 or r[0].op_type != "Add":
            continue
        add = r[0]
        other = [i for i in add.input if i != ct.output[0]]
        w, bias = conv_weights(ct, 1)
        if len(other) != 1 or other[0] not in const or const[other[0]].size != w.shape[1]:
            continue
        bias = bias + const[other[0]].reshape(-1).astype(np.float64)
        tail = add.output[0]
        r = readers(tail)
        norm = r[0] if len(r) == 1 and r[0].op_type == "BatchNormalization" and tail not in outputs else None
        if norm is not None and all(i in const for i in norm.input[1:5]):
            s, shift, mean, var = (const[i].astype(np.float64) for i in norm.input[1:5])
            k = s / np.sqrt(var + attributes(norm).get("epsilon", 1e-5))
            w, bias = w * k[None, :, None, None], (bias - mean) * k + shift
            graph.node.remove(norm)
            reroute(norm.output[0], ct.output[0])
            note("transposed convolution's normalisation folded in")
        set_weights(ct, w, bias, "bias")
        graph.node.remove(add)
        reroute(tail, ct.output[0])
        note("transposed convolution's bias folded in")

    # Constants nobody reads go; new weights become initializers.
    used = {i for n in graph.node for i in n.input}
    kept = [n for n in graph.node if n.op_type != "Constant" or n.output[0] in used]
    del graph.node[:]
    graph.node.extend(kept)
    for name, value in added.items():
        if name in used:
            graph.initializer.append(numpy_helper.from_array(value, name))
    onnx.checker.check_model(model)
    return model, counts


def page_like_input(height, width):
    """A fixed input with the statistics of a page: paper, rows of dark glyph-like strokes over
    its upper part, a colour field below; sized to the model's input."""
    rng = np.random.default_rng(17)
    img = np.full((height, width, 3), 0.92, np.float32)
    img[height * 5 // 8:, width // 8:width * 7 // 8] = [0.55, 0.7, 0.4]
    glyph = max(3, min(height // 4, 12))
    for row in range(glyph // 2, max(glyph // 2 + 1, height * 5 // 8 - glyph), 2 * glyph):
        for col in range(glyph, width - glyph, glyph + 2):
            if rng.random() < 0.8:
                img[row:row + glyph, col:col + max(1, glyph // 4)] = 0.1
                img[row:row + max(1, glyph // 4), col:col + glyph * 3 // 4] = 0.1
    img += rng.normal(0, 0.02, img.shape).astype(np.float32)
    mean = np.array([0.485, 0.456, 0.406], np.float32)
    dev = np.array([0.229, 0.224, 0.225], np.float32)
    return ((img - mean) / dev)[:, :, ::-1].transpose(2, 0, 1)[None].copy()


def largest_difference(a_bytes, b_bytes, height, width):
    import onnxruntime as ort

    x = page_like_input(height, width)
    maps = []
    for data in (a_bytes, b_bytes):
        options = ort.SessionOptions()
        options.intra_op_num_threads = 1
        options.log_severity_level = 3
        session = ort.InferenceSession(data, options, providers=["CPUExecutionProvider"])
        maps.append(session.run(None, {session.get_inputs()[0].name: x})[0])
    if maps[0].shape != maps[1].shape:
        return float("inf")
    return float(np.abs(maps[0] - maps[1]).max())


def main():
    args = sys.argv[1:]
    size = (640, 480)
    if len(args) == 4 and args[2] == "--input":
        try:
            size = tuple(int(v) for v in args[3].lower().split("x"))
        except ValueError:
            size = ()
        args = args[:2]
    if len(args) != 2 or len(size) != 2 or min(size) < 8:
        print("usage: detector-model.py SOURCE.onnx OUT.onnx [--input HEIGHTxWIDTH]", file=sys.stderr)
        return 2
    source, out = args
    try:
        original = onnx.load(source)
        rewritten, counts = rewrite(onnx.load(source))
        data = rewritten.SerializeToString()
        difference = largest_difference(original.SerializeToString(), data, *size)
    except Exception as error:  # any surprise in the graph: keep the published model
        print(f"detector-model: {source}: not rewritten: {error}", file=sys.stderr)
        return 1
    if not counts or not difference <= TOLERANCE:
        print(f"detector-model: {source}: not rewritten: largest difference {difference:.2e} "
              f"(allowed {TOLERANCE:.0e}), rewrites {counts}", file=sys.stderr)
        return 1
    folder = os.path.dirname(os.path.abspath(out))
    fd, temp = tempfile.mkstemp(prefix=".text-detector.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(temp, 0o644)
        os.replace(temp, out)
    except BaseException:
        os.unlink(temp)
        raise
    summary = ", ".join(f"{v} {k}" for k, v in counts.items())
    print(f"detector-model: wrote {os.path.basename(out)} ({summary}; largest difference from the published model {difference:.1e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
