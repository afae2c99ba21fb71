/* The table to the player's taste: card size, larger print, table colour,
 * left-handed layout (free cells and foundations swapped), the clock and
 * score hidden, animation speed. Kept in this browser for its player, like
 * the other page preferences; nothing here touches the game. */

export const TASTE_KEY = "bakers.taste";

const reduced = () => window.matchMedia("(prefers-reduced-motion: reduce)").matches;

/** The choices offered, each with its default. */
export const CHOICES = {
  size: ["fit", "smaller"],
  print: ["normal", "large"],
  felt: ["green", "blue", "burgundy", "slate"],
  hand: ["right", "left"],
  clock: ["shown", "hidden"],
  speed: ["normal", "fast", "off"],
};

function read() {
  try {
    return JSON.parse(localStorage.getItem(TASTE_KEY) || "null") || {};
  } catch (_e) {
    return {};
  }
}

/** The player's choices: a saved value where it is one of the choices, else the default
 * (animations off by default for a reduced-motion user). */
export function loadTaste() {
  const saved = read();
  const out = {};
  for (const [name, values] of Object.entries(CHOICES)) {
    const fallback = name === "speed" && reduced() ? "off" : values[0];
    out[name] = values.includes(saved[name]) ? saved[name] : fallback;
  }
  return out;
}

export const taste = loadTaste();

function save() {
  try {
    localStorage.setItem(TASTE_KEY, JSON.stringify(taste));
  } catch (_e) {
    /* private mode: the choices last for this page only */
  }
}

/** Cards drawn at this share of the size that fits the window. */
export const cardScale = () => (taste.size === "smaller" ? 0.85 : 1);
/** Corner indices at this share of their usual size. */
export const printScale = () => (taste.print === "large" ? 1.3 : 1);
/** Whether cards move in animations at all. */
export const motionOn = () => taste.speed !== "off";
/** Animation durations at this share of the usual ones. */
export const speedFactor = () => (taste.speed === "fast" ? 0.5 : 1);

/** Show the choices on the page: classes and data attributes the table's CSS reads. */
export function applyTaste() {
  const b = document.body;
  b.dataset.felt = taste.felt;
  b.classList.toggle("left-handed", taste.hand === "left");
  b.classList.toggle("hide-clock", taste.clock === "hidden");
  b.classList.toggle("large-print", taste.print === "large");
}

/** Fill the settings form's "Your table" fields and keep every change. */
export function attachTaste(form, relayout) {
  for (const [name, value] of Object.entries(taste)) {
    const input = form.elements[`taste-${name}`];
    if (!input) continue;
    if (input.type === "checkbox") input.checked = value === CHOICES[name][1];
    else input.value = value;
  }
  form.addEventListener("change", (e) => {
    const input = e.target;
    if (!input.name || !input.name.startsWith("taste-")) return;
    const name = input.name.slice(6);
    if (!(name in CHOICES)) return;
    const value = input.type === "checkbox" ? CHOICES[name][input.checked ? 1 : 0] : input.value;
    if (!CHOICES[name].includes(value)) return;
    taste[name] = value;
    save();
    applyTaste();
    relayout();
  });
  applyTaste();
}
