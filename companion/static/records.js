// The records page: the list of games (filtered by variant, player, date and demo flag),
// downloads, import, a replay viewer with steps, and for the game on view: renaming its
// players, marking it a demo game, sharing or copying its record, and a picture of its end.
"use strict";

(() => {
  const { api, alert, el } = Cupboard;
  const $ = (id) => document.getElementById(id);
  const DEMO_KEY = "cupboard-records-demo";  // the demo filter, remembered on this device
  let viewing = null;  // {file, index, moves, first (the ply it starts from), ply (moves shown), game}
  let listed = 0;  // the newest list asked for: an older answer arriving late is dropped
  let typing = null;  // the player filter waits for a pause in the typing
  const positions = Cupboard.positions();  // by record, ply and players' names (a rename changes its words)

  // a move's clock note (H:MM:SS.s) as a clock shows it: 4:58, 1:02:05
  function clockWords(text) {
    const m = /^(\d+):(\d\d):(\d\d)/.exec(text);
    if (!m) return text;
    return Number(m[1]) ? `${Number(m[1])}:${m[2]}:${m[3]}` : `${Number(m[2])}:${m[3]}`;
  }

  function resultWords(g) { return g.result === "*" ? "unfinished" : g.result; }

  async function loadList() {
    const query = new URLSearchParams({ demo: $("filter-demo").value });
    if ($("filter-variant").value) query.set("variant", $("filter-variant").value);
    if ($("filter-player").value.trim()) query.set("player", $("filter-player").value.trim());
    if ($("filter-since").value) query.set("since", $("filter-since").value);
    if ($("filter-until").value) query.set("until", $("filter-until").value);
    const asked = ++listed;
    const r = await api("GET", `/api/records?${query}`);
    if (asked !== listed) return;
    const list = $("games");
    list.replaceChildren();
    if (!r.ok) { list.append(el("li", { class: "note" }, r.data.error || "cannot list the records")); return; }
    const pick = $("filter-variant");
    const chosen = pick.value;
    pick.replaceChildren(el("option", { value: "" }, "all"),
      ...r.data.variants.map((v) => el("option", { value: v }, v)));
    if (chosen && !r.data.variants.includes(chosen)) pick.append(el("option", { value: chosen }, chosen));
    pick.value = chosen;
    const note = $("demo-note");
    const hidden = $("filter-demo").value === "0" ? r.data.demo_games : 0;
    note.hidden = !hidden;
    note.textContent = `${hidden} demo game(s) kept apart: choose "demo games" to see them.`;
    const filtered = query.has("variant") || query.has("player") || query.has("since") || query.has("until");
    if (!r.data.games.length) list.append(el("li", { class: "note" }, filtered ? "No game fits these filters." : "No recorded game yet."));
    for (const g of r.data.games) list.append(gameItem(g));
    const broken = $("broken");
    broken.replaceChildren(...r.data.broken.map((b) => el("li", { class: "alert", "data-file": b.file }, b.error)));
  }

  function gameItem(g) {
    const li = el("li", { "data-file": g.file, "data-index": g.index, "data-demo": g.demo ? "1" : "0" });
    li.append(el("span", { class: "who" }, `${g.white} – ${g.black}`));
    const acts = el("span", { class: "acts" });
    const replay = el("button", { type: "button", class: "replay" }, "Replay");
    replay.addEventListener("click", () => openGame(g));
    const download = el("a", { class: "button", href: `/api/records/${encodeURIComponent(g.file)}`, download: g.file }, "Download");
    const remove = el("button", { type: "button", class: "delete control-only" }, "Delete");
    remove.addEventListener("click", () => deleteGame(g));
    const analyse = el("a", { class: "button analyse", href: `/analysis?file=${encodeURIComponent(g.file)}&index=${g.index}` }, "Analyse");
    acts.append(replay, download, analyse, remove);
    li.append(acts);
    const clock = g.clock ? ` · clock ${g.clock}` : "";
    li.append(el("span", { class: "meta" }, `${g.demo ? "demo · " : ""}${g.date} · ${g.variant} · ${resultWords(g)} · ${g.moves} moves${clock}`));
    return li;
  }

  async function deleteGame(g) {
    const what = `${g.white} – ${g.black}${g.date ? ` (${g.date})` : ""}`;
    if (!window.confirm(`Delete the game ${what}? This cannot be undone.`)) return;
    const r = await api("DELETE", `/api/records/${encodeURIComponent(g.file)}/${g.index}`);
    if (!r.ok) { alert(r.data.error || "not deleted", "alert"); return; }
    if (viewing && viewing.file === g.file) { viewing = null; $("viewer").hidden = true; }
    alert(`Deleted ${what}`, "info", false);
    loadList();
  }

  async function openGame(g) {
    const r = await api("GET", `/api/records/${encodeURIComponent(g.file)}/${g.index}`);
    if (!r.ok) { alert(r.data.error, "warn"); return; }
    viewing = { file: g.file, index: g.index, moves: r.data.moves, first: r.data.first, ply: 0, game: g };
    $("viewer").hidden = false;
    showTitle();
    $("rename-white").value = g.white;
    $("rename-black").value = g.black;
    $("mark-demo").checked = g.demo;
    $("copy-text").hidden = true;
    $("step-range").max = String(viewing.moves.length);
    const list = $("replay-moves");
    list.replaceChildren(...viewing.moves.map((text, i) => {
      const li = el("li", { class: i % 2 ? "black" : "white", "data-ply": i + 1 }, text);
      const clk = ((r.data.comments[i] || {}).annotations || {}).clk;  // the mover's clock after it
      if (clk) li.append(el("small", { class: "clk" }, ` ${clockWords(clk)}`));
      li.addEventListener("click", () => show(i + 1));
      return li;
    }));
    await show(viewing.moves.length);
    $("viewer").scrollIntoView({ behavior: "smooth" });
  }

  function showTitle() {
    const g = viewing.game;
    $("viewer-title").textContent = `${g.white} – ${g.black} · ${resultWords(g)}`;
  }

  // the position after ``ply`` moves of the game on view (from the server, or kept)
  function position(ply) {
    const g = viewing.game;
    const path = `/api/records/${encodeURIComponent(viewing.file)}/${viewing.index}/position/${viewing.first + ply}`;
    return positions.get(`${path}|${g.white}|${g.black}`, path);
  }

  async function show(ply) {
    if (!viewing) return;
    ply = Math.max(0, Math.min(viewing.moves.length, ply));
    const pos = await position(ply);
    if (!pos) return;
    viewing.ply = ply;
    $("replay-board").innerHTML = pos.svg;
    $("replay-status").textContent = pos.status;
    $("step-label").textContent = `${ply} / ${pos.total}`;
    $("step-range").value = String(ply);
    for (const li of $("replay-moves").children) li.classList.toggle("current", Number(li.dataset.ply) === ply);
  }

  // ------------------------------------------------------------------ changing a game
  async function change(body) {
    if (!viewing) return null;
    const r = await api("PATCH", `/api/records/${encodeURIComponent(viewing.file)}/${viewing.index}`, body);
    if (!r.ok) { alert(r.data.error || "not changed", "alert"); return null; }
    viewing.file = r.data.file;  // a demo game marked as a real one moves out of the demo folder
    viewing.game = r.data;
    showTitle();
    loadList();
    return r.data;
  }

  async function rename(event) {
    event.preventDefault();
    const done = await change({ white: $("rename-white").value, black: $("rename-black").value });
    if (done) alert(`Renamed: ${done.white} – ${done.black}`, "info", false);
  }

  async function markDemo() {
    const done = await change({ demo: $("mark-demo").checked });
    if (!done) { $("mark-demo").checked = !$("mark-demo").checked; return; }
    alert(done.demo ? "Marked as a demo game" : "Marked as a real game", "info", false);
  }

  // ------------------------------------------------------------------ sharing
  async function recordText() {
    const response = await fetch(`/api/records/${encodeURIComponent(viewing.file)}/${viewing.index}/text`);
    if (!response.ok) {
      let error = "the record cannot be read";
      try { error = (await response.json()).error || error; } catch (err) { /* not JSON */ }
      throw new Error(error);
    }
    return response.text();
  }

  function fileName(ext) {
    return `${viewing.file.replace(/\.gbn$/, "")}${viewing.index ? `-${viewing.index + 1}` : ""}.${ext}`;
  }

  // The Web Share API where the phone has it (a secure page on most phones): the record as a
  // file when the phone shares files, else as text.  Cancelling the sheet is not an error.
  async function share() {
    if (!viewing) return;
    let text;
    try { text = await recordText(); } catch (err) { alert(err.message, "warn"); return; }
    const g = viewing.game;
    const title = `${g.white} – ${g.black} · ${resultWords(g)}`;
    const file = new File([text], fileName("gbn"), { type: "text/plain" });
    try {
      if (navigator.canShare && navigator.canShare({ files: [file] })) await navigator.share({ files: [file], title });
      else await navigator.share({ title, text });
    } catch (err) {
      if (err && err.name === "AbortError") return;
      await copy(text);  // the phone refused the share: the clipboard will do
    }
  }

  // The clipboard where the page may use it (a secure page), else the browser's copy command
  // on the text, else the text shown selected for the player to copy by hand.
  async function copy(given) {
    if (!viewing) return;
    let text = given;
    if (text === undefined) {
      try { text = await recordText(); } catch (err) { alert(err.message, "warn"); return; }
    }
    const box = $("copy-text");
    if (navigator.clipboard && navigator.clipboard.writeText) {
      try {
        await navigator.clipboard.writeText(text);
        box.hidden = true;
        alert("The record is copied: paste it in any app", "info", false);
        return;
      } catch (err) { /* not allowed here: try the copy command */ }
    }
    box.value = text;
    box.hidden = false;
    box.focus();
    box.select();
    let copied = false;
    try { copied = document.execCommand("copy"); } catch (err) { copied = false; }
    alert(copied ? "The record is copied: paste it in any app" : "Select the text below and copy it", "info", false);
  }

  // ------------------------------------------------------------------ picture
  // Drawn in the browser: the final position's drawing (the same SVG the replay shows, hidden
  // pieces left out as on screen) onto a canvas, with the players and the result under it.
  // The phone does the work, so the Pi needs no SVG renderer and spends nothing on it.
  async function picture() {
    if (!viewing) return;
    const end = await position(viewing.moves.length);
    if (!end) return;
    const doc = new DOMParser().parseFromString(end.svg, "image/svg+xml");
    const svg = doc.documentElement;
    if (svg.nodeName !== "svg") { alert("the drawing cannot be read", "warn"); return; }
    for (const node of svg.querySelectorAll(".hidden, .reserve-hidden")) node.remove();
    const width = Number(svg.getAttribute("width")) || 360;
    const height = Number(svg.getAttribute("height")) || 360;
    const blob = new Blob([new XMLSerializer().serializeToString(svg)], { type: "image/svg+xml" });
    const url = URL.createObjectURL(blob);
    try {
      const image = await new Promise((resolve, reject) => {
        const img = new Image();
        img.onload = () => resolve(img);
        img.onerror = () => reject(new Error("the drawing cannot be drawn"));
        img.src = url;
      });
      const scale = 3, caption = 56;
      const canvas = document.createElement("canvas");
      canvas.width = width * scale;
      canvas.height = (height + caption) * scale;
      const ctx = canvas.getContext("2d");
      ctx.scale(scale, scale);
      ctx.fillStyle = "#fbf7ee";
      ctx.fillRect(0, 0, width, height + caption);
      ctx.drawImage(image, 0, 0, width, height);
      const g = viewing.game;
      ctx.fillStyle = "#2b2118";
      ctx.font = "600 16px sans-serif";
      ctx.fillText(`${g.white} – ${g.black} · ${resultWords(g)}`, 10, height + 22, width - 20);
      ctx.font = "13px sans-serif";
      ctx.fillText(`${end.status} · ${g.variant}${g.date ? ` · ${g.date}` : ""}`, 10, height + 44, width - 20);
      const png = await new Promise((resolve) => canvas.toBlob(resolve, "image/png"));
      if (!png) throw new Error("the picture cannot be made");
      const link = el("a", { href: URL.createObjectURL(png), download: fileName("png") });
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 10000);
    } catch (err) {
      alert(err.message, "warn");
    } finally {
      URL.revokeObjectURL(url);
    }
  }

  // ------------------------------------------------------------------ import
  async function importFile(event) {
    event.preventDefault();
    const file = $("import-file").files[0];
    if (!file) { alert("Choose a record file first", "warn", false); return; }
    const form = new FormData();
    form.append("file", file);
    const r = await api("POST", "/api/records", form);
    if (!r.ok) { alert(r.data.error || "import refused", "alert"); return; }
    alert(`Imported ${r.data.games} game(s) as ${r.data.file}`, "info", false);
    $("import-form").reset();
    loadList();
  }

  $("step-first").addEventListener("click", () => show(0));
  $("step-prev").addEventListener("click", () => show(viewing.ply - 1));
  $("step-next").addEventListener("click", () => show(viewing.ply + 1));
  $("step-last").addEventListener("click", () => show(viewing.moves.length));
  $("step-range").addEventListener("input", (e) => show(Number(e.target.value)));
  $("import-form").addEventListener("submit", importFile);
  $("rename-form").addEventListener("submit", rename);
  $("mark-demo").addEventListener("change", markDemo);
  // feature detection: the Share button where the browser has the Web Share API, Copy beside it
  // only where it does not (the clipboard, or the text shown to copy by hand)
  const canShare = typeof navigator.share === "function";
  $("btn-share").hidden = !canShare;
  $("btn-copy").hidden = canShare;
  $("btn-share").addEventListener("click", share);
  $("btn-copy").addEventListener("click", () => copy());
  $("btn-picture").addEventListener("click", picture);
  const storedDemo = localStorage.getItem(DEMO_KEY);
  if (["0", "1", "all"].includes(storedDemo)) $("filter-demo").value = storedDemo;
  $("filter-demo").addEventListener("change", () => { localStorage.setItem(DEMO_KEY, $("filter-demo").value); loadList(); });
  $("filter-variant").addEventListener("change", loadList);
  $("filter-since").addEventListener("change", loadList);
  $("filter-until").addEventListener("change", loadList);
  $("filter-player").addEventListener("input", () => { clearTimeout(typing); typing = setTimeout(loadList, 250); });
  document.addEventListener("keydown", (e) => {
    if (!viewing || e.target.closest("input, textarea, select")) return;
    if (e.key === "ArrowLeft") show(viewing.ply - 1);
    if (e.key === "ArrowRight") show(viewing.ply + 1);
  });
  Cupboard.whoami();
  loadList();
})();
