/* A button that starts a game with the body the server wrote on it: a deal
 * link opened from another site ("Deal it") and "Play this deal" under a
 * shared game. The game starts only on this click, never on page load. */
import { newGame } from "./api.js";

{
  const status = document.getElementById("start-status");

  function say(text, error) {
    if (!status) return;
    status.textContent = text || "";
    status.classList.toggle("error", !!error);
  }

  async function start(button) {
    button.disabled = true;
    say("Dealing…");
    const r = await newGame(JSON.parse(button.dataset.body));
    if (!r.ok) {
      button.disabled = false;
      say(r.error, true);
      return;
    }
    window.location.href = `/game/${encodeURIComponent(r.data.id)}`;
  }

  document.querySelectorAll("button.start-game").forEach((b) => b.addEventListener("click", () => start(b)));
}
