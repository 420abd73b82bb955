// The history dialog of the page editor (editor-page.js): the book's journal — who changed what,
// when — newest first, for this page or the whole book, and putting an earlier state back.
// What may be restored follows the server's rules (Documentation/Editing.md): any editor can put
// one page back as it was after a change (an ordinary save, so it is journaled and can be undone);
// only an admin can set the whole book back (POST /restore). Both ask for confirmation first.
'use strict';

(() => {
  const { session, call, message, modal, clone } = Editor.shared;
  const ui = pb.editor;

  // "2026-11-26T16:40:12.345Z" → the reader's local date and time, to the minute.
  function when(iso) {
    const d = new Date(iso);
    return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  }
  const KIND = { page: 'saved', undo: 'undid', restore: 'restored the book' };

  async function open(page) {
    const r = await call('GET', `${page.url}/history`);
    if (r.status !== 200 || !r.data) { page.error(message(r, 'The history could not be read')); return; }
    const entries = r.data.entries.slice().reverse();
    let scope = 'page';
    const list = h('ol', { class: 'ed-history', 'aria-label': 'Changes, newest first' });
    const count = h('p', { class: 'ed-hint', 'aria-live': 'polite' });
    const pick = (value, label) => h('label', { class: 'ed-pick' },
      h('input', { type: 'radio', name: 'ed-history-scope', value, checked: value === scope,
        onchange: () => { scope = value; draw(); } }), label);
    const draw = () => {
      const shown = entries.filter((e) => scope === 'book' || e.page === page.n || e.kind === 'restore');
      count.textContent = shown.length ? `${shown.length} change${shown.length === 1 ? '' : 's'}` : 'No saved changes yet.';
      list.replaceChildren(...shown.map((e) => row(e)));
      ui.history = { open: true, scope, rows: shown.map((e) => e.seq) };
    };
    const row = (e) => {
      const actions = [];
      if (e.page === page.n || (e.kind === 'restore' && scope === 'page')) {
        actions.push(h('button', { class: 'ed-btn', type: 'button', 'data-action': 'restore-page', 'data-seq': String(e.seq),
          onclick: () => restorePage(page, e, m) }, `Put page ${page.n} back to this`));
      }
      if (session.role === 'admin') {
        actions.push(h('button', { class: 'ed-btn', type: 'button', 'data-action': 'restore-book', 'data-seq': String(e.seq),
          onclick: () => restoreBook(page, e, m) }, 'Set the whole book back to this'));
      }
      return h('li', { class: 'ed-history-row', 'data-seq': String(e.seq) },
        h('p', { class: 'ed-history-head' },
          h('strong', {}, `#${e.seq}`), ` ${e.user} ${KIND[e.kind] || e.kind}${e.page != null ? ` page ${e.page}` : ''} · `,
          h('time', { datetime: e.time }, when(e.time))),
        h('p', { class: 'ed-history-what' }, e.summary),
        actions.length ? h('div', { class: 'ed-actions ed-history-actions' }, ...actions) : null);
    };
    const m = modal('History', [
      h('div', { class: 'ed-picks', role: 'radiogroup', 'aria-label': 'Show' }, pick('page', `Page ${page.n}`), pick('book', 'Whole book')),
      count, list,
      session.role === 'admin' ? null : h('p', { class: 'ed-hint' }, 'Setting the whole book back needs an admin account.'),
      h('div', { class: 'ed-actions' }, h('button', { class: 'help-ok', type: 'button', 'data-action': 'history-close', onclick: () => m.close() }, 'Close')),
    ], { cls: 'ed-history-dialog', onClose: () => { ui.history = { open: false }; } });
    draw();
  }

  // A yes/no question on top of the history; resolves true for yes.
  function confirm(title, text, yes) {
    return new Promise((resolve) => {
      let done = false;
      const finish = (v) => { if (!done) { done = true; c.close(); resolve(v); } };
      const c = modal(title, [h('p', {}, text), h('div', { class: 'ed-actions' },
        h('button', { class: 'ed-btn', type: 'button', 'data-action': 'confirm-no', onclick: () => finish(false) }, 'Cancel'),
        h('button', { class: 'help-ok', type: 'button', 'data-action': 'confirm-yes', onclick: () => finish(true) }, yes))],
      { cls: 'ed-confirm', onClose: () => finish(false) });
    });
  }

  async function restorePage(page, e, dialog) {
    if (page.dirty()) { page.error('This page has unsaved changes. Save or undo them before putting an earlier version back.'); return; }
    const ok = await confirm('Put the page back?',
      `Page ${page.n} will be as it was after change #${e.seq} (${e.user}, ${when(e.time)}). This is saved as a new change, which Undo can take back.`,
      'Put it back');
    if (!ok) return;
    const r = await call('GET', `${page.url}/revisions/${encodeURIComponent(e.revision)}`);
    const old = r.status === 200 && r.data && r.data.book.pages[page.n - 1];
    if (!old) { page.error(message(r, 'That version could not be read')); return; }
    dialog.close();
    page.page = clone(old);
    page.selected = null;
    page.drawBoxes(); page.drawSide(); page.updateState();
    if (await page.save()) ui.restored = (ui.restored || 0) + 1;
  }

  async function restoreBook(page, e, dialog) {
    if (page.dirty()) { page.error('This page has unsaved changes. Save or undo them before setting the book back.'); return; }
    const ok = await confirm('Set the whole book back?',
      `Every page will be as it was after change #${e.seq} (${e.user}, ${when(e.time)}). The later changes stay in the history and can be restored again.`,
      'Set it back');
    if (!ok) return;
    const r = await call('POST', `${page.url}/restore`, { body: { revision: e.revision }, revision: page.revision });
    if (r.status !== 200) {
      page.error(r.status === 409 ? 'Someone saved in the meantime; open the history again to see their change.' : message(r, 'Restoring failed'));
      return;
    }
    dialog.close();
    ui.restored = (ui.restored || 0) + 1;
    await page.load(page.n);
    page.updateState('Book restored');
  }

  Editor.history = open;
})();
