#!/usr/bin/env python3
"""Where the in-fill's squared error comes from, per placement style (default overArt).

Reads a finished Tools/bench-infill.sh work directory (.build/bench-infill/<label>-<source>) and
splits the squared error inside the truth boxes (cleared vs. clean) by pixel class:

  mask class   ink-filled   true ink inside the fill mask
               fringe-filled  within 3 px of true ink, filled
               art-filled   filled but not near true ink (the mask took art)
               ink-missed   true ink left on the page
               fringe-kept  near true ink, not filled (blur halo left)
               untouched    neither (JPEG difference only)
  art class    outline      the clean page is dark there (luma < 90, grown by 1): drawn lines
               textured     7×7 luma spread of the clean page > 18 (stripes, hatching, grass)
               flat         the rest

    Tools/diag-infill.py .build/bench-infill/standard-oracle [--style overArt|all|…] [--top 10]

The corpus sets are read from $CORPUS/seed-<seed> (default .build/corpus), so a work directory
made from a subset of pages can be scored against a matching subset corpus.
"""
import argparse
import glob
import json
import math
import os

import cv2
import numpy as np

MASK = ["ink-filled", "fringe-filled", "art-filled", "ink-missed", "fringe-kept", "untouched"]
ART = ["outline", "textured", "flat"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--style", default="overArt")
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    sse = np.zeros((len(MASK), len(ART)))
    count = np.zeros((len(MASK), len(ART)), dtype=np.int64)
    boxes = []
    total_n = 0
    for cleared_dir in sorted(glob.glob(os.path.join(a.work, "clear-*"))):
        seed = cleared_dir.rsplit("-", 1)[1]
        corpus = os.environ.get("CORPUS", ".build/corpus") + f"/seed-{seed}"
        mask_dir = os.path.join(a.work, f"masks-{seed}")
        truth = json.load(open(os.path.join(corpus, "truth.json")))
        for p in truth["pages"]:
            sel = [b for b in p["textBoxes"] if b["placement"] == a.style or a.style == "all"]
            if not sel:
                continue
            stem = os.path.splitext(os.path.basename(p["image"]))[0]
            scan = cv2.imread(os.path.join(corpus, p["image"])).astype(np.int16)
            clean = cv2.imread(os.path.join(corpus, p["clean"])).astype(np.int16)
            ours = cv2.imread(os.path.join(cleared_dir, stem + ".png")).astype(np.int16)
            # The pixels actually replaced: over busy art the fill mask's outer ring is kept.
            fill = (cv2.imread(os.path.join(mask_dir, stem + ".png"), cv2.IMREAD_GRAYSCALE) > 0) & (ours != scan).any(axis=2)
            ink = (np.abs(scan - clean).max(axis=2) >= 40).astype(np.uint8)
            near = cv2.dilate(ink, np.ones((7, 7), np.uint8)) > 0
            ink = ink > 0
            luma = cv2.cvtColor(clean.astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
            dark = cv2.dilate((luma < 90).astype(np.uint8), np.ones((3, 3), np.uint8)) > 0
            mean = cv2.blur(luma, (7, 7))
            spread = np.sqrt(np.maximum(0, cv2.blur(luma * luma, (7, 7)) - mean * mean))
            art = np.where(dark, 0, np.where(spread > 18, 1, 2))
            mclass = np.select(
                [fill & ink, fill & near, fill, ink, near], [0, 1, 2, 3, 4], 5)
            err = ((ours - clean).astype(np.float64) ** 2).sum(axis=2)
            for b in sel:
                r = b["rect"]
                sl = (slice(r["y"], r["y"] + r["height"]), slice(r["x"], r["x"] + r["width"]))
                e, m, c = err[sl], mclass[sl], art[sl]
                np.add.at(sse, (m.ravel(), c.ravel()), e.ravel())
                np.add.at(count, (m.ravel(), c.ravel()), 1)
                total_n += e.size * 3
                boxes.append((float(e.sum()), f"{seed}/{stem} {b['id']} {r['x']},{r['y']} {r['width']}x{r['height']}",
                              [float(e[m == k].sum()) for k in range(len(MASK))]))
    tot = sse.sum()
    psnr = 10 * math.log10(255 * 255 * total_n / tot) if tot else float("inf")
    print(f"{a.work} style={a.style}: {len(boxes)} boxes, PSNR {psnr:.2f} dB")
    print(f"{'share of SSE %':<16}" + "".join(f"{c:>10}" for c in ART) + f"{'all':>10}{'pixels %':>10}{'dB if 0':>9}")
    for i, name in enumerate(MASK):
        row_sse = sse[i].sum()
        gain = 10 * math.log10(tot / (tot - row_sse)) if tot > row_sse else float("inf")
        print(f"{name:<16}" + "".join(f"{100 * sse[i, j] / tot:>10.1f}" for j in range(len(ART)))
              + f"{100 * row_sse / tot:>10.1f}{100 * count[i].sum() / count.sum():>10.1f}{gain:>+9.2f}")
    print(f"{'all':<16}" + "".join(f"{100 * sse[:, j].sum() / tot:>10.1f}" for j in range(len(ART))))
    print(f"mean squared error per pixel (sum over channels) by class:")
    for i, name in enumerate(MASK):
        print(f"  {name:<14}" + "".join(f"{(sse[i, j] / count[i, j] if count[i, j] else 0):>10.0f}" for j in range(len(ART))))
    print(f"top {a.top} boxes by SSE (share %, then by mask class %):")
    for s, name, parts in sorted(boxes, reverse=True)[:a.top]:
        print(f"  {100 * s / tot:5.1f}  {name:<44}" + " ".join(f"{100 * p / tot:5.1f}" for p in parts))


if __name__ == "__main__":
    main()
