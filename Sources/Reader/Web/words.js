// Picturebook reader, language-learning side: glossary words marked in ClearText and PopoutText,
// the translation pop-up, the word-pairs list, revision with spaced repetition, and the first-use
// help per mode. Loaded after reader.js (whose views call into `Words` once the page has loaded). Everything here runs on the
// book manifest already in memory and on localStorage, so it keeps working offline once the book
// has loaded: no request is made after that.
'use strict';

const Words = (() => {
  const RTL = new Set(['ar', 'he', 'fa', 'ur', 'yi', 'ps', 'dv', 'ckb', 'syr']);
  const dirOf = (lang) => (RTL.has(String(lang).split('-')[0]) ? 'rtl' : 'ltr');
  // Scripts without spaces between words: a glossary word there may sit inside any run of text.
  const SPACELESS = /[\u0E00-\u0EFF\u1000-\u109F\u1780-\u17FF\u3040-\u30FF\u3400-\u9FFF\uF900-\uFAFF]/u;
  const WORDCHAR = /[\p{L}\p{M}\p{N}\u180B-\u180F\u202F\u200C\u200D]/u;
  const state = (window.__pb.words = { lookups: [], help: [], revision: null });

  function el(tag, attrs = {}, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs)) {
      if (v == null || v === false) continue;
      if (k === 'class') e.className = v;
      else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
      else e.setAttribute(k, v === true ? '' : v);
    }
    for (const kid of kids.flat()) if (kid != null) e.append(kid.nodeType ? kid : document.createTextNode(kid));
    return e;
  }
  const store = {
    get(key, fallback) { try { return JSON.parse(localStorage.getItem(key)) ?? fallback; } catch { return fallback; } },
    set(key, value) { try { localStorage.setItem(key, JSON.stringify(value)); } catch { /* private mode: progress is per visit */ } },
  };

  // ---------------------------------------------------------------- the glossary of one book

  class Glossary {
    constructor(bookId, book) {
      this.bookId = bookId;
      this.book = book;
      this.reload();
    }
    get mineKey() { return 'pb.pairs.' + this.bookId; }
    reload() {
      const mine = store.get(this.mineKey, []).map((e) => ({ ...e, source: 'reader', tags: [...(e.tags || []), 'mine'] }));
      this.entries = [...(this.book.glossary || []), ...mine].filter((e) => e.text && e.translations && Object.keys(e.translations).length);
      this.byId = new Map(this.entries.map((e) => [e.id, e]));
      this.terms = new Map(); // language → [{key, entry}] longest first
      const add = (lang, text, entry) => {
        if (!text) return;
        if (!this.terms.has(lang)) this.terms.set(lang, []);
        const list = this.terms.get(lang);
        const key = text.toLocaleLowerCase(lang);
        if (!list.some((t) => t.key === key)) list.push({ key, entry });
      };
      for (const e of this.entries) {
        add(e.language, e.text, e);
        for (const [l, t] of Object.entries(e.translations)) add(l, t, e);
      }
      for (const list of this.terms.values()) list.sort((a, b) => b.key.length - a.key.length);
    }
    addMine(pair) {
      const mine = store.get(this.mineKey, []);
      mine.push({ ...pair, id: 'mine-' + Date.now().toString(36) + '-' + mine.length });
      store.set(this.mineKey, mine);
      this.reload();
    }
    // The entry's words other than the one in `lang`: what the pop-up shows for a word read in `lang`.
    others(entry, lang) {
      const all = [[entry.language, entry.text], ...Object.entries(entry.translations)];
      return all.filter(([l]) => l !== lang);
    }
    tags() {
      const s = new Set();
      for (const e of this.entries) for (const t of e.tags || []) s.add(t);
      return [...s];
    }
  }

  // Text with its glossary words wrapped in tappable spans. Matching ignores case; in spaced
  // scripts a match must be a whole word, in spaceless ones any run will do.
  function mark(text, lang, glossary) {
    const frag = document.createDocumentFragment();
    const terms = glossary && glossary.terms.get(lang);
    if (!terms || !text) { frag.append(text || ''); return frag; }
    const lower = text.toLocaleLowerCase(lang);
    const taken = new Array(text.length).fill(false);
    const hits = [];
    for (const t of terms) {
      let from = 0;
      for (;;) {
        const i = lower.indexOf(t.key, from);
        if (i < 0) break;
        from = i + 1;
        const j = i + t.key.length;
        const whole = SPACELESS.test(t.key) || ((i === 0 || !WORDCHAR.test(text[i - 1])) && (j >= text.length || !WORDCHAR.test(text[j])));
        if (!whole || taken.slice(i, j).some(Boolean)) continue;
        for (let k = i; k < j; k++) taken[k] = true;
        hits.push({ i, j, entry: t.entry });
      }
    }
    hits.sort((a, b) => a.i - b.i);
    let at = 0;
    for (const hit of hits) {
      if (hit.i > at) frag.append(text.slice(at, hit.i));
      frag.append(el('span', { class: 'gloss', role: 'button', tabindex: '0', 'data-gloss': hit.entry.id, lang },
        text.slice(hit.i, hit.j)));
      at = hit.j;
    }
    if (at < text.length) frag.append(text.slice(at));
    return frag;
  }

  // ---------------------------------------------------------------- the pop-up

  let pop = null;
  function hidePop() { if (pop) { pop.remove(); pop = null; } }
  // Next to the word, never over it: below a horizontal line (above when there is no room), beside
  // a vertical one; aligned with the word's start edge, which is the right edge in Arabic.
  function showPop(target, entry, lang, glossary, eventTime) {
    hidePop();
    const rows = glossary.others(entry, lang).map(([l, t]) => el('div', { class: 'gloss-row' },
      el('span', { class: 'gloss-lang' }, l.split('-')[0].toUpperCase()), el('span', { class: 'gloss-text', lang: l, dir: dirOf(l) }, t)));
    if (entry.note) rows.push(el('div', { class: 'gloss-note', dir: 'auto' }, entry.note));
    pop = el('div', { class: 'gloss-pop', role: 'tooltip', 'data-entry': entry.id, dir: dirOf(lang) }, rows);
    document.body.append(pop);
    const r = target.getBoundingClientRect();
    const w = pop.offsetWidth, hgt = pop.offsetHeight, gap = 6, W = innerWidth, H = innerHeight;
    const vertical = getComputedStyle(target).writingMode.startsWith('vertical');
    let x, y, side;
    if (vertical) {
      side = r.right + gap + w <= W - 4 ? 'right' : 'left';
      x = side === 'right' ? r.right + gap : r.left - gap - w;
      y = Math.min(Math.max(4, r.top), H - hgt - 4);
    } else {
      side = r.bottom + gap + hgt <= H - 4 ? 'below' : 'above';
      y = side === 'below' ? r.bottom + gap : r.top - gap - hgt;
      x = dirOf(lang) === 'rtl' ? r.right - w : r.left;
      x = Math.min(Math.max(4, x), W - w - 4);
    }
    pop.style.left = Math.round(x) + 'px';
    pop.style.top = Math.round(Math.max(4, y)) + 'px';
    pop.dataset.side = side;
    // Latency from the tap to the first frame showing the pop-up, for the browser tests.
    requestAnimationFrame(() => {
      const m = performance.measure('pb-gloss-lookup', { start: eventTime, end: performance.now() });
      state.lookups.push({ entry: entry.id, lang, side, ms: m.duration, shown: glossary.others(entry, lang).map(([, t]) => t) });
    });
  }
  document.addEventListener('click', (e) => { if (pop && !e.target.closest('.gloss, .gloss-pop, .word-chip')) hidePop(); }, true);
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape') hidePop(); });

  // Taps on marked words inside `container` (ClearText block, PopoutText word strip).
  function attach(container, glossary) {
    const open = (e) => {
      const span = e.target.closest('.gloss, .word-chip');
      if (!span) return;
      e.stopPropagation();
      e.preventDefault();
      const entry = glossary.byId.get(span.dataset.gloss);
      if (entry) showPop(span, entry, span.getAttribute('lang'), glossary, e.timeStamp || performance.now());
    };
    container.addEventListener('click', open);
    container.addEventListener('keydown', (e) => { if (e.key === 'Enter' || e.key === ' ') open(e); });
  }

  // PopoutText shows the scan, enlarged; its glossary words are listed under (or over) it as chips
  // in the language printed there, each opening the same pop-up.
  function popoutStrip(box, frame, glossary) {
    const lang = box.language || Object.keys(box.text || {})[0];
    const text = box.text && box.text[lang];
    if (!text) return null;
    const found = [];
    const holder = el('div');
    holder.append(mark(text, lang, glossary));
    const seen = new Set();
    for (const s of holder.querySelectorAll('.gloss')) {
      if (seen.has(s.dataset.gloss)) continue;
      seen.add(s.dataset.gloss);
      found.push(el('button', { class: 'word-chip', type: 'button', lang, dir: dirOf(lang), 'data-gloss': s.dataset.gloss }, s.textContent));
    }
    if (!found.length) return null;
    const strip = el('div', { class: 'popout-words', dir: dirOf(lang), 'aria-label': 'Words with a translation' }, found);
    document.body.append(strip);
    const below = frame.y + frame.height + 8;
    const hgt = strip.offsetHeight;
    strip.style.left = Math.max(4, frame.x) + 'px';
    strip.style.maxWidth = Math.min(innerWidth - 8, Math.max(frame.width, 200)) + 'px';
    strip.style.top = (below + hgt <= innerHeight - 4 ? below : Math.max(48, frame.y - hgt - 8)) + 'px';
    attach(strip, glossary);
    return strip;
  }

  // ---------------------------------------------------------------- first-use help

  const HELP = {
    scan: ['Reading the scan', 'Swipe or use the arrows at the sides to turn the page.',
      'Tap a block of text to enlarge it; tap again to close.', 'Aa switches to ClearText, the text typeset for you.'],
    clear: ['ClearText', 'The buttons EN, AR, … switch the language of the text on this page.',
      'A− and A+ make the text smaller or larger.', 'Underlined words have a translation: tap one to see it.'],
    pairs: ['Word pairs', 'Every word pair of this book. Search, or pick a tag to narrow the list.',
      'Tap a page number to go to that page. Add your own pairs at the bottom.', 'Revise practises them as flashcards.'],
    revise: ['Revision', 'Say the answer to yourself, then tap Show.',
      'Then tell how well you knew it: words you find hard come back sooner, easy ones later.'],
  };
  // Once per mode per device: the flag lives in localStorage, not in the session.
  function help(mode) {
    const key = 'pb.help.' + mode;
    if (!HELP[mode] || localStorage.getItem(key) || document.querySelector('.help')) return;
    const [title, ...lines] = HELP[mode];
    const close = () => { localStorage.setItem(key, '1'); overlay.remove(); state.help = state.help.filter((m) => m !== mode); };
    const overlay = el('div', { class: 'help', role: 'dialog', 'aria-label': title, 'data-mode': mode, onclick: close },
      el('div', { class: 'help-card' }, el('h2', {}, title), lines.map((l) => el('p', {}, l)),
        el('button', { class: 'help-ok', type: 'button', onclick: (e) => { e.stopPropagation(); close(); } }, 'Got it')));
    document.body.append(overlay);
    state.help.push(mode);
    state.helpShown = (state.helpShown || 0) + 1;
  }

  return { Glossary, mark, attach, hidePop, popoutStrip, help, el, store, dirOf, state };
})();
