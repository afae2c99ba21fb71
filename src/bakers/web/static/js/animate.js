/* Motion: cards slide from where they were drawn before (FLIP), one card
 * movement after another as the server listed them; the deal; the win. */
import { RANKS, state } from "./model.js";
import { $, $$, el, motionOK } from "./render.js";
import { speedFactor } from "./taste.js";

export function snapshot() {
  const rects = new Map();
  for (const c of $$(".card", el.board)) rects.set(c.dataset.card, c.getBoundingClientRect());
  return rects;
}

/** Delays that play the action's card movements in their order. */
export function delaysFor(movements) {
  if (!movements || movements.length < 2) return null;
  const delays = new Map();
  const step = Math.max(45, Math.min(150, 2400 / movements.length));
  movements.forEach((m, k) => m.cards.forEach((c) => delays.set(c, k * step)));
  return delays;
}

/** Slide every card from its rectangle in `before`; the time it takes. */
export function animateFrom(before, delays, duration) {
  if (!before || !motionOK()) return 0;
  let longest = 0;
  for (const c of $$(".card", el.board)) {
    const a = before.get(c.dataset.card);
    if (!a) continue;
    const b = c.getBoundingClientRect();
    const dx = a.left - b.left;
    const dy = a.top - b.top;
    if (Math.abs(dx) < 1 && Math.abs(dy) < 1) continue;
    const delay = ((delays && delays.get(c.dataset.card)) || 0) * speedFactor();
    const dur = (duration || Math.min(320, 140 + Math.hypot(dx, dy) / 6)) * speedFactor();
    c.classList.add("flying");
    c.style.setProperty("--lift", String(100 + Math.round(delay / 10)));
    const anim = c.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "translate(0, 0)" }], {
      duration: dur, delay, easing: "cubic-bezier(.25,.8,.3,1)", fill: "backwards",
    });
    anim.onfinish = anim.oncancel = () => c.classList.remove("flying");
    longest = Math.max(longest, delay + dur);
  }
  return longest;
}

export function shake(cards) {
  if (!motionOK()) return;
  for (const code of cards || []) {
    $(`.card[data-card="${code}"]`, el.board)?.animate(
      [{ translate: "0 0" }, { translate: "-5px 0" }, { translate: "5px 0" }, { translate: "-3px 0" }, { translate: "0 0" }],
      { duration: 260, delay: 200 },
    );
  }
}

export function dealAnimation() {
  if (!motionOK()) return;
  const origin = el.board.getBoundingClientRect();
  const before = new Map();
  const delays = new Map();
  const columns = $$(".pile-column", el.tableau);
  columns.forEach((pile, ci) => {
    $$(".card", pile).forEach((c, i) => {
      before.set(c.dataset.card, { left: origin.left + origin.width / 2 - 30, top: origin.top - 40 });
      delays.set(c.dataset.card, (i * columns.length + ci) * 9);
    });
  });
  animateFrom(before, delays, 260);
}

/** The cards leap off the foundations and bounce away; then `done`. */
export function celebrate(done) {
  if (!motionOK()) {
    done();
    return;
  }
  state.celebrating = true;
  const fx = $("#fx");
  for (const v of ["--cw", "--ch", "--rf"]) fx.style.setProperty(v, el.board.style.getPropertyValue(v));
  fx.classList.toggle("small-cards", el.board.classList.contains("small-cards"));
  const H = window.innerHeight;
  let last = 0;
  let k = 0;
  for (let rank = 13; rank >= 1; rank--) {
    for (const pile of $$(".pile-foundation", el.found)) {
      const card = $(`.card[data-card="${RANKS[rank - 1]}${pile.dataset.suit}"]`, pile);
      if (!card) continue;
      const r = card.getBoundingClientRect();
      const ghost = card.cloneNode(true);
      ghost.removeAttribute("data-card");
      ghost.removeAttribute("aria-label");
      ghost.className = `${card.className.replace(/\bflying\b/, "")} ghost-card`;
      Object.assign(ghost.style, { left: `${r.left}px`, top: `${r.top}px`, width: `${r.width}px`, height: `${r.height}px`, zIndex: String(200 - k) });
      fx.appendChild(ghost);
      const vx = (Math.random() < 0.5 ? -1 : 1) * (2 + Math.random() * 5);
      const frames = [];
      let [x, y, vy] = [0, 0, -Math.random() * 6];
      const floor = H - r.top - r.height;
      for (let f = 0; f < 70; f++) {
        x += vx;
        vy += 0.9;
        y += vy;
        if (y > floor) [y, vy] = [floor, -vy * 0.72];
        frames.push({ transform: `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px)`, opacity: 1 });
      }
      frames.push({ transform: `translate(${(x + vx * 10).toFixed(1)}px, ${y.toFixed(1)}px)`, opacity: 0 });
      ghost.animate(frames, { duration: 1500, delay: k * 45, easing: "linear", fill: "both" });
      last = Math.max(last, k * 45 + 1500);
      k++;
    }
  }
  el.board.classList.add("celebrated");
  const finish = () => {
    if (!state.celebrating) return;
    state.celebrating = false;
    fx.replaceChildren();
    el.board.classList.remove("celebrated");
    done();
  };
  window.setTimeout(finish, Math.min(last, 3200));
  fx.addEventListener("pointerdown", finish, { once: true });
  document.addEventListener("keydown", finish, { once: true });
}
