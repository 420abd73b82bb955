"""The README's screenshots of the reader, taken with the same harness as the tests.

Skipped unless DOCS_SCREENSHOTS=1:  DOCS_SCREENSHOTS=1 Tools/test-browser.sh -k docs
(with DOCS_SCREENSHOTS=1 the script serves only the shipped books in Books/, so the library shot
shows what a user sees, not the tests' broken and right-to-left copies).
Writes Documentation/reader/*.png at phone size (CSS pixels, 256-colour PNG to stay small).
"""
import io
import os
import time

import pytest
from PIL import Image

from conftest import LANDSCAPE, PORTRAIT, ROOT, first_cleared_page

OUT = ROOT / "Documentation" / "reader"
pytestmark = pytest.mark.skipif(os.environ.get("DOCS_SCREENSHOTS") != "1", reason="set DOCS_SCREENSHOTS=1")


def save(phone, name, settle=True):
    if settle:
        phone.settle()
    _, png = phone.screenshot("docs-" + name)
    img = Image.open(io.BytesIO(png)).convert("RGB").resize(phone.size, Image.LANCZOS)
    OUT.mkdir(parents=True, exist_ok=True)
    img.quantize(colors=256, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.FLOYDSTEINBERG).save(OUT / f"{name}.png", optimize=True)


def test_docs_screenshots(phone):
    phone.open("#/")
    cards = phone.js("return [...document.querySelectorAll('.book-card')].map(c => c.textContent)")
    shipped = sorted(p.name for p in (ROOT / "Books").iterdir() if (p / "book.json").is_file())
    assert len(cards) == len(shipped) and not phone.els(".book-card.error"), (
        f"the library should show only the {len(shipped)} books of Books/ (got {cards}); "
        "Tools/test-browser.sh serves only those when DOCS_SCREENSHOTS=1 or SAMPLE_BOOKS_ONLY=1")
    save(phone, "library")
    phone.open("#/book/salmas-red-kite")
    save(phone, "overview")
    # The zoom frozen half-way: every animation paused at the same moment.
    phone.tap_el('.thumb[data-page="4"]')
    phone.wait_js("window.__pb.zoom && window.__pb.zoom.running && document.querySelector('.fx img[data-tapped]')")
    phone.js("document.getAnimations().forEach(a => a.pause())")
    phone.wait_js("[...document.querySelectorAll('.fx img')].every(i => i.complete)")
    phone.js("document.getAnimations().forEach(a => { a.currentTime = 0.45 * a.effect.getComputedTiming().duration; })")
    save(phone, "zoom", settle=False)
    phone.js("document.getAnimations().forEach(a => a.play())")
    phone.wait_ready("reader")
    phone.wait_js("!document.querySelector('.fx')")
    save(phone, "page-portrait")
    phone.tap_el('.screen.current .textbox')
    phone.wait_js("window.__pb.popout.state === 'open' && document.querySelector('.popout img').complete")
    save(phone, "popout")
    phone.tap_el(".popout")
    phone.wait_js("window.__pb.popout.state === 'closed'")
    phone.resize(*LANDSCAPE)
    phone.wait_js("document.querySelector('.stage').dataset.orientation === 'landscape'")
    phone.wait_ready()
    save(phone, "spread-landscape")
    phone.el('[aria-label="ClearText"]').click()
    phone.wait_ready(timeout=120)
    save(phone, "cleartext-english")
    phone.el('[data-lang="ar"]').click()
    phone.wait_ready()
    save(phone, "cleartext-arabic")
    phone.resize(*PORTRAIT)
    phone.open(f"#/book/little-horse/page/{first_cleared_page(phone, 'little-horse')}")
    phone.wait_ready(timeout=120)
    save(phone, "mongolian")


def test_docs_screenshots_glossary(phone):
    """Glossary pop-ups in English and Arabic, the word-pairs list and a revision card."""
    book = phone.js("return fetch('/api/books/salmas-red-kite').then(r => r.json())")
    page = min(e["page"] for e in book["glossary"] if e.get("page") and e["page"] > 1)
    phone.js("localStorage.setItem('pb.mode', 'clear')")
    for lang, name in (("en", "glossary-english"), ("ar", "glossary-arabic")):
        # Not phone.open: the first ClearText of a page takes the server longer than its 30 s.
        phone.d.get(f"{phone.base}/?load={time.monotonic_ns()}#/book/salmas-red-kite/page/{page}")
        phone.wait_ready(timeout=180)
        if lang != "en":
            phone.el(f'[data-lang="{lang}"]').click()
            phone.wait_ready(timeout=120)
        phone.tap_el(phone.els(".screen.current .cleartext .gloss")[0])
        phone.el(".gloss-pop")
        save(phone, name)
    phone.el('[data-action="pairs"]').click()
    phone.el('.panel[data-panel="pairs"]')
    save(phone, "word-pairs")
    phone.el(".revise-btn").click()
    phone.el(".show-btn").click()
    save(phone, "revision")
