#!/usr/bin/env python3
"""Lab for the check ClearText makes after filling a box (issue 17, item 2): does text remain?

Reads a run of Tools/bench-infill.sh (its cleared pages and fill masks) with the corpus it was
made from, and for every box `clear` worked on computes the measure the check uses — the share of
the box's text still on the page after the fill, from the scan, the cleared page and the
detector's mask file alone (the lesser of its two readings, by ink colour and by the mask's
pixels left as they were) —
beside the truth the synthetic corpus gives (the share of the true ink, scan against clean page,
that the cleared page still shows). Prints how well each threshold of the measure separates
boxes with text left from the rest, so the threshold can be chosen on one corpus and confirmed on
another.

    fillcheck-lab.py WORK CORPUS [--book BOOK.json] [--threshold T ...]

WORK is e.g. .build/bench-infill/standard-detector-release, CORPUS the corpus folder (truth.json,
clean/). The boxes are the book's (BOOK.json: for the detector mode the copy `analyze` filled,
WORK/book-<seed>/book.json; default the corpus's own book.json).
"""
import argparse
import json
import os
import sys

import cv2
import numpy as np
from PIL import Image


def rgb(path):
    return np.asarray(Image.open(path).convert("RGB")).astype(np.float32)


def luma(a):
    return a[..., 0] * 0.299 + a[..., 1] * 0.587 + a[..., 2] * 0.114


