// Looking back during a live game: tap a move in the list (or step with ◀ ▶ and the arrow keys)
// to see the position after it, drawn by the server as the live board is (flipped when flipped,
// hidden pieces on the toggle); "Back to the game" returns to the live board.  While looking
// back the board is not live: taps on it play nothing, and a move arriving keeps the position
// shown but says that the game moved on.  Once the game is over, a link opens its analysis.
"use strict";

(() => {
  const { el } = Cupboard;
  const $ = (id) => document.getElementById(id);

  let state = null;     // the live state, as live.js last rendered it
  let viewing = null;   // the ply looked at, or null on the live board
  let shown = null;     // the position drawn for ``viewing`` (the server's answer)
  let shownKey = "";    // which game and moves it belongs to
  let liveAtLook = 0;   // the live ply when it was looked at: a later one means the game moved on
  const positions = Cupboard.positions();  // by "game|ply|moves so far"

  const bar = el("section", { id: "lookback", class: "lookback", "aria-live": "polite" });
  const prev = el("button", { type: "button", id: "look-prev", "aria-label": "Previous position" }, "◀");
  const label = el("span", { id: "look-label", class: "look-label" });
  const next = el("button", { type: "button", id: "look-next", "aria-label": "Next position" }, "▶");
  const back = el("button", { type: "button", id: "look-back", class: "primary" }, "Back to the game");
  const analyse = el("a", { id: "analyse-link", class: "button", href: "#" }, "Analyse this game");
  bar.append(prev, label, next, back, analyse);
  bar.hidden = true;

  function firstPly() { return state.moves.length ? state.moves[0].ply - 1 : state.ply; }
  function keyFor(ply) {
    const upTo = state.moves.filter((m) => m.ply <= ply).map((m) => m.text).join(" ");
    return `${state.game}|${ply}|${upTo}`;
  }
  function moveText(ply) {
    const m = state.moves.find((x) => x.ply === ply);
    return m ? `${Math.ceil(ply / 2)}${m.colour === state.rules.first ? "." : "…"} ${m.text}` : "the start";
  }

  function draw() {
    const board = $("board");
    if (viewing === null || !shown) return;
    const flipped = $("flip").checked && shown.svg_flipped;
    board.innerHTML = flipped ? shown.svg_flipped : shown.svg;
    board.dataset.lookback = String(viewing);
    board.dataset.position = shown.position;
    board.closest(".board-wrap").classList.add("looking-back");
  }

  function renderBar() {
    if (!state) return;
    const moves = state.moves.length;
    bar.hidden = !moves && !state.over;
    const live = viewing === null;
    const at = live ? state.ply : viewing;
    prev.disabled = !moves || at <= firstPly();
    next.disabled = live;
    back.hidden = live;
    bar.classList.toggle("active", !live);
    if (live) {
      label.textContent = moves ? "Live board · tap a move to look back" : "";
    } else {
      const movedOn = state.ply !== liveAtLook ? ` · the game has moved on (${state.moves.length} moves)` : "";
      const after = viewing === firstPly() ? "Looking back: the start" : `Looking back: after ${moveText(viewing)}`;
      label.textContent = `${after} · ${shown ? shown.status : ""} (not the live board)${movedOn}`;
    }
    bar.classList.toggle("moved-on", !live && state.ply !== liveAtLook);
    analyse.hidden = !state.over;
    analyse.href = `/analysis?game=${encodeURIComponent(state.game)}`;
    markMoves();
  }

  // The move list (rebuilt by live.js at each state): every move can be tapped or chosen with
  // the keyboard; the one looked at is marked.
  function markMoves() {
    for (const li of $("moves").querySelectorAll("li[data-ply]")) {
      const ply = Number(li.dataset.ply);
      li.tabIndex = 0;
      li.setAttribute("role", "button");
      li.setAttribute("aria-label", `Look at the position after ${moveText(ply)}`);
      li.classList.toggle("viewing", viewing === ply);
      li.setAttribute("aria-current", viewing === ply ? "true" : "false");
    }
  }

  async function look(ply) {
    if (!state) return;
    if (ply >= state.ply) { leave(); return; }
    ply = Math.max(firstPly(), ply);
    const key = keyFor(ply);
    const answer = await positions.get(key, `/api/game/position?ply=${ply}&game=${encodeURIComponent(state.game)}`);
    if (!answer) return;
    viewing = ply;
    shown = answer;
    shownKey = key;
    liveAtLook = state.ply;
    draw();
    renderBar();
  }

  function forget() {
    positions.cancel();
    viewing = null;
    shown = null;
    shownKey = "";
    const board = $("board");
    delete board.dataset.lookback;
    delete board.dataset.position;
    board.closest(".board-wrap").classList.remove("looking-back");
  }

  function leave() {
    if (viewing === null) { positions.cancel(); return; }
    forget();
    document.dispatchEvent(new CustomEvent("cupboard:redraw"));  // live.js draws the live board again
    renderBar();
  }

  function step(by) {
    if (!state) return;
    const at = viewing === null ? state.ply : viewing;
    look(at + by);
  }

  document.addEventListener("cupboard:state", (e) => {
    const newGame = state && state.game !== e.detail.game;
    state = e.detail;
    if (viewing !== null) {
      // a new game, or the moves up to the position looked at taken back: that position is
      // gone, and live.js has just drawn the live board
      if (newGame || viewing >= state.ply || keyFor(viewing) !== shownKey) forget();
      else draw();  // live.js has just drawn the live board: put the earlier position back
    }
    renderBar();
  });

  function init() {
    const wrap = document.querySelector(".board-wrap");
    wrap.after(bar);
    // while looking back the board is not live: a tap plays nothing (caught before live.js sees it)
    wrap.addEventListener("click", (e) => {
      if (viewing === null) return;
      e.stopPropagation();
      e.preventDefault();
      label.textContent = "This is an earlier position: tap \u201cBack to the game\u201d to play";
      bar.classList.add("nudge");
      setTimeout(() => bar.classList.remove("nudge"), 600);
    }, true);
    $("moves").addEventListener("click", (e) => {
      const li = e.target.closest("li[data-ply]");
      if (li) look(Number(li.dataset.ply));
    });
    $("moves").addEventListener("keydown", (e) => {
      const li = e.target.closest("li[data-ply]");
      if (li && (e.key === "Enter" || e.key === " ")) { e.preventDefault(); look(Number(li.dataset.ply)); }
    });
    prev.addEventListener("click", () => step(-1));
    next.addEventListener("click", () => step(1));
    back.addEventListener("click", leave);
    document.addEventListener("keydown", (e) => {
      if (!state || e.altKey || e.ctrlKey || e.metaKey) return;
      const t = e.target;
      if (t.closest && (t.closest("input, select, textarea, dialog, #board") || t.isContentEditable)) return;
      if (e.key === "ArrowLeft") { e.preventDefault(); step(-1); }
      else if (e.key === "ArrowRight") { e.preventDefault(); step(1); }
      else if (e.key === "Escape" && viewing !== null) leave();
    });
  }

  init();
})();
