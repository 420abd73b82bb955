#!/usr/bin/env python3
"""Prototype seam-continuity scores over books kept by `bench-panoramas.py --keep DIR` (issue 17).

Each candidate score is replayed with the detector's book-relative decision: a facing pair (2,3),
(4,5)... is a panorama when its score is at least FLOOR, stands MARGIN deviations (floored at 0.05)
above the scores of its two edges against every other page of the same book, and at most one other
page scores as well. `--baseline LOG` (a `bench-panoramas.py --explain` log of the same books) adds
what the shipped detector found, and the union of the two.

Rule of the lab: choose on `generated` and `peter` only (`--tune`), then score the others once.

The measure kept as the candidate is `extrap` (see Documentation/PageAnalysis.md, "A second
continuity measure"); `plain`, `extrap2`, `extrap_lo`, `extrap4`, `extrap_fine` are the variants
tried. LAB_NO_GATE=1 drops the crossings rule; LAB_VERBOSE=1 lists every panorama and every pair
taken.

Gates of the new measure's own against blank-edged pages (LAB_RAW_SD, LAB_GATE; features in
`gate_features`) are set on a corpus of blank-edged pages where every pair taken is false:
  bench-panoramas.py --real FOLDER ... --panoramas 0 --others 12 --seed 101 --keep DIR --simulate-only
(FOLDER: vignettes and line drawings on white, text pages; see PageAnalysis.md, "A gate for blank
edges"). LAB_RAW_SD=10 is the value set there. `extrap` with that gate is now in the detector
(Sources/PageAnalysis/SeamExtrapolation.swift, OR-ed with the crossing test); the lab stays as the
reference the port is checked against (same scores to 1e-3 on the kept books of seed 1).

Usage: panorama-seam-lab.py KEPTDIR [--sources generated,peter] [--baseline LOG] [--score a,b]
                            [--grid floor:margin:rivals,...]
       panorama-seam-lab.py - --folder BOOKDIR [--folder ...] [--bin .build/release/picturebook]
       LAB_DUMP=pairs.jsonl panorama-seam-lab.py KEPTDIR ...; LAB_GATE=... panorama-seam-lab.py pairs.jsonl --replay
Needs Pillow and NumPy (.build/bench-venv/bin/python).
"""
import argparse, glob, json, os, re, sys

import numpy as np
from PIL import Image

BINS = 100


def load(path):
    im = Image.open(path).convert("RGB")
    return np.asarray(im, dtype=np.float64)


def column_profiles(a, fractions, bins=BINS, right=True):
    """Mean colour (bins x 3) of thin strips at the given distances from one edge (fractions of width)."""
    h, w, _ = a.shape
    rows = (np.arange(bins + 1) * h) // bins
    out = []
    strip = max(1, int(round(w * 0.006)))
    for d in fractions:
        x = int(round(d * w))
        x0 = w - x - strip if right else x
        x0 = max(0, min(w - strip, x0))
        col = a[:, x0:x0 + strip].mean(axis=1)
        c = np.cumsum(np.vstack([np.zeros((1, 3)), col]), axis=0)
        prof = (c[rows[1:]] - c[rows[:-1]]) / np.maximum(1, (rows[1:] - rows[:-1]))[:, None]
        out.append(prof)
    return np.stack(out)  # (len(fractions), bins, 3)


def opponent(p):
    """Luma and two opponent colours: exposure and cast act mostly per channel, so standardising
    each of these per edge removes them."""
    r, g, b = p[..., 0], p[..., 1], p[..., 2]
    return np.stack([0.299 * r + 0.587 * g + 0.114 * b, r - g, 0.5 * (r + g) - b], axis=-1)


DIST = np.array([0.004, 0.012, 0.02, 0.03, 0.04, 0.05])  # fractions of page width from the edge


