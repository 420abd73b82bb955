#!/usr/bin/env python3
"""Scores text-block detections against the generator's truth.json (called by bench-analysis.sh).

Matching rules (issue 5):
  * a truth block is found when detected boxes together cover >= 80% of its area;
  * a detection is correct when >= 70% of its area lies on truth text (truth boxes grown by the
    page's blur reach, since the truth rect is the ink before scan blur);
  * page numbers count neither way: they are not truth to find, and a detection lying >= 70% on
    a page number is ignored.

Usage: bench-analysis.py CORPUS_DIR [CORPUS_DIR ...] --ours analysis.json ... [--tesseract TSV_DIR ...]
Prints one table per detector (overall, per placement style, per script) and the timing summary.
"""
import argparse, json, math, os, statistics, sys


def union_area(rects, clip=None):
    """Exact area of the union of (x0, y0, x1, y1) rects, optionally clipped to one rect."""
    if clip is not None:
        cx0, cy0, cx1, cy1 = clip
        rects = [(max(x0, cx0), max(y0, cy0), min(x1, cx1), min(y1, cy1)) for x0, y0, x1, y1 in rects]
    rects = [r for r in rects if r[2] > r[0] and r[3] > r[1]]
    if not rects:
        return 0
    xs = sorted({r[0] for r in rects} | {r[2] for r in rects})
    area = 0
    for a, b in zip(xs, xs[1:]):
        spans = sorted((r[1], r[3]) for r in rects if r[0] <= a and r[2] >= b)
        covered, cur_lo, cur_hi = 0, None, None
        for lo, hi in spans:
            if cur_hi is None or lo > cur_hi:
                if cur_hi is not None:
                    covered += cur_hi - cur_lo
                cur_lo, cur_hi = lo, hi
            else:
                cur_hi = max(cur_hi, hi)
        if cur_hi is not None:
            covered += cur_hi - cur_lo
        area += covered * (b - a)
    return area


def xyxy(r, grow=0):
    return (r["x"] - grow, r["y"] - grow, r["x"] + r["width"] + grow, r["y"] + r["height"] + grow)


def script_of(lang):
    return {"en": "Latin", "es": "Latin", "fr": "Latin", "ar": "Arabic", "mn-Mong": "Mongolian",
            "zh-Hans": "Chinese", "zh-Hant": "Chinese", "ja": "Japanese"}.get(lang, lang)


class Tally:
    def __init__(self):
        self.truth = 0
        self.found = 0
        self.correct = 0   # detections on this category's truth
        self.dets = 0

    def row(self):
        r = self.found / self.truth if self.truth else float("nan")
        p = self.correct / self.dets if self.dets else float("nan")
        f = 2 * p * r / (p + r) if self.truth and self.dets and p + r > 0 else float("nan")
        return p, r, f


def score(pages, detections):
    """pages: list of PageTruth dicts; detections: {image path: [rect dicts]}."""
    overall = Tally()
    by_style, by_script = {}, {}
    false_on_illustration, illustration_pages, false_total = 0, 0, 0
    for page in pages:
        dets = [xyxy(d) for d in detections.get(page["_key"], [])]
        sigma = page["degradation"].get("blurSigma", 0)
        reach = math.ceil(3 * sigma) if sigma > 0 else 0
        body = [b for b in page["textBoxes"] if b["role"] != "pageNumber"]
        numbers = [b for b in page["textBoxes"] if b["role"] == "pageNumber"]
        body_r = [xyxy(b["rect"], reach) for b in body]
        num_r = [xyxy(b["rect"], reach) for b in numbers]
        for b in body:
            t = xyxy(b["rect"])
            area = (t[2] - t[0]) * (t[3] - t[1])
            got = union_area(dets, clip=t) >= 0.8 * area
            for tally in (overall, by_style.setdefault(b["placement"], Tally()), by_script.setdefault(script_of(b["language"]), Tally())):
                tally.truth += 1
                tally.found += got
        if page["illustrationOnly"]:
            illustration_pages += 1
        for d in dets:
            area = (d[2] - d[0]) * (d[3] - d[1])
            if area <= 0:
                continue
            if num_r and union_area(num_r, clip=d) >= 0.7 * area:
                continue  # neutral: a page number
            ok = union_area(body_r, clip=d) >= 0.7 * area
            overall.dets += 1
            overall.correct += ok
            # Attribute the detection to the truth block it overlaps most (for per-style precision).
            best, best_a = None, 0
            for b, r in zip(body, body_r):
                a = union_area([r], clip=d)
                if a > best_a:
                    best, best_a = b, a
            if best is not None:
                for tally in (by_style.setdefault(best["placement"], Tally()), by_script.setdefault(script_of(best["language"]), Tally())):
                    tally.dets += 1
                    tally.correct += ok
            if not ok:
                false_total += 1
                if page["illustrationOnly"]:
                    false_on_illustration += 1
    return overall, by_style, by_script, false_on_illustration, illustration_pages, false_total


