// The live page: the board pushed by Server-Sent Events, moves entered by tapping, alerts,
// hints and the game's controls.
"use strict";

(() => {
  const { api, alert, el } = Cupboard;
  const SVG_NS = "http://www.w3.org/2000/svg";
  // journal kinds that raise the banner (and sound and vibration when they are on)
  const ALERT_KINDS = ["illegal", "disagrees", "hidden-mismatch", "pending", "ambiguous", "touch-move",
    "touch-opponent", "board-moved", "camera-lost", "mismatch", "touch", "alert", "doubt"];
  Cupboard.alertKinds = ALERT_KINDS;  // speech.js reads these aloud
  const PENDING_KINDS = ["pending", "ambiguous", "hidden-mismatch"];
  // shown for a moment, silently: "behind" is the board still showing an earlier position,
  // as it does while a move entered by tapping is being made on the board
  // ("resync": the players said the table is set as the game shows it, and the camera watches on)
  const INFO_KINDS = ["restored", "camera-back", "lifted", "behind", "doubt-cleared", "doubt-answered", "resync"];
  const $ = (id) => document.getElementById(id);

  let state = null;          // the latest game state from the server
  let selection = null;      // {size, from: square name or null, colour}
  let menu = null;           // a tap choice whose moves are offered (a stock's drops)
  let families = {};         // the New game dialog's families, by name
  let control = false;
  let hint = null;           // the hint on display, and its move drawn on the board
  let drawn = null;
  let flipped = localStorage.getItem("cupboard-flip") === "1";
  const showPreview = Cupboard.bindPreview($("preview"), $("opt-overlay"));

  // ------------------------------------------------------------------ rendering
  function render(next) {
    const changed = !state || state.game !== next.game || state.seq !== next.seq;
    // a new game: the last one's banner (a win, an alert) no longer applies to this board
    if (state && state.game !== next.game) $("banner").hidden = true;
    state = next;
    if (changed) {
      selection = null;
      menu = null;
      // a hint is for its position while the game goes on (a resignation ends its use)
      if (hint && (hint.game !== state.game || hint.ply !== state.ply || state.over)) { hint = null; drawn = null; $("hint-panel").hidden = true; }
    }
    const board = $("board");
    board.innerHTML = flipped && state.svg_flipped ? state.svg_flipped : state.svg;
    board.dataset.flipped = flipped ? "1" : "0";
    board.dataset.lifted = state.lifted || "";
    board.dataset.game = state.game;
    board.dataset.seq = state.seq;
    board.dataset.turn = state.turn;
    board.dataset.over = state.over ? "1" : "0";
    const status = $("status");
    status.textContent = state.status;
    status.classList.toggle("over", state.over);
    // what the server says is wrong: a read-only data folder, a full disk, the camera off
    const problems = state.problems || [];
    $("problems").hidden = !problems.length;
    $("problems").textContent = problems.join(" · ");
    const p = state.players, sides = state.sides || {};
    $("players").textContent = `${p.white} (${sides.white}) vs ${p.black} (${sides.black}) · ${state.rules.name}`;
    board.setAttribute("aria-label",
      state.taps ? "The board: tap a part to play" : "The board: tap a piece, then a square");
    // the drawing's options, where the game's drawing has them (hidden pieces, turned round)
    $("show-hidden").closest("label").hidden = !state.hidden_pieces;
    $("flip").closest("label").hidden = !state.svg_flipped;
    renderMoves();
    renderControls();
    renderPending();
    renderReferee();
    if (state.taps) renderOffer(); else drawSelection();
    if (drawn) drawHintMove(drawn);
    // the page's other modules (speech, looking back, the clock…) follow the game through this
    document.dispatchEvent(new CustomEvent("cupboard:state", { detail: state }));
  }

  function renderMoves() {
    const list = $("moves");
    list.replaceChildren();
    for (const m of state.moves) {
      const li = el("li", { class: m.colour, "data-ply": m.ply });
      if (m.colour === state.rules.first) li.append(el("span", { class: "n" }, `${Math.ceil(m.ply / 2)}.`));
      li.append(document.createTextNode(m.text));
      list.append(li);
    }
    if (list.lastChild) { list.lastChild.classList.add("current"); list.scrollTop = list.scrollHeight; }
  }

  function renderControls() {
    $("btn-takeback").disabled = !state.can_take_back;
    $("btn-draw").disabled = state.over || state.can_draw === false;
    $("btn-resign").disabled = state.over || state.can_resign === false;
    for (const colour of ["white", "black"]) {
      const btn = $(`hint-${colour}`);
      const used = state.hints_used[colour] || 0;
      const left = state.hint_limit ? ` (${Math.max(0, state.hint_limit - used)} left)` : "";
      btn.textContent = `Hint ${state.players[colour]}${left}`;
      btn.disabled = state.over || state.turn !== colour || (state.hint_limit && used >= state.hint_limit);
    }
    const cam = state.camera || {};
    $("btn-camera").hidden = !cam.present;
    $("btn-camera").textContent = cam.paused ? "Resume camera" : "Pause camera";
    $("camera-card").hidden = !cam.present;
    $("nav-calibrate").hidden = !cam.present;
    if (cam.present) showPreview();
  }

  // The detection the camera could not settle alone: the candidates to confirm, or dismiss.
  function renderPending() {
    const card = $("pending");
    const p = state.pending;
    renderDoubts(p ? p.doubts || [] : []);
    card.hidden = !p || !p.candidates.length;
    if (card.hidden) {
      if ($("banner").dataset.pending === "1") { $("banner").hidden = true; $("banner").dataset.pending = ""; }
      return;
    }
    $("pending-reason").textContent = p.reason;
    const box = $("pending-candidates");
    box.replaceChildren();
    for (const c of p.candidates) {
      if (control) {
        const b = el("button", { type: "button", class: "primary", "data-index": c.index }, `Confirm ${c.text}`);
        b.addEventListener("click", () => post("/api/camera/confirm", { index: c.index }));
        box.append(b);
      } else {
        box.append(el("span", { "data-index": c.index }, c.text));
      }
    }
  }

  // What the camera referee offers besides its questions (Cups): while the game waits for the
  // table an illegal change left to be put right, that alert and the players' way on; at any
  // time, in the camera card, the players' word that the table is set as the game shows it.
  function renderReferee() {
    const r = state.referee || {};
    const waiting = Boolean(r.resync && r.waiting);
    $("table-wait").hidden = !waiting;
    $("table-wait-reason").textContent = waiting ? r.waiting : "";
    $("resync-menu").hidden = !r.resync;
    if (!r.resync) $("resync-menu").open = false;
  }

  async function resync() {
    const r = await post("/api/camera/resync");
    // the journal's "resync" entry says on every page that the camera watches again
    if (r.ok) $("resync-menu").open = false;
  }

  // Squares the camera keeps misreading: the game goes on around them; the players say
  // whether the game is right there ("show what it is": it is not, and what the camera sees).
  function renderDoubts(doubts) {
    const card = $("doubt");
    const list = $("doubt-list");
    list.replaceChildren();
    card.hidden = !doubts.length;
    for (const d of doubts) {
      const item = el("div", { class: "doubt-item", "data-square": d.square });
      item.append(el("p", { class: "reason" }, d.question));
      const seen = d.denied
        ? `The camera sees ${d.seen_text} on ${d.square} (marked on the board). Put the board back as ` +
          "the game shows it, or take back and tap the moves in."
        : `The camera sees ${d.seen_text} there.`;
      item.append(el("p", { class: "note seen" }, seen));
      if (control) {
        const row = el("div", { class: "row" });
        const yes = el("button", { type: "button", class: "primary", "data-answer": "yes" },
          d.denied ? "The game is right after all" : "Yes, the game is right");
        yes.addEventListener("click", () => post("/api/camera/doubt", { square: d.square, game_is_right: true }));
        row.append(yes);
        if (!d.denied) {
          const no = el("button", { type: "button", "data-answer": "no" }, "No: show what it is");
          no.addEventListener("click", () => post("/api/camera/doubt", { square: d.square, game_is_right: false }));
          row.append(no);
        }
        item.append(row);
      }
      list.append(item);
    }
  }

  function showHealth(h) {
    const rows = [[h.source, `${h.fps} frames/s`, h.fps > 0 ? "good" : "bad"]];
    if (h.paused) rows.push(["referee", "paused", "bad"]);
    else if (!h.referee) rows.push(["referee", "off: calibrate the camera, or tap the moves in", "bad"]);
    else rows.push(["referee", "on", "good"]);
    if (h.board_found !== null && h.board_found !== undefined) rows.push(["board", h.board_found ? "found" : "NOT found", h.board_found ? "good" : "bad"]);
    if (h.seconds_since_stable !== null && h.seconds_since_stable !== undefined) rows.push(["last stable", `${h.seconds_since_stable} s ago`, ""]);
    if (h.frame_ms !== undefined) rows.push(["reading a frame", `${h.frame_ms} ms`, ""]);
    if (h.hand) rows.push(["hand", "over the board", ""]);
    if (h.adaptation) rows.push(["adaptation", h.adaptation.text, h.adaptation.used ? "good" : "bad"]);
    if (h.previews !== undefined) rows.push(["previews open", String(h.previews), ""]);
    if (h.error) rows.push(["problem", h.error, "bad"]);
    const dl = $("health");
    dl.replaceChildren();
    for (const [name, value, cls] of rows) {
      dl.append(el("dt", {}, name), el("dd", cls ? { class: cls } : {}, value));
    }
  }

  // Newest first; an entry already shown (the same game and number) is not shown again, and one
  // read back later (log.js: the past entries, after a reload or a restart) goes in its place.
  function logEvent(event) {
    const game = state ? state.game : "";
    const log = $("log");
    if (log.querySelector(`li[data-game="${game}"][data-seq="${event.seq}"]`)) return false;
    const kind = event.kind === "end" ? "end" : ALERT_KINDS.includes(event.kind) ? "alert" : event.kind;
    const li = el("li", { class: kind, "data-seq": event.seq, "data-game": game }, event.text);
    const older = [...log.children].find((x) => x.dataset.game !== game || Number(x.dataset.seq) < event.seq);
    log.insertBefore(li, older || null);
    while (log.children.length > 60) log.lastChild.remove();
    return true;
  }

  function announce(event, live) {
    if (!logEvent(event)) return;
    document.dispatchEvent(new CustomEvent("cupboard:entry", { detail: { event, live } }));
    if (!live) return;
    if (event.kind === "end") {
      const draw = event.data.result === "1/2-1/2";
      alert(event.text, draw ? "draw" : "win");
    } else if (ALERT_KINDS.includes(event.kind)) {
      const text = PENDING_KINDS.includes(event.kind) && event.data.candidates
        ? `The camera needs you: ${event.text}` : event.text;
      alert(text, "alert");
      $("banner").dataset.pending = PENDING_KINDS.includes(event.kind) ? "1" : "";
    } else if (INFO_KINDS.includes(event.kind)) {
      alert(event.text, "info", false);
    } else if (event.kind === "takeback") {
      alert(event.text, "info", false);
    } else if (event.kind === "start") {
      alert(event.text, "info", false);
    } else if (event.kind === "move" && $("banner").dataset.kind !== "alert") {
      $("banner").hidden = true;
    }
  }

  // ------------------------------------------------------------------ the stream
  function connect() {
    const source = new EventSource("/api/stream");
    const dot = $("conn");
    source.onopen = () => { dot.className = "conn on"; dot.title = "live"; };
    source.onerror = () => { dot.className = "conn off"; dot.title = "reconnecting"; };
    source.addEventListener("state", (e) => render(JSON.parse(e.data)));
    source.addEventListener("game", (e) => {
      const msg = JSON.parse(e.data);
      const live = Boolean(msg.state);
      if (msg.state) render(msg.state);
      announce(msg.event, live || msg.event.kind === "end");
    });
    source.addEventListener("camera", (e) => showHealth(JSON.parse(e.data)));
    // the game's past entries, read back from its journal (log.js), shown as not live
    document.addEventListener("cupboard:past", (e) => {
      if (state && e.detail.game === state.game) for (const event of e.detail.events) announce(event, false);
    });
    source.addEventListener("nogame", () => {
      $("status").textContent = "No game yet: start a new game";
      $("board").replaceChildren();
    });
  }

  // ------------------------------------------------------------------ tapping
  function topOf(square) {
    const g = $("board").querySelector(`g.piece[data-square="${square}"]`);
    return g ? { colour: g.dataset.colour, size: Number(g.dataset.size) } : null;
  }

  function centre(square) {
    const rect = $("board").querySelector(`rect.square[data-square="${square}"]`);
    if (!rect) return null;
    const x = Number(rect.getAttribute("x")), y = Number(rect.getAttribute("y"));
    const w = Number(rect.getAttribute("width"));
    return { x: x + w / 2, y: y + w / 2, w };
  }

  function svgNode(tag, attrs) {
    const node = document.createElementNS(SVG_NS, tag);
    for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
    return node;
  }

  function targets() {
    if (!selection) return [];
    return state.legal.filter((m) => m.size === selection.size && m.from === selection.from);
  }

  function drawSelection() {
    const svg = $("board").querySelector("svg");
    if (!svg || !selection) { $("selection").textContent = ""; return; }
    const sel = selection.from
      ? svg.querySelector(`g.piece[data-square="${selection.from}"]`)
      : svg.querySelector(`g.reserve-piece[data-reserve="${selection.colour}"][data-size="${selection.size}"]`);
    if (sel) sel.classList.add("selected");
    for (const m of targets()) {
      const c = centre(m.to);
      if (c) svg.append(svgNode("circle", { class: "tap-target", "data-square": m.to, cx: c.x, cy: c.y, r: c.w * 0.14 }));
    }
    const where = selection.from ? `from ${selection.from}` : "from the reserve";
    $("selection").textContent = `Size ${selection.size} ${where}: tap a square`;
  }

  function select(next) {
    selection = next;
    render(state);
  }

  async function sendMove(move) {
    selection = null;
    menu = null;
    const r = await api("POST", "/api/game/move", { ...move, game: state.game });
    if (!r.ok) {
      render(state);
      // an illegal move is also announced by the stream to every page; show it here at once
      alert(r.data.error || "the move was refused", r.status === 422 ? "alert" : "warn");
    }
  }
  // the page's other modules (the keyboard's moves) send their moves through the same door
  Cupboard.sendMove = (move) => sendMove(move);

  // ---- games that say what a tap offers (``taps``): a part of the drawing offers one move
  // (played at once) or several (offered as buttons); moves offered beside the drawing (a
  // forced pass) are always shown.  The referee answers an illegal one with its rule.
  function renderOffer() {
    const box = $("offer");
    box.replaceChildren();
    // a forced pass is announced to everyone; only a player's page offers the moves
    const aside = !state.over ? state.taps.filter((c) => !c.selector) : [];
    const shown = menu ? [menu, ...aside] : aside;
    for (const choice of shown) {
      if (choice.note) box.append(el("p", { class: "note" }, choice.note));
      if (!control) continue;
      const row = el("div", { class: "row offer-moves" });
      for (const m of choice.moves) {
        const legal = state.legal.some((x) => x.text === m.text);
        const b = el("button", { type: "button", "data-move": m.text, class: legal ? "primary" : "illegal" }, m.label);
        b.addEventListener("click", () => sendMove({ move: m.text, tapped: true }));
        row.append(b);
      }
      if (choice === menu) {
        const cancel = el("button", { type: "button", class: "cancel" }, "Cancel");
        cancel.addEventListener("click", () => { menu = null; render(state); });
        row.append(cancel);
      }
      box.append(row);
    }
    box.hidden = !shown.length;
    if (menu) {
      const part = $("board").querySelector(menu.selector);
      if (part) part.classList.add("selected");
    }
    $("selection").textContent = menu ? "Choose the move" : "";
  }

  function onPartTap(event) {
    const choice = state.taps.find((c) => c.selector && event.target.closest(c.selector));
    if (!choice) {
      const aside = state.taps.find((c) => !c.selector);
      $("selection").textContent = aside ? aside.note : `Tap one of ${state.players[state.turn]}'s parts of the board`;
      return;
    }
    if (choice.moves.length === 1) { menu = null; sendMove({ move: choice.moves[0].text, tapped: true }); return; }
    menu = menu === choice ? null : choice;
    render(state);
  }

  function onTap(event) {
    if (!state || !control) return;
    if (state.taps) {
      if (state.over) { alert("The game is over: take back or start a new game", "info", false); return; }
      onPartTap(event);
      return;
    }
    const target = event.target.closest("[data-square], [data-reserve]");
    if (!target) return;
    if (state.over) { alert("The game is over: take back or start a new game", "info", false); return; }
    if (target.dataset.reserve) {
      const colour = target.dataset.reserve;
      if (colour !== state.turn) { alert(`It is ${state.players[state.turn]}'s turn`, "warn", false); return; }
      const size = Number(target.dataset.size);
      if (selection && selection.from === null && selection.size === size) { select(null); return; }
      select({ size, from: null, colour });
      return;
    }
    const square = target.dataset.square;
    const top = topOf(square);
    if (selection) {
      if (selection.from === square) { select(null); return; }
      const legal = targets().find((m) => m.to === square);
      if (legal) { sendMove({ size: legal.size, from: legal.from, to: legal.to }); return; }
      if (top && top.colour === state.turn && selection.from !== null) { select({ size: top.size, from: square, colour: top.colour }); return; }
      sendMove({ size: selection.size, from: selection.from, to: square });  // the referee says why not
      return;
    }
    if (top && top.colour === state.turn) { select({ size: top.size, from: square, colour: top.colour }); return; }
    $("selection").textContent = `Tap one of ${state.players[state.turn]}'s pieces`;
  }

  // ------------------------------------------------------------------ hints
  function drawHintPart(move) {
    // the part of the drawing whose tap offers the hinted move is outlined
    const svg = $("board").querySelector("svg");
    const choice = state.taps.find((c) => c.selector && c.moves.some((m) => m.text === move.text));
    const part = svg && choice ? svg.querySelector(choice.selector) : null;
    if (!part) return;
    const box = part.getBBox();
    const g = svgNode("g", { class: "hint-overlay", "data-hint": move.text });
    g.append(svgNode("rect", { x: box.x - 4, y: box.y - 4, width: box.width + 8, height: box.height + 8, rx: 10,
      fill: "none", stroke: "#2e8b57", "stroke-width": 6, opacity: 0.9 }));
    svg.append(g);
  }

  function drawHintMove(move) {
    if (state.taps) { drawHintPart(move); return; }
    const svg = $("board").querySelector("svg");
    const to = centre(move.to);
    if (!svg || !to) return;
    const g = svgNode("g", { class: "hint-overlay", "data-hint": move.text });
    const colour = "#2e8b57";
    if (move.from) {
      const from = centre(move.from);
      g.append(svgNode("line", { x1: from.x, y1: from.y, x2: to.x, y2: to.y, stroke: colour, "stroke-width": 10, "stroke-dasharray": "14 8", "stroke-linecap": "round", opacity: 0.85 }));
    }
    g.append(svgNode("circle", { cx: to.x, cy: to.y, r: to.w * 0.46, fill: "none", stroke: colour, "stroke-width": 8, opacity: 0.9 }));
    const label = svgNode("text", { x: to.x + to.w * 0.3, y: to.y - to.w * 0.28, "font-size": 26, "font-weight": 700, fill: colour, "text-anchor": "middle" });
    label.textContent = String(move.size);
    g.append(label);
    svg.append(g);
  }

  function showHint(answer) {
    const panel = $("hint-panel");
    panel.replaceChildren();
    if (!answer.move) { panel.textContent = "No move to suggest."; panel.hidden = false; return; }
    const best = el("div", { class: "best" }, `${state.players[answer.colour]}: ${answer.move.text}`);
    panel.append(best);
    const about = [answer.value, answer.reason].filter(Boolean).join(" · ");
    if (about) panel.append(el("div", { class: "why" }, about));
    if (answer.table && answer.table !== "ready") panel.append(el("div", { class: "why" }, answer.table_note));
    if (answer.alternatives.length) {
      const alts = el("div", { class: "alts" });
      for (const move of [answer.move, ...answer.alternatives.slice(0, 5)]) {
        const b = el("button", { type: "button", "data-move": move.text }, move.text + (move.value && move !== answer.move ? ` (${move.value})` : ""));
        b.addEventListener("click", () => { drawn = move; render(state); });
        alts.append(b);
      }
      panel.append(alts);
    }
    panel.hidden = false;
    drawn = answer.move;
    render(state);
  }

  async function askHint(colour) {
    const btn = $(`hint-${colour}`);
    btn.disabled = true;
    const label = btn.textContent;
    btn.textContent = "Thinking…";
    const r = await api("POST", "/api/hint", { colour, level: Number($("hint-level").value), game: state.game });
    btn.textContent = label;
    if (!r.ok) { alert(r.data.error || "no hint", "warn", false); render(state); return; }
    // the answer may be for a newer position than this page has drawn yet (the position
    // changed while the hint was thought out): it is kept until that position has passed
    hint = { game: r.data.game || state.game, ply: r.data.ply ?? state.ply };
    if (hint.game !== state.game || hint.ply < state.ply) { hint = null; return; }
    showHint(r.data);
    document.dispatchEvent(new CustomEvent("cupboard:hint", { detail: r.data }));
  }

  // ------------------------------------------------------------------ controls
  function confirm(text, buttons) {
    const dialog = $("confirm-dialog");
    $("confirm-text").textContent = text;
    const box = $("confirm-buttons");
    box.replaceChildren();
    return new Promise((resolve) => {
      for (const [value, label, primary] of [["", "Cancel", false], ...buttons]) {
        const b = el("button", { value, class: primary ? "primary" : "" }, label);
        box.append(b);
      }
      dialog.addEventListener("close", () => resolve(dialog.returnValue), { once: true });
      dialog.showModal();
    });
  }

  async function post(path, body = {}) {
    const r = await api("POST", path, { ...body, game: state && state.game });
    if (!r.ok) alert(r.data.error || "refused", "warn", false);
    return r;
  }

  // The options of the chosen variant's family (Cups: cups, beans, count-left), and the
  // players' names as that family calls them.
  function showFamilyOptions() {
    const option = $("new-variant").selectedOptions[0];
    const family = families[option ? option.dataset.family : ""] || { options: [], players: ["White", "Black"], pieces: true };
    const box = $("new-options");
    box.replaceChildren();
    for (const o of family.options) {
      const attrs = { name: `opt-${o.name}`, "data-option": o.name, "data-kind": o.kind };
      let input;
      if (o.kind === "bool") {
        input = el("input", { ...attrs, type: "checkbox" });
        input.checked = Boolean(o.default);
      } else {
        input = el("input", { ...attrs, type: "number", min: o.min, max: o.max, placeholder: o.default ?? "" });
        if (o.default !== null && o.default !== undefined) input.value = o.default;
      }
      const label = el("label", { class: o.kind === "bool" ? "switch" : "" });
      if (o.kind === "bool") label.append(input, document.createTextNode(` ${o.label}`));
      else label.append(document.createTextNode(`${o.label} `), input);
      box.append(label);
    }
    box.hidden = !family.options.length;
    const pieces = family.pieces;  // a family played with pieces of two colours (a piece set to choose)
    $("new-set-label").hidden = !pieces;
    const [first, second] = family.players;
    $("label-white").textContent = pieces ? `Light pieces (${first})` : `${first}'s name`;
    $("label-black").textContent = pieces ? `Dark pieces (${second})` : `${second}'s name`;
    $("first-white").textContent = pieces ? ` Light (${first})` : ` ${first}`;
    $("first-black").textContent = pieces ? ` Dark (${second})` : ` ${second}`;
    $("new-form").white.placeholder = first;
    $("new-form").black.placeholder = second;
  }

  function familyOptions() {
    const out = {};
    for (const input of $("new-options").querySelectorAll("input[data-option]")) {
      if (input.dataset.kind === "bool") out[input.dataset.option] = input.checked;
      else if (input.value !== "") out[input.dataset.option] = Number(input.value);
    }
    return out;
  }

  async function fillNewGame() {
    const r = await api("GET", "/api/variants");
    if (!r.ok) return;
    const v = $("new-variant"), s = $("new-set");
    families = Object.fromEntries((r.data.families || []).map((f) => [f.name, f]));
    v.replaceChildren(...r.data.variants.map((x) => el("option", { value: x.token, "data-family": x.family || "" },
      x.board ? `${x.token} (${x.board}×${x.board})` : x.name)));
    s.replaceChildren(...r.data.sets.map((x) => el("option", { value: x }, x)));
    if (state) {
      const preset = state.variant.split("[")[0];
      v.value = [...v.options].some((o) => o.value === state.variant) ? state.variant : preset;
      if (state.tags.Set) s.value = state.tags.Set;
      const f = $("new-form");
      f.white.value = state.players.white;
      f.black.value = state.players.black;
    }
    showFamilyOptions();
  }

  function bindControls() {
    $("board").addEventListener("click", onTap);
    $("show-hidden").addEventListener("change", (e) => $("board").classList.toggle("show-hidden", e.target.checked));
    $("flip").checked = flipped;
    $("flip").addEventListener("change", (e) => {
      flipped = e.target.checked;
      localStorage.setItem("cupboard-flip", flipped ? "1" : "0");
      if (state) render(state);
    });
    // another module (looking back) asks for the live board to be drawn again
    document.addEventListener("cupboard:redraw", () => { if (state) render(state); });
    $("pending-dismiss").addEventListener("click", () => post("/api/camera/dismiss"));
    $("table-wait-resync").addEventListener("click", resync);
    $("resync-any").addEventListener("click", resync);
    $("hint-white").addEventListener("click", () => askHint("white"));
    $("hint-black").addEventListener("click", () => askHint("black"));
    $("btn-takeback").addEventListener("click", () => post("/api/game/takeback"));
    $("btn-draw").addEventListener("click", async () => {
      if (await confirm("Do both players agree to a draw?", [["yes", "Agree to a draw", true]]) === "yes") post("/api/game/draw");
    });
    $("btn-resign").addEventListener("click", async () => {
      const p = state.players;
      const who = await confirm("Who resigns?", [["white", `${p.white} resigns`, false], ["black", `${p.black} resigns`, false]]);
      if (who === "white" || who === "black") post("/api/game/resign", { colour: who });
    });
    $("btn-camera").addEventListener("click", () => post("/api/camera/pause", { paused: !(state.camera && state.camera.paused) }));
    $("btn-new").addEventListener("click", async () => { await fillNewGame(); $("new-dialog").showModal(); });
    $("new-variant").addEventListener("change", showFamilyOptions);
    $("swap-names").addEventListener("click", () => {
      const f = $("new-form");
      [f.white.value, f.black.value] = [f.black.value, f.white.value];
    });
    $("new-dialog").addEventListener("close", async () => {
      if ($("new-dialog").returnValue !== "start") return;
      const f = $("new-form");
      const body = {
        variant: f.variant.value, white: f.white.value || f.white.placeholder || "White",
        black: f.black.value || f.black.placeholder || "Black", first: f.first.value,
        hint_limit: Number(f.hint_limit.value || 0),
      };
      if (!$("new-set-label").hidden) body.set = f.set.value;
      if (Number(f.clock_minutes.value) > 0) {  // a game clock (clock.js draws it)
        body.clock_minutes = Number(f.clock_minutes.value);
        body.clock_increment = Number(f.clock_increment.value || 0);
      }
      const options = familyOptions();
      if (Object.keys(options).length) body.options = options;
      const r = await api("POST", "/api/game/new", body);
      if (!r.ok) alert(r.data.error || "could not start the game", "warn");
    });
  }

  async function start() {
    bindControls();
    connect();
    const who = await Cupboard.whoami();
    control = who.control;
    $("qr").src = "/qr.svg" + (control ? `?token=${encodeURIComponent(Cupboard.token)}` : "");
    $("invite-note").textContent = control
      ? "This code gives control of the game: show it only to the players."
      : "This code opens the game as a spectator.";
    if (state) render(state);
  }

  // the page's other modules (log, clock, speech, history, board access) come in deferred scripts
  // after this one: the stream starts once they are all listening, or they would miss its first state
  if (document.readyState === "complete") start();
  else document.addEventListener("DOMContentLoaded", start, { once: true });
})();
