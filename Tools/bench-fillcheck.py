#!/usr/bin/env python3
"""How well the check after the fill (Sources/ClearText/FillCheck.swift) tells the fills a person
judged bad from the rest, on real scans (issue 17, item 2: "if text-like components remain ...
fall back ... and mark the box needsReview").

Benchmarks/FillJudgements/judgements.json holds boxes `clear` filled on RealCorpus, HeldOut and
NDL pages, each judged by eye (ok, minor, bad). This re-reads every judged box from a kept run of
Tools/bench-harm.py made with the same build (`--keep DIR`, which also writes the fill masks), with
the check's two readings computed as FillCheck computes them, and prints per corpus how many boxes
of each verdict each reading (and the check, either of them) would send back to the scan, with the
ROC area of each reading for "bad" against the rest.

    bench-fillcheck.py --keep DIR[,DIR...] [--edges T ...] [--judgements FILE]

DIR is a `bench-harm.py --keep` folder (one per corpus run; NDL pages are in every run). A judged
box whose cleared page differs from the one judged (its checksum) is skipped and counted: the
judgements describe the outputs of the commit they name, made with `clear`'s check off for the
edge reading (`--clear-args "--set edgesMade=0"`) so that the boxes it would send back are still
filled and can be read.
Needs Pillow, NumPy and OpenCV: run it with .build/bench-venv/bin/python.
"""
import argparse
import hashlib
import json
import os
import sys

import importlib.util

import cv2
import numpy as np
from PIL import Image

# The text-left reading, as Tools/fillcheck-lab.py ports it from FillCheck.textLeft.
_spec = importlib.util.spec_from_file_location("fillcheck_lab", os.path.join(os.path.dirname(os.path.abspath(__file__)), "fillcheck-lab.py"))
_lab = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_lab)


def rgb(path):
    return np.asarray(Image.open(path).convert("RGB")).astype(np.float32)


def luma(a):
    return a[..., 0] * 0.299 + a[..., 1] * 0.587 + a[..., 2] * 0.114


def sobel(l):
    return np.hypot(cv2.Sobel(l, cv2.CV_32F, 1, 0, borderType=cv2.BORDER_REPLICATE),
                    cv2.Sobel(l, cv2.CV_32F, 0, 1, borderType=cv2.BORDER_REPLICATE))


