#!/usr/bin/env python3
"""Scores three text detectors on three corpora side by side (issue 17: "measure on what you did
not tune on"); called by Tools/bench-unseen.sh, which runs the detectors and lays out WORK.

Corpora
  real   Benchmarks/RealCorpus: 84 hand-checked pages of 7 public-domain picture books. Truth kinds
         body, title, lettering, caption, bubble count as text; `pagenumber` counts neither way.
  heldout Benchmarks/HeldOut: 62 hand-checked pages of 7 other public-domain picture books, held
         out: no rule is chosen or confirmed by looking at them; they are only scored.
  fresh  Benchmarks/Fresh: 52 hand-checked pages of 5 more books (one German, Fraktur), made on
         1 December 2026 by eye alone; only ever scored, and never listed page by page.
  ndl    ../shared/realdata/ndl-docl-dev: NDL book scans with VOC XML truth. Text classes
         8_textline, 2_handwritten, 3_typography, 6_headline, 7_caption; 1_overall is the book
         itself within the photograph: everything outside it (colour chart, ruler, the library's
         label) was not annotated, so a detection lying there is neutral, like a page number;
         4_illustration and 5_stamp are not text (a box on them is a false box).
  synth  our own generator (`picturebook generate`, fixed seed): the corpus the detector was tuned
         on, shown for contrast. Truth is its truth.json; page numbers are neutral.
  synth2 synthetic from real illustrations (`picturebook generate --illustrations
         Benchmarks/Illustrations`, fixed seed): real plates with text typeset over and beside them;
         never tuned on. Same truth.json format, read the same way as synth.

Matching rules: those of Tools/bench-analysis.py (imported from it, not re-invented):
  * a truth block is found when detections together cover >= 80 % of its area;
  * a detection is correct when >= 70 % of its area lies on truth text (synthetic truth grown by the
    page's blur reach, as there; hand-made truth is already drawn round the visible ink);
  * a detection lying >= 70 % on a neutral box (page number) is not counted.
A text-free page is one with no text truth; every detection there is a false text box.

Blocks: Picturebook reports blocks; Tesseract's are its block_num groups (level-2 boxes holding a
word, as bench-analysis.py reads them); PP-OCRv4 reports lines, grouped into blocks by group_lines()
below. A second table applies group_lines() to every detector's boxes alike, so a difference in
block granularity cannot be what decides the ranking. NDL's truth is drawn per line, so a third
table scores every detector's own lines there (the lines of Picturebook's learned blocks, from
analyze's JSON; PP-OCRv4's ungrouped; Tesseract's level-4 lines).

Usage: bench-unseen.py --work WORK [--real DIR] [--heldout DIR] [--fresh DIR] [--ndl DIR] [--synth DIR] [--synth2 DIR] [--worst N]
"""
import argparse, glob, importlib.util, json, math, os, statistics, sys
import xml.etree.ElementTree as ET

_spec = importlib.util.spec_from_file_location("bench_analysis", os.path.join(os.path.dirname(os.path.abspath(__file__)), "bench-analysis.py"))
bench_analysis = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_analysis)
union_area, tesseract_blocks, tesseract_boxes = bench_analysis.union_area, bench_analysis.tesseract_blocks, bench_analysis.tesseract_boxes

DETECTORS = ("ours", "classical", "ppocr", "tesseract")
LINE_DETECTORS = ("ours", "ppocr", "tesseract")
NAMES = {"ours": "Picturebook analyze (learned)", "classical": "Picturebook analyze --detector classical",
         "ppocr": "PP-OCRv4 det", "tesseract": "Tesseract 5 (--psm 3)"}
REAL_TEXT_KINDS = ("body", "title", "lettering", "caption", "bubble")
NDL_TEXT = ("8_textline", "2_handwritten", "3_typography", "6_headline", "7_caption")
NDL_BOOK = "1_overall"
HUGE = 1 << 20


def outside(r):
    """The plane outside box r as four boxes (above, below, left, right)."""
    x0, y0, x1, y1 = r
    return [(-HUGE, -HUGE, HUGE, y0), (-HUGE, y1, HUGE, HUGE), (-HUGE, y0, x0, y1), (x1, y0, HUGE, y1)]


class BenchError(Exception):
    pass


