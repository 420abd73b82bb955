"""The EPUB export read in a real browser (issue 20): a fixed-layout page's XHTML opened in Chromium
at its declared viewport must look like the reader's screen of the same page, carry its
transcribed words as a real, selectable text layer, and its ClearText page must draw the typeset
text. The EPUB is made by the built CLI from the sample book and unzipped, as a reading system
would; pages are opened from disk (file://), so nothing here depends on the reader's server
except the reader screenshot the page is compared with."""
import io
import json
import math
import os
import subprocess
import zipfile

import pytest
from PIL import Image, ImageChops, ImageStat

from conftest import ARTIFACTS, ROOT

KITE = "salmas-red-kite"
PAGE = 2  # a single page with two text boxes (English and Arabic)


@pytest.fixture(scope="module")
def epub(tmp_path_factory):
    """The sample book exported to EPUB (with ClearText) and unzipped; returns the folder."""
    out = tmp_path_factory.mktemp("epub")
    cli = os.environ.get("PICTUREBOOK_BIN", str(ROOT / ".build" / "debug" / "picturebook"))
    done = subprocess.run([cli, "export", str(ROOT / "Books" / KITE), "--format", "epub", "--out", str(out / "book.epub")],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    with zipfile.ZipFile(out / "book.epub") as z:
        z.extractall(out / "book")
    return out / "book"


@pytest.fixture(scope="module")
def book():
    return json.loads((ROOT / "Books" / KITE / "book.json").read_text(encoding="utf-8"))


def open_page(browser, path, width, height):
    """Opens one XHTML page the way a fixed-layout reading system does: a viewport of exactly the
    page's declared size, one CSS pixel per device pixel, then waits for its image."""
    browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
    browser.get(path.as_uri())
    end = 0
    while not browser.execute_script("return [...document.images].every(i => i.complete && i.naturalWidth > 0)"):
        end += 1
        assert end < 600, f"{path.name}: its image never loaded"
        browser.execute_script("return new Promise(r => setTimeout(r, 50))")
    browser.execute_script("return Promise.all([...document.images].map(i => i.decode().catch(() => null)))")


def screenshot(browser, name):
    import base64
    png = base64.b64decode(browser.get_screenshot_as_base64())
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"{name}.png").write_bytes(png)
    return Image.open(io.BytesIO(png)).convert("RGB")


def difference(a, b):
    """Mean absolute difference (0-255, averaged over channels) and PSNR in dB of two same-size images."""
    diff = ImageChops.difference(a, b)
    stat = ImageStat.Stat(diff)
    mad = sum(stat.mean) / 3
    mse = sum(v / (a.width * a.height) for v in stat.sum2) / 3
    return mad, (99.0 if mse == 0 else 10 * math.log10(255 ** 2 / mse))


def declared_viewport(xhtml):
    text = xhtml.read_text(encoding="utf-8")
    start = text.index('<meta name="viewport" content="') + len('<meta name="viewport" content="')
    fields = dict(f.strip().split("=") for f in text[start:text.index('"', start)].split(","))
    return int(fields["width"]), int(fields["height"])


def test_epub_page_looks_like_the_readers_screen(epub, book, phone, browser):
    page = book["pages"][PAGE - 1]
    xhtml = epub / "OEBPS" / "pages" / f"scan-{PAGE:04d}.xhtml"
    width, height = declared_viewport(xhtml)
    assert (width, height) == (page["width"], page["height"]), "the viewport is the scan's size"

    # The reader first (the phone fixture owns the browser's metrics): page 2 in portrait, with
    # the first-visit outlines already seen so only the page is on screen.
    phone.js(f"localStorage.setItem('pb.hintSeen.{KITE}', '1')")
    phone.open(f"#/book/{KITE}/page/{PAGE}")
    phone.settle()
    # The page-turn buttons float over the page's edges; they are the reader's, not the page's.
    phone.js("document.querySelectorAll('button.nav').forEach(b => b.style.visibility = 'hidden')")
    r = phone.rect(f'.screen.current .page[data-page="{PAGE}"] img')
    _, png = phone.screenshot("epub-compare-reader")
    shot = Image.open(io.BytesIO(png)).convert("RGB")
    s = phone.scale
    # The page rectangle on the screenshot, inside the screen (the reader fits the page to it).
    box = (round(r["x"] * s), round(r["y"] * s), round((r["x"] + r["width"]) * s), round((r["y"] + r["height"]) * s))
    assert box[0] >= 0 and box[1] >= 0 and box[2] <= shot.width and box[3] <= shot.height, f"page at {box} is not all on screen"
    reader = shot.crop(box)
    assert abs(reader.width / reader.height - width / height) < 0.01, "the reader keeps the page's shape"

    open_page(browser, xhtml, width, height)
    page_shot = screenshot(browser, "epub-page-2")
    assert page_shot.size == (width, height), f"screenshot is {page_shot.size}, viewport {width}x{height}"
    # Compared at the reader's size: the EPUB page scaled down to the rectangle the reader gave it.
    scaled = page_shot.resize(reader.size, Image.LANCZOS)
    mad, psnr = difference(scaled, reader)
    print(f"EPUB page {PAGE} vs reader ({reader.width}x{reader.height} px): mean absolute difference {mad:.2f}, PSNR {psnr:.1f} dB")
    assert mad < 5 and psnr > 26, f"EPUB page {PAGE} differs from the reader: MAD {mad:.2f}, PSNR {psnr:.1f} dB"

    # A different page must not pass the same comparison (the check can fail).
    other = epub / "OEBPS" / "pages" / f"scan-{PAGE + 2:04d}.xhtml"
    open_page(browser, other, *declared_viewport(other))
    wrong = screenshot(browser, "epub-page-4").resize(reader.size, Image.LANCZOS)
    wrong_mad, wrong_psnr = difference(wrong, reader)
    print(f"EPUB page {PAGE + 2} vs reader page {PAGE}: MAD {wrong_mad:.2f}, PSNR {wrong_psnr:.1f} dB")
    assert wrong_mad > mad * 3