def measure(scan, cleared, fill, rect, others, ink_mask=None):
    """Share of the box's text ink left after the fill, from the scan and the cleared page.

    The ground is the scan in the box where nothing was filled; the ink colour the half of the
    filled pixels farthest from it. A pixel is ink-like when it lies past halfway from the ground to
    the ink (projected on the line between them). The art's own rate of ink-like pixels, read in
    a ring round the box, is taken off before and after. None when the box has too little
    contrast or fill to judge."""
    x, y, w, h = rect
    H, W = fill.shape
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x1 <= x0 or y1 <= y0:
        return None
    f = fill[y0:y1, x0:x1] > 0
    if f.sum() < 20:
        return None
    s = scan[y0:y1, x0:x1]
    c = cleared[y0:y1, x0:x1]
    if ink_mask is None:  # no reading independent of the fill: no check (as in clear)
        return None
    # The ink as the detector read it (analyze's mask file), independent of what was filled.
    k = ink_mask[y0:y1, x0:x1] > 0
    g = ~k & ~f
    if k.sum() < 20 or g.sum() < 20:
        return None
    ground = np.median(s[g], axis=0)
    ink = np.median(s[k], axis=0)
    d = ink - ground
    n2 = float((d * d).sum())
    if n2 < 30.0 ** 2:  # under 30 levels apart: no reading
        return None

    def inklike(a):
        t = ((a - ground) * d).sum(axis=-1) / n2
        return t > 0.5

    # The neighbourhood: the box and a ring a quarter of its short side wide (at least 4 px).
    # Ink-like strokes reaching the ring's outer edge (where the page did not cut it) are drawing
    # and are not counted, before or after.
    r = max(4, min(x1 - x0, y1 - y0) // 4)
    gx0, gy0, gx1, gy1 = max(0, x0 - r), max(0, y0 - r), min(W, x1 + r), min(H, y1 + r)
    open_sides = (gx0 == x0 - r, gx1 == x1 + r, gy0 == y0 - r, gy1 == y1 + r)

    def textlike(page):
        ink = inklike(page[gy0:gy1, gx0:gx1]).astype(np.uint8)
        n, labels = cv2.connectedComponents(ink, connectivity=8)
        edge = set()
        if open_sides[0]: edge |= set(np.unique(labels[:, 0]))
        if open_sides[1]: edge |= set(np.unique(labels[:, -1]))
        if open_sides[2]: edge |= set(np.unique(labels[0, :]))
        if open_sides[3]: edge |= set(np.unique(labels[-1, :]))
        edge.discard(0)
        out = ink.astype(bool)
        if edge:
            out &= ~np.isin(labels, list(edge))
        return out

    tb, ta = textlike(scan), textlike(cleared)
    inbox = np.zeros((gy1 - gy0, gx1 - gx0), bool)
    inbox[y0 - gy0:y1 - gy0, x0 - gx0:x1 - gx0] = True
    ring = ~inbox
    for (ox, oy, ow, oh) in others:
        ax0, ay0 = max(gx0, ox) - gx0, max(gy0, oy) - gy0
        ax1, ay1 = min(gx1, ox + ow) - gx0, min(gy1, oy + oh) - gy0
        if ax1 > ax0 and ay1 > ay0:
            ring[ay0:ay1, ax0:ax1] = False
    if ring.sum() < 20:
        return None
    rate = float(tb[ring].mean())
    base = rate * (x1 - x0) * (y1 - y0)
    text = float(tb[inbox].sum()) - base
    if text < 20:
        return None
    by_colour = max(0.0, float(ta[inbox].sum()) - base) / text
    # The second reading: the detector's ink pixels the fill left as they were (within 8 levels).
    # The text is left only where both readings say so (as Sources/ClearText/FillCheck.swift).
    same = np.abs(c - s).max(axis=-1) < 8
    by_mask = float((k & same).sum()) / float(k.sum())
    return min(by_colour, by_mask)


def truth_left(scan, cleared, clean, rect):
    x, y, w, h = rect
    s = scan[y:y + h, x:x + w]
    c = cleared[y:y + h, x:x + w]
    k = clean[y:y + h, x:x + w]
    t = np.abs(s - k).max(axis=-1) >= 40
    if t.sum() < 20:
        return None
    # Left: true ink the cleared page still shows as the scan did (within 20 levels). A fill that
    # replaced the ink with wrong art is a bad fill, not text left, and is not counted here.
    left = t & (np.abs(c - s).max(axis=-1) < 20)
    return float(left.sum()) / float(t.sum())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("corpus", nargs="+")
    ap.add_argument("--books", nargs="*", default=None)
    ap.add_argument("--left", type=float, default=0.25, help="truth: a box has text left when this share of its true ink remains")
    ap.add_argument("--threshold", type=float, nargs="*", default=[0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5])
    ap.add_argument("--list", action="store_true")
    a = ap.parse_args()
    rows = []
    for i, corpus in enumerate(a.corpus):
        seed = os.path.basename(os.path.normpath(corpus))
        seed = seed[5:] if seed.startswith("seed-") else seed
        book = json.load(open(a.books[i] if a.books else os.path.join(corpus, "book.json")))
        truth = json.load(open(os.path.join(corpus, "truth.json")))
        cleans = {p["image"]: p["clean"] for p in truth["pages"]}
        for p in book["pages"]:
            if not p.get("textBoxes"):
                continue
            stem = os.path.splitext(os.path.basename(p["image"]))[0]
            cleared_path = os.path.join(a.work, f"clear-{seed}", stem + ".png")
            if not os.path.exists(cleared_path):
                continue
            scan = rgb(os.path.join(corpus, p["image"]))
            cleared = rgb(cleared_path)
            clean = rgb(os.path.join(corpus, cleans[p["image"]]))
            fill = np.asarray(Image.open(os.path.join(a.work, f"masks-{seed}", stem + ".png")).convert("L"))
            ink_mask = None
            if a.books:
                mp = os.path.join(os.path.dirname(a.books[i]), "masks", stem + ".png")
                if os.path.exists(mp):
                    ink_mask = np.asarray(Image.open(mp).convert("L"))
            rects = [(b["rect"]["x"], b["rect"]["y"], b["rect"]["width"], b["rect"]["height"]) for b in p["textBoxes"]]
            for j, b in enumerate(p["textBoxes"]):
                others = rects[:j] + rects[j + 1:]
                m = measure(scan, cleared, fill, rects[j], others, ink_mask)
                t = truth_left(scan, cleared, clean, rects[j])
                rows.append((f"{seed}/{stem}", b.get("id", "?"), m, t))
    judged = [r for r in rows if r[2] is not None and r[3] is not None]
    bad = [r for r in judged if r[3] >= a.left]
    print(f"{len(rows)} boxes, {len(judged)} judged (measure and truth both readable), "
          f"{len(bad)} with ≥ {a.left:.0%} of their true ink left")
    for th in a.threshold:
        flagged = [r for r in judged if r[2] >= th]
        hit = [r for r in flagged if r[3] >= a.left]
        p = len(hit) / len(flagged) if flagged else float("nan")
        rc = len(hit) / len(bad) if bad else float("nan")
        print(f"  measure ≥ {th:.2f}: flags {len(flagged)}, of them text left {len(hit)} (precision {p:.2f}), "
              f"recall {rc:.2f}")
    if a.list:
        for r in sorted(judged, key=lambda r: -r[2])[:30]:
            print(f"    {r[0]} {r[1]}: measure {r[2]:.2f}, truth left {r[3]:.2f}")


if __name__ == "__main__":
    sys.exit(main())
