#!/usr/bin/env python3
"""Panoramas printed across the fold: found / missed / false, per source of pictures (issue 17).

Each simulated book is a run of facing pairs. A panorama pair is one picture cut near its middle,
with a strip lost into the fold (0-2 % of the picture's width), and each half "scanned" on its own:
exposure x0.88-1.12, a colour cast of up to 8 levels a channel, a vertical shift of up to 1.2 % of
the height, a tilt of up to 0.3 degrees, JPEG quality 70-92, and no gutter shading. The other pairs
are two unrelated pages with the same treatment. `picturebook analyze --dry-run --json` reads every
book; every consecutive pair of pages that is not a panorama and is reported as one is a false
spread (pairs straddling two units count too: they are facing pages of the book as bound).

Sources of pictures, reported side by side:
  generated  the generator's illustration spreads (clean backgrounds joined), seeds 4005-4011: the
             corpus the seam test's constants were chosen on;
  real       every image in --real DIR (real illustrations: colour plates, line drawings), cut the
             same way; unrelated pages are other images of the same folder. Never tuned on.

Usage: bench-panoramas.py --bin .build/release/picturebook [--real DIR] [--books 10] [--seed 1]
                          [--panoramas 4] [--others 8] [--keep DIR [--simulate-only]]
                          [--set spread.NAME=VALUE ...]
--set passes a spread-test setting to every analyze run (`analyze --set spread.NAME=VALUE`; the
names are SpreadParameters.set's), so a variant is scored without a rebuild.
--panoramas 0 makes books of unrelated pages only: every spread reported there is false (the
corpus of blank-edged pages the seam lab's gate was set on is made that way).
--keep DIR keeps every simulated book as DIR/<source>/book-NN (its pages, and truth.json naming the
panorama pairs), so a prototype of the seam test (Tools/panorama-seam-lab.py) can replay the very
same books; --simulate-only writes them without running picturebook.
Needs Pillow and NumPy: run it with .build/bench-venv/bin/python (Tools/bench-infill.sh makes that venv).
"""
import argparse, glob, io, json, os, random, shutil, subprocess, sys, tempfile

import numpy as np
from PIL import Image


def degrade(half, rng, height):
    a = np.asarray(half).astype(np.float32)
    a = np.clip(a * rng.uniform(0.88, 1.12) + np.array([rng.uniform(-8, 8) for _ in range(3)]), 0, 255)
    half = Image.fromarray(a.astype(np.uint8))
    paper = (235, 230, 220)
    half = half.transform(half.size, Image.AFFINE, (1, 0, 0, 0, 1, int(height * rng.uniform(-0.012, 0.012))), fillcolor=paper)
    half = half.rotate(rng.uniform(-0.3, 0.3), resample=Image.BILINEAR, fillcolor=paper)
    buf = io.BytesIO()
    half.save(buf, "JPEG", quality=int(rng.uniform(70, 92)))
    buf.seek(0)
    return Image.open(buf).convert("RGB")


def panorama(picture, rng, max_gap=0.02):
    w, h = picture.size
    cut = int(w * rng.uniform(0.45, 0.55))
    gap = int(w * rng.uniform(0, max_gap))
    return degrade(picture.crop((0, 0, cut, h)), rng, h), degrade(picture.crop((cut + gap, 0, w, h)), rng, h)