def group_lines(boxes):
    """Joins line boxes (x0, y0, x1, y1) into blocks: two boxes belong to one block when they are
    neighbouring lines of one paragraph (across-line gap <= 0.6 of the smaller line's thickness and
    overlapping along the line) or pieces of one line (overlapping >= half the smaller thickness
    across the line, gap along it <= one thickness). Tall narrow boxes are vertical lines (NDL's
    Japanese), so the axes swap for them. Union-find over the input boxes; blocks are the bounding
    boxes of the groups."""
    n = len(boxes)
    parent = list(range(n))

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    def oriented(b):
        x0, y0, x1, y1 = b
        vertical = (y1 - y0) > 1.5 * (x1 - x0)
        # (along0, along1, across0, across1)
        return (y0, y1, x0, x1, True) if vertical else (x0, x1, y0, y1, False)

    ob = [oriented(b) for b in boxes]
    for i in range(n):
        for j in range(i + 1, n):
            a, b = ob[i], ob[j]
            if a[4] != b[4]:
                continue
            thick = min(a[3] - a[2], b[3] - b[2])
            if thick <= 0:
                continue
            along_overlap = min(a[1], b[1]) - max(a[0], b[0])
            across_overlap = min(a[3], b[3]) - max(a[2], b[2])
            next_line = along_overlap > 0 and -across_overlap <= 0.6 * thick
            same_line = across_overlap >= 0.5 * thick and -along_overlap <= thick
            if next_line or same_line:
                parent[find(i)] = find(j)
    groups = {}
    for i, b in enumerate(boxes):
        g = groups.setdefault(find(i), list(b))
        g[0], g[1], g[2], g[3] = min(g[0], b[0]), min(g[1], b[1]), max(g[2], b[2]), max(g[3], b[3])
    return [tuple(g) for g in groups.values()]


def xyxy(r):
    return (r["x"], r["y"], r["x"] + r["width"], r["y"] + r["height"])


def page(key, set_name, image, text, neutral=(), grow=0, illustrations=()):
    """text: [(xyxy, kind)] truth text boxes; illustrations: drawn figures, for the harm count."""
    grown = [(t[0] - grow, t[1] - grow, t[2] + grow, t[3] + grow) for t, _ in text]
    return {"key": key, "set": set_name, "image": image, "text": list(text), "grown": grown,
            "neutral": list(neutral), "illustrations": list(illustrations)}


def load_real(root):
    pages = []
    for path in sorted(glob.glob(os.path.join(root, "*.json"))):
        slug = os.path.splitext(os.path.basename(path))[0]
        try:
            book = json.load(open(path))
        except (OSError, json.JSONDecodeError) as e:
            raise BenchError(f"{path}: cannot read the truth: {e}")
        for p in book["pages"]:
            name = os.path.basename(p["file"])
            text = [(xyxy(b), b["kind"]) for b in p["text"] if b["kind"] in REAL_TEXT_KINDS]
            neutral = [xyxy(b) for b in p["text"] if b["kind"] == "pagenumber"]
            pages.append(page(f"{slug}/{name}", slug, name, text, neutral))
    if not pages:
        raise BenchError(f"{root}: no <slug>.json truth files")
    return pages


def load_ndl(root):
    pages = []
    for path in sorted(glob.glob(os.path.join(root, "*.xml"))):
        stem = os.path.splitext(os.path.basename(path))[0]
        try:
            tree = ET.parse(path)
        except (OSError, ET.ParseError) as e:
            raise BenchError(f"{path}: cannot read the VOC XML: {e}")
        text, figures, neutral = [], [], []
        for obj in tree.getroot().iter("object"):
            cls = obj.findtext("name", "")
            box = obj.find("bndbox")
            if box is None:
                continue
            try:
                r = tuple(int(float(box.findtext(k, "0"))) for k in ("xmin", "ymin", "xmax", "ymax"))
            except ValueError:
                raise BenchError(f"{path}: a {cls} box has a coordinate that is not a number")
            if cls == NDL_BOOK:
                neutral += outside(r)
            elif cls in NDL_TEXT:
                text.append((r, cls))
            elif cls == "4_illustration":
                figures.append(r)
        image = stem + ".jpg"
        if not os.path.exists(os.path.join(root, image)):
            raise BenchError(f"{path}: its image {image} is missing")
        pages.append(page(f"ndl/{image}", "ndl", image, text, neutral, illustrations=figures))
    if not pages:
        raise BenchError(f"{root}: no VOC XML files")
    return pages