def crossing_count(a, right):
    """Outline crossings at one edge, as SeamContinuity.crossings counts them: peaks of the colour
    gradient down the outer strip (width band/4, band = 3 % of the width, at least 6 px) in 200
    bins, at least max(12, half the 90th percentile). The detector judges no pair without two on
    both edges, and leaves pages without them out of the book's null."""
    h, w, _ = a.shape
    band = min(w // 2, max(6, int(w * 0.03)))
    strip = max(2, band // 4)
    bins = min(200, h)
    rows = (np.arange(bins + 1) * h) // bins
    x0 = w - strip if right else 0
    col = a[:, x0:x0 + strip].mean(axis=1)
    c = np.cumsum(np.vstack([np.zeros((1, 3)), col]), axis=0)
    prof = (c[rows[1:]] - c[rows[:-1]]) / np.maximum(1, (rows[1:] - rows[:-1]))[:, None]
    g = np.zeros(bins)
    g[1:-1] = np.sqrt(((prof[2:] - prof[:-2]) ** 2).sum(axis=1))
    thr = max(12.0, 0.5 * np.sort(g)[min(bins - 1, int(0.9 * (bins - 1)))])
    return int(sum(1 for y in range(2, bins - 2) if g[y] >= thr and g[y] >= g[y - 1] and g[y] > g[y + 1]))


def edge_features(a, right):
    prof = opponent(column_profiles(a, DIST, right=right))  # (k, bins, 3)
    h, w, _ = a.shape
    # Standardise per edge and channel over the whole band (exposure, cast).
    m = prof.mean(axis=(0, 1), keepdims=True)
    sd = np.maximum(prof.std(axis=(0, 1), keepdims=True), 4.0)
    z = (prof - m) / sd
    # Linear fit of each row and channel against distance (outward positive: distance is negative).
    x = -DIST * w / h  # in units of page height, so a gap is comparable between pages
    xm = x.mean()
    slope = ((x - xm)[:, None, None] * (z - z.mean(axis=0))).sum(axis=0) / ((x - xm) ** 2).sum()
    intercept = z.mean(axis=0) - slope * xm  # value extrapolated to the edge itself
    raw = smooth(prof[0], 2)[:, 0]  # the outer strip's luma, unstandardised
    return {"z": z, "edge": intercept, "slope": slope, "outer": z[0], "aspect": w / h, "rawsd": float(raw.std()),
            "crossings": crossing_count(a, right), **gate_features(a, prof, right)}


def gate_features(a, prof, right):
    """Candidate gates against blank-edged pages (vignettes, line drawings on white), whose faint
    shading per-edge standardisation blows up into a "profile":
      paper   share of the band's pixels (the outer 5 % of the width, where the measure looks)
              within PAPER_TOL grey levels of the page's paper tone (the brightest common tone:
              the 90th percentile of the page's luma) -- high for blank paper;
      snr     the band's luma deviation over its scan noise (the median absolute difference of
              vertically adjacent pixels, a robust noise estimate that line work barely moves);
      struct  the raw (unstandardised) luma deviation, in grey levels, of the fine and middle
              bands the measure correlates (unsmoothed minus the +-6-bin mean) averaged over the
              six profiles: the structure the score can rest on, not the wash under it."""
    h, w, _ = a.shape
    luma = 0.299 * a[..., 0] + 0.587 * a[..., 1] + 0.114 * a[..., 2]
    bw = max(2, int(round(w * DIST[-1])))
    band = luma[:, w - bw:] if right else luma[:, :bw]
    paper_tone = float(np.percentile(luma[::4, ::4], 90))
    paper = float((band >= paper_tone - PAPER_TOL).mean())
    col = band.mean(axis=1)
    noise = float(np.median(np.abs(np.diff(band, axis=0)))) + 0.5
    snr = float(col.std()) / noise
    l = prof[..., 0]  # (k, bins) luma profiles
    st = float(np.mean([(smooth(l[i][:, None], 0) - smooth(l[i][:, None], 6)).std() for i in range(len(l))]))
    return {"paper": paper, "snr": snr, "struct": st, "noise": noise}


PAPER_TOL = float(os.environ.get("LAB_PAPER_TOL", "12"))


def smooth(v, r):
    if r <= 0:
        return v
    k = np.ones(2 * r + 1) / (2 * r + 1)
    pad = np.pad(v, ((r, r), (0, 0)), mode="edge")
    return np.stack([np.convolve(pad[:, c], k, mode="valid") for c in range(v.shape[1])], axis=1)


def corr(a, b):
    a = a - a.mean(axis=0)
    b = b - b.mean(axis=0)
    va, vb = (a * a).sum(), (b * b).sum()
    if va <= 1e-9 or vb <= 1e-9:
        return 0.0
    return float((a * b).sum() / np.sqrt(va * vb))


def shifted(a, b, s):
    if s >= 0:
        return a[: len(a) - s], b[s:]
    return a[-s:], b[: len(b) + s]


GAPS = [0.0, 0.01, 0.02, 0.03, 0.04]  # the gap lost into the fold, in page widths
SHIFT = 2  # bins of 100 (the scans' vertical misalignment, up to 1.2 % of the height)
SCALES = {"extrap": (0, 2, 6), "extrap2": (0, 3), "extrap_lo": (2, 8, 25), "extrap4": (0, 2, 6, 18),
          "extrap_fine": (0, 1, 3, 9)}


def bands(v, scales):
    """Band-passed copies of a (bins x 3) profile: smoothing at each scale minus the next coarser."""
    out = []
    for i, r in enumerate(scales):
        b = smooth(v, r)
        if i + 1 < len(scales):
            b = b - smooth(v, scales[i + 1])
        else:
            b = b - b.mean(axis=0)
        out.append(b)
    return out


def prepare(F, right, scales):
    """Per gap: the edge's colour field extrapolated half the gap outward, as band-passed profiles."""
    F.setdefault("prep", {})
    key = tuple(scales)
    if key not in F["prep"]:
        F["prep"][key] = [bands(F["edge"] + F["slope"] * (g * F["aspect"] / 2), scales) for g in GAPS]
    return F["prep"][key]


def score_bands(L, R, scales):
    """(a)+(b): each page's colour field beside the edge, fitted as a line of distance per row and
    channel, extrapolated to the middle of a gap of 0-4 % of the width; the two predictions compared
    band by band (fine lines, mid shapes, wide washes), the best gap and vertical shift."""
    pl, pr = prepare(L, True, scales), prepare(R, False, scales)
    best = -1.0
    for gi in range(len(GAPS)):
        for s in range(-SHIFT, SHIFT + 1):
            cs = []
            for a, b in zip(pl[gi], pr[gi]):
                x, y = shifted(a, b, s)
                cs.append(corr(x, y))
            best = max(best, float(np.mean(cs)))
    return best


def score_plain(L, R):
    """The outer strip's standardised profile, correlated as is (low frequencies included)."""
    best = -1.0
    for s in range(-SHIFT, SHIFT + 1):
        a, b = shifted(L["outer"], R["outer"], s)
        best = max(best, corr(a, b))
    return best


SCORES = {"plain": score_plain}
for _name, _sc in SCALES.items():
    SCORES[_name] = (lambda sc: (lambda L, R: score_bands(L, R, sc)))(_sc)


def book_pages(folder):
    files = sorted(glob.glob(os.path.join(folder, "p*.jpg")))
    return files


def score_matrix(feats, score):
    """Every page's right edge against every page's left edge."""
    n = len(feats)
    return np.array([[score(feats[i]["right"], feats[j]["left"]) if i != j else np.nan for j in range(n)] for i in range(n)])


GATE = os.environ.get("LAB_NO_GATE") is None
# Experimental: least luma deviation (grey levels) of an edge's outer strip for the new measure to
# judge the pair at all; blank paper with faint shading otherwise standardises into a "profile".
RAW_SD = float(os.environ.get("LAB_RAW_SD", "0"))
# A gate of the new measure's own, "feature:min|max:value" (features of gate_features, or rawsd),
# required of both edges of a pair; e.g. LAB_GATE=paper:max:0.5. LAB_DUMP=FILE writes every
# consecutive pair's score, margin, rivals and both edges' features as JSON lines, ungated, so
# gates can be replayed offline (a gate only stops a pair being judged; the null is unchanged).
GATE_SPEC = os.environ.get("LAB_GATE")


def passes_gate(edge):
    if edge["rawsd"] < RAW_SD:
        return False
    if not GATE_SPEC:
        return True
    for part in GATE_SPEC.split(","):
        name, op, value = part.split(":")
        v = edge[name]
        if (op == "min" and v < float(value)) or (op == "max" and v > float(value)):
            return False
    return True


def decide_book(M, C, floor, margin_min, rivals_allowed, floor_sd=0.05, first=1, S=None):
    n = len(M)
    results = {}
    for i in range(first, n - 1):  # index 1 = page 2; every consecutive pair, as the bench counts them
        j = i + 1
        s = M[i, j]
        if GATE and (C[i][1] < 2 or C[j][0] < 2) or (S is not None and not (S[i][1] and S[j][0])):
            results[(i + 1, j + 1)] = dict(score=s, margin=0.0, rivals=0, spread=False)
            continue
        null = [M[i, k] for k in range(n) if k not in (i, j) and (not GATE or C[k][0] >= 2)] \
            + [M[k, j] for k in range(n) if k not in (i, j) and (not GATE or C[k][1] >= 2)]
        if len(null) < 4:
            results[(i + 1, j + 1)] = dict(score=s, margin=0.0, rivals=0, spread=False)
            continue
        null = np.array(null)
        m, sd = null.mean(), null.std()
        mg = (s - m) / max(sd, floor_sd)
        riv = int((null >= s).sum())
        results[(i + 1, j + 1)] = dict(score=s, margin=mg, rivals=riv,
                                       spread=s >= floor and mg >= margin_min and riv <= rivals_allowed)
    return results


def parse_baseline(path):
    """source -> list of books, each {pair: found} in order of the log."""
    out = {}
    for line in open(path):
        m = re.match(r"(.{28}) (found|MISSED|FALSE|other) +pages \[(\d+), (\d+)\]", line)
        if not m:
            continue
        src = m.group(1).strip().split("(")[0].strip().replace("real: ", "")
        pair = (int(m.group(3)), int(m.group(4)))
        books = out.setdefault(src, [])
        if pair == (2, 3):
            books.append({})
        books[-1][pair] = (m.group(2) in ("found", "FALSE"), m.group(2) in ("found", "MISSED"))
    return out


DUMP = open(os.environ["LAB_DUMP"], "w") if os.environ.get("LAB_DUMP") else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kept")
    ap.add_argument("--sources", default="generated,peter")
    ap.add_argument("--baseline")
    ap.add_argument("--score", default="extrap")
    ap.add_argument("--grid", default="0.3:3:1", help="floor:margin:rivals, comma-separated list")
    ap.add_argument("--folder", action="append", default=[],
                    help="instead of KEPTDIR's books: a real book folder (pages *.jpg, spreads from its book.json); "
                         "every consecutive pair is judged, and --bin's analyze gives the shipped verdicts")
    ap.add_argument("--bin", default=".build/release/picturebook")
    ap.add_argument("--replay", action="store_true",
                    help="KEPTDIR is a LAB_DUMP file: replay the decision with LAB_GATE / LAB_RAW_SD without rescoring")
    args = ap.parse_args()
    if args.replay:
        return replay(args)
    if args.folder:
        return folders(args)
    base = parse_baseline(args.baseline) if args.baseline else {}
    grid = [tuple(float(x) for x in g.split(":")) for g in args.grid.split(",")]
    for src in args.sources.split(","):
        books = sorted(glob.glob(os.path.join(args.kept, src, "book-*")))
        feats_all, truths = [], []
        for b in books:
            feats = []
            for f in book_pages(b):
                a = load(f)
                feats.append({"left": edge_features(a, False), "right": edge_features(a, True)})
            feats_all.append(feats)
            truths.append({tuple(p) for p in json.load(open(os.path.join(b, "truth.json")))["panoramas"]})
        for name in args.score.split(","):
          mats = [score_matrix(feats, SCORES[name]) for feats in feats_all]
          for floor, mm, riv in grid:
            tp = fp = pos = neg = btp = bfp = utp = ufp = 0
            for bi, (M, truth) in enumerate(zip(mats, truths)):
                C = [(f["left"]["crossings"], f["right"]["crossings"]) for f in feats_all[bi]]
                S = [(passes_gate(f["left"]), passes_gate(f["right"])) for f in feats_all[bi]]
                res = decide_book(M, C, floor, mm, int(riv), S=S)
                bb = base.get(src, [])
                bbook = bb[bi] if bi < len(bb) else {}
                for pair, r in res.items():
                    is_p = pair in truth
                    bf = bbook.get(pair, (False, None))
                    if bf[1] is not None and bf[1] != is_p:
                        print(f"warning: {src} book {bi} {pair}: baseline truth differs", file=sys.stderr)
                    pos += is_p
                    neg += not is_p
                    tp += is_p and r["spread"]
                    fp += (not is_p) and r["spread"]
                    btp += is_p and bf[0]
                    bfp += (not is_p) and bf[0]
                    utp += is_p and (bf[0] or r["spread"])
                    ufp += (not is_p) and (bf[0] or r["spread"])
                    if DUMP is not None:
                        fl, fr = feats_all[bi][pair[0] - 1]["right"], feats_all[bi][pair[1] - 1]["left"]
                        keys = ("crossings", "rawsd", "paper", "snr", "struct", "noise")
                        DUMP.write(json.dumps({"source": src, "book": bi, "pair": pair, "panorama": is_p, "score": r["score"],
                                               "margin": r["margin"], "rivals": r["rivals"], "spread": r["spread"],
                                               "baseline": bool(bf[0]), "left": {k: fl[k] for k in keys},
                                               "right": {k: fr[k] for k in keys}}, default=lambda o: o.item()) + "\n")
                    if os.environ.get("LAB_VERBOSE") and (is_p or r["spread"]):
                        print(f"  {src} b{bi} {pair} {'PANO' if is_p else 'neg '} s={r['score']:.3f} m={r['margin']:.2f} riv={r['rivals']} {'FOUND' if r['spread'] else ''} base={'found' if bf[0] else '-'}")
            print(f"{src:10} {name:11} floor {floor} margin {mm} rivals {int(riv)}: new {tp}/{pos} fp {fp}/{neg}"
                  + (f" | baseline {btp} fp {bfp} | union {utp} fp {ufp}" if base else ""), flush=True)


def replay(args):
    """Per source: the new measure, the shipped test and their union, from a dump, under a gate.
    Exact for the gate (a gate only stops a pair being judged, the null is unchanged); the decision's
    constants are those of the dump (--grid is not applied again)."""
    rows = {}
    for line in open(args.kept):
        d = json.loads(line)
        r = rows.setdefault(d["source"], dict(tp=0, fp=0, pos=0, neg=0, btp=0, bfp=0, utp=0, ufp=0, lost=[], gained=[]))
        new = d["spread"] and passes_gate(d["left"]) and passes_gate(d["right"])
        p, b = d["panorama"], d["baseline"]
        r["pos"] += p
        r["neg"] += not p
        r["tp"] += p and new
        r["fp"] += (not p) and new
        r["btp"] += p and b
        r["bfp"] += (not p) and b
        r["utp"] += p and (b or new)
        r["ufp"] += (not p) and (b or new)
        if d["spread"] and not new:
            r["lost"].append((d["book"], tuple(d["pair"]), p))
        if (not p) and new:
            r["gained"].append((d["book"], tuple(d["pair"]), round(d["margin"], 2)))
    for src, r in rows.items():
        print(f"{src:14} new {r['tp']}/{r['pos']} fp {r['fp']}/{r['neg']} | baseline {r['btp']} fp {r['bfp']} | "
              f"union {r['utp']} fp {r['ufp']} | gated off: {sum(1 for x in r['lost'] if x[2])} panoramas, "
              f"{sum(1 for x in r['lost'] if not x[2])} others | false taken {r['gained']}")


def folders(args):
    import subprocess
    grid = [tuple(float(x) for x in g.split(":")) for g in args.grid.split(",")]
    for folder in args.folder:
        files = sorted(f for f in glob.glob(os.path.join(folder, "*")) if f.lower().endswith((".jpg", ".jpeg", ".png")))
        truth = set()
        if os.path.exists(os.path.join(folder, "book.json")):
            truth = {tuple(p) for p in json.load(open(os.path.join(folder, "book.json"))).get("spreads", [])}
        # analyze leaves spreads already listed in book.json alone, so it reads a copy without them.
        import shutil, tempfile
        with tempfile.TemporaryDirectory() as tmp:
            copy = os.path.join(tmp, "book")
            shutil.copytree(folder, copy)
            if os.path.exists(os.path.join(copy, "book.json")):
                book = json.load(open(os.path.join(copy, "book.json")))
                book["spreads"] = []
                json.dump(book, open(os.path.join(copy, "book.json"), "w"))
            out = subprocess.run([args.bin, "analyze", copy, "--dry-run", "--json", "--no-masks"], capture_output=True, text=True, check=True)
        shipped = {tuple(p) for p in json.loads(out.stdout).get("detectedSpreads", [])}
        feats = []
        for f in files:
            a = load(f)
            feats.append({"left": edge_features(a, False), "right": edge_features(a, True)})
        C = [(f["left"]["crossings"], f["right"]["crossings"]) for f in feats]
        for name in args.score.split(","):
            M = score_matrix(feats, SCORES[name])
            for floor, mm, riv in grid:
                S = [(passes_gate(f["left"]), passes_gate(f["right"])) for f in feats]
                res = decide_book(M, C, floor, mm, int(riv), first=0, S=S)
                new = {p for p, r in res.items() if r["spread"]}
                union = new | shipped
                print(f"{os.path.basename(folder):20} {name} margin {mm}: truth {len(truth)} | shipped found {len(truth & shipped)} "
                      f"false {sorted(shipped - truth)} | new found {len(truth & new)} false {sorted(new - truth)} | "
                      f"union found {len(truth & union)} false {len(union - truth)}", flush=True)


if __name__ == "__main__":
    main()
