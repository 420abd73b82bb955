#!/usr/bin/env python3
"""OCR benchmark: `picturebook ocr` against whole-page `tesseract`, in one run.

Usage: Tools/bench-ocr.py BIN [--books Books] [--real ../shared/realdata/huck-finn-1884/images]
                              [--truth Benchmarks/OCR/huck-finn-1884] [--json OUT]

Character error rate (CER) = Levenshtein distance / reference length, summed over a book.

Sample books (Books/*): their text is known. Each book is copied with the printed-language text
of every box removed, `picturebook ocr` reads it back box by box, and each box's text is scored
against the original. The baseline runs `tesseract PAGE stdout` on the whole scan with the book's
printed languages and is scored against the page's truth boxes concatenated in reading order.

Real scans: the pages that have a transcription in --truth. `picturebook analyze` finds the boxes
(nothing hand-placed), `picturebook ocr` reads them, and the boxes' text in reading order is
scored against the transcription; the baseline is whole-page tesseract on the same scan.

Both sides are normalised alike before scoring (Tesseract's line layout joined the way
`picturebook ocr` joins it, hyphens at line ends re-joined, typographic quotes made ASCII, spaces
before punctuation and around quotes removed, dot leaders collapsed), so layout conventions never
count as errors — only the characters read.

Time per page: `picturebook ocr --jobs 1` reports each page's time (decode + every box); the
baseline is timed per page with OMP_THREAD_LIMIT=1. Both on one core.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

SHOW_ERRORS = False
MODELS = {"en": "eng", "ar": "ara", "fr": "fra", "es": "spa", "zh-Hans": "chi_sim", "ja": "jpn"}


def levenshtein(a, b):
    if len(a) < len(b):
        a, b = b, a
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        append = current.append
        for j, cb in enumerate(b, 1):
            append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def tidy(raw):
    """Tesseract's line layout as book text, the way OCREngine.tidy does it."""
    paragraphs, current = [], ""
    for line in raw.split("\n"):
        clean = " ".join(line.split())
        if not clean:
            if current:
                paragraphs.append(current)
            current = ""
            continue
        if not current:
            current = clean
        elif len(current) >= 2 and current.endswith("-") and current[-2].isalpha():
            current = current[:-1] + clean if clean[0].islower() else current + clean
        else:
            current += " " + clean
    if current:
        paragraphs.append(current)
    return "\n".join(paragraphs)


def normalise(s):
    s = s.replace("\u201c", '"').replace("\u201d", '"').replace("\u201e", '"').replace("\u2018", "'").replace("\u2019", "'")
    s = s.replace("\ufb01", "fi").replace("\ufb02", "fl")
    s = re.sub(r"[.\u2026](?:\s*[.\u2026]){2,}", " ... ", s)
    s = " ".join(s.split())
    s = re.sub(r"\s+([;:!?,.])", r"\1", s)
    s = re.sub(r'\s*"\s*', '"', s)
    return s.strip()


def cer_parts(hypothesis, reference):
    h, r = normalise(hypothesis), normalise(reference)
    return levenshtein(h, r), len(r)


