#!/usr/bin/env python3
"""Per-page diagnosis of a PageAnalysis run against the generator's truth (issue 5 scoring rules).

Lists every missed truth block (with how much of it the detections cover) and every false
detection (with how much of it lies on truth text), so a change to the detector can be judged
page by page rather than only by the totals bench-analysis.py prints.

Usage: analysis-diag.py CORPUS_DIR [CORPUS_DIR ...] [--analysis NAME] [--all]
  NAME is the analysis file inside each corpus dir (default analysis.json);
  --all also lists the blocks that were found and the detections that were correct.
"""
import argparse, importlib.util, json, math, os

spec = importlib.util.spec_from_file_location("bench", os.path.join(os.path.dirname(__file__), "bench-analysis.py"))
bench = importlib.util.module_from_spec(spec)
spec.loader.exec_module(bench)
union_area, xyxy, script_of = bench.union_area, bench.xyxy, bench.script_of


def fmt(r):
    return f"({r[0]},{r[1]} {r[2] - r[0]}x{r[3] - r[1]})"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpora", nargs="+")
    ap.add_argument("--analysis", default="analysis.json")
    ap.add_argument("--all", action="store_true")
    a = ap.parse_args()
    misses = falses = 0
    for corpus in a.corpora:
        truth = json.load(open(os.path.join(corpus, "truth.json")))
        report = {p["image"]: p for p in json.load(open(os.path.join(corpus, a.analysis)))["pages"]}
        for page in truth["pages"]:
            pr = report.get(page["image"], {"detected": []})
            dets = [xyxy(d["rect"]) for d in pr["detected"]]
            sigma = page["degradation"].get("blurSigma", 0)
            reach = math.ceil(3 * sigma) if sigma > 0 else 0
            body = [b for b in page["textBoxes"] if b["role"] != "pageNumber"]
            num_r = [xyxy(b["rect"], reach) for b in page["textBoxes"] if b["role"] == "pageNumber"]
            body_r = [xyxy(b["rect"], reach) for b in body]
            out = []
            for b in body:
                t = xyxy(b["rect"])
                area = (t[2] - t[0]) * (t[3] - t[1])
                cov = union_area(dets, clip=t) / area
                if cov < 0.8 or a.all:
                    tag = "MISS " if cov < 0.8 else "found"
                    misses += cov < 0.8
                    out.append(f"  {tag} {b['placement']:<11} {script_of(b['language']):<9} {b['orientation'][:4]} "
                               f"{len(b['lines'])} lines fs {b['fontSize']:.0f} ink {b['inkColor']} {fmt(t)} covered {cov:.2f}")
            for d, det in zip(dets, pr["detected"]):
                area = (d[2] - d[0]) * (d[3] - d[1])
                if area <= 0:
                    continue
                if num_r and union_area(num_r, clip=d) >= 0.7 * area:
                    continue
                on = union_area(body_r, clip=d) / area
                if on < 0.7 or a.all:
                    tag = "FALSE" if on < 0.7 else "ok   "
                    falses += on < 0.7
                    out.append(f"  {tag} det {det['orientation'][:4]} {det['polarity']:<11} conf {det['confidence']:.2f} "
                               f"{fmt(d)} on text {on:.2f}")
            if out:
                ill = " (illustration only)" if page["illustrationOnly"] else ""
                print(f"{os.path.basename(corpus)} {page['image']}{ill}")
                print("\n".join(out))
    print(f"\n{misses} missed truth blocks, {falses} false detections")


if __name__ == "__main__":
    main()
