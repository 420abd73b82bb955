"""Glossary pop-ups, word pairs, revision and first-use help in a real browser, at 393×852 and 852×393."""
import json
import time

import pytest

from conftest import HELP_MODES, LANDSCAPE, PORTRAIT

KITE = "salmas-red-kite"
SIZES = pytest.mark.parametrize("size", [PORTRAIT, LANDSCAPE], ids=["portrait", "landscape"])


def open_slow(phone, route, timeout=180):
    """Like Phone.open, with time for the server to prepare ClearText pages the first time."""
    phone.d.get(f"{phone.base}/?load={time.monotonic_ns()}{route}")
    phone.wait_ready(timeout=timeout)


def manifest(phone, book=KITE):
    return phone.js("return fetch(arguments[0]).then(r => r.json())", f"/api/books/{book}")


def open_cleartext(phone, page, lang):
    phone.js("localStorage.setItem('pb.mode', 'clear')")
    open_slow(phone, f"#/book/{KITE}/page/{page}")
    if phone.js(f"return document.querySelector('[data-lang=\"{lang}\"]').getAttribute('aria-pressed')") != "true":
        phone.el(f'[data-lang="{lang}"]').click()
        phone.wait_ready(timeout=120)


def find_marked_word(phone, book, lang):
    """The first page (from the glossary's pages on) whose ClearText in `lang` marks a word."""
    pages = sorted({e["page"] for e in book["glossary"] if e.get("page")})
    assert pages, "the sample book ships a glossary with pages"
    for page in pages[:8]:
        open_cleartext(phone, page, lang)
        spans = phone.els(".screen.current .cleartext .gloss")
        if spans:
            return page, spans[0]
    raise AssertionError(f"no glossary word marked in {lang} on pages {pages[:8]}")


@SIZES
@pytest.mark.parametrize("lang", ["en", "ar"])
def test_tapping_a_glossary_word_shows_its_translation(phone, size, lang):
    phone.resize(*size)
    book = manifest(phone)
    page, span = find_marked_word(phone, book, lang)
    word = span.text.strip()
    entry = next(e for e in book["glossary"] if e["id"] == span.get_attribute("data-gloss"))
    if lang == "en":
        assert entry["text"].lower() == word.lower()
        expected = entry["translations"]["ar"]
    else:
        assert entry["translations"]["ar"] == word
        expected = entry["text"]
    before = phone.js("return document.querySelector('.stage').dataset.pages")
    turns = phone.js("return window.__pb.turns")
    phone.tap_el(span)
    pop = phone.el(".gloss-pop")
    phone.wait_js("window.__pb.words.lookups.length > 0")
    assert expected in pop.text, f"{word!r} should show {expected!r}, pop-up says {pop.text!r}"
    assert pop.get_attribute("data-entry") == entry["id"]
    # Not a page turn, not a popout: the text stays where it was.
    assert phone.js("return document.querySelector('.stage').dataset.pages") == before
    assert phone.js("return window.__pb.turns") == turns
    assert not phone.els(".popout")
    # Next to the word, not on it, and inside the screen.
    w, p = phone.rect(span), phone.rect(pop)
    assert p["x"] >= 0 and p["y"] >= 0 and p["x"] + p["width"] <= size[0] + 1 and p["y"] + p["height"] <= size[1] + 1
    overlap_x = min(w["x"] + w["width"], p["x"] + p["width"]) - max(w["x"], p["x"])
    overlap_y = min(w["y"] + w["height"], p["y"] + p["height"]) - max(w["y"], p["y"])
    assert overlap_x <= 1 or overlap_y <= 1, "the pop-up does not cover the word"
    gap = max(p["y"] - (w["y"] + w["height"]), w["y"] - (p["y"] + p["height"]), p["x"] - (w["x"] + w["width"]), w["x"] - (p["x"] + p["width"]))
    assert gap < 24, f"the pop-up sits next to the word (gap {gap:.0f}px)"
    if lang == "ar" and p["width"] < size[0] - 10:
        # Right-to-left: the pop-up starts at the word's right edge (unless the screen edge stops it).
        assert abs((p["x"] + p["width"]) - (w["x"] + w["width"])) < 2 or p["x"] <= 5
        assert phone.js("return arguments[0].getAttribute('dir')", pop) == "rtl"
    latency = phone.js("return performance.getEntriesByName('pb-gloss-lookup').map(e => e.duration)")
    print(f"\nlookup pop-up latency ({lang}, {size[0]}×{size[1]}, page {page}): {latency[-1]:.1f} ms (tap → first frame)")
    # A tap elsewhere closes it.
    phone.tap(5, size[1] - 5)
    phone.wait_js("!document.querySelector('.gloss-pop')")


