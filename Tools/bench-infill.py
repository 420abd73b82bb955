#!/usr/bin/env python3
"""Scores ClearText in-fill against the clean backgrounds, beside OpenCV's cv2.inpaint.

Called by Tools/bench-infill.sh after `picturebook clear` has written, for each corpus set, the
cleared pages, the fill masks it used (the dilated ink, 255 = replaced) and per-page timings.
OpenCV (Telea and Navier-Stokes, radius 3) inpaints the same pages with the same fill masks.

Scores are over every pixel of every truth text box (R, G, B), pooled per placement style:
PSNR in dB and mean absolute error in 8-bit levels. The untouched scan is scored the same way (the
floor: what the reader would see with no ClearText at all), and every box where Picturebook's
page is further from the clean page than the scan is listed (issue 17: no box ever worse than
the untouched scan). Pixels OpenCV leaves alone are taken from
Picturebook's own decode, so the two differ only where they fill. OpenCV is given the pixels
ClearText changed (inside its fill mask), since over busy art ClearText keeps the mask's outer ring.
"""
import argparse
import json
import math
import os
import statistics
import sys
import time

import cv2
import numpy as np

STYLES = ["margin", "sky", "panel", "overArt", "lightOnDark"]


def load_rgb(path):
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        sys.exit(f"bench-infill: cannot read {path}")
    return img  # BGR; channel order does not matter for the scores


class Score:
    def __init__(self):
        self.sse = 0.0
        self.sae = 0.0
        self.n = 0

    def add(self, a, b):
        d = a.astype(np.float64) - b.astype(np.float64)
        self.sse += float((d * d).sum())
        self.sae += float(np.abs(d).sum())
        self.n += d.size

    def psnr(self):
        if self.n == 0:
            return float("nan")
        mse = self.sse / self.n
        return float("inf") if mse == 0 else 10 * math.log10(255 * 255 / mse)

    def mae(self):
        return self.sae / self.n if self.n else float("nan")


