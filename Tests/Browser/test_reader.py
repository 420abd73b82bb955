"""The reader in a real browser, at phone portrait (393×852) and landscape (852×393)."""
import io
import json
import os
import pathlib
import time

import pytest
from PIL import Image, ImageChops, ImageStat

from conftest import ARTIFACTS, LANDSCAPE, PORTRAIT, ROOT, first_cleared_page

KITE = "salmas-red-kite"      # bilingual English/Arabic, two panoramic spreads
HORSE = "little-horse"        # Mongolian in vertical script
RTL = "rtl-sample"            # a right-to-left copy made by Tools/test-browser.sh
REFERENCE = pathlib.Path(__file__).parent / "reference"


def pages(phone):
    return phone.js("return document.querySelector('.stage').dataset.pages")


def manifest(phone, book):
    return phone.js("return fetch(arguments[0]).then(r => r.json())", f"/api/books/{book}")


# ---------------------------------------------------------------- library and overview

def test_library_lists_books_with_covers_languages_and_the_broken_one(phone):
    phone.open("#/")
    cards = phone.els(".book-card[data-book]")
    ids = [c.get_attribute("data-book") for c in cards]
    for book in (KITE, HORSE, "good-morning-farm", "lighthouse-cat"):
        assert book in ids
    kite = phone.el(f'.book-card[data-book="{KITE}"]')
    assert "العربية" in kite.text or "Arabic" in kite.text
    assert phone.js("return arguments[0].querySelector('img').naturalWidth", kite) > 50
    broken = phone.el('.book-card[data-status="error"]')
    assert "can’t be opened" in broken.text


def test_overview_keeps_spreads_together(phone):
    phone.open(f"#/book/{KITE}")
    a, b = phone.rect('.thumb[data-page="10"]'), phone.rect('.thumb[data-page="11"]')
    assert abs(a["y"] - b["y"]) < 1, "a panoramic spread's pages share a row"
    assert 0 <= b["x"] - (a["x"] + a["width"]) < 16, "and sit side by side"


