/* The page's model: the game object the server sent (docs/api.md) and what
 * the player is doing with it (a chosen source, keyboard focus). Nothing
 * here decides a rule; it only reads the server's answer. */

const SUIT_NAME = { C: "clubs", D: "diamonds", H: "hearts", S: "spades" };
const RANK_NAME = { A: "ace", T: "10", J: "jack", Q: "queen", K: "king" };
export const RANKS = "A23456789TJQK";

export const state = {
  game: null,
  sel: null, // {place, count|null, cards: [codes], how: "typed"|"focus"|"click"}
  focus: 0, // index into the piles for the keyboard focus ring
  celebrating: false,
  autoPaused: false, // paused by the page itself when it was hidden
  clock: { seconds: 0, at: 0, running: false },
};

export function cardName(code) {
  return `${RANK_NAME[code[0]] || code[0]} of ${SUIT_NAME[code[1]]}`;
}

export function suitName(suit) {
  return SUIT_NAME[suit];
}

export const rules = () => (state.game ? state.game.rules : null);

export function placeName(place) {
  const r = rules();
  return (r && r.places.names[place]) || place;
}

export function isColumn(place) {
  const r = rules();
  return !!r && r.places.columns.includes(place);
}

/** The top `count` cards at `place` (a column's run, a cell's card). */
export function cardsAt(place, count) {
  const g = state.game;
  if (!g) return [];
  const r = g.rules.places;
  const ci = r.columns.indexOf(place);
  if (ci >= 0) {
    const col = g.columns[ci] || [];
    return col.slice(Math.max(0, col.length - (count || 1)));
  }
  const fi = r.cells.indexOf(place);
  if (fi >= 0 && g.freecells[fi]) return [g.freecells[fi]];
  return [];
}

/** Where a card lies: {place, count} with count = cards from it to the top. */
export function locate(code) {
  const g = state.game;
  if (!g) return null;
  const r = g.rules.places;
  for (let i = 0; i < g.columns.length; i++) {
    const k = g.columns[i].indexOf(code);
    if (k >= 0) return { place: r.columns[i], count: g.columns[i].length - k };
  }
  const f = g.freecells.indexOf(code);
  if (f >= 0) return { place: r.cells[f], count: 1 };
  return { place: r.foundation, count: 1 };
}

/** The clock and score as they stand now: the server's answer plus the time
 * passed since, charged by the rule the server sends (scoring). */
export function liveScore(now = performance.now()) {
  const g = state.game;
  if (!g) return { seconds: 0, score: 0 };
  const c = state.clock;
  const idle = g.rules.idle_limit;
  const seconds = c.seconds + (c.running ? Math.min(idle, (now - c.at) / 1000) : 0);
  const sc = g.score;
  if (sc.final !== null && sc.final !== undefined) return { seconds, score: sc.final };
  const rule = g.scoring;
  const due = Math.max(0, Math.floor(seconds / rule.period) - sc.periods);
  return { seconds, score: Math.max(0, sc.base - rule.penalty * due) };
}

export function setGame(g) {
  state.game = g;
  state.clock = { seconds: g.score.seconds, at: performance.now(), running: !!g.clock_running && g.status === "playing" };
  if (state.sel) {
    // a source chosen while the answer was on its way stays chosen
    state.sel.cards = cardsAt(state.sel.place, state.sel.count || 1);
    if (!state.sel.cards.length) state.sel = null;
  }
}
