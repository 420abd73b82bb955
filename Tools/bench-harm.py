#!/usr/bin/env python3
"""How much drawing `picturebook clear` changes on real scans (issue 17: "never harm the pictures").

For every page with illustration truth, the scan and its cleared page are compared inside the
illustration boxes, leaving out the truth text boxes (grown by 4 px: the text's own ink and halo
may change). A pixel is drawing ink when it is at least 40 grey levels darker than the median of
its illustration box (the paper or wash the drawing sits on); it is changed when its grey level
moved by more than 24. The figure is changed ink / ink, per page and over the corpus.

Corpora: `ndl` (../shared/realdata/ndl-docl-dev: Pascal VOC truth, `4_illustration` boxes, text
classes 8_textline, 2_handwritten, 3_typography, 6_headline, 7_caption) and any real-corpus book
JSON given with --real (Benchmarks/RealCorpus format: `illustrations` and `text` per page; scans
found with --scans DIR/<slug>/<file>).

NDL's truth does not box the labels printed inside its drawings (a dial's hours, the names of a
machine's parts), so the figure above counts them as drawing. `--labels` (default
Benchmarks/NDLLabels/ndl-labels.json) names them, boxed by hand; a second NDL line then counts
them as text, from the same cleared pages. Marks the annotator was unsure of stay drawing.

A second figure needs no truth, and looks where the first cannot (inside the text boxes, and
beside them): for every box `clear` filled, the marks left just beside it. Within one type size
of the box (its filled components' median height, their width for a vertical box), outside it and
outside every other box, the cleared page's marks as dark as the text's ink is half-way from its
ground are counted when they are glyph-sized (0.2–1.5 type sizes) and do not run on beyond two
type sizes (that is drawing). Marks like these beside a cleared box are text the box did not take
in (ruby beside a Japanese column, a letter the detector's line stopped short of) or a drawing of
glyph-sized pieces the box cut through (footprints across a verse): either way the box made half
of something. A box counts when such marks reach 5 % of its filled pixels. A second column counts
only the marks beyond the ends of the box's lines (text a line ran on into).

Usage: bench-harm.py --bin .build/release/picturebook [--ndl DIR] [--real JSON --scans DIR ...]
         [--analyze-args "..."] [--clear-args "..."] [--keep DIR] [--labels JSON] [--list-marks]
Needs Pillow and NumPy: run it with .build/bench-venv/bin/python (Tools/bench-infill.sh makes that venv).
"""
import argparse, glob, json, os, shutil, subprocess, sys, tempfile
import xml.etree.ElementTree as ET

import numpy as np
from PIL import Image

TEXT_CLASSES = {"8_textline", "2_handwritten", "3_typography", "6_headline", "7_caption"}


def voc_truth(xml_path):
    root = ET.parse(xml_path).getroot()
    text, art = [], []
    for obj in root.iter("object"):
        name = obj.findtext("name")
        b = obj.find("bndbox")
        box = tuple(int(float(b.findtext(k))) for k in ("xmin", "ymin", "xmax", "ymax"))
        if name in TEXT_CLASSES:
            text.append(box)
        elif name == "4_illustration":
            art.append(box)
    return text, art


def grey(path):
    return np.asarray(Image.open(path).convert("L")).astype(np.int16)


def harm(scan, cleared, text, art, grow=4):
    """(changed ink pixels, ink pixels, changed pixels, pixels) inside `art` minus grown `text`."""
    h, w = scan.shape
    keep = np.zeros((h, w), bool)
    for x0, y0, x1, y1 in art:
        keep[max(0, y0):min(h, y1), max(0, x0):min(w, x1)] = True
    for x0, y0, x1, y1 in text:
        keep[max(0, y0 - grow):min(h, y1 + grow), max(0, x0 - grow):min(w, x1 + grow)] = False
    ink = np.zeros((h, w), bool)
    for x0, y0, x1, y1 in art:
        region = scan[max(0, y0):min(h, y1), max(0, x0):min(w, x1)]
        if region.size:
            ink[max(0, y0):min(h, y1), max(0, x0):min(w, x1)] |= region < np.median(region) - 40
    ink &= keep
    changed = (np.abs(scan - cleared) > 24) & keep
    return int((changed & ink).sum()), int(ink.sum()), int(changed.sum()), int(keep.sum())


MARKS_SHARE = 0.05  # marks beside a filled box, over its filled pixels, at which it counts