def load_plates(dirs):
    """Text-free plates: every image of each folder is a page without text, so every box drawn
    there is a false box. The set of a page is its folder's name."""
    pages = []
    for root in dirs:
        s = os.path.basename(os.path.normpath(root)).lower()
        names = sorted(n for n in os.listdir(root) if n.lower().endswith((".jpg", ".jpeg", ".png")))
        if not names:
            raise BenchError(f"{root}: no plates (.jpg, .jpeg, .png)")
        pages += [page(f"{s}/{n}", s, n, []) for n in names]
    return pages


def load_synth(root, cid="synth"):
    path = os.path.join(root, "truth.json")
    try:
        truth = json.load(open(path))
    except (OSError, json.JSONDecodeError) as e:
        raise BenchError(f"{path}: cannot read the truth: {e}")
    pages = []
    for p in truth["pages"]:
        sigma = p["degradation"].get("blurSigma", 0)
        reach = math.ceil(3 * sigma) if sigma > 0 else 0
        text = [(xyxy(b["rect"]), b["placement"]) for b in p["textBoxes"] if b["role"] != "pageNumber"]
        neutral = [xyxy(b["rect"]) for b in p["textBoxes"] if b["role"] == "pageNumber"]
        # Page numbers grow too: their truth is the ink before blur, like the text's.
        neutral = [(r[0] - reach, r[1] - reach, r[2] + reach, r[3] + reach) for r in neutral]
        pages.append(page(f"{cid}/{p['image']}", cid, p["image"], text, neutral, reach))
    return pages


def load_detections(work, corpus, pages, ours_file="ours.json"):
    """{detector: {page key: [xyxy]}}, {detector: [ms]}, {detector: {page key: [xyxy lines]}} from
    the files bench-unseen.sh wrote. Lines are each detector's own text lines (the lines of the
    learned detector's blocks, PP-OCRv4's lines ungrouped, Tesseract's level-4 lines); the
    classical detector reports none."""
    dets = {d: {} for d in DETECTORS}
    times = {d: [] for d in DETECTORS}
    lines = {d: {} for d in LINE_DETECTORS}
    for s in sorted({p["set"] for p in pages}):
        base = os.path.join(work, corpus, s)
        want = {p["image"]: p["key"] for p in pages if p["set"] == s}
        try:
            for d, f in (("ours", ours_file), ("classical", "ours-classical.json")):
                report = json.load(open(os.path.join(base, f)))
                for pr in report["pages"]:
                    name = os.path.basename(pr["image"])
                    if name in want:
                        dets[d][want[name]] = [xyxy(b["rect"]) for b in pr["detected"]]
                        times[d].append(pr["milliseconds"])
                        if d == "ours":
                            lines["ours"][want[name]] = [xyxy(r) for r in pr.get("lines", [])]
            pp = json.load(open(os.path.join(base, "ppocr.json")))
            for name, v in pp["pages"].items():
                if name in want:
                    dets["ppocr"][want[name]] = group_lines([tuple(b) for b in v["lines"]])
                    lines["ppocr"][want[name]] = [tuple(b) for b in v["lines"]]
                    times["ppocr"].append(v["milliseconds"])
            for name, key in want.items():
                tsv = os.path.join(base, "tesseract", os.path.splitext(name)[0] + ".tsv")
                if os.path.exists(tsv):
                    dets["tesseract"][key] = [xyxy(r) for r in tesseract_blocks(tsv)]
                    lines["tesseract"][key] = [xyxy(r) for r in tesseract_boxes(tsv, 4)]
            with open(os.path.join(base, "tesseract", "times.tsv")) as f:
                times["tesseract"] += [float(line.split("\t")[1]) * 1000 for line in f if "\t" in line]
        except (OSError, json.JSONDecodeError, KeyError, ValueError) as e:
            raise BenchError(f"{base}: detector output unreadable or missing ({e}); rerun Tools/bench-unseen.sh")
    return dets, times, lines


def score_page(p, dets):
    """Counts for one page: (truth, found, dets, correct, found kinds dict)."""
    found, kinds = 0, {}
    for t, kind in p["text"]:
        area = (t[2] - t[0]) * (t[3] - t[1])
        got = area > 0 and union_area(dets, clip=t) >= 0.8 * area
        found += got
        k = kinds.setdefault(kind, [0, 0])
        k[0] += 1
        k[1] += got
    n, correct, on_figure = 0, 0, 0
    for d in dets:
        area = (d[2] - d[0]) * (d[3] - d[1])
        if area <= 0:
            continue
        if p["neutral"] and union_area(p["neutral"], clip=d) >= 0.7 * area:
            continue
        n += 1
        ok = bool(p["grown"]) and union_area(p["grown"], clip=d) >= 0.7 * area
        correct += ok
        # A false box lying mostly on a drawn figure is one ClearText would erase ink under.
        on_figure += (not ok) and bool(p["illustrations"]) and union_area(p["illustrations"], clip=d) >= 0.5 * area
    return len(p["text"]), found, n, correct, kinds, on_figure


