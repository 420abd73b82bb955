// The merge dialog: a save answered 409 because someone else saved the page first. Every box that
// differs between their page and ours is listed side by side with a choice (keep mine / take
// theirs); the merged page is then saved against their revision. Nothing is overwritten unseen.
'use strict';

(() => {
  const { modal, clone, same, describeBox } = Editor.shared;

  // What each side did relative to the base (when the server still knows it) decides the
  // preselected choice: a box only they changed is theirs, one only I changed is mine.
  function rows(theirs, yours, base) {
    const byId = (p) => new Map(((p && p.textBoxes) || []).map((b) => [b.id, b]));
    const T = byId(theirs), Y = byId(yours), B = base ? byId(base) : null;
    const ids = [...T.keys(), ...[...Y.keys()].filter((id) => !T.has(id))];
    const out = [];
    for (const id of ids) {
      const t = T.get(id) || null, y = Y.get(id) || null;
      if (same(t, y)) continue;
      let pick = 'mine';
      if (B) { const b = B.get(id) || null; if (same(y, b)) pick = 'theirs'; }
      out.push({ id, t, y, pick });
    }
    return { ids, rows: out, T, Y };
  }

  Editor.merge = (page, conflict) => new Promise((resolve) => {
    const theirs = conflict.current, yours = page.page, base = conflict.base || null;
    const { ids, rows: diff, T, Y } = rows(theirs, yours, base);
    const reviewedDiffers = !!theirs.reviewed !== !!yours.reviewed;
    const choice = new Map(diff.map((r) => [r.id, r.pick]));
    let reviewedPick = base && !!yours.reviewed === !!base.reviewed ? 'theirs' : 'mine';

    const radio = (name, value, checked, onpick) => {
      const id = `${name}-${value}`;
      return h('span', { class: 'ed-pick' }, h('input', { type: 'radio', name, id, value, checked, onchange: onpick }),
        h('label', { for: id }, value === 'mine' ? 'Keep mine' : 'Take theirs'));
    };
    const list = h('div', { class: 'ed-merge-list' }, ...diff.map((r, i) => h('fieldset', { class: 'ed-merge-row', 'data-id': r.id },
      h('legend', {}, `Box ${r.id}`),
      h('div', { class: 'ed-merge-sides' },
        h('div', { class: 'ed-side-theirs' }, h('strong', {}, 'Theirs: '), h('span', { dir: 'auto' }, describeBox(r.t))),
        h('div', { class: 'ed-side-mine' }, h('strong', {}, 'Mine: '), h('span', { dir: 'auto' }, describeBox(r.y)))),
      h('div', { class: 'ed-picks' },
        radio(`ed-m${i}`, 'mine', r.pick === 'mine', () => choice.set(r.id, 'mine')),
        radio(`ed-m${i}`, 'theirs', r.pick === 'theirs', () => choice.set(r.id, 'theirs'))))));
    if (reviewedDiffers) {
      list.append(h('fieldset', { class: 'ed-merge-row', 'data-id': '(page)' }, h('legend', {}, 'Page reviewed'),
        h('div', { class: 'ed-merge-sides' }, h('div', {}, `Theirs: ${theirs.reviewed ? 'yes' : 'no'}`), h('div', {}, `Mine: ${yours.reviewed ? 'yes' : 'no'}`)),
        h('div', { class: 'ed-picks' }, radio('ed-mrev', 'mine', reviewedPick === 'mine', () => (reviewedPick = 'mine')),
          radio('ed-mrev', 'theirs', reviewedPick === 'theirs', () => (reviewedPick = 'theirs')))));
    }
    const who = conflict.user ? ` by ${conflict.user}` : '';
    let settled = false;
    const m = modal('This page was changed' + who, [
      h('p', {}, diff.length || reviewedDiffers
        ? 'Someone saved this page after you opened it. Choose, box by box, which version to keep; then save the merge.'
        : 'Someone saved this page after you opened it, with the same boxes as yours.'),
      list,
      h('div', { class: 'ed-actions' },
        h('button', { class: 'ed-btn', type: 'button', 'data-action': 'merge-cancel', onclick: () => m.close() }, 'Back to editing'),
        h('button', { class: 'help-ok', type: 'button', 'data-action': 'merge-save', onclick: async () => {
          settled = true; m.close();
          const merged = clone(theirs);
          merged.textBoxes = ids.map((id) => {
            const pick = choice.get(id) || 'theirs'; // not listed: both sides agree
            return clone(pick === 'mine' ? Y.get(id) : T.get(id));
          }).filter(Boolean);
          if (!merged.textBoxes.length && !theirs.textBoxes) delete merged.textBoxes;
          const rev = reviewedDiffers ? (reviewedPick === 'mine' ? yours.reviewed : theirs.reviewed) : theirs.reviewed;
          if (rev === true) merged.reviewed = true; else if (rev === false) merged.reviewed = false; else delete merged.reviewed;
          page.revision = conflict.currentRevision;
          page.base = theirs;
          page.page = merged;
          if (page.selected && !page.box(page.selected)) page.selected = null;
          page.drawBoxes(); page.drawSide(); page.updateState();
          // Their page chosen everywhere: nothing left to save, the editor now shows theirs.
          resolve(page.dirty() ? await page.save() : true);
        } }, 'Save merged')),
    ], { cls: 'ed-merge', onClose: () => { if (!settled) { settled = true; resolve(false); } } });
    pb.editor.merge = { rows: diff.map((r) => r.id), open: true };
    const obs = new MutationObserver(() => { if (!m.wrap.isConnected) { pb.editor.merge.open = false; obs.disconnect(); } });
    obs.observe(document.body, { childList: true });
  });
})();