def marks_beside(workdir):
    """For every box `clear` filled in the book at `workdir` (book.json, scans, clear/, fill/):
    (page, box id, share on any side, share along its lines), each the marks' pixels over the box's
    filled pixels (see the module's docstring). Along its lines, only the marks beyond the ends of
    the box's lines count (past its left and right sides for horizontal text, its top and bottom
    for vertical), within the lines' band: text the line ran on into, not a neighbour across it."""
    import cv2
    book = json.load(open(os.path.join(workdir, "book.json")))
    out = []
    for p in book.get("pages", []):
        stem = os.path.splitext(p["image"])[0]
        cleared_path = os.path.join(workdir, "clear", stem + ".png")
        fill_path = os.path.join(workdir, "fill", stem + ".png")
        if not (os.path.exists(cleared_path) and os.path.exists(fill_path)):
            continue
        scan, cleared = grey(os.path.join(workdir, p["image"])), grey(cleared_path)
        filled = np.asarray(Image.open(fill_path).convert("L")) > 0
        h, w = scan.shape
        # Every box grown by 2 px (its own included: the fill's halo): marks there are not counted.
        occupied = np.zeros((h, w), bool)
        for t in p.get("textBoxes", []):
            r = t["rect"]
            occupied[max(0, r["y"] - 2):r["y"] + r["height"] + 2, max(0, r["x"] - 2):r["x"] + r["width"] + 2] = True
        for t in p.get("textBoxes", []):
            r = t["rect"]
            vertical = t.get("orientation") == "vertical"
            x0, y0, x1, y1 = max(0, r["x"]), max(0, r["y"]), min(w, r["x"] + r["width"]), min(h, r["y"] + r["height"])
            f = filled[y0:y1, x0:x1]
            if f.sum() < 20 or f.all():
                continue
            _, _, stats, _ = cv2.connectedComponentsWithStats(f.astype(np.uint8), connectivity=8)
            size = float(np.median(stats[1:, cv2.CC_STAT_WIDTH if vertical else cv2.CC_STAT_HEIGHT]))
            g = max(2, int(round(size)))
            box_scan = scan[y0:y1, x0:x1]
            ground, ink = float(np.median(box_scan[~f])), float(np.percentile(box_scan[f], 20))
            if ground - ink < 30:
                continue
            X0, Y0, X1, Y1 = max(0, x0 - 2 * g), max(0, y0 - 2 * g), min(w, x1 + 2 * g), min(h, y1 + 2 * g)
            dark = (cleared[Y0:Y1, X0:X1] < ground - 0.5 * (ground - ink)).astype(np.uint8)
            free = ~occupied[Y0:Y1, X0:X1]
            beside = np.zeros(dark.shape, bool)
            beside[max(0, y0 - g) - Y0:min(h, y1 + g) - Y0, max(0, x0 - g) - X0:min(w, x1 + g) - X0] = True
            along = np.zeros(dark.shape, bool)
            if vertical:
                along[max(0, y0 - g) - Y0:min(h, y1 + g) - Y0, x0 - X0:x1 - X0] = True
            else:
                along[y0 - Y0:y1 - Y0, max(0, x0 - g) - X0:min(w, x1 + g) - X0] = True
            beside &= free
            along &= free
            m, labels, st, _ = cv2.connectedComponentsWithStats(dark, connectivity=8)
            marks_beside_box = marks_along = 0
            for i in range(1, m):
                cx, cy, cw, ch, area = st[i]
                if cx == 0 or cy == 0 or cx + cw == dark.shape[1] or cy + ch == dark.shape[0]:
                    continue  # runs on beyond two type sizes: drawing
                if not (0.2 * size <= max(cw, ch) <= 1.5 * size):
                    continue
                comp = labels[cy:cy + ch, cx:cx + cw] == i
                if (comp & beside[cy:cy + ch, cx:cx + cw]).sum() >= 0.5 * area:
                    marks_beside_box += int(area)
                if (comp & along[cy:cy + ch, cx:cx + cw]).sum() >= 0.5 * area:
                    marks_along += int(area)
            out.append((p["image"], t["id"], marks_beside_box / float(f.sum()), marks_along / float(f.sum())))
    return out


