#!/usr/bin/env python3
"""Lists and checks a real picture-book corpus: Benchmarks/RealCorpus or Benchmarks/HeldOut (issue 17).

Every book is a <slug>/ folder of untouched page images plus <slug>.json holding where the pages
came from and the truth boxes made by hand (see Benchmarks/RealCorpus/README.md). This script:

  * lists the books, their pages and the truth boxes by kind;
  * checks that every page file exists, has the recorded sha256, and has the recorded size (read
    from the PNG/JPEG/GIF header, so no imaging library is needed);
  * checks every box: integer pixels, positive size, inside its image, a known kind;
  * with --draw OUT_DIR, draws the truth boxes over each page for review (needs Pillow).

Both corpora share this format. RealCorpus was partly tuned on; HeldOut is only ever scored, so
`make corpus` checks both.

Usage: Tools/real-corpus.py [--corpus DIR] [--quiet] [--draw OUT_DIR]
Exit status: 0 when every check passes, 1 when any fails (each failure names the file and the
problem), 2 for bad arguments or a missing corpus.
"""
import argparse, hashlib, json, os, struct, sys

KINDS = ("body", "title", "lettering", "caption", "bubble", "pagenumber")
BOOK_KEYS = ("title", "author", "year", "source", "licence", "pages")
SOURCE_KEYS = ("repo", "commit", "ebook")
PAGE_KEYS = ("file", "sha256", "width", "height", "text", "illustrations", "notes")
# Colours for --draw, one per kind, so a reviewer sees at a glance what each box claims to be.
COLOURS = {"body": (230, 0, 0), "title": (220, 0, 220), "lettering": (255, 140, 0),
           "caption": (0, 170, 0), "bubble": (0, 170, 220), "pagenumber": (200, 200, 0)}
ILLUSTRATION_COLOUR = (0, 60, 255)


def image_size(data):
    """(width, height) from a PNG, JPEG or GIF header, or None if the format is not one of those."""
    if data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) >= 24:
        return struct.unpack(">II", data[16:24])
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:
        return struct.unpack("<HH", data[6:10])
    if data[:2] == b"\xff\xd8":
        i = 2
        while i + 4 <= len(data):
            if data[i] != 0xFF:
                i += 1
                continue
            marker = data[i + 1]
            if marker == 0xFF:  # fill byte before a marker
                i += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:  # markers without a length
                i += 2
                continue
            if i + 4 > len(data):
                break
            length = struct.unpack(">H", data[i + 2:i + 4])[0]
            # Start-of-frame markers carry the size; C4 (DHT), C8 (JPG) and CC (DAC) do not.
            if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                if i + 9 > len(data):
                    break
                height, width = struct.unpack(">HH", data[i + 5:i + 9])
                return width, height
            i += 2 + length
    return None


def is_pixel(value):
    # bool is an int in Python; a box coordinate of `true` is a mistake, not pixel 1.
    return isinstance(value, int) and not isinstance(value, bool)


def check_box(box, width, height, where, errors, text):
    for key in ("x", "y", "width", "height"):
        if not is_pixel(box.get(key)):
            errors.append(f"{where}: '{key}' must be an integer number of pixels, got {box.get(key)!r}")
            return
    x, y, w, h = box["x"], box["y"], box["width"], box["height"]
    if w <= 0 or h <= 0:
        errors.append(f"{where}: empty box {w}x{h}")
    if x < 0 or y < 0 or x + w > width or y + h > height:
        errors.append(f"{where}: box ({x},{y}) {w}x{h} is not inside the {width}x{height} image")
    if text:
        if box.get("kind") not in KINDS:
            errors.append(f"{where}: kind {box.get('kind')!r} is not one of {', '.join(KINDS)}")
        if not isinstance(box.get("language"), str) or not box.get("language"):
            errors.append(f"{where}: 'language' (a BCP 47 tag such as 'en') is missing")
        if "content" in box and not isinstance(box["content"], str):
            errors.append(f"{where}: 'content' must be a string")