def tesseract_boxes(tsv_path, level=2):
    """Boxes of a `tesseract --psm 3 tsv` file at `level` (2 blocks, 3 paragraphs, 4 lines) that
    hold at least one word."""
    keys = ("block_num", "par_num", "line_num")[:level - 1]
    boxes, has_words = {}, set()
    with open(tsv_path, encoding="utf-8", errors="replace") as f:
        header = f.readline().rstrip("\n").split("\t")
        idx = {k: i for i, k in enumerate(header)}
        for line in f:
            c = line.rstrip("\n").split("\t")
            if len(c) < len(header):
                c += [""] * (len(header) - len(c))
            row_level, key = int(c[idx["level"]]), tuple(int(c[idx[k]]) for k in keys)
            if row_level == level:
                boxes[key] = {"x": int(c[idx["left"]]), "y": int(c[idx["top"]]),
                              "width": int(c[idx["width"]]), "height": int(c[idx["height"]])}
            elif row_level == 5 and c[idx["text"]].strip():
                has_words.add(key)
    return [r for k, r in boxes.items() if k in has_words]


def tesseract_blocks(tsv_path):
    """Level-2 (block) boxes that hold at least one word."""
    return tesseract_boxes(tsv_path, 2)


def print_table(name, result):
    overall, by_style, by_script, fi, ip, ft = result
    p, r, f = overall.row()
    print(f"\n{name}: precision {p:.3f}  recall {r:.3f}  F1 {f:.3f}   "
          f"({overall.found}/{overall.truth} truth blocks found, {overall.correct}/{overall.dets} detections correct)")
    print(f"  false detections: {ft} in all; {fi} on {ip} illustration-only pages = {fi / ip if ip else 0:.3f} per page")
    for title, table in (("placement style", by_style), ("script", by_script)):
        print(f"  {title:<16} {'truth':>5} {'recall':>7} {'precision':>9} {'F1':>6}")
        for k in sorted(table):
            p, r, f = table[k].row()
            print(f"  {k:<16} {table[k].truth:>5} {r:>7.3f} {p:>9.3f} {f:>6.3f}")
    return overall.row()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--ours", nargs="+", required=True, help="analyze --json output, one per corpus")
    ap.add_argument("--tesseract", nargs="*", default=[], help="dirs of Tesseract tsv files, one per corpus")
    ap.add_argument("--tesseract-times", nargs="*", default=[], help="files of per-page seconds, one per corpus")
    a = ap.parse_args()

    pages, ours, tess, our_ms, tess_ms = [], {}, {}, [], []
    for i, corpus in enumerate(a.corpora):
        truth = json.load(open(os.path.join(corpus, "truth.json")))
        for p in truth["pages"]:
            p["_key"] = os.path.join(corpus, p["image"])
            pages.append(p)
        report = json.load(open(a.ours[i]))
        for pr in report["pages"]:
            ours[os.path.join(corpus, pr["image"])] = [d["rect"] for d in pr["detected"]]
            our_ms.append(pr["milliseconds"])
        if a.tesseract:
            for p in truth["pages"]:
                tsv = os.path.join(a.tesseract[i], os.path.splitext(os.path.basename(p["image"]))[0] + ".tsv")
                if os.path.exists(tsv):
                    tess[p["_key"]] = tesseract_blocks(tsv)
        if a.tesseract_times:
            tess_ms += [float(x) * 1000 for x in open(a.tesseract_times[i]).read().split()]

    print(f"corpus: {len(pages)} pages from {len(a.corpora)} sets, "
          f"{sum(1 for p in pages for b in p['textBoxes'] if b['role'] != 'pageNumber')} body text blocks")
    p, r, f = print_table("Picturebook PageAnalysis", score(pages, ours))
    ours_median = statistics.median(our_ms)
    print(f"  speed: median {ours_median:.1f} ms/page analysis (release, decode excluded), max {max(our_ms):.1f} ms")
    if tess:
        tp = [p for p in pages if p["_key"] in tess]
        _, _, tf = print_table(f"Tesseract --psm 3 (level-2 blocks with words, {len(tp)} pages)", score(tp, tess))
        if tess_ms:
            tm = statistics.median(tess_ms)
            print(f"  speed: median {tm:.0f} ms/page (whole tesseract run)")
            print(f"\nsummary: F1 {f:.3f} vs Tesseract {tf:.3f}; median {ours_median:.1f} ms vs {tm:.0f} ms "
                  f"= {tm / ours_median:.0f}x faster")


if __name__ == "__main__":
    main()