def edges_made(scan, cleared, fill, ink, rect, floor=8.0):
    """FillCheck.edgesMade: mean edge strength over the filled pixels (grown by one) in the box,
    over the median edge strength of the scan's ground (box and ring, farther than 2 px from any
    filled or ink pixel) plus `floor`. None when under 20 pixels were filled."""
    x, y, w, h = rect
    H, W = fill.shape
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return None
    if (fill[y0:y1, x0:x1] > 0).sum() < 20:
        return None
    r = max(4, min(x1 - x0, y1 - y0) // 4)
    gx0, gy0, gx1, gy1 = max(0, x0 - r), max(0, y0 - r), min(W, x1 + r), min(H, y1 + r)
    # One pixel more on every side for the Sobel kernel, as the Swift reads the page's pixels.
    px0, py0, px1, py1 = max(0, gx0 - 1), max(0, gy0 - 1), min(W, gx1 + 1), min(H, gy1 + 1)
    sl = (slice(gy0 - py0, gy1 - py0), slice(gx0 - px0, gx1 - px0))
    gs = sobel(luma(scan[py0:py1, px0:px1]))[sl]
    gc = sobel(luma(cleared[py0:py1, px0:px1]))[sl]
    F = fill[gy0:gy1, gx0:gx1] > 0
    marked = F | (ink[gy0:gy1, gx0:gx1] > 0) if ink is not None else F
    near = cv2.dilate(marked.astype(np.uint8), np.ones((5, 5), np.uint8)) > 0
    ground = gs[~near]
    ref = float(np.floor(np.median(ground))) + 0.5 if ground.size >= 20 else 0.0
    inbox = np.zeros(F.shape, bool)
    inbox[y0 - gy0:y1 - gy0, x0 - gx0:x1 - gx0] = True
    around = (cv2.dilate(F.astype(np.uint8), np.ones((3, 3), np.uint8)) > 0) & inbox
    if not around.any():
        return None
    return float(gc[around].mean()) / (ref + floor)


def auc(pos, neg):
    if not pos or not neg:
        return float("nan")
    s = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return s / len(pos) / len(neg)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser()
    ap.add_argument("--keep", required=True, help="bench-harm.py --keep folders, comma-separated")
    ap.add_argument("--judgements", default=os.path.join(here, "..", "Benchmarks", "FillJudgements", "judgements.json"))
    ap.add_argument("--edges", type=float, nargs="*", default=[0.8, 1.0, 1.2, 1.5, 2.0])
    a = ap.parse_args()
    try:
        judged = json.load(open(a.judgements))
    except (OSError, ValueError) as e:
        print(f"bench-fillcheck: cannot read the judgements {a.judgements}: {e}", file=sys.stderr)
        return 2
    keeps = a.keep.split(",")
    missing_keeps = [k for k in keeps if not os.path.isdir(k)]
    if missing_keeps:
        print(f"bench-fillcheck: no such folder: {', '.join(missing_keeps)} (a Tools/bench-harm.py --keep folder)", file=sys.stderr)
        return 2
    pages = {}
    readings, stale, missing = [], 0, 0
    for b in judged["boxes"]:
        folder = next((os.path.join(k, b["book"]) for k in keeps if os.path.exists(os.path.join(k, b["book"], "book.json"))), None)
        if folder is None:
            missing += 1
            continue
        png = os.path.join(folder, "clear", b["page"] + ".png")
        if hashlib.sha256(open(png, "rb").read()).hexdigest()[:16] != b["cleared"]:
            stale += 1
            continue
        key = (folder, b["page"])
        if key not in pages:
            book = json.load(open(os.path.join(folder, "book.json")))
            page = next(p for p in book["pages"] if os.path.splitext(os.path.basename(p["image"]))[0] == b["page"])
            mask = os.path.join(folder, "masks", b["page"] + ".png")
            pages[key] = (page, rgb(os.path.join(folder, page["image"])), rgb(png),
                          np.asarray(Image.open(os.path.join(folder, "fill", b["page"] + ".png")).convert("L")),
                          np.asarray(Image.open(mask).convert("L")) if os.path.exists(mask) else None)
        page, scan, cleared, fill, ink = pages[key]
        rects = [(t["rect"]["x"], t["rect"]["y"], t["rect"]["width"], t["rect"]["height"]) for t in page["textBoxes"]]
        j = [t["id"] for t in page["textBoxes"]].index(b["box"])
        e = edges_made(scan, cleared, fill, ink, rects[j])
        left = _lab.measure(scan, cleared, fill, rects[j], rects[:j] + rects[j + 1:], ink) if ink is not None else None
        readings.append((b["corpus"], b["verdict"], e, left))
    made = judged.get("made", {})
    print(f"# Fill check against boxes judged by eye — judgements of {made.get('commit', '?')}; "
          f"{len(readings)} boxes read, {stale} skipped (cleared page differs from the judged one), {missing} not in these runs")
    corpora = sorted({r[0] for r in readings})

    def sent_back(hit):
        """Per corpus, judged bad / minor / ok boxes `hit` sends back, of each."""
        cells = []
        for c in corpora:
            rows = [r for r in readings if r[0] == c]
            n = {v: sum(1 for r in rows if r[1] == v) for v in ("bad", "minor", "ok")}
            f = {v: sum(1 for r in rows if r[1] == v and hit(r)) for v in ("bad", "minor", "ok")}
            cells.append(f"{f['bad']}/{n['bad']} · {f['minor']}/{n['minor']} · {f['ok']}/{n['ok']}")
        return " | ".join(cells)

    def roc(k):
        """Per corpus, the ROC area of reading `k` (2 edges, 3 text left) on the boxes it reads."""
        cells = []
        for c in corpora:
            rows = [r for r in readings if r[0] == c and r[k] is not None]
            cells.append(f"{auc([r[k] for r in rows if r[1] == 'bad'], [r[k] for r in rows if r[1] != 'bad']):.2f}")
        return " | ".join(cells)

    header = " | ".join(corpora) + " |\n|---|" + "---|" * len(corpora)
    print("\nEdges the fill made (FillCheck.edgesMade): boxes sent back to the scan, of those judged bad / minor / ok\n")
    print("| bar | " + header)
    for t in a.edges:
        print(f"| ≥ {t:g} | " + sent_back(lambda r, t=t: r[2] is not None and r[2] >= t) + " |")
    print("| ROC area, bad against the rest | " + roc(2) + " |")
    # The text-left reading beside it (nil where a box gives no colour reading: counted as under
    # its bar), and the check as `clear` makes it: either reading at its bar.
    left = lambda r: r[3] is not None and r[3] >= 1 / 3
    print("\nText left (FillCheck.textLeft, bar 1/3) and the whole check (either reading), same boxes\n")
    print("| reading | " + header)
    print("| text left ≥ 1/3 | " + sent_back(left) + " |")
    print("| either (the check) | " + sent_back(lambda r: left(r) or (r[2] is not None and r[2] >= 1)) + " |")
    print("| text left: ROC area, bad against the rest (boxes it reads) | " + roc(3) + " |")
    return 0 if readings else 1


if __name__ == "__main__":
    sys.exit(main())