def load_books(root, errors):
    books = []
    for name in sorted(os.listdir(root)):
        if not name.endswith(".json"):
            continue
        path = os.path.join(root, name)
        try:
            with open(path, encoding="utf-8") as f:
                book = json.load(f)
        except (OSError, ValueError) as e:
            errors.append(f"{name}: cannot be read as JSON: {e}")
            continue
        if not isinstance(book, dict):
            errors.append(f"{name}: the top level must be an object")
            continue
        missing = [k for k in BOOK_KEYS if k not in book]
        if missing:
            errors.append(f"{name}: missing {', '.join(missing)}")
            continue
        source = book["source"]
        if not isinstance(source, dict) or any(k not in source for k in SOURCE_KEYS):
            errors.append(f"{name}: 'source' needs {', '.join(SOURCE_KEYS)}")
        if not isinstance(book["pages"], list) or not book["pages"]:
            errors.append(f"{name}: 'pages' must be a non-empty list")
            continue
        books.append((name[:-5], book))
    return books


def check_page(root, slug, index, page, errors, seen):
    where = f"{slug}.json pages[{index}]"
    if not isinstance(page, dict):
        errors.append(f"{where}: must be an object")
        return None
    missing = [k for k in PAGE_KEYS if k not in page]
    if missing:
        errors.append(f"{where}: missing {', '.join(missing)}")
        return None
    rel = page["file"]
    where = f"{slug}.json {rel}"
    if not isinstance(rel, str) or not rel.startswith(slug + "/") or ".." in rel.split("/"):
        errors.append(f"{where}: 'file' must be a path inside {slug}/")
        return None
    if rel in seen:
        errors.append(f"{where}: listed twice")
    seen.add(rel)
    path = os.path.join(root, rel)
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        errors.append(f"{where}: cannot read the image: {e.strerror}")
        return None
    digest = hashlib.sha256(data).hexdigest()
    if digest != page["sha256"]:
        errors.append(f"{where}: sha256 is {digest}, the truth records {page['sha256']} (the file was changed)")
    size = image_size(data)
    if size is None:
        errors.append(f"{where}: not a PNG, JPEG or GIF image")
        return None
    if not (is_pixel(page["width"]) and is_pixel(page["height"])):
        errors.append(f"{where}: width and height must be integers")
        return None
    if size != (page["width"], page["height"]):
        errors.append(f"{where}: the image is {size[0]}x{size[1]}, the truth says {page['width']}x{page['height']}")
    width, height = size
    if not isinstance(page["text"], list) or not isinstance(page["illustrations"], list):
        errors.append(f"{where}: 'text' and 'illustrations' must be lists")
        return None
    for i, box in enumerate(page["text"]):
        if not isinstance(box, dict):
            errors.append(f"{where} text[{i}]: must be an object")
            continue
        check_box(box, width, height, f"{where} text[{i}]", errors, text=True)
    for i, box in enumerate(page["illustrations"]):
        if not isinstance(box, dict):
            errors.append(f"{where} illustrations[{i}]: must be an object")
            continue
        check_box(box, width, height, f"{where} illustrations[{i}]", errors, text=False)
    return size