@pytest.mark.parametrize("size", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
def test_tapping_a_thumbnail_zooms_into_the_page(phone, size):
    phone.resize(*size)
    phone.open("#/")
    phone.tap_el(f'.book-card[data-book="{KITE}"]')
    phone.wait_ready("overview")
    thumb = phone.rect('.thumb[data-page="4"]')
    phone.tap_el('.thumb[data-page="4"]')
    phone.wait_js("window.__pb.zoom && window.__pb.zoom.running === false", timeout=10)
    zoom = phone.js("return window.__pb.zoom")
    assert zoom["page"] == 4 and zoom["animations"] >= 2 and zoom["keyframes"] >= 2
    widths = [s["width"] for s in zoom["samples"]]
    final = zoom["final"]["width"]
    assert len(widths) >= 4, f"the zoom ran over several frames, not a cut: {widths}"
    mid = [w for w in widths if thumb["width"] + 2 < w < final - 2]
    assert mid, f"intermediate sizes between the thumbnail ({thumb['width']}) and the page ({final}): {widths}"
    assert abs(widths[0] - thumb["width"]) < thumb["width"] * 0.35, "the flight starts at the thumbnail"
    phone.wait_ready("reader")
    assert "4" in pages(phone).split(",")
    assert phone.js("return location.hash").endswith("/page/4") or "4" in pages(phone)
    phone.wait_js("!document.querySelector('.fx')", timeout=5)
    page = phone.rect('.screen.current .page[data-page="4"]')
    assert abs(page["width"] - final) < 2


# ---------------------------------------------------------------- reading view

def test_portrait_shows_one_page_and_landscape_the_spread(phone):
    phone.open(f"#/book/{KITE}/page/4")
    assert len(phone.els(".screen.current .page")) == 1
    phone.resize(*LANDSCAPE)
    phone.wait_js("document.querySelector('.stage').dataset.orientation === 'landscape'")
    phone.wait_js("window.__pb.rotate && window.__pb.rotate.orientation === 'landscape'")
    phone.settle()
    shown = sorted(int(p) for p in pages(phone).split(","))
    assert shown == [4, 5]
    left, right = [phone.rect(e) for e in phone.els(".screen.current .page")]
    assert abs(left["y"] - right["y"]) < 1 and abs(left["x"] + left["width"] - right["x"]) < 2
    assert left["width"] + right["width"] <= LANDSCAPE[0] + 1
    img = phone.el('.screen.current .page[data-page="4"] img').get_attribute("src")
    assert "w=" in img, "images are asked for at the size they are shown"


@pytest.mark.parametrize("size", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
def test_popout_grows_to_readable_text_and_shrinks(phone, size):
    phone.resize(*size)
    phone.open(f"#/book/{KITE}/page/2")
    box = phone.el('.screen.current .textbox[data-box="p002-b1"]')
    assert "outlined" in box.get_attribute("class"), "first open outlines the text blocks"
    assert phone.el(".screen.current .hint-label").text == "Tap to enlarge text"
    before = phone.rect(box)
    phone.tap_el(box)
    phone.wait_js("window.__pb.popout && window.__pb.popout.state === 'open'")
    phone.wait_js("document.querySelector('.popout img').complete")
    pop = phone.rect(".popout")
    assert pop["width"] > before["width"] * 1.15 or pop["height"] > before["height"] * 1.15
    info = phone.js("return window.__pb.popout")
    m = manifest(phone, KITE)
    text_size = next(b["textSize"] for b in m["pages"][1]["textBoxes"] if b["id"] == "p002-b1")
    page_rect = phone.rect('.screen.current .page[data-page="2"]')
    page_scale = page_rect["width"] / m["pages"][1]["width"]
    shown = phone.rect(".popout img")
    on_screen = text_size * page_scale * info["magnification"] * shown["width"] / info["contentSize"]["width"]
    assert on_screen >= 16, f"text in the popout is {on_screen:.1f} CSS px"
    assert pages(phone).split(",")[0] in ("2", "2,3")
    phone.tap_el(".popout")
    phone.wait_js("window.__pb.popout.state === 'closed'")
    assert not phone.els(".popout")
    assert "2" in pages(phone).split(",")


def test_long_popout_scrolls_inside_its_frame(phone):
    phone.open(f"#/book/{KITE}/page/2")
    phone.tap_el('.screen.current .textbox[data-box="p002-b1"]')
    phone.wait_js("window.__pb.popout.state === 'open'")
    style = phone.js("const s = getComputedStyle(document.querySelector('.popout')); return s.overflowX + ' ' + s.overflowY")
    assert style == "auto auto"
    pop, frame = phone.rect(".popout"), phone.js("return window.__pb.popout.frame")
    assert abs(pop["width"] - frame["width"]) < 1.5 and abs(pop["height"] - frame["height"]) < 1.5


def test_tapping_the_background_does_not_turn_the_page(phone):
    phone.open(f"#/book/{KITE}/page/4")
    before = pages(phone)
    r = phone.rect(".screen.current .page")
    # Only points where the picture itself is under the finger: the page-turn buttons float over
    # the page's edges (a tap there turns, as it should), and a text box opens its popout.
    tapped = 0
    for fx, fy in ((0.85, 0.2), (0.15, 0.3), (0.9, 0.5), (0.5, 0.15), (0.3, 0.8), (0.7, 0.85)):
        x, y = r["x"] + r["width"] * fx, r["y"] + r["height"] * fy
        if not phone.js("const e = document.elementFromPoint(arguments[0], arguments[1]);"
                        "return !!e && !!e.closest('.stage') && !e.closest('button, .textbox, a');", x, y):
            continue
        phone.tap(x, y)
        tapped += 1
        time.sleep(0.15)
    assert tapped >= 3, "too few background points on the page to tap"
    # A turn takes 280 ms and counts when it ends: wait well past it before looking.
    time.sleep(1.0)
    assert pages(phone) == before
    assert phone.js("return window.__pb.turns") == 0


@pytest.mark.parametrize("size", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])
def test_swipe_turns_and_a_short_drag_springs_back(phone, size):
    phone.resize(*size)
    phone.open(f"#/book/{KITE}/page/4")
    w, h = size
    start = pages(phone)
    phone.swipe(w * 0.55, w * 0.45, h * 0.5, steps=6, step_ms=40)   # 10 % slowly: not enough
    time.sleep(0.5)
    assert pages(phone) == start
    phone.swipe(w * 0.85, w * 0.15, h * 0.5)
    phone.wait_js("window.__pb.turns === 1")
    after = pages(phone)
    assert min(map(int, after.split(","))) > max(map(int, start.split(","))), (start, after)
    phone.swipe(w * 0.2, w * 0.8, h * 0.5)
    phone.wait_js("window.__pb.turns === 2")
    assert pages(phone) == start


def test_arrow_keys_and_buttons_turn(phone):
    phone.open(f"#/book/{KITE}/page/4")
    phone.el('[aria-label="Next page"]').click()
    phone.wait_js("window.__pb.turns === 1")
    assert pages(phone) == "5"
    phone.el("body").send_keys("\ue012")   # ArrowLeft
    phone.wait_js("window.__pb.turns === 2")
    assert pages(phone) == "4"
    phone.el("body").send_keys("\ue014")   # ArrowRight
    phone.wait_js("window.__pb.turns === 3")
    assert pages(phone) == "5"
    assert phone.js("return location.hash").endswith("/page/5")


def test_right_to_left_book_turns_the_other_way(phone):
    phone.open(f"#/book/{RTL}/page/4")
    assert phone.el(".nav.left").get_attribute("aria-label") == "Next page"
    w, h = PORTRAIT
    phone.swipe(w * 0.15, w * 0.85, h * 0.5)   # finger moves right: the next page comes in from the left
    phone.wait_js("window.__pb.turns === 1")
    assert pages(phone) == "5"
    phone.el("body").send_keys("\ue012")        # ArrowLeft is forward too
    phone.wait_js("window.__pb.turns === 2")
    assert pages(phone) == "6"


# ---------------------------------------------------------------- ClearText

def cleartext(phone):
    phone.el('[aria-label="ClearText"]').click()
    phone.wait_js("document.querySelector('.stage').dataset.mode === 'clear'")
    phone.wait_ready(timeout=120)  # a cleared page is prepared on its first request (slow in debug builds)


def test_cleartext_switches_to_arabic_right_to_left(landscape_phone):
    phone = landscape_phone
    phone.open(f"#/book/{KITE}/page/4")
    cleartext(phone)
    img = phone.el('.screen.current .page[data-page="4"] img').get_attribute("src")
    assert "/cleared" in img
    en = phone.js("const e = document.querySelector('.screen.current .page[data-page=\"4\"] .cleartext');"
                  " return e && {dir: getComputedStyle(e).direction, text: e.textContent};")
    assert en, "English text is drawn on page 4"
    assert en["dir"] == "ltr"
    assert "kite" in en["text"].lower()
    phone.el('[data-lang="ar"]').click()
    phone.wait_js("document.querySelector('[data-lang=\"ar\"]').getAttribute('aria-pressed') === 'true'")
    ar = phone.js("return [...document.querySelectorAll('.screen.current .cleartext[lang=\"ar\"]')]"
                  ".filter((e) => e.textContent.trim())"
                  ".map((e) => ({dir: getComputedStyle(e).direction, size: parseFloat(getComputedStyle(e).fontSize)}));")
    assert ar, "Arabic text is drawn"
    for e in ar:
        assert e["dir"] == "rtl"
        assert e["size"] >= 18
    # Per page: the next spread still reads in the book's default language.
    phone.el('[aria-label="Next page"]').click()
    phone.wait_js("window.__pb.turns === 1")
    assert phone.el('[data-lang="en"]').get_attribute("aria-pressed") == "true"


def test_cleartext_text_size_control(phone):
    phone.open(f"#/book/{KITE}/page/2")
    cleartext(phone)
    def size():
        return float(phone.js("return getComputedStyle(document.querySelector('.screen.current .cleartext')).fontSize").rstrip("px"))
    a = size()
    for _ in range(4):
        phone.el('[aria-label="Larger text"]').click()
        phone.wait_ready()
    phone.wait(lambda: size() > a, what="text to grow")


def test_mongolian_is_vertical(phone):
    page = first_cleared_page(phone, HORSE)
    assert page, f"some page of {HORSE} is cleared whole"
    phone.open(f"#/book/{HORSE}/page/{page}")
    cleartext(phone)
    mn = phone.els('.screen.current .cleartext[lang="mn-Mong"]')
    assert mn, "the book opens in Mongolian"
    assert phone.js("return getComputedStyle(arguments[0]).writingMode", mn[0]) == "vertical-lr"
    phone.el('[data-lang="en"]').click()
    phone.wait_js("document.querySelector('[data-lang=\"en\"]').getAttribute('aria-pressed') === 'true'")
    en = phone.els('.screen.current .cleartext[lang="en"]')
    assert en and phone.js("return getComputedStyle(arguments[0]).writingMode", en[0]) == "horizontal-tb"


# ---------------------------------------------------------------- reference screenshot

def mean_abs_difference(a, b):
    a = a.convert("RGB").resize((196, 426))
    b = b.convert("RGB").resize((196, 426))
    return sum(ImageStat.Stat(ImageChops.difference(a, b)).mean) / 3


def test_portrait_page_matches_reference(phone):
    phone.open(f"#/book/{KITE}/page/2")
    phone.settle()
    path, png = phone.screenshot("reference-portrait-page2")
    shot = Image.open(io.BytesIO(png))
    ref = REFERENCE / "portrait-page2.png"
    if os.environ.get("UPDATE_REFERENCE") == "1" or not ref.exists():
        if not os.environ.get("UPDATE_REFERENCE"):
            pytest.fail(f"no reference {ref}; run with UPDATE_REFERENCE=1 to make one from {path}")
        REFERENCE.mkdir(exist_ok=True)
        shot.convert("RGB").resize((393, 852), Image.LANCZOS).save(ref, optimize=True)
    d = mean_abs_difference(shot, Image.open(ref))
    assert d < 6, f"mean absolute difference {d:.2f} against {ref} (see {path})"