def oracle_masks(corpus, out_dir, threshold=40, slack=4):
    """The text's ink as the scan's departure from the clean page (which shares every bit of
    scan wear but the text): in-fill scored with it isolates the in-fill from ink detection."""
    os.makedirs(out_dir, exist_ok=True)
    truth = json.load(open(os.path.join(corpus, "truth.json")))
    for p in truth["pages"]:
        stem = os.path.splitext(os.path.basename(p["image"]))[0]
        scan = load_rgb(os.path.join(corpus, p["image"])).astype(np.int16)
        clean = load_rgb(os.path.join(corpus, p["clean"])).astype(np.int16)
        diff = np.abs(scan - clean).max(axis=2)
        inside = np.zeros(diff.shape, bool)
        for b in p["textBoxes"]:
            r = b["rect"]
            inside[max(0, r["y"] - slack):r["y"] + r["height"] + slack, max(0, r["x"] - slack):r["x"] + r["width"] + slack] = True
        mask = np.where((diff >= threshold) & inside, 255, 0).astype(np.uint8)
        cv2.imwrite(os.path.join(out_dir, stem + ".png"), mask)


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "oracle":
        oracle_masks(sys.argv[2], sys.argv[3])
        return
    ap = argparse.ArgumentParser()
    ap.add_argument("--mode", required=True, help="label for this run (e.g. 'truth boxes + own mask')")
    ap.add_argument("--corpora", nargs="+", required=True)
    ap.add_argument("--cleared", nargs="+", required=True, help="picturebook clear --out, one per corpus")
    ap.add_argument("--masks", nargs="+", required=True, help="picturebook clear --fill-masks, one per corpus")
    ap.add_argument("--stats", required=True, help="picturebook clear --stats (JSON lines)")
    ap.add_argument("--books", nargs="+", help="the books `clear` read, one per corpus (whole-pipeline mode): "
                    "their detected boxes tell a truth box not found from one left as scanned")
    ap.add_argument("--json", help="write the numbers here too")
    a = ap.parse_args()
    if a.books and len(a.books) != len(a.corpora):
        ap.error("--books needs one book per corpus")

    methods = ["picturebook", "telea", "ns"]
    scores = {m: {s: Score() for s in STYLES + ["all"]} for m in methods}
    cv_times = {"telea": [], "ns": []}
    boxes_per_style = {s: 0 for s in STYLES}
    untouched = {s: Score() for s in STYLES + ["all"]}
    worse = []  # (corpus page, box id, style, picturebook dB, scan dB)
    pages = 0
    # The picture outside the text: every pixel farther than 4 px from a truth text box should
    # come out as scanned. What changed there is harm no in-box score sees (a box the detector
    # put on grass or a striped shirt, filled away); text-free pages count too.
    art_changed, art_pixels, art_pages = 0, 0, []
    # Where the squared error inside the truth boxes lies, by what happened to each box: cleared
    # (its pixels changed), left as scanned (a detected box covers it, but `clear` declined or
    # flagged it), or not found (no detected box covers half of it; only with --books). The mixed
    # figure is one pooled sum of squares, so a few boxes left as scanned over art can decide it.
    outcome = {k: [Score(), 0] for k in ("cleared", "left as scanned", "not found")}
    for index, (corpus, cleared_dir, mask_dir) in enumerate(zip(a.corpora, a.cleared, a.masks)):
        truth = json.load(open(os.path.join(corpus, "truth.json")))
        detected = {}
        if a.books:
            for bp in json.load(open(os.path.join(a.books[index], "book.json")))["pages"]:
                detected[os.path.basename(bp["image"])] = [t["rect"] for t in bp.get("textBoxes", [])]
        for p in truth["pages"]:
            stem = os.path.splitext(os.path.basename(p["image"]))[0]
            if not os.path.exists(os.path.join(cleared_dir, stem + ".png")):
                continue
            ours = load_rgb(os.path.join(cleared_dir, stem + ".png"))
            scan = load_rgb(os.path.join(corpus, p["image"]))
            art = np.ones(scan.shape[:2], bool)
            for b in p["textBoxes"]:
                r = b["rect"]
                art[max(0, r["y"] - 4):r["y"] + r["height"] + 4, max(0, r["x"] - 4):r["x"] + r["width"] + 4] = False
            changed = int(((np.abs(ours.astype(np.int16) - scan.astype(np.int16)).max(axis=2) > 24) & art).sum())
            art_changed += changed
            art_pixels += int(art.sum())
            if changed:
                art_pages.append((changed, f"{os.path.basename(os.path.normpath(corpus))}/{stem}"))
            if not p["textBoxes"]:
                continue
            pages += 1
            clean = load_rgb(os.path.join(corpus, p["clean"]))
            mask = cv2.imread(os.path.join(mask_dir, stem + ".png"), cv2.IMREAD_GRAYSCALE)
            # Over busy art ClearText keeps the outer ring of its fill mask as decoded (a narrower
            # dilation there): OpenCV gets the pixels ClearText actually changed, so both fill the
            # same hole. (A filled pixel that happens to equal the scan is left to OpenCV too,
            # which can only favour OpenCV; the decodes agree bit for bit outside the mask.)
            mask = np.where((mask > 0) & (ours != scan).any(axis=2), 255, 0).astype(np.uint8)
            results = {"picturebook": ours}
            for name, flag in (("telea", cv2.INPAINT_TELEA), ("ns", cv2.INPAINT_NS)):
                t0 = time.perf_counter()
                filled = cv2.inpaint(scan, mask, 3, flag)
                cv_times[name].append((time.perf_counter() - t0) * 1000)
                # Outside the mask: Picturebook's decode, so only the fill is compared.
                results[name] = np.where(mask[..., None] > 0, filled, ours)
            for b in p["textBoxes"]:
                r = b["rect"]
                x, y, w, h = r["x"], r["y"], r["width"], r["height"]
                style = b["placement"]
                boxes_per_style[style] += 1
                ref = clean[y:y + h, x:x + w]
                for m in methods:
                    region = results[m][y:y + h, x:x + w]
                    scores[m][style].add(region, ref)
                    scores[m]["all"].add(region, ref)
                before = Score()
                before.add(scan[y:y + h, x:x + w], ref)
                untouched[style].add(scan[y:y + h, x:x + w], ref)
                untouched["all"].add(scan[y:y + h, x:x + w], ref)
                after = Score()
                after.add(ours[y:y + h, x:x + w], ref)
                moved = (np.abs(ours[y:y + h, x:x + w].astype(np.int16) - scan[y:y + h, x:x + w].astype(np.int16)).max(axis=2) > 24).mean()
                kind = "cleared" if moved > 0.002 else "left as scanned"
                if kind != "cleared" and a.books:
                    cover = np.zeros((h, w), bool)
                    for d in detected.get(os.path.basename(p["image"]), []):
                        x0, y0 = max(0, d["x"] - x), max(0, d["y"] - y)
                        x1, y1 = min(w, d["x"] + d["width"] - x), min(h, d["y"] + d["height"] - y)
                        if x1 > x0 and y1 > y0:
                            cover[y0:y1, x0:x1] = True
                    if cover.mean() < 0.5:
                        kind = "not found"
                outcome[kind][0].add(ours[y:y + h, x:x + w], ref)
                outcome[kind][1] += 1
                # Worse by more than rounding: the two sums of squares compared directly.
                if after.sse > before.sse * 1.0001 + 1:
                    worse.append((f"{os.path.basename(os.path.normpath(corpus))}/{stem}", b.get("id", "?"), style,
                                  after.psnr(), before.psnr()))

    stats = [json.loads(l) for l in open(a.stats) if l.strip()]
    ours_ms = [s["infillMilliseconds"] for s in stats if s["boxes"] > 0]
    mask_ms = [s["maskMilliseconds"] for s in stats if s["boxes"] > 0]

    print(f"\n== {a.mode}: {pages} pages with text, boxes per style "
          + ", ".join(f"{s} {boxes_per_style[s]}" for s in STYLES))
    print(f"{'style':<12}" + "".join(f"{m + ' dB':>16}{'MAE':>7}" for m in methods) + "   vs Telea"
          + f"{'scan dB':>12}")
    for s in STYLES + ["all"]:
        row = f"{('mixed (all)' if s == 'all' else s):<12}"
        for m in methods:
            sc = scores[m][s]
            row += f"{sc.psnr():>16.2f}{sc.mae():>7.2f}"
        delta = scores["picturebook"][s].psnr() - scores["telea"][s].psnr()
        row += f"   {delta:+.2f} dB"
        row += f"{untouched[s].psnr():>12.2f}"
        print(row)
    total = sum(boxes_per_style.values())
    all_sse = sum(sc.sse for sc, _ in outcome.values()) or 1
    print("squared error in the truth boxes by what became of each box: " + "; ".join(
        f"{k} {n} boxes, {sc.psnr():.2f} dB, {100 * sc.sse / all_sse:.1f} % of it"
        for k, (sc, n) in outcome.items() if n))
    print(f"boxes worse than the untouched scan: {len(worse)} of {total}")
    for page, box, style, ours_db, scan_db in sorted(worse, key=lambda w: w[3] - w[4])[:10]:
        print(f"  {page} {box} ({style}): {ours_db:.2f} dB, scan {scan_db:.2f} dB")
    print(f"picture changed outside the text (> 24 levels, beyond 4 px of a truth box): "
          f"{100 * art_changed / max(1, art_pixels):.3f} % of {art_pixels} px, on {len(art_pages)} pages")
    for changed, page in sorted(art_pages, reverse=True)[:5]:
        print(f"  {page}: {changed} px")
    med = statistics.median(ours_ms) if ours_ms else float("nan")
    t_med = statistics.median(cv_times["telea"]) if cv_times["telea"] else float("nan")
    n_med = statistics.median(cv_times["ns"]) if cv_times["ns"] else float("nan")
    print(f"in-fill time per page (median of {len(ours_ms)} pages with text): picturebook {med:.1f} ms "
          f"(max {max(ours_ms):.1f}); OpenCV Telea {t_med:.1f} ms, NS {n_med:.1f} ms; "
          f"Telea/picturebook = {t_med / med:.2f}×, NS/picturebook = {n_med / med:.2f}×")
    if mask_ms:
        print(f"own mask estimate (not part of in-fill time): median {statistics.median(mask_ms):.1f} ms/page")
    print(f"OpenCV {cv2.__version__}")
    if a.json:
        out = {
            "mode": a.mode,
            "pages": pages,
            "styles": {s: {m: {"psnr": scores[m][s].psnr(), "mae": scores[m][s].mae()} for m in methods} for s in STYLES + ["all"]},
            "scan": {s: untouched[s].psnr() for s in STYLES + ["all"]},
            "boxes": total,
            "byOutcome": {k: {"boxes": n, "psnr": sc.psnr(), "shareOfSquaredError": sc.sse / all_sse} for k, (sc, n) in outcome.items()},
            "worseThanScan": [{"page": w[0], "box": w[1], "style": w[2], "psnr": w[3], "scanPsnr": w[4]} for w in worse],
            "pictureChangedOutsideText": {"pixels": art_changed, "of": art_pixels, "pages": len(art_pages)},
            "milliseconds": {"picturebook": med, "telea": t_med, "ns": n_med},
        }
        json.dump(out, open(a.json, "w"), indent=1)


if __name__ == "__main__":
    main()