def test_vertical_mongolian_pop_up_sits_beside_the_word(phone):
    book = manifest(phone, "little-horse")
    if not book["glossary"]:
        pytest.skip("little-horse has no glossary")
    page = min(e["page"] for e in book["glossary"] if e.get("page"))
    phone.js("localStorage.setItem('pb.mode', 'clear')")
    for n in range(page, page + 6):
        open_slow(phone, f"#/book/little-horse/page/{n}")
        spans = [s for s in phone.els(".screen.current .cleartext.vertical-lr .gloss")]
        if spans:
            break
    assert spans, "a vertical Mongolian block marks a glossary word"
    phone.tap_el(spans[0])
    pop = phone.el(".gloss-pop")
    assert pop.get_attribute("data-side") in ("left", "right")
    assert pop.text.strip()


@SIZES
def test_popout_lists_the_glossary_words_of_the_block(phone, size):
    phone.resize(*size)
    book = manifest(phone)
    for page in sorted({e["page"] for e in book["glossary"] if e.get("page")})[:6]:
        phone.open(f"#/book/{KITE}/page/{page}")
        for box in phone.els(".screen.current .textbox"):
            phone.tap_el(box)
            phone.wait_js("window.__pb.popout && window.__pb.popout.state === 'open'")
            chips = phone.els(".popout-words .word-chip")
            if chips:
                entry = next(e for e in book["glossary"] if e["id"] == chips[0].get_attribute("data-gloss"))
                phone.tap_el(chips[0])
                pop = phone.el(".gloss-pop")
                shown = [entry["text"], *entry["translations"].values()]
                assert any(t in pop.text for t in shown if t.lower() != chips[0].text.lower())
                assert phone.js("return window.__pb.popout.state") == "open", "the enlarged block stays open"
                return
            phone.tap_el(".popout")
            phone.wait_js("window.__pb.popout.state === 'closed'")
    raise AssertionError("no PopoutText block listed a glossary word")