def generated_sources(binary, cache):
    """Clean illustration spreads joined into pictures, and the other clean pages as singles."""
    pictures, singles = [], []
    for seed in range(4005, 4012):
        folder = os.path.join(cache, f"panorama-src-{seed}")
        if not os.path.exists(os.path.join(folder, "book.json")):
            shutil.rmtree(folder, ignore_errors=True)
            subprocess.run([binary, "generate", "--out", folder, "--pages", "24", "--seed", str(seed), "--size", "800x1000"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        book = json.load(open(os.path.join(folder, "book.json")))
        in_spread = set()
        for a, b in book.get("spreads", []):
            left = Image.open(f"{folder}/clean/page-{a:03d}.png").convert("RGB")
            right = Image.open(f"{folder}/clean/page-{b:03d}.png").convert("RGB")
            joined = Image.new("RGB", (left.width + right.width, left.height))
            joined.paste(left, (0, 0))
            joined.paste(right, (left.width, 0))
            pictures.append(joined)
            in_spread |= {a, b}
        singles += [Image.open(f"{folder}/clean/page-{i:03d}.png").convert("RGB")
                    for i in range(2, len(book["pages"]) + 1) if i not in in_spread]
    return pictures, singles


def real_sources(folder):
    files = sorted(f for f in glob.glob(os.path.join(folder, "**", "*"), recursive=True)
                   if f.lower().endswith((".jpg", ".jpeg", ".png")))
    images, signatures = [], []
    # Largest first, so of a picture given twice (a book's thumbnail beside its plate, as many
    # Gutenberg books have) the plate is kept: a copy among the "unrelated" pages would continue
    # its own panorama perfectly and count against the detector.
    for im in sorted((Image.open(f).convert("RGB") for f in files), key=lambda i: -i.width * i.height):
        if min(im.size) < 300:
            continue
        sig = np.asarray(im.convert("L").resize((24, 24), Image.BILINEAR), dtype=np.float64).ravel()
        sig = (sig - sig.mean()) / (sig.std() + 1e-6)
        aspect = im.width / im.height
        if any(abs(aspect - a) < 0.03 * aspect and float(np.dot(sig, t)) / sig.size > 0.95 for a, t in signatures):
            continue
        signatures.append((aspect, sig))
        images.append(im)
    # A real picture is both a panorama source (cut in two) and, elsewhere, an unrelated page.
    return images, images


def simulate(pictures, singles, rng, panoramas=4, others=8):
    chosen = rng.sample(pictures, min(panoramas, len(pictures)))
    pairs = [(*panorama(p, rng), True) for p in chosen]
    pool = [s for s in singles if all(s is not p for p in chosen)]
    picks = rng.sample(pool, min(2 * others, len(pool) - len(pool) % 2))
    for i in range(0, len(picks) - 1, 2):
        a, b = picks[i], picks[i + 1]
        # An unrelated page is half a picture when the source is a wide picture, so both kinds of
        # page reach the seam with art.
        if a.width > a.height * 1.2:
            a = a.crop((0, 0, a.width // 2, a.height))
        if b.width > b.height * 1.2:
            b = b.crop((b.width // 2, 0, b.width, b.height))
        pairs.append((degrade(a, rng, a.height), degrade(b, rng, b.height), False))
    rng.shuffle(pairs)
    return pairs


def write_book(pairs, workdir):
    """Pages p001.jpg (a cover) then the pairs; returns the panorama pairs and the page count."""
    shutil.rmtree(workdir, ignore_errors=True)
    os.makedirs(workdir)
    # Page 1 stands alone (a cover), so the facing pairs are (2,3), (4,5)... as in a bound book.
    Image.new("RGB", (400, 500), (240, 235, 225)).save(os.path.join(workdir, "p001.jpg"), quality=90)
    truth, n = set(), 2
    for left, right, is_pano in pairs:
        left.save(os.path.join(workdir, f"p{n:03d}.jpg"), quality=95)
        right.save(os.path.join(workdir, f"p{n + 1:03d}.jpg"), quality=95)
        if is_pano:
            truth.add((n, n + 1))
        n += 2
    pages = n - 1
    with open(os.path.join(workdir, "truth.json"), "w") as f:
        json.dump({"panoramas": sorted(list(p) for p in truth), "pages": pages}, f)
    return truth, pages


ANALYZE_SETS = []  # --set NAME=VALUE for every analyze run (spread.* tunes the spread test)


def run_book(binary, pairs, workdir, explain=None):
    truth, pages = write_book(pairs, workdir)
    sets = [arg for s in ANALYZE_SETS for arg in ("--set", s)]
    out = subprocess.run([binary, "analyze", workdir, "--dry-run", "--json", "--no-masks"] + sets,
                         check=True, capture_output=True, text=True)
    report = json.loads(out.stdout)
    found = {tuple(s) for s in report.get("detectedSpreads", [])}
    facing = pages - 2  # consecutive pairs after the cover
    if explain is not None:
        for e in report.get("spreadEvidence", []):
            pair = tuple(e["pages"])
            if pair[0] >= 2:
                explain.append({"panorama": pair in truth, "found": pair in found, **e})
    return len(truth & found), len(truth), len(found - truth), facing - len(truth)


def fmt(margin):
    return "-" if margin is None else f"{margin:.2f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bin", default=".build/release/picturebook")
    ap.add_argument("--real", action="append", default=[], help="folder of real illustrations (repeatable)")
    ap.add_argument("--books", type=int, default=10)
    ap.add_argument("--panoramas", type=int, default=4, help="panorama pairs per book")
    ap.add_argument("--others", type=int, default=8, help="pairs of unrelated pages per book")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cache", default=".build/corpus")
    ap.add_argument("--json", help="write the figures here too")
    ap.add_argument("--explain", action="store_true",
                    help="print every consecutive pair's evidence: the seam score, its margin over the book and "
                         "rivals, the profile correlation, and (a build with the colour-field measure) that "
                         "measure's score, margin, rivals and the weaker edge's grey-level deviation")
    ap.add_argument("--keep", help="keep the simulated books here (DIR/<source>/book-NN, with truth.json)")
    ap.add_argument("--simulate-only", action="store_true", help="with --keep: write the books, run nothing")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="passed to every analyze run as --set (e.g. spread.minimumMargin=2.5); repeatable")
    args = ap.parse_args()
    ANALYZE_SETS.extend(args.set)
    if args.simulate_only and not args.keep:
        ap.error("--simulate-only needs --keep")

    sources = [("generated (tuned on)", *generated_sources(args.bin, args.cache))]
    for folder in args.real:
        pics, singles = real_sources(folder)
        if len(pics) >= 6:
            sources.append((f"real: {os.path.basename(os.path.normpath(folder))}", pics, singles))
        else:
            print(f"bench-panoramas: {folder}: fewer than 6 usable images, skipped", file=sys.stderr)

    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name, pictures, singles in sources:
            rng = random.Random(args.seed)
            hit = total = false = negatives = 0
            explain = [] if args.explain else None
            slug = name.split("(")[0].strip().replace("real: ", "")
            for b in range(args.books):
                pairs = simulate(pictures, singles, rng, args.panoramas, args.others)
                workdir = os.path.join(args.keep, slug, f"book-{b:02d}") if args.keep else os.path.join(tmp, "book")
                if args.simulate_only:
                    write_book(pairs, workdir)
                    continue
                h, t, f, n = run_book(args.bin, pairs, workdir, explain)
                hit, total, false, negatives = hit + h, total + t, false + f, negatives + n
            for e in explain or []:
                kind = ("found" if e["found"] else "MISSED") if e["panorama"] else ("FALSE" if e["found"] else "other")
                margin = e.get("marginOverBook")
                print(f"{name:28} {kind:6} pages {e['pages']} seam {e['seamContinuity']:.3f}"
                      f" margin {'-' if margin is None else f'{margin:.2f}'}"
                      f" profile {e.get('profileCorrelation') or 0:.2f} rivals {e.get('rivals', '-')}"
                      + (f" field {e['extrapolation']:.3f} margin {fmt(e.get('extrapolationMargin'))}"
                         f" rivals {e.get('extrapolationRivals', '-')} edge-sd {e.get('edgeDeviation', 0):.1f}"
                         if "extrapolation" in e else ""), file=sys.stderr)
            rows.append({"source": name, "found": hit, "panoramas": total, "recall": hit / max(total, 1),
                         "false": false, "facingPairs": negatives, "falsePer40": 40 * false / max(negatives, 1)})
    if args.simulate_only:
        print(f"bench-panoramas: books written under {args.keep}")
        return
    # False spreads per 40 of the pairs that are not panoramas (a stricter rate than per 40 of all
    # facing pairs, which the target names: the panoramas cannot be false).
    print(f"{'source':28} {'found':>9} {'recall':>7} {'false':>11} {'per 40 unrelated':>17}")
    for r in rows:
        print(f"{r['source']:28} {r['found']:>4}/{r['panoramas']:<4} {r['recall']:7.3f} {r['false']:>5}/{r['facingPairs']:<5} {r['falsePer40']:17.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=2)


if __name__ == "__main__":
    main()