def prf(truth, found, n, correct):
    r = found / truth if truth else float("nan")
    pr = correct / n if n else (1.0 if truth else float("nan"))
    f = 2 * pr * r / (pr + r) if truth and pr + r > 0 else (0.0 if truth else float("nan"))
    return pr, r, f


def score(pages, dets, regroup=False):
    tot = [0, 0, 0, 0]
    kinds, per_page, per_set = {}, {}, {}
    free_pages, free_boxes, on_figures = 0, 0, 0
    for p in pages:
        boxes = dets.get(p["key"], [])
        if regroup:
            boxes = group_lines(boxes)
        t, f, n, c, k, fig = score_page(p, boxes)
        on_figures += fig
        for i, v in enumerate((t, f, n, c)):
            tot[i] += v
        s = per_set.setdefault(p["set"], [0, 0, 0, 0])
        for i, v in enumerate((t, f, n, c)):
            s[i] += v
        for kind, (kt, kf) in k.items():
            kk = kinds.setdefault(kind, [0, 0])
            kk[0] += kt
            kk[1] += kf
        if t == 0:
            free_pages += 1
            free_boxes += n
        per_page[p["key"]] = (t, f, n, c)
    return {"prf": prf(*tot), "counts": tot, "kinds": kinds, "pages": per_page, "sets": per_set,
            "free": (free_boxes, free_pages), "on_figures": on_figures,
            "figure_pages": sum(1 for p in pages if p["illustrations"])}