@SIZES
def test_a_ten_card_revision_is_scheduled_and_survives_a_reload(phone, size):
    phone.resize(*size)
    phone.open(f"#/book/{KITE}/page/2")
    phone.el('[data-action="pairs"]').click()
    phone.el('.panel[data-panel="pairs"]')
    listed = len(phone.els(".pairs-list .pair[data-entry]"))
    assert listed >= 15, f"the word-pairs list shows the book's glossary ({listed})"
    # Working offline once loaded: the network goes away before revision starts.
    phone.d.execute_cdp_cmd("Network.enable", {})
    phone.d.execute_cdp_cmd("Network.emulateNetworkConditions",
                            {"offline": True, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    try:
        phone.el(".revise-btn").click()
        phone.el('.panel[data-panel="revise"]')
        assert phone.js("return window.__pb.words.revision.total") == 10
        fronts = []
        for _ in range(10):
            fronts.append(phone.el(".card-front").get_attribute("data-card"))
            phone.el(".show-btn").click()
            phone.el(".grade[data-q='4']").click()
        phone.wait_js("window.__pb.words.revision.finished === true")
    finally:
        phone.d.execute_cdp_cmd("Network.emulateNetworkConditions",
                                {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1})
    assert len(set(fronts)) == 10
    now_ms = phone.js("return Date.now()")
    phone.open(f"#/book/{KITE}/page/2")  # a reload: a fresh document
    srs = json.loads(phone.js(f"return localStorage.getItem('pb.srs.{KITE}')"))
    assert sorted(srs["cards"]) == sorted(fronts)
    for c in srs["cards"].values():
        # SM-2, first answer graded 4: interval 1 day, EF 2.5 unchanged.
        assert c["n"] == 1 and c["interval"] == 1 and abs(c["ef"] - 2.5) < 1e-9
        assert c["due"] > now_ms + 0.9 * 86400000
    # The next session offers other cards: those just learnt are not due.
    upcoming = phone.js("return Pairs.session(new Words.Glossary(arguments[0], arguments[1]), arguments[0]).map(c => c.key)",
                        KITE, manifest(phone))
    assert not set(upcoming) & set(fronts)
    # A day and a bit later they are due again.
    later = phone.js("return Pairs.session(new Words.Glossary(arguments[0], arguments[1]), arguments[0], Date.now() + 1.1 * 86400000)"
                     ".map(c => c.key)", KITE, manifest(phone))
    assert set(fronts) <= set(later) or len(later) == 10 and set(later) <= set(fronts)


def test_a_reader_adds_a_pair_and_it_is_marked(phone):
    phone.js("localStorage.setItem('pb.mode', 'clear')")
    marked_js = "return [...document.querySelectorAll('.screen.current .gloss')].map(s => s.textContent.toLowerCase())"
    word = None
    for page in range(2, 8):  # a page with a word of four letters or more that has no entry yet
        open_slow(phone, f"#/book/{KITE}/page/{page}")
        text = phone.js("return document.querySelector('.screen.current .cleartext').textContent")
        marked = phone.js(marked_js)
        words = [w.strip(".,!?’'“”«»") for w in text.split()]
        word = next((w for w in words if len(w) > 3 and w.isalpha() and w.lower() not in marked), None)
        if word:
            break
    assert word, "some page has a word without a glossary entry"
    phone.el('[data-action="pairs"]').click()
    phone.el('.pairs-add input[name="word"]').send_keys(word)
    phone.el('.pairs-add input[name="translation"]').send_keys("كلمتي")
    phone.el(".pairs-add .add-btn").click()
    phone.wait(lambda: any(word in r.text for r in phone.els(".pairs-list .pair")), what="the new pair listed")
    phone.el('.panel [aria-label="Close word pairs"]').click()
    phone.wait_ready(timeout=60)
    assert word.lower() in phone.js(marked_js)
    open_slow(phone, f"#/book/{KITE}/page/{page}")
    assert word.lower() in phone.js(marked_js), "the reader's pair survives a reload"
    phone.tap_el(next(s for s in phone.els(".screen.current .gloss") if s.text.lower() == word.lower()))
    assert "كلمتي" in phone.el(".gloss-pop").text


@SIZES
def test_help_overlays_appear_once_per_mode(phone, size):
    phone.resize(*size)
    phone.js("".join(f"localStorage.removeItem('pb.help.{m}');" for m in HELP_MODES))
    phone.js("localStorage.setItem('pb.mode', 'scan')")
    phone.open(f"#/book/{KITE}/page/3")
    phone.el('.help[data-mode="scan"]')
    phone.el(".help-ok").click()
    phone.wait_js("!document.querySelector('.help')")
    phone.open(f"#/book/{KITE}/page/3")
    time.sleep(0.3)
    assert not phone.els(".help"), "the scan help is shown once"
    phone.el('[aria-label="ClearText"]').click()
    phone.el('.help[data-mode="clear"]')
    phone.tap(10, size[1] // 2)  # a tap anywhere dismisses it
    phone.wait_js("!document.querySelector('.help')")
    phone.el('[data-action="pairs"]').click()
    phone.el('.help[data-mode="pairs"]')
    phone.el(".help-ok").click()
    phone.el(".revise-btn").click()
    phone.el('.help[data-mode="revise"]')
    phone.el(".help-ok").click()
    phone.wait_js("!document.querySelector('.help')")
    # After a reload, none of them comes back.
    open_slow(phone, f"#/book/{KITE}/page/3")
    phone.el('[data-action="pairs"]').click()
    phone.el(".revise-btn").click()
    time.sleep(0.3)
    assert not phone.els(".help")
    assert phone.js("return window.__pb.words.helpShown || 0") == 0