def test_epub_text_layer_is_there_and_selectable(epub, book, browser):
    page = book["pages"][PAGE - 1]
    xhtml = epub / "OEBPS" / "pages" / f"scan-{PAGE:04d}.xhtml"
    open_page(browser, xhtml, *declared_viewport(xhtml))
    for b in page["textBoxes"]:
        layer = browser.execute_script(
            "const d = document.getElementById('box-' + arguments[0]); if (!d) return null;"
            "const r = d.getBoundingClientRect();"
            "return {rect: [r.x, r.y, r.width, r.height],"
            " texts: Object.fromEntries([...d.querySelectorAll('p')].map(p => [p.lang, p.innerText])),"
            " color: getComputedStyle(d.querySelector('p')).color,"
            " select: getComputedStyle(d.querySelector('p')).userSelect};", b["id"])
        assert layer, f"box {b['id']} has no text layer"
        rect = b["rect"]
        assert layer["rect"] == [rect["x"], rect["y"], rect["width"], rect["height"]], "the layer lies over its box"
        for lang, text in b["text"].items():
            words = " ".join(text.split())
            assert " ".join(layer["texts"].get(lang, "").split()) == words, f"{b['id']} [{lang}]"
        assert layer["color"] == "rgba(0, 0, 0, 0)", "the layer is invisible over the scan"
        assert layer["select"] != "none"
        # Selecting the box's paragraph in the printed language gives its words, as a reader's
        # finger or a screen reader would get them.
        lang = b.get("language") or book["languages"][0]
        selected = browser.execute_script(
            "const p = document.querySelector('#box-' + CSS.escape(arguments[0]) + ' p[lang=\"' + arguments[1] + '\"]');"
            "const range = document.createRange(); range.selectNodeContents(p);"
            "const s = getSelection(); s.removeAllRanges(); s.addRange(range); return s.toString();", b["id"], lang)
        assert " ".join(selected.split()) == " ".join(b["text"][lang].split())
    # Searching finds a word of the page (what a reading system's search does).
    first = page["textBoxes"][0]["text"]["en"].split()[0]
    assert browser.execute_script("getSelection().removeAllRanges(); return window.find(arguments[0], false, false, true)", first)


@pytest.mark.parametrize("lang_index", [0, 1], ids=["en", "ar"])
def test_epub_cleartext_page_renders_the_typeset_text(epub, book, browser, lang_index):
    lang = book["languages"][lang_index]
    page = book["pages"][PAGE - 1]
    xhtml = epub / "OEBPS" / "pages" / f"clear-{lang_index + 1}-{PAGE:04d}.xhtml"
    open_page(browser, xhtml, *declared_viewport(xhtml))
    with_text = screenshot(browser, f"epub-clear-{lang}-2")
    # Each box's text in this language, visible and laid out inside its box.
    for b in page["textBoxes"]:
        text = b["text"].get(lang)
        if not text:
            continue
        got = browser.execute_script(
            "const d = document.getElementById('box-' + arguments[0]), p = d.querySelector('p');"
            "const r = d.getBoundingClientRect(), q = p.getBoundingClientRect(), cs = getComputedStyle(p);"
            "return {text: p.innerText, lang: p.lang, dir: cs.direction, color: cs.color, visibility: cs.visibility,"
            " box: [r.left, r.top, r.right, r.bottom], ink: [q.left, q.top, q.right, q.bottom]};", b["id"])
        assert " ".join(got["text"].split()) == " ".join(text.split())
        assert got["lang"] == lang and got["dir"] == ("rtl" if lang == "ar" else "ltr")
        assert got["visibility"] == "visible" and got["color"] != "rgba(0, 0, 0, 0)"
        # The typeset text fits its box: nothing is cut off by the box's overflow: hidden.
        bx, ink = got["box"], got["ink"]
        assert ink[1] >= bx[1] - 1 and ink[3] <= bx[3] + 1, f"{b['id']} [{lang}] text {ink} overflows its box {bx}"
    # The text is drawn: hiding it changes the pixels inside the boxes.
    browser.execute_script("document.querySelectorAll('div.box.clear p').forEach(p => p.style.visibility = 'hidden')")
    without = screenshot(browser, f"epub-clear-{lang}-2-hidden")
    changed = 0
    for b in page["textBoxes"]:
        if not b["text"].get(lang):
            continue
        r = b["rect"]
        crop = (r["x"], r["y"], r["x"] + r["width"], r["y"] + r["height"])
        mad, _ = difference(with_text.crop(crop), without.crop(crop))
        print(f"ClearText [{lang}] box {b['id']}: the typeset text changes its box by MAD {mad:.1f}")
        changed += mad > 3
    assert changed >= 1, "no typeset text is visible on the ClearText page"