def read_ndl_labels(path):
    """Page stem -> hand-boxed label boxes (xyxy) inside NDL's drawings; {} when the file is absent."""
    if not path or not os.path.exists(path):
        return {}
    try:
        data = json.load(open(path))
        return {stem: [tuple(b["box"]) for b in boxes] for stem, boxes in data["pages"].items()}
    except (OSError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise BenchError(f"{path}: cannot read the NDL labels: {e}")


def per_set_table(label, pages, cell):
    """One row per set of `pages` (a book, a folder of plates), one column per detector; `cell(d,
    set_pages)` is the cell's text."""
    print(f"| {label} | pages |" + "".join(f" {NAMES[d]} |" for d in DETECTORS))
    print("|---|---:|" + "---:|" * len(DETECTORS))
    for s in sorted({p["set"] for p in pages}):
        sp = [p for p in pages if p["set"] == s]
        print(f"| {s} | {len(sp)} |" + "".join(f" {cell(d, sp)} |" for d in DETECTORS))


def fmt(x, digits=2):
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--work", required=True)
    ap.add_argument("--real")
    ap.add_argument("--heldout", help="Benchmarks/HeldOut: real books no rule was ever chosen on")
    ap.add_argument("--fresh", help="Benchmarks/Fresh: real books made on 1 December 2026, never looked at with any detector's output")
    ap.add_argument("--ndl")
    ap.add_argument("--synth")
    ap.add_argument("--synth2")
    ap.add_argument("--ndl-labels", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Benchmarks", "NDLLabels", "ndl-labels.json"),
                    help="hand-boxed labels inside NDL's drawings, for a second NDL line table where detections on them are neutral")
    ap.add_argument("--plates", nargs="+", metavar="DIR", help="folders of text-free plates (Benchmarks/Illustrations, Benchmarks/TextFree/*)")
    ap.add_argument("--worst", type=int, default=10)
    ap.add_argument("--ours-file", default="ours.json", help="name of analyze's JSON in each set folder")
    ap.add_argument("--no-ours-ms", action="store_true", help="leave Picturebook's time out (a debug build's time means nothing)")
    a = ap.parse_args()

    corpora = []  # (id, title, pages)
    try:
        if a.real:
            corpora.append(("real", "real picture books (RealCorpus)", load_real(a.real)))
        if a.heldout:
            corpora.append(("heldout", "held-out real picture books (HeldOut)", load_real(a.heldout)))
        if a.fresh:
            corpora.append(("fresh", "fresh real picture books (Fresh)", load_real(a.fresh)))
        if a.ndl:
            corpora.append(("ndl", "NDL scans (ndl-docl-dev)", load_ndl(a.ndl)))
        if a.synth:
            corpora.append(("synth", "synthetic (our generator)", load_synth(a.synth)))
        if a.synth2:
            corpora.append(("synth2", "synthetic from real illustrations", load_synth(a.synth2, "synth2")))
        if a.plates:
            corpora.append(("plates", "text-free real plates", load_plates(a.plates)))
        if not corpora:
            raise BenchError("no corpus given (--real, --heldout, --fresh, --ndl, --synth, --synth2, --plates)")
        results = {}
        for cid, _, pages in corpora:
            dets, times, lines = load_detections(a.work, cid, pages, a.ours_file)
            results[cid] = (pages, dets, times,
                            {d: score(pages, dets[d]) for d in DETECTORS},
                            {d: score(pages, dets[d], regroup=True) for d in DETECTORS},
                            {d: score(pages, lines[d]) for d in LINE_DETECTORS})
    except BenchError as e:
        print(f"bench-unseen: {e}", file=sys.stderr)
        return 1

    print("Corpora (what each was used for: Documentation/Evaluation.md):")
    for cid, title, pages in corpora:
        tb = sum(len(p["text"]) for p in pages)
        tf = sum(1 for p in pages if not p["text"])
        tuned = {"synth": "the classical detector's tuning corpus",
                 "real": "some learned-detector settings were scored on it",
                 "heldout": "held out: only ever scored",
                 "fresh": "made 1 December 2026, never looked at with a detector's boxes: only ever scored",
                 "ndl": "one page looked at for the learned detector's region score",
                 "synth2": "never tuned on",
                 "plates": "set illustrations: the painted-shape rule was decided on it; set tom-kitten: held out"}[cid]
        print(f"- {cid}: {title}: {len(pages)} pages, {tb} text blocks, {tf} text-free pages ({tuned})")

    def table(which, heading):
        print(f"\n{heading}\n")
        head = "| detector |" + "".join(f" {cid} P | {cid} R | {cid} F1 | {cid} false/text-free page | {cid} ms/page |" for cid, _, _ in corpora)
        print(head)
        print("|---|" + "---:|" * (5 * len(corpora)))
        for d in DETECTORS:
            row = f"| {NAMES[d]} |"
            for cid, _, _ in corpora:
                res = results[cid][which][d]
                pr, r, f = res["prf"]
                fb, fp = res["free"]
                ms = [] if d in ("ours", "classical") and a.no_ours_ms else results[cid][2][d]
                row += (f" {fmt(pr)} | {fmt(r)} | {fmt(f)} | {fmt(fb / fp if fp else float('nan'))} |"
                        f" {fmt(statistics.median(ms), 0) if ms else '—'} |")
            print(row)

    table(3, "Detection, each detector's own blocks (PP-OCRv4 lines grouped by group_lines):")
    table(4, "Detection, every detector's boxes grouped by the same rule (group_lines):")
    if "ndl" in results:
        # NDL's truth has one box per (mostly vertical) line, and a reader's tap target is a block
        # of several lines, so block-level scores there measure granularity more than detection.
        # This table compares like with like: every detector's own lines against the truth lines.
        print("\nLine level, NDL scans (their truth is one box per line): every detector's own text lines "
              "(Picturebook: the lines of its blocks), scored by the same rules:\n")
        print("| detector | ndl P | ndl R | ndl F1 |")
        print("|---|---:|---:|---:|")
        for d in LINE_DETECTORS:
            pr, r, f = results["ndl"][5][d]["prf"]
            print(f"| {NAMES[d]} | {fmt(pr)} | {fmt(r)} | {fmt(f)} |")
        labels = read_ndl_labels(a.ndl_labels)
        if labels:
            # NDL's truth leaves the labels printed inside its drawings (a dial's hours, a
            # machine's parts) unboxed, so every detector that finds them is charged a false line.
            # The table above is the one judged; this one shows how much of each detector's
            # precision that convention costs, with detections on the hand-boxed labels neutral.
            ndl_pages = results["ndl"][0]
            neutral = [dict(p, neutral=p["neutral"] + labels.get(os.path.splitext(p["image"])[0], [])) for p in ndl_pages]
            _, _, ndl_lines = load_detections(a.work, "ndl", ndl_pages, a.ours_file)
            print(f"\nThe same, detections lying on the {sum(len(v) for v in labels.values())} labels inside NDL's drawings "
                  "boxed by hand (Benchmarks/NDLLabels) neutral:\n")
            print("| detector | ndl P | ndl R | ndl F1 |")
            print("|---|---:|---:|---:|")
            for d in LINE_DETECTORS:
                pr, r, f = score(neutral, ndl_lines[d])["prf"]
                print(f"| {NAMES[d]} | {fmt(pr)} | {fmt(r)} | {fmt(f)} |")
    print("\nms/page is the median: Picturebook = analysis alone (release, --jobs 1, decode excluded); "
          "PP-OCRv4 = the detector call (decoded image, model loaded); Tesseract = the whole process.")

    for cid, title, _ in corpora:
        if cid in ("synth", "synth2"):
            continue
        if cid == "plates":
            pages, dets, _, res, _, _ = results[cid]
            print(f"\nFalse boxes per page on {title}, per set (pages boxed in brackets):\n")
            def plate_cell(d, sp):
                n = [res[d]["pages"][p["key"]][2] for p in sp]
                return f"{fmt(sum(n) / len(sp))} ({sum(1 for x in n if x)})"
            per_set_table("set", pages, plate_cell)
            boxed = sorted(((res["ours"]["pages"][p["key"]][2], p["key"]) for p in pages if res["ours"]["pages"][p["key"]][2]), reverse=True)
            print(f"\nPlates where Picturebook boxed something: " + (", ".join(f"{k} ({n})" for n, k in boxed) if boxed else "none") + f" (of {len(pages)})")
            continue
        pages, dets, times, res, _, _ = results[cid]
        print(f"\nRecall per truth kind, {title}:\n")
        kinds = sorted({k for d in DETECTORS for k in res[d]["kinds"]})
        print("| kind | blocks |" + "".join(f" {NAMES[d]} |" for d in DETECTORS))
        print("|---|---:|" + "---:|" * len(DETECTORS))
        for k in kinds:
            n = res["ours"]["kinds"].get(k, [0, 0])[0]
            print(f"| {k} | {n} |" + "".join(f" {fmt(res[d]['kinds'].get(k, [0, 0])[1] / n if n else float('nan'))} |" for d in DETECTORS))
        if cid == "ndl":
            n = res["ours"]["figure_pages"]
            print(f"\nFalse boxes lying >= 50 % on an illustration (4_illustration, {n} pages have one): "
                  + ", ".join(f"{NAMES[d]} {res[d]['on_figures']}" for d in DETECTORS))
        if cid in ("real", "heldout", "fresh"):
            print(f"\nF1 per book (false boxes on its text-free pages in brackets), {title}:\n")
            def book_cell(d, sp):
                sub = score(sp, dets[d])
                fb, fp = sub["free"]
                return f"{fmt(sub['prf'][2])}" + (f" ({fb} on {fp})" if fp else "")
            per_set_table("book", pages, book_cell)
        if cid == "fresh":
            # Its pages are not listed one by one: a list of the worst pages is where tuning starts.
            continue
        print(f"\n{a.worst} worst pages for Picturebook by F1 (pages with text), {title}:\n")
        print("| page | truth | ours found | ours boxes (correct) | ours F1 | PP-OCRv4 F1 | Tesseract F1 |")
        print("|---|---:|---:|---:|---:|---:|---:|")
        rows = []
        for p in pages:
            t, f, n, c = res["ours"]["pages"][p["key"]]
            if t == 0:
                continue
            rows.append((prf(t, f, n, c)[2], p["key"], t, f, n, c))
        rows.sort(key=lambda r: (r[0], r[1]))
        for f1, key, t, f, n, c in rows[:a.worst]:
            peers = [prf(*res[d]["pages"][key])[2] for d in ("ppocr", "tesseract")]
            print(f"| {key} | {t} | {f} | {n} ({c}) | {fmt(f1)} | {fmt(peers[0])} | {fmt(peers[1])} |")
        free = [(res["ours"]["pages"][p["key"]][2], p["key"]) for p in pages if not p["text"]]
        bad = sorted((x for x in free if x[0] > 0), reverse=True)
        if free:
            print(f"\nText-free pages where Picturebook boxed something: "
                  + (", ".join(f"{k} ({n})" for n, k in bad) if bad else "none") + f" (of {len(free)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
