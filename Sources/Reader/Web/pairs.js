// Picturebook reader: the word-pairs panel (search, tags, page of origin, the reader's own pairs)
// and revision with flashcards in both directions, scheduled by SM-2.
//
// SM-2 is the SuperMemo 2 algorithm: P. A. Woźniak, "Optimization of learning", master's thesis,
// University of Technology in Poznań, 1990 (described at super-memory.com/english/ol/sm2.htm).
// Each card keeps an easiness factor EF (start 2.5), a repetition count n and an interval I in
// days. An answer graded q (0…5): q < 3 restarts the card (n = 0, I = 1); otherwise I is 1, then
// 6, then I × EF, and n grows by one. EF += 0.1 − (5 − q)(0.08 + (5 − q) 0.02), never below 1.3.
// Cards graded below 4 are asked again before the session ends, as the algorithm says.
'use strict';

const Pairs = (() => {
  const { el, store, dirOf } = Words;
  const DAY = 86400000;
  const SESSION = 10;

  function sm2(card, q, now) {
    const c = { ef: 2.5, n: 0, interval: 0, ...card };
    if (q < 3) {
      c.n = 0;
      c.interval = 1;
    } else {
      c.interval = c.n === 0 ? 1 : c.n === 1 ? 6 : Math.round(c.interval * c.ef);
      c.n += 1;
    }
    c.ef = Math.max(1.3, c.ef + (0.1 - (5 - q) * (0.08 + (5 - q) * 0.02)));
    c.due = now + c.interval * DAY;
    c.last = now;
    c.q = q;
    return c;
  }

  // Two cards per pair: the word → its translations, and the first translation → the word.
  function cards(glossary) {
    const out = [];
    for (const e of glossary.entries) {
      const [tl, tt] = Object.entries(e.translations)[0];
      out.push({ key: e.id + ':f', entry: e, front: [e.language, e.text], back: Object.entries(e.translations) });
      out.push({ key: e.id + ':r', entry: e, front: [tl, tt], back: [[e.language, e.text]] });
    }
    return out;
  }

  const srsKey = (id) => 'pb.srs.' + id;
  function schedule(bookId) { return store.get(srsKey(bookId), { cards: {}, reviews: 0 }); }

  // The next session: cards due now (oldest first), then cards never seen, up to SESSION.
  function session(glossary, bookId, now = Date.now()) {
    const s = schedule(bookId).cards;
    const all = cards(glossary);
    const due = all.filter((c) => s[c.key] && s[c.key].due <= now).sort((a, b) => s[a.key].due - s[b.key].due);
    const fresh = all.filter((c) => !s[c.key]);
    return [...due, ...fresh].slice(0, SESSION);
  }

  // ---------------------------------------------------------------- the panel

  class Panel {
    constructor(reader) {
      this.reader = reader;
      this.glossary = reader.words;
      this.tag = null;
      this.query = '';
    }
    open() {
      Words.hidePop();
      this.search = el('input', { type: 'search', class: 'pairs-search', placeholder: 'Search', 'aria-label': 'Search word pairs',
        oninput: () => { this.query = this.search.value.trim().toLowerCase(); this.fill(); } });
      this.tagsRow = el('div', { class: 'pairs-tags', role: 'group', 'aria-label': 'Tags' });
      this.list = el('ul', { class: 'pairs-list' });
      this.dueLabel = el('span', { class: 'pairs-due' });
      this.root = el('div', { class: 'panel', role: 'dialog', 'aria-label': 'Word pairs', 'data-panel': 'pairs' },
        el('div', { class: 'bar' },
          el('button', { class: 'icon-btn', type: 'button', 'aria-label': 'Close word pairs', onclick: () => this.close() }, '✕'),
          el('h1', {}, 'Word pairs'), this.dueLabel,
          el('button', { class: 'icon-btn revise-btn', type: 'button', onclick: () => this.revise() }, 'Revise')),
        el('div', { class: 'panel-body' }, this.search, this.tagsRow, this.list, this.addForm()));
      document.body.append(this.root);
      this.fill();
      Words.help('pairs');
      window.__pb.words.panel = 'pairs';
    }
    close() {
      this.root?.remove();
      this.root = null;
      window.__pb.words.panel = null;
    }
    fill() {
      const g = this.glossary;
      this.tagsRow.replaceChildren(...[null, ...g.tags()].map((t) => el('button', { class: 'icon-btn tag', type: 'button',
        'aria-pressed': String(this.tag === t), 'data-tag': t ?? '', onclick: () => { this.tag = t; this.fill(); } }, t ?? 'All')));
      const q = this.query;
      const rows = g.entries.filter((e) => (!this.tag || (e.tags || []).includes(this.tag))
        && (!q || [e.text, ...Object.values(e.translations), e.note || ''].some((x) => x.toLowerCase().includes(q))));
      this.list.replaceChildren(...rows.map((e) => el('li', { class: 'pair', 'data-entry': e.id },
        el('span', { class: 'pair-word', lang: e.language, dir: dirOf(e.language) }, e.text),
        el('span', { class: 'pair-arrow', 'aria-hidden': 'true' }, '→'),
        el('span', { class: 'pair-trans' }, Object.entries(e.translations).map(([l, t]) => el('span', { lang: l, dir: dirOf(l) }, t))),
        e.page ? el('button', { class: 'pair-page', type: 'button', 'data-page': e.page, 'aria-label': `Go to page ${e.page}`,
          onclick: () => this.jump(e.page) }, 'p. ' + e.page) : null)));
      if (!rows.length) this.list.append(el('li', { class: 'pair empty' }, 'No word pairs match.'));
      this.dueLabel.textContent = `${session(g, this.reader.id).length} to revise`;
    }
    jump(page) {
      this.close();
      location.hash = `#/book/${encodeURIComponent(this.reader.id)}/page/${page}`;
    }
    addForm() {
      const langs = this.reader.book.languages;
      const pick = (sel) => el('select', { 'aria-label': 'Language' }, langs.map((l) => {
        const o = el('option', { value: l }, l);
        if (l === sel) o.selected = true;
        return o;
      }));
      const a = el('input', { type: 'text', name: 'word', placeholder: 'Word', 'aria-label': 'Word', dir: 'auto' });
      const b = el('input', { type: 'text', name: 'translation', placeholder: 'Translation', 'aria-label': 'Translation', dir: 'auto' });
      const la = pick(langs[0]), lb = pick(langs[1] || langs[0]);
      const tags = el('input', { type: 'text', name: 'tags', placeholder: 'Tags (optional)', 'aria-label': 'Tags' });
      const form = el('form', { class: 'pairs-add', 'aria-label': 'Add a word pair' },
        el('h2', {}, 'Add your own pair'), el('div', { class: 'row' }, la, a), el('div', { class: 'row' }, lb, b), tags,
        el('button', { type: 'submit', class: 'icon-btn add-btn' }, 'Add'));
      form.addEventListener('submit', (e) => {
        e.preventDefault();
        if (!a.value.trim() || !b.value.trim() || la.value === lb.value) return;
        this.glossary.addMine({ language: la.value, text: a.value.trim(), translations: { [lb.value]: b.value.trim() },
          tags: tags.value.split(',').map((t) => t.trim()).filter(Boolean), page: this.reader.page });
        a.value = b.value = tags.value = '';
        this.fill();
        this.reader.redrawWords();
      });
      return form;
    }
    revise() {
      this.close();
      new Revision(this.reader).start();
    }
  }

  // ---------------------------------------------------------------- revision

  class Revision {
    constructor(reader) {
      this.reader = reader;
      this.glossary = reader.words;
    }
    start() {
      this.queue = session(this.glossary, this.reader.id);
      this.done = 0;
      this.total = this.queue.length;
      this.card = el('div', { class: 'card', 'aria-live': 'polite' });
      this.progress = el('span', { class: 'pairs-due' });
      this.root = el('div', { class: 'panel revision', role: 'dialog', 'aria-label': 'Revision', 'data-panel': 'revise' },
        el('div', { class: 'bar' },
          el('button', { class: 'icon-btn', type: 'button', 'aria-label': 'Close revision', onclick: () => this.close() }, '✕'),
          el('h1', {}, 'Revision'), this.progress),
        el('div', { class: 'panel-body' }, this.card));
      document.body.append(this.root);
      window.__pb.words.revision = { total: this.total, graded: 0, open: true };
      Words.help('revise');
      this.next();
    }
    close() {
      this.root?.remove();
      if (window.__pb.words.revision) window.__pb.words.revision.open = false;
    }
    next() {
      const c = this.queue.shift();
      this.progress.textContent = `${this.done} / ${this.total}`;
      if (!c) {
        const s = schedule(this.reader.id);
        const soon = Object.values(s.cards).map((x) => x.due).sort((a, b) => a - b)[0];
        this.card.replaceChildren(el('p', { class: 'card-done' }, this.total ? 'Well done! That’s all for now.' : 'Nothing to revise yet.'),
          soon ? el('p', {}, 'Next revision: ' + new Date(soon).toLocaleDateString()) : null);
        window.__pb.words.revision.finished = true;
        return;
      }
      const [fl, ft] = c.front;
      const answer = el('div', { class: 'card-back', hidden: true },
        c.back.map(([l, t]) => el('p', { lang: l, dir: dirOf(l) }, t)), c.entry.note ? el('p', { class: 'gloss-note' }, c.entry.note) : null);
      const grades = el('div', { class: 'grades', hidden: true }, [['Again', 1], ['Hard', 3], ['Good', 4], ['Easy', 5]].map(([label, q]) =>
        el('button', { class: 'icon-btn grade', type: 'button', 'data-q': q, onclick: () => this.grade(c, q) }, label)));
      const show = el('button', { class: 'icon-btn show-btn', type: 'button',
        onclick: () => { answer.hidden = false; grades.hidden = false; show.hidden = true; } }, 'Show');
      this.card.replaceChildren(el('p', { class: 'card-front', lang: fl, dir: dirOf(fl), 'data-card': c.key }, ft), show, answer, grades);
    }
    grade(c, q) {
      const now = Date.now();
      // A card asked again in the same session is drill: its schedule was set by the first answer.
      if (!c.drill) {
        const s = schedule(this.reader.id);
        s.cards[c.key] = sm2(s.cards[c.key], q, now);
        s.reviews = (s.reviews || 0) + 1;
        store.set(srsKey(this.reader.id), s); // saved per answer: a reload mid-session loses nothing graded
      }
      if (q < 4) this.queue.push({ ...c, drill: true }); else this.done += 1;
      window.__pb.words.revision.graded += 1;
      this.next();
    }
  }

  return { Panel, Revision, sm2, session, schedule, cards };
})();
