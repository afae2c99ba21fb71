/* bakers rules pages: lessons open a position at the table; print the reference. */
import { newGame } from "./api.js";

{
  const status = document.getElementById("lesson-status");

  function say(text, error) {
    if (!status) return;
    status.textContent = text || "";
    status.classList.toggle("error", !!error);
  }

  async function startLesson(button) {
    // a practice game: out of the statistics and of the "Continue" list
    const body = { game: button.dataset.game, position: button.dataset.position, autoplay: "off", practice: true };
    button.disabled = true;
    say("Setting up the lesson…");
    const r = await newGame(body);
    button.disabled = false;
    if (!r.ok) {
      say(r.error, true);
      return;
    }
    window.location.href = `/game/${encodeURIComponent(r.data.id)}`;
  }

  document.querySelectorAll(".lesson-go").forEach((b) => b.addEventListener("click", () => startLesson(b)));
  const print = document.getElementById("btn-print");
  if (print) print.addEventListener("click", () => window.print());
}
