// The board for screen readers and keyboards: the position in words (who is to move, every
// occupied square with its visible piece, the reserves; for Cups every cup's beans), every square
// and reserve slot named and reachable, and moves made with the keyboard: the arrows go round
// the board, Enter (or Space) picks a piece and drops it, Escape lets it go.  What happens is
// said through a polite live region.  Follows the game through live.js's ``cupboard:state``
// event and sends moves through ``Cupboard.sendMove``.
"use strict";

(() => {
  const $ = (id) => document.getElementById(id);
  const board = $("board");
  const description = $("board-description");
  const announcer = $("board-announce");
  if (!board || !description || !announcer) return;

  let state = null;
  let focusKey = null;     // the target the keyboard is on, kept across re-drawings
  let keyboardIn = false;  // the focus was in the board when it was last re-drawn
  let picked = null;       // a piece picked with the keyboard: {size, from, colour, text}
  let lastSeq = null;

  // ------------------------------------------------------------------ words
  function who(colour) {
    const name = state.players[colour];
    const side = (state.sides || {})[colour];
    return side && side.toLowerCase() !== name.toLowerCase() ? `${name} (${side})` : name;
  }
  const owner = (colour) => `${state.players[colour]}'s`;
  const taps = () => Boolean(state && state.taps);
  const playing = () => document.body.classList.contains("control");

  function squareWords(name) {
    const top = board.querySelector(`g.piece[data-square="${name}"]`);
    if (!top) return `${name}: empty`;
    let words = `${name}: ${owner(top.dataset.colour)} ${top.dataset.size}`;
    if (board.classList.contains("show-hidden")) {
      const under = [...board.querySelectorAll(`g.hidden[data-square="${name}"]`)]
        .sort((a, b) => Number(b.dataset.depth) - Number(a.dataset.depth))
        .map((g) => `${owner(g.dataset.colour)} ${g.dataset.size}`);
      if (under.length) words += `, covering ${under.join(", then ")}`;
    }
    return words;
  }

  function reserveWords(colour) {
    const sizes = [...board.querySelectorAll(`g.reserve-piece[data-reserve="${colour}"]`)].map((g) => g.dataset.size);
    const kind = state.rules && state.rules.stacked ? "stacks topped by" : "reserve";
    return sizes.length ? `${who(colour)}'s ${kind}: ${sizes.join(", ")}` : `${who(colour)}'s reserve: empty`;
  }

  function slotWords(g) {
    const colour = g.dataset.reserve;
    const same = board.querySelectorAll(`g.reserve-piece[data-reserve="${colour}"][data-size="${g.dataset.size}"]`).length;
    const stacked = g.dataset.height !== undefined;
    return stacked ? `${owner(colour)} reserve stack, size ${g.dataset.size} on top`
      : `${owner(colour)} reserve: size ${g.dataset.size}, ${same} left`;
  }

  function partWords(part) {
    const player = part.dataset.player;
    const colour = Object.keys(state.sides || {}).find((k) => state.sides[k] === player) || player;
    const whose = state.players[colour] ? owner(colour) : player;
    const beans = Number(part.dataset.beans);
    const count = `${beans} bean${beans === 1 ? "" : "s"}`;
    let words;
    if (part.dataset.cup) words = `${whose} cup ${part.dataset.cup}: ${count}`;
    else if (part.dataset.bowl) words = `${whose} bowl: ${count}`;
    else words = `${whose} stock: ${count}`;
    if (part.dataset.sow) words += ", can be sown";
    else if (part.dataset.move && part.dataset.stock) words += ", drops beans";
    return words;
  }

  // The position as a list of lines: the status, then the board, then the reserves (or, for
  // Cups, each player's cups, bowl and stock).
  function describe() {
    const lines = [state.status];
    if (taps()) {
      for (const player of ["south", "north"]) {
        const parts = [...board.querySelectorAll(`[data-player="${player}"][data-beans]`)]
          .filter((p) => p.matches(".cup, .bowl, .stock"));
        parts.sort((a, b) => (Number(a.dataset.cup) || 99) - (Number(b.dataset.cup) || 99));
        if (parts.length) lines.push(parts.map(partWords).join("; "));
      }
    } else {
      const squares = [...board.querySelectorAll("rect.square")].map((r) => r.dataset.square).sort(squareOrder);
      const full = squares.filter((s) => board.querySelector(`g.piece[data-square="${s}"]`));
      const empty = squares.filter((s) => !full.includes(s));
      lines.push(full.length ? `On the board: ${full.map(squareWords).join("; ")}` : "The board is empty");
      if (full.length && empty.length) lines.push(`Empty: ${empty.join(", ")}`);
      for (const colour of ["white", "black"]) lines.push(reserveWords(colour));
    }
    const last = lastMove(state);
    if (last) lines.push(`Last move: ${last}`);
    return lines;
  }

  // the last move's text, with its player's name
  function lastMove(s) {
    const m = s.moves && s.moves[s.moves.length - 1];
    return m ? `${s.players[m.colour]} ${m.text}` : "";
  }

  // a1, b1, c1, a2, ...: rank by rank from the first
  function squareOrder(a, b) {
    const ra = Number(a.slice(1)), rb = Number(b.slice(1));
    return ra - rb || a.localeCompare(b);
  }

  function say(text) {
    // emptied first, so that saying the same words twice is heard twice
    announcer.textContent = "";
    setTimeout(() => { announcer.textContent = text; }, 30);
  }

  // ------------------------------------------------------------------ targets
  function targets() {
    if (taps()) return [...board.querySelectorAll("svg .cup, svg .stock, svg .bowl")];
    const slots = [...board.querySelectorAll("svg g.reserve-piece")].filter((g) => g.getAttribute("pointer-events") !== "none");
    return [...board.querySelectorAll("svg rect.square"), ...slots];
  }

  function keyOf(node) {
    if (node.matches("rect.square")) return `square:${node.dataset.square}`;
    if (node.matches("g.reserve-piece")) return `reserve:${node.dataset.reserve}:${node.dataset.size}:${node.dataset.height ? node.dataset.index : ""}`;
    return `part:${node.dataset.player}:${node.dataset.cup || ""}:${node.dataset.bowl ? "bowl" : ""}:${node.dataset.stock ? "stock" : ""}`;
  }

  function nameOf(node) {
    if (node.matches("rect.square")) return squareWords(node.dataset.square);
    if (node.matches("g.reserve-piece")) return slotWords(node);
    return partWords(node);
  }

  // Every target named and in the focus order of the board (one tab stop; arrows within).
  function decorate() {
    const all = targets();
    if (!all.length) return;
    let current = all.find((n) => keyOf(n) === focusKey) || all[0];
    for (const node of all) {
      node.setAttribute("tabindex", node === current ? "0" : "-1");
      node.setAttribute("role", "button");
      node.setAttribute("aria-label", nameOf(node));
      node.setAttribute("focusable", "true");
    }
    const svg = board.querySelector("svg");
    svg.setAttribute("role", "group");
    svg.setAttribute("aria-label", "The board");
    widen(svg, all);
    if (picked) {
      const from = picked.from
        ? board.querySelector(`rect.square[data-square="${picked.from}"]`)
        : board.querySelector(`g.reserve-piece[data-reserve="${picked.colour}"][data-size="${picked.size}"]`);
      if (from) from.setAttribute("data-key-picked", "");
    }
    // the drawing was replaced under the keyboard's focus (then on the page's body): give it back
    const lost = !document.activeElement || document.activeElement === document.body;
    if (keyboardIn && focusKey && lost) {
      current = all.find((n) => keyOf(n) === focusKey);
      if (current) { current.setAttribute("data-key-focus", ""); current.focus({ preventScroll: true }); }
    }
  }

  // A board whose targets come out under 44 CSS px at the width the page has (Cups with six
  // or more cups a row on a phone) is drawn wider than its card, which then scrolls sideways
  // inside itself: the page does not, and every cup stays a finger's size.
  const TARGET_PX = 44;
  function widen(svg, all) {
    svg.style.minWidth = "";
    board.classList.remove("wide");
    const smallest = Math.min(...all.map((n) => { const r = n.getBoundingClientRect(); return Math.min(r.width, r.height); }));
    if (!(smallest > 0) || smallest >= TARGET_PX) return;
    const width = svg.getBoundingClientRect().width;
    svg.style.minWidth = `${Math.ceil(width * TARGET_PX / smallest) + 2}px`;
    board.classList.add("wide");
  }

  function centreOf(node) {
    const r = node.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
  }

  // The nearest target in the arrow's direction (the board's squares, then the reserves beside
  // it; a Cups row's cups, bowl and stock), favouring the straight line.
  function neighbour(from, dx, dy) {
    const here = centreOf(from);
    let best = null, bestScore = Infinity;
    for (const node of targets()) {
      if (node === from) continue;
      const c = centreOf(node);
      const along = (c.x - here.x) * dx + (c.y - here.y) * dy;
      if (along <= 1) continue;
      const across = Math.abs((c.x - here.x) * dy) + Math.abs((c.y - here.y) * dx);
      const score = along + 2.5 * across;
      if (score < bestScore) { best = node; bestScore = score; }
    }
    return best;
  }

  function moveFocus(node) {
    if (!node) return;
    for (const n of board.querySelectorAll("[data-key-focus]")) n.removeAttribute("data-key-focus");
    for (const n of targets()) n.setAttribute("tabindex", n === node ? "0" : "-1");
    focusKey = keyOf(node);
    node.setAttribute("data-key-focus", "");
    node.focus({ preventScroll: true });
  }

  // ------------------------------------------------------------------ moves
  function pick(node) {
    const turn = state.turn;
    if (node.matches("g.reserve-piece")) {
      if (node.dataset.reserve !== turn) { say(`It is ${who(turn)}'s turn: pick one of their pieces`); return; }
      const size = Number(node.dataset.size);
      picked = { size, from: null, colour: turn, text: `${owner(turn)} ${size} from the reserve` };
    } else {
      const square = node.dataset.square;
      const top = board.querySelector(`g.piece[data-square="${square}"]`);
      if (!top || top.dataset.colour !== turn) {
        say(top ? `${square} holds ${owner(top.dataset.colour)} piece: it is ${who(turn)}'s turn` : `${square} is empty: pick a piece first`);
        return;
      }
      picked = { size: Number(top.dataset.size), from: square, colour: turn, text: `${owner(turn)} ${top.dataset.size} from ${square}` };
    }
    const places = state.legal.filter((m) => m.size === picked.size && m.from === picked.from).map((m) => m.to);
    node.setAttribute("data-key-picked", "");
    say(places.length
      ? `Picked ${picked.text}. It can go to ${places.join(", ")}. Move to a square and press Enter; Escape to cancel.`
      : `Picked ${picked.text}, but it has nowhere to go. Press Escape to cancel.`);
  }

  function drop(node) {
    if (!node.matches("rect.square")) {
      if (node.matches("g.reserve-piece")) { picked = null; clearPicked(); pick(node); }
      return;
    }
    const to = node.dataset.square;
    if (picked.from === to) { cancel(); return; }
    const move = { size: picked.size, from: picked.from, to };
    picked = null;
    clearPicked();
    say(`${who(state.turn)} plays ${move.size} to ${to}`);
    Cupboard.sendMove(move);  // an illegal one is answered by the referee, with its rule
  }

  function clearPicked() {
    for (const n of board.querySelectorAll("[data-key-picked]")) n.removeAttribute("data-key-picked");
  }

  function cancel() {
    if (!picked) return;
    picked = null;
    clearPicked();
    say("Cancelled: no piece picked");
  }

  function activate(node) {
    if (!state) return;
    if (!playing()) { say("Only the players' phones can move: this page follows the game"); return; }
    if (state.over) { say("The game is over: take back or start a new game"); return; }
    if (taps()) {
      const choice = state.taps.find((c) => c.selector && node.matches(c.selector));
      if (!choice) { say(`${nameOf(node)}: nothing to play here`); return; }
      if (choice.moves.length === 1) {
        say(`${who(state.turn)} plays ${choice.moves[0].label || choice.moves[0].text}`);
        Cupboard.sendMove({ move: choice.moves[0].text, tapped: true });
        return;
      }
      // several moves: live.js offers them as buttons under the board, reached next
      node.dispatchEvent(new MouseEvent("click", { bubbles: true }));
      setTimeout(() => {
        const first = document.querySelector("#offer button");
        if (first) first.focus();
        say(`Choose the move: ${choice.moves.map((m) => m.label || m.text).join(", ")}`);
      }, 50);
      return;
    }
    if (picked) drop(node); else pick(node);
  }

  const ARROWS = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };

  board.addEventListener("keydown", (event) => {
    const node = event.target.closest && event.target.closest("[role=button]");
    if (!node || !board.contains(node)) return;
    if (ARROWS[event.key]) {
      event.preventDefault();
      const [dx, dy] = ARROWS[event.key];
      const next = neighbour(node, dx, dy);
      if (next) moveFocus(next);
      return;
    }
    if (event.key === "Enter" || event.key === " ") {
      event.preventDefault();
      activate(node);
    } else if (event.key === "Escape") {
      event.preventDefault();
      cancel();
    }
  });
  let pointing = false;  // the last thing the user did was a tap or a click, not a key
  document.addEventListener("keydown", () => { pointing = false; }, true);
  board.addEventListener("focusin", (event) => {
    const node = event.target.closest && event.target.closest("[role=button]");
    if (node) { focusKey = keyOf(node); keyboardIn = !pointing; }
  });
  // focus gone elsewhere on the page; focus lost with the drawing replaced under it (on every
  // state) is given back in decorate()
  document.addEventListener("focusin", (event) => { if (!board.contains(event.target)) keyboardIn = false; });
  // a tap with a finger or a mouse is not the keyboard's: its pick is forgotten
  board.addEventListener("pointerdown", () => {
    pointing = true;
    keyboardIn = false;
    if (picked) { picked = null; clearPicked(); }
  });

  document.addEventListener("cupboard:state", (event) => {
    const next = event.detail;
    const moved = state && (state.game !== next.game || state.seq !== next.seq);
    if (moved) picked = null;
    state = next;
    board.setAttribute("role", "group");
    board.setAttribute("aria-describedby", "board-description");
    description.replaceChildren(...describe().map((line) => Object.assign(document.createElement("li"), { textContent: line })));
    decorate();
    // a new move, taken back, or the end: said once, for whoever listens
    if (moved && lastSeq !== null) {
      const last = lastMove(next);
      say(`${last ? `Last move: ${last}. ` : ""}${next.status}`);
    }
    lastSeq = next.seq;
  });
})();