def run_book(binary, pages, analyze_args, clear_args, workdir, labels=None):
    """pages: list of (name, scan path, text boxes, art boxes). Returns per-page rows, and the
    same rows with `labels` (page name -> boxes) counted as text, for the pages it names."""
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    for name, path, _, _ in pages:
        shutil.copy(path, os.path.join(workdir, name))
    subprocess.run([binary, "analyze", workdir, *analyze_args], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    # The pixels each fill replaced go beside the cleared pages (fill/), for labs that judge the
    # fills of a kept run (--keep) without guessing them from differences.
    subprocess.run([binary, "clear", workdir, "--fill-masks", os.path.join(workdir, "fill"), *clear_args],
                   check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows, labelled = [], []
    for name, path, text, art in pages:
        cleared = os.path.join(workdir, "clear", os.path.splitext(name)[0] + ".png")
        if not art or not os.path.exists(cleared):
            continue
        scan, out = grey(path), grey(cleared)
        rows.append((name, *harm(scan, out, text, art)))
        if labels is not None:
            labelled.append((name, *harm(scan, out, text + labels.get(os.path.splitext(name)[0], []), art)))
    return rows, labelled


def read_labels(path):
    """Page name (no extension) -> label boxes, from a hand-checked labels file."""
    data = json.load(open(path))
    return {page: [tuple(b["box"]) for b in boxes] for page, boxes in data["pages"].items()}


def report(name, rows):
    ci = sum(r[1] for r in rows); ink = sum(r[2] for r in rows)
    cp = sum(r[3] for r in rows); px = sum(r[4] for r in rows)
    worst = max(rows, key=lambda r: r[1] / max(r[2], 1)) if rows else None
    worst_text = f"{worst[0]} {100 * worst[1] / max(worst[2], 1):.1f} %" if worst else "-"
    print(f"{name:34} {len(rows):5d} {100 * ci / max(ink, 1):11.2f}% {100 * cp / max(px, 1):11.2f}% {worst_text:>24}")
    for r in rows:
        print(f"    {r[0]:30} ink changed {100 * r[1] / max(r[2], 1):6.2f} % of {r[2]} px; all {100 * r[3] / max(r[4], 1):5.2f} %")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=".build/release/picturebook")
    ap.add_argument("--ndl", default="../shared/realdata/ndl-docl-dev")
    ap.add_argument("--real", action="append", default=[], help="a Benchmarks/RealCorpus/<slug>.json (repeatable)")
    ap.add_argument("--scans", help="the corpus folder holding <slug>/<file> for --real (default: the JSON's folder)")
    ap.add_argument("--analyze-args", default="")
    ap.add_argument("--clear-args", default="")
    ap.add_argument("--keep", help="keep the cleared books here to look at")
    ap.add_argument("--labels", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Benchmarks",
                                                     "NDLLabels", "ndl-labels.json"),
                    help="hand-checked boxes of the labels inside NDL's drawings ('' for none)")
    ap.add_argument("--list-marks", action="store_true", help="list the boxes with marks beside them")
    args = ap.parse_args()
    labels = None
    if args.labels and os.path.exists(args.labels):
        try:
            labels = read_labels(args.labels)
        except (OSError, ValueError, KeyError, TypeError) as e:
            print(f"bench-harm: {args.labels}: cannot read the labels: {e}", file=sys.stderr)
            return 1

    corpora = []
    if os.path.isdir(args.ndl):
        pages = []
        for xml in sorted(glob.glob(os.path.join(args.ndl, "*.xml"))):
            jpg = xml[:-4] + ".jpg"
            text, art = voc_truth(xml)
            if os.path.exists(jpg):
                pages.append((os.path.basename(jpg), jpg, text, art))
        corpora.append(("ndl-docl-dev", pages))
    else:
        print(f"bench-harm: {args.ndl}: not found, NDL skipped", file=sys.stderr)
    for path in args.real:
        # A Benchmarks/RealCorpus (or HeldOut) book: <slug>.json beside <slug>/, files named
        # "<slug>/<name>" relative to the corpus folder.
        try:
            book = json.load(open(path))
        except (OSError, json.JSONDecodeError) as e:
            print(f"bench-harm: {path}: cannot read the truth: {e}", file=sys.stderr)
            return 1
        root = args.scans or os.path.dirname(os.path.abspath(path))
        slug = os.path.splitext(os.path.basename(path))[0]
        box = lambda r: (r["x"], r["y"], r["x"] + r["width"], r["y"] + r["height"])
        pages = []
        for p in book["pages"]:
            scan = os.path.join(root, p["file"])
            if os.path.exists(scan) and p.get("illustrations"):
                pages.append((os.path.basename(p["file"]), scan, [box(t) for t in p.get("text", [])],
                              [box(a) for a in p["illustrations"]]))
        if pages:
            corpora.append((slug, pages))
        else:
            print(f"bench-harm: {path}: no page with illustrations and a scan under {root}, skipped", file=sys.stderr)

    print(f"{'corpus':34} {'pages':>5} {'ink changed':>12} {'all changed':>12} {'worst page':>24}")
    beside = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, pages in corpora:
            work = os.path.join(args.keep or tmp, name.split()[0])
            ndl = name == "ndl-docl-dev"
            # NDL's books are Japanese: analyze is told so, as a librarian would tell it (the
            # reading check applies to Latin-script books only).
            analyze_args = args.analyze_args.split()
            if ndl and "--language" not in analyze_args:
                analyze_args += ["--language", "ja"]
            rows, labelled = run_book(args.bin, pages, analyze_args, args.clear_args.split(), work,
                                      labels if ndl else None)
            report(name, rows)
            if ndl and labels is not None:
                report(name + ", labels as text", labelled)
            beside[name] = marks_beside(work)
    print()
    print(f"{'boxes filled, marks beside them':34} {'filled':>6} {'any side ≥ 5 %':>15} {'along its lines ≥ 5 %':>22}")
    for name, rows in beside.items():
        flagged = [r for r in rows if r[2] >= MARKS_SHARE]
        print(f"{name:34} {len(rows):6d} {len(flagged):15d} {sum(r[3] >= MARKS_SHARE for r in rows):22d}")
        if args.list_marks:
            # Along its lines is a part of beside it, so every box counted along is listed here.
            for image, box, share, share_along in sorted(flagged, key=lambda r: -r[2]):
                tag = " (along its lines too)" if share_along >= MARKS_SHARE else ""
                print(f"    {image:30} {box:12} marks {100 * share:5.1f} % of its fill{tag}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
