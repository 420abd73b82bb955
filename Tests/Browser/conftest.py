"""Real-browser tests of the web reader: headless Debian Chromium driven by Selenium.

Tools/test-browser.sh starts `picturebook serve` on copies of the sample books and passes its URL in
PICTUREBOOK_URL. Phones are emulated through the DevTools protocol (viewport, device pixel ratio,
touch), so one browser can be turned from portrait to landscape mid-test like a real phone.
"""
import base64
import io
import json
import os
import pathlib
import time

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

ROOT = pathlib.Path(__file__).resolve().parents[2]
ARTIFACTS = pathlib.Path(os.environ.get("BROWSER_ARTIFACTS", ROOT / ".build" / "browser-artifacts"))
PORTRAIT = (393, 852)
LANDSCAPE = (852, 393)
HELP_MODES = ("scan", "clear", "pairs", "revise")
HELP_SEEN = "".join(f"localStorage.setItem('pb.help.{m}', '1');" for m in HELP_MODES)


@pytest.fixture(scope="session")
def base_url():
    url = os.environ.get("PICTUREBOOK_URL")
    if not url:
        pytest.exit("PICTUREBOOK_URL is not set; run Tools/test-browser.sh", returncode=2)
    return url.rstrip("/")


class Phone:
    """A Chromium tab emulating a phone, with helpers that wait on the app's own readiness flags."""

    def __init__(self, driver, base_url, size, scale):
        self.d = driver
        self.base = base_url
        self.scale = scale
        self.resize(*size)
        self.d.execute_cdp_cmd("Emulation.setTouchEmulationEnabled", {"enabled": True, "maxTouchPoints": 5})

    def resize(self, width, height):
        self.size = (width, height)
        self.d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
            "width": width, "height": height, "deviceScaleFactor": self.scale, "mobile": True,
            "screenOrientation": {"type": "portraitPrimary" if height >= width else "landscapePrimary",
                                  "angle": 0 if height >= width else 90}})

    def js(self, script, *args):
        return self.d.execute_script(script, *args)

    def wait(self, predicate, timeout=15, what="condition"):
        end = time.monotonic() + timeout
        last = None
        while time.monotonic() < end:
            try:
                last = predicate()
                if last:
                    return last
            except Exception as e:  # the page may be mid-render
                last = e
            time.sleep(0.03)
        raise AssertionError(f"timed out waiting for {what} (last: {last!r})")

    def wait_js(self, expr, timeout=15):
        return self.wait(lambda: self.js("return " + expr), timeout, expr)

    def open(self, hash_route):
        # A fresh document every time (a hash-only change would keep the old one and its state).
        self.d.get(f"{self.base}/?load={time.monotonic_ns()}{hash_route}")
        self.wait_ready()

    def wait_ready(self, view=None, timeout=30):
        if view:
            self.wait_js(f"document.body.dataset.view === {json.dumps(view)}", timeout)
        self.wait_js("window.__pb && window.__pb.ready === true", timeout)

    def el(self, css):
        from selenium.webdriver.common.by import By
        return self.wait(lambda: self.d.find_element(By.CSS_SELECTOR, css), what=css)

    def els(self, css):
        from selenium.webdriver.common.by import By
        return self.d.find_elements(By.CSS_SELECTOR, css)

    def rect(self, css_or_el):
        el = self.el(css_or_el) if isinstance(css_or_el, str) else css_or_el
        return self.js("const r = arguments[0].getBoundingClientRect(); return {x: r.x, y: r.y, width: r.width, height: r.height};", el)

    def touch(self, kind, points):
        self.d.execute_cdp_cmd("Input.dispatchTouchEvent", {
            "type": kind, "touchPoints": [{"x": x, "y": y} for x, y in points]})

    def tap(self, x, y):
        self.touch("touchStart", [(x, y)])
        self.touch("touchEnd", [])

    def tap_el(self, css_or_el):
        el = self.el(css_or_el) if isinstance(css_or_el, str) else css_or_el
        self.js("const r = arguments[0].getBoundingClientRect();"
                "if (['library', 'overview'].includes(document.body.dataset.view) && (r.top < 44 || r.bottom > innerHeight))"
                "  arguments[0].scrollIntoView({block: 'center'});", el)
        r = self.rect(el)
        self.tap(r["x"] + r["width"] / 2, r["y"] + r["height"] / 2)

    def swipe(self, x0, x1, y, steps=12, step_ms=16):
        """A finger drag from x0 to x1, with moves spaced like a real touch screen's events."""
        self.touch("touchStart", [(x0, y)])
        for i in range(1, steps + 1):
            self.touch("touchMove", [(x0 + (x1 - x0) * i / steps, y)])
            time.sleep(step_ms / 1000)
        self.touch("touchEnd", [])

    def settle(self):
        """Wait until no Web Animation is running and every image is decoded: a deterministic frame."""
        self.wait_js("document.getAnimations().every(a => a.playState !== 'running')")
        self.wait_js("[...document.images].every(i => i.complete)", timeout=120)
        self.js("return Promise.all([...document.images].map(i => i.decode().catch(() => null)))")
        time.sleep(0.1)

    def screenshot(self, name):
        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        png = base64.b64decode(self.d.get_screenshot_as_base64())
        path = ARTIFACTS / f"{name}.png"
        path.write_bytes(png)
        return path, png


def _driver():
    opts = Options()
    opts.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    for a in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
              "--hide-scrollbars", "--force-color-profile=srgb", "--font-render-hinting=none",
              "--disable-extensions", "--no-first-run", "--window-size=900,900"):
        opts.add_argument(a)
    service = Service(os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=opts)


@pytest.fixture(scope="session")
def browser():
    d = _driver()
    yield d
    d.quit()


@pytest.fixture
def phone(browser, base_url, request):
    """A fresh phone in portrait: storage cleared, so every test sees the book as on first open.
    Each test leaves a screenshot of where it ended in the artefacts folder."""
    browser.get(base_url + "/#/")
    browser.execute_script("localStorage.clear(); sessionStorage.clear();")
    # The first-use help overlays would cover what these tests tap; test_glossary.py clears
    # these flags to test the overlays themselves.
    browser.execute_script(HELP_SEEN)
    p = Phone(browser, base_url, PORTRAIT, 2)
    yield p
    try:
        name = "".join(c if c.isalnum() or c in "-_" else "_" for c in request.node.name)
        try:
            p.wait_js("[...document.images].every(i => i.complete)", timeout=5)
        except AssertionError:
            pass  # best effort: the screenshot is for looking at, not for asserting
        p.screenshot("end-" + name)
    finally:
        browser.execute_script("localStorage.clear(); sessionStorage.clear();")


@pytest.fixture
def landscape_phone(phone):
    phone.resize(*LANDSCAPE)
    return phone


def first_cleared_page(phone, book):
    """The first page after the cover whose cleared image left no text box as scanned (the
    reader shows the others as scans, with PopoutText)."""
    return phone.js("""
        const book = arguments[0];
        return (async () => {
          const pages = (await (await fetch(`/api/books/${book}`)).json()).pages;
          for (const p of pages.slice(1)) {
            if (p.clearance && (await (await fetch(p.clearance)).json()).cleared) return p.number;
          }
          return null;
        })();""", book)
