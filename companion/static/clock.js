// The game clocks on the live page.  The server's clocks are the ones that count: the page
// takes their times from each state and from /api/clock (fresh when the page opens, comes back
// to the screen, and every few seconds while a clock runs), and between those it only counts
// the running clock down on screen.
"use strict";

(() => {
  const box = document.getElementById("clocks");
  const note = document.getElementById("clock-note");
  let clock = null;   // the latest clocks from the server
  let at = 0;         // when they arrived (performance.now())
  let game = null;
  let formGame = null;  // the game whose clock the New game dialog was last set to

  function left(side) {
    let seconds = clock[side];
    if (clock.running === side) seconds -= (performance.now() - at) / 1000;
    return Math.max(0, seconds);
  }

  // 1:02:05, 4:58, and tenths in the last ten seconds (9.4); whole seconds round up, so a
  // clock shows 0 only when its time is gone
  function format(seconds) {
    if (seconds < 10) return (Math.floor(seconds * 10) / 10).toFixed(1);
    const whole = Math.ceil(seconds);
    const h = Math.floor(whole / 3600), m = Math.floor((whole % 3600) / 60), s = whole % 60;
    const mm = h ? String(m).padStart(2, "0") : String(m);
    return `${h ? `${h}:` : ""}${mm}:${String(s).padStart(2, "0")}`;
  }

  function draw() {
    if (!clock) return;
    for (const item of box.querySelectorAll(".clock")) {
      const side = item.dataset.side;
      const seconds = left(side);
      item.querySelector(".clock-time").textContent = format(seconds);
      item.classList.toggle("running", clock.running === side);
      item.classList.toggle("low", seconds < 10);
      item.classList.toggle("out", seconds <= 0);
    }
    note.textContent = clock.stopped ? `${clock.words} · ${clock.stopped}` : clock.words;
  }

  function take(next, forGame) {
    clock = next;
    at = performance.now();
    game = forGame;
    draw();
  }

  async function refresh() {
    try {
      const response = await fetch("/api/clock", { headers: { Accept: "application/json" } });
      if (!response.ok) return;
      const body = await response.json();
      if (body.game === game && body.clock) take(body.clock, body.game);
    } catch (err) {
      // the server cannot be reached: the next state brings the clocks
    }
  }

  document.addEventListener("cupboard:state", (e) => {
    const state = e.detail;
    if (state.game !== formGame) {  // a new game: the New game dialog offers its clock again
      formGame = state.game;
      const [seconds, increment] = String(state.tags.TimeControl || "0").split("+");
      const form = document.getElementById("new-form");
      form.clock_minutes.value = String(Number(seconds) / 60 || 0);
      form.clock_increment.value = increment || "0";
    }
    box.hidden = !state.clock;
    if (!state.clock) { clock = null; return; }
    for (const item of box.querySelectorAll(".clock")) {
      item.querySelector(".clock-name").textContent = state.players[item.dataset.side];
    }
    take(state.clock, state.game);
    refresh();  // the state may be older than the clocks (a page that just opened)
  });
  setInterval(draw, 100);
  setInterval(() => { if (clock && clock.running) refresh(); }, 10000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden && clock) refresh(); });
})();
