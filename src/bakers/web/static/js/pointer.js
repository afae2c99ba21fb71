/* Pointer input (mouse, touch, pen): taps, double taps and drags on the
 * table become calls of the handlers main.js passes in. It sends nothing
 * and draws nothing; a drag reports where the cards are for main to show. */

const DRAG_START = 6; // pixels before a press becomes a drag
const DOUBLE_TAP = 450; // ms
const DOUBLE_TAP_SLOP = 24; // pixels between the two taps of a double tap

/** The pile whose landing zone holds (x, y): a column reaches down below
 * its last card, unless another pile (a second row of columns) is there. */
function pileAt(piles, x, y) {
  const inside = (r) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
  const hit = piles.find((pile) => inside(pile.getBoundingClientRect()));
  if (hit) return hit;
  for (const pile of piles) {
    const r = pile.getBoundingClientRect();
    let { left, right, top, bottom } = r;
    if (pile.classList.contains("pile-column")) {
      const cards = pile.querySelectorAll(".card:not(.dragging)");
      const last = cards.length ? cards[cards.length - 1].getBoundingClientRect() : r;
      bottom = Math.max(bottom, last.bottom) + 40;
    }
    if (inside({ left, right, top, bottom })) return pile;
  }
  return null;
}

/** The drop target: the pile under the pointer; else the one the dragged
 * cards overlap most. */
function dropTarget(piles, x, y, lead) {
  const under = pileAt(piles, x, y);
  if (under) return under;
  let best = null;
  let bestArea = 0;
  for (const pile of piles) {
    const r = pile.getBoundingClientRect();
    const w = Math.min(lead.right, r.right) - Math.max(lead.left, r.left);
    const h = Math.min(lead.bottom, r.bottom) - Math.max(lead.top, r.top);
    if (w > 0 && h > 0 && w * h > bestArea) [best, bestArea] = [pile, w * h];
  }
  return best;
}

/**
 * h: {busy(), locate(code), elsOf(where), piles(), foundation,
 *     tap(code), doubleTap(code), pileClick(place), intent({from, to, count}, cards),
 *     dragShow(els, dx, dy, over), dragEnd(slideBack)}
 */
export function attachPointer(board, h) {
  let drag = null;
  let lastTap = null;

  board.addEventListener("pointerdown", (e) => {
    const card = e.target.closest(".card");
    if (!card || !board.contains(card) || h.busy()) return;
    if (e.button !== 0 && e.pointerType === "mouse") return;
    const where = h.locate(card.dataset.card);
    if (!where) return;
    drag = { id: e.pointerId, code: card.dataset.card, where, els: h.elsOf(where, card), x0: e.clientX, y0: e.clientY, started: false, over: null };
    try {
      card.setPointerCapture(e.pointerId);
    } catch (_e) {
      /* the pointer is gone already */
    }
    if (e.pointerType !== "mouse") e.preventDefault();
  });

  board.addEventListener("pointermove", (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const dx = e.clientX - drag.x0;
    const dy = e.clientY - drag.y0;
    if (!drag.started) {
      if (Math.hypot(dx, dy) < DRAG_START || drag.where.place === h.foundation) return;
      drag.started = true;
    }
    drag.over = dropTarget(h.piles(), e.clientX, e.clientY, drag.els[0].getBoundingClientRect());
    h.dragShow(drag.els, dx, dy, drag.over);
    e.preventDefault();
  });

  board.addEventListener("pointerup", (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const d = drag;
    drag = null;
    if (!d.started) {
      const now = performance.now();
      // a second tap on the same spot is one intent with the first, even when
      // the first moved its card away and another card lies there now
      const near = lastTap && Math.hypot(e.clientX - lastTap.x, e.clientY - lastTap.y) < DOUBLE_TAP_SLOP;
      if (lastTap && (lastTap.code === d.code || near) && now - lastTap.t < DOUBLE_TAP) {
        const first = lastTap.code;
        lastTap = null;
        h.doubleTap(first);
      } else {
        lastTap = { code: d.code, t: now, x: e.clientX, y: e.clientY };
        h.tap(d.code);
      }
      return;
    }
    const target = dropTarget(h.piles(), e.clientX, e.clientY, d.els[0].getBoundingClientRect());
    if (!target || target.dataset.place === d.where.place) {
      h.dragEnd(true);
      return;
    }
    h.dragEnd(false);
    h.intent({ from: d.where.place, to: target.dataset.place, count: d.where.count }, d.els.map((x) => x.dataset.card));
  });

  const cancel = (e) => {
    if (!drag || e.pointerId !== drag.id) return;
    const started = drag.started;
    drag = null;
    if (started) h.dragEnd(true);
  };
  board.addEventListener("pointercancel", cancel);
  board.addEventListener("lostpointercapture", (e) => {
    if (drag && drag.started) cancel(e);
  });
  board.addEventListener("dragstart", (e) => e.preventDefault());
  board.addEventListener("click", (e) => {
    if (e.target.closest(".card")) return;
    // the second click of a double click, where its card has just left
    if (lastTap && performance.now() - lastTap.t < DOUBLE_TAP && e.detail > 1) return;
    const pile = e.target.closest(".pile");
    if (pile) h.pileClick(pile);
  });
}
