/* Sounds of the table, made on the spot (no audio files). */
import { prefs } from "./dialogs.js";

let audio = null;
export function sound(kind) {
  if (!prefs.sound || (navigator.userActivation && !navigator.userActivation.hasBeenActive)) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const notes = { move: [520], home: [880], refuse: [180], win: [523, 659, 784, 1047] }[kind] || [520];
    notes.forEach((freq, i) => {
      const t = audio.currentTime + i * 0.11;
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.type = kind === "refuse" ? "square" : "triangle";
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.0001, t);
      gain.gain.exponentialRampToValueAtTime(kind === "refuse" ? 0.05 : 0.12, t + 0.005);
      gain.gain.exponentialRampToValueAtTime(0.0001, t + (kind === "win" ? 0.25 : 0.07));
      osc.connect(gain).connect(audio.destination);
      osc.start(t);
      osc.stop(t + 0.3);
    });
  } catch (_e) {
    /* no audio here: play silently */
  }
}