def draw(root, books, out_dir):
    try:
        from PIL import Image, ImageDraw
    except ImportError:
        print("real-corpus: error: --draw needs Pillow (pip install pillow)", file=sys.stderr)
        return False
    os.makedirs(out_dir, exist_ok=True)
    for slug, book in books:
        for page in book["pages"]:
            image = Image.open(os.path.join(root, page["file"])).convert("RGB")
            # Small scans are drawn at twice their size so thin boxes stay readable.
            scale = 2 if max(image.size) < 700 else 1
            if scale != 1:
                image = image.resize((image.width * scale, image.height * scale), Image.NEAREST)
            pen = ImageDraw.Draw(image)

            def rect(b):
                return [b["x"] * scale, b["y"] * scale,
                        (b["x"] + b["width"]) * scale - 1, (b["y"] + b["height"]) * scale - 1]
            for i, b in enumerate(page["illustrations"]):
                r = rect(b)
                pen.rectangle(r, outline=ILLUSTRATION_COLOUR, width=2)
                pen.text((r[0] + 3, r[3] - 12), f"art {i}", fill=ILLUSTRATION_COLOUR)
            for i, b in enumerate(page["text"]):
                r = rect(b)
                colour = COLOURS.get(b.get("kind"), (255, 0, 0))
                pen.rectangle(r, outline=colour, width=2)
                pen.text((r[0], max(0, r[1] - 11)), f"{i} {b.get('kind')}", fill=colour)
            name = page["file"].replace("/", "__").rsplit(".", 1)[0] + ".png"
            image.save(os.path.join(out_dir, name))
    return True


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    # --root is the older spelling of --corpus, kept so existing scripts keep working.
    parser.add_argument("--corpus", "--root", dest="root",
                        default=os.path.join(here, "..", "Benchmarks", "RealCorpus"),
                        help="corpus folder, e.g. Benchmarks/HeldOut (default: Benchmarks/RealCorpus)")
    parser.add_argument("--draw", metavar="OUT_DIR", help="draw the truth boxes over every page into OUT_DIR")
    parser.add_argument("--quiet", action="store_true", help="print only the totals and any problems")
    args = parser.parse_args()
    root = os.path.normpath(args.root)
    if not os.path.isdir(root):
        print(f"real-corpus: error: {root} is not a folder", file=sys.stderr)
        return 2

    errors = []
    books = load_books(root, errors)
    totals = {"pages": 0, "text-free pages": 0, "illustrations": 0, **{k: 0 for k in KINDS}}
    languages = {}
    for slug, book in books:
        seen = set()
        kinds = {k: 0 for k in KINDS}
        pages = book["pages"]
        for index, page in enumerate(pages):
            if check_page(root, slug, index, page, errors, seen) is None:
                continue
            totals["pages"] += 1
            totals["illustrations"] += len(page["illustrations"])
            if not page["text"]:
                totals["text-free pages"] += 1
            for box in page["text"]:
                if box.get("kind") in KINDS:
                    kinds[box["kind"]] += 1
                    totals[box["kind"]] += 1
                languages[box.get("language")] = languages.get(box.get("language"), 0) + 1
        # Files in the book's folder that no page lists are dead weight (or a forgotten page).
        folder = os.path.join(root, slug)
        if os.path.isdir(folder):
            for name in sorted(os.listdir(folder)):
                if f"{slug}/{name}" not in seen:
                    errors.append(f"{slug}/{name}: in the corpus folder but not listed in {slug}.json")
        else:
            errors.append(f"{slug}.json: its image folder {slug}/ is missing")
        if not args.quiet:
            free = sum(1 for p in pages if isinstance(p, dict) and not p.get("text"))
            shown = ", ".join(f"{n} {k}" for k, n in kinds.items() if n)
            print(f"{slug}: {book['title']} ({book['author']}, {book['year']})")
            print(f"    {len(pages)} pages ({free} text-free); text boxes: {shown or 'none'}")
            print(f"    source {book['source'].get('repo')} @ {str(book['source'].get('commit'))[:12]}")
    for name in sorted(os.listdir(root)):
        if os.path.isdir(os.path.join(root, name)) and not any(slug == name for slug, _ in books):
            errors.append(f"{name}/: image folder without a {name}.json")

    text_boxes = sum(totals[k] for k in KINDS)
    print(f"{os.path.basename(root)}: {len(books)} books, {totals['pages']} pages ({totals['text-free pages']} text-free), "
          f"{text_boxes} text boxes, {totals['illustrations']} illustration boxes")
    print("text boxes by kind: " + ", ".join(f"{k} {totals[k]}" for k in KINDS))
    print("text boxes by language: " + ", ".join(f"{k} {n}" for k, n in sorted(languages.items(), key=str)))
    if args.draw and not errors:
        if not draw(root, books, args.draw):
            return 1
        print(f"drawn into {args.draw}")
    for e in errors:
        print(f"real-corpus: error: {e}", file=sys.stderr)
    if errors:
        print(f"real-corpus: {len(errors)} problem(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