def run(cmd, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


def whole_page(image, languages):
    env = dict(os.environ, OMP_THREAD_LIMIT="1")
    start = time.perf_counter()
    p = run(["tesseract", image, "stdout", "-l", "+".join(languages)], env=env)
    return tidy(p.stdout), (time.perf_counter() - start) * 1000


def reading_order(boxes):
    indexed = list(enumerate(boxes))
    indexed.sort(key=lambda ib: (0, ib[1]["order"], ib[0]) if "order" in ib[1] else (1, 0, ib[0]))
    return [b for _, b in indexed]


def ocr_book(binary, folder):
    p = run([binary, "ocr", folder, "--json", "--jobs", "1"])
    if p.returncode not in (0, 1):
        sys.exit(f"bench-ocr: picturebook ocr failed on {folder}:\n{p.stderr}")
    return json.loads(p.stdout)


def sample_books(binary, books_dir, scratch):
    rows = []
    for name in sorted(os.listdir(books_dir)):
        src = os.path.join(books_dir, name)
        if not os.path.isfile(os.path.join(src, "book.json")):
            continue
        book = json.load(open(os.path.join(src, "book.json")))
        dst = os.path.join(scratch, "books", name)
        os.makedirs(dst)
        for f in os.listdir(src):
            if f.lower().endswith((".jpg", ".jpeg", ".png")):
                os.symlink(os.path.abspath(os.path.join(src, f)), os.path.join(dst, f))
        truth = {}
        for page in book["pages"]:
            for box in page.get("textBoxes", []):
                lang = box.get("language", book["languages"][0])
                text = box.get("text", {}).pop(lang, None)
                box.pop("textSources", None)
                if text:
                    truth[(page["image"], box["id"])] = (lang, text)
        json.dump(book, open(os.path.join(dst, "book.json"), "w"), ensure_ascii=False, indent=2)
        report = ocr_book(binary, dst)
        read = {(r["image"], r["box"]): r["text"] for r in report["results"]}
        per_lang = {}
        for (image, box), (lang, text) in truth.items():
            if lang not in MODELS:
                per_lang.setdefault(lang, [0, 0, 0, 0])[3] += 1
                continue
            d, n = cer_parts(read.get((image, box), ""), text)
            if SHOW_ERRORS and d:
                print(f"  {name} {image} {box} [{lang}] {d}/{n}: {text!r} -> {read.get((image, box), '')!r}", file=sys.stderr)
            acc = per_lang.setdefault(lang, [0, 0, 0, 0])
            acc[0] += d
            acc[1] += n
            acc[2] += 1
        # Baseline: whole pages with every printed language that has a model.
        langs = sorted({MODELS[l] for (l, _) in truth.values() if l in MODELS})
        base_d = base_n = 0
        base_ms = []
        for page in book["pages"]:
            parts = [b.get("text", {}) for b in reading_order(page.get("textBoxes", []))]
            ref = " ".join(truth[(page["image"], b["id"])][1] for b in reading_order(page.get("textBoxes", []))
                           if (page["image"], b["id"]) in truth and truth[(page["image"], b["id"])][0] in MODELS)
            if not ref:
                continue
            text, ms = whole_page(os.path.join(src, page["image"]), langs)
            d, n = cer_parts(text, ref)
            base_d += d
            base_n += n
            base_ms.append(ms)
        ours_ms = [t["milliseconds"] for t in report["pageTimings"]]
        rows.append({
            "set": name, "languages": {l: {"cer": (a[0] / a[1] if a[1] else None), "boxes": a[2], "unread": a[3]} for l, a in per_lang.items()},
            "cer": sum(a[0] for a in per_lang.values()) / max(1, sum(a[1] for a in per_lang.values())),
            "baseline_cer": base_d / max(1, base_n),
            "pages": len(ours_ms), "ms_per_page": sum(ours_ms) / max(1, len(ours_ms)), "max_ms": max(ours_ms, default=0),
            "baseline_ms_per_page": sum(base_ms) / max(1, len(base_ms)),
        })
    return rows


def real_scans(binary, images_dir, truth_dir, scratch):
    rows = []
    pages = sorted(f[:-4] for f in os.listdir(truth_dir) if f.endswith(".txt"))
    dst = os.path.join(scratch, "real")
    os.makedirs(dst)
    for stem in pages:
        shutil.copy(os.path.join(images_dir, stem + ".jpg"), os.path.join(dst, stem + ".jpg"))
    p = run([binary, "analyze", dst])
    if p.returncode != 0:
        sys.exit(f"bench-ocr: picturebook analyze failed:\n{p.stderr}")
    report = ocr_book(binary, dst)
    book = json.load(open(os.path.join(dst, "book.json")))
    timing = {t["image"]: t["milliseconds"] for t in report["pageTimings"]}
    for page in book["pages"]:
        stem = page["image"][:-4]
        truth = open(os.path.join(truth_dir, stem + ".txt")).read()
        ours = " ".join(b.get("text", {}).get("en", "") for b in reading_order(page.get("textBoxes", [])))
        d, n = cer_parts(ours, truth)
        text, ms = whole_page(os.path.join(dst, page["image"]), ["eng"])
        bd, bn = cer_parts(text, truth)
        rows.append({"set": "huck-finn " + stem, "cer": d / n, "baseline_cer": bd / bn, "boxes": len(page.get("textBoxes", [])),
                     "pages": 1, "ms_per_page": timing.get(page["image"], 0), "baseline_ms_per_page": ms})
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--books", default="Books")
    ap.add_argument("--real", default="../shared/realdata/huck-finn-1884/images")
    ap.add_argument("--truth", default="Benchmarks/OCR/huck-finn-1884")
    ap.add_argument("--json")
    ap.add_argument("--show-errors", action="store_true", help="print every box read with errors (stderr)")
    a = ap.parse_args()
    global SHOW_ERRORS
    SHOW_ERRORS = a.show_errors
    scratch = tempfile.mkdtemp(prefix="pb-bench-ocr-")
    try:
        rows = sample_books(a.binary, a.books, scratch)
        if os.path.isdir(a.real):
            rows += real_scans(a.binary, a.real, a.truth, scratch)
        else:
            print(f"bench-ocr: {a.real} not found; real scans skipped", file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    print(f"{'set':<24} {'CER ocr':>8} {'CER tess':>9} {'ms/page ocr':>12} {'ms/page tess':>13}  notes")
    for r in rows:
        notes = ""
        if "languages" in r:
            notes = ", ".join(
                f"{l}: {v['cer'] * 100:.2f}% of {v['boxes']} boxes" if v["cer"] is not None else f"{l}: {v['unread']} boxes without a model"
                for l, v in sorted(r["languages"].items()))
        else:
            notes = f"{r['boxes']} detected boxes"
        print(f"{r['set']:<24} {r['cer'] * 100:7.2f}% {r['baseline_cer'] * 100:8.2f}% {r['ms_per_page']:12.0f} {r['baseline_ms_per_page']:13.0f}  {notes}")
    if a.json:
        json.dump(rows, open(a.json, "w"), indent=2)


if __name__ == "__main__":
    main()
