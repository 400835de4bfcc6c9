// The analysis page: a finished game (?game=ID, the live game; ?file=NAME&index=N, a record)
// replayed move by move with the engine's verdict on each move (best, fine, mistake, blunder),
// its value before and after, and the best move.  The server works the verdicts out in the
// background; the page shows them as they come and never waits on them to draw a position.
"use strict";

(() => {
  const { api, el } = Cupboard;
  const $ = (id) => document.getElementById(id);
  const WORDS = { best: "best", fine: "fine", mistake: "mistake", blunder: "blunder" };
  const SENTENCE = { best: "the best move", fine: "fine", mistake: "a mistake", blunder: "a blunder" };

  let job = null;      // the analysis as last read
  let ply = null;      // the position shown
  const positions = Cupboard.positions();  // by ply

  function source() {
    const q = new URLSearchParams(location.search);
    if (q.get("file")) return { file: q.get("file"), index: Number(q.get("index") || 0) };
    if (q.get("game")) return { game: q.get("game") };
    return null;
  }

  function fullMove(m) {
    const first = job.moves.length ? job.moves[0].colour : "white";
    return `${Math.ceil(m.ply / 2)}${m.colour === first ? "." : "…"} ${m.text}`;
  }

  function describe(m) {
    if (!m.verdict) return `${fullMove(m)}: not judged (${m.problem})`;
    const best = m.verdict === "best" ? "" : `; best was ${m.best} (${m.before})`;
    const exact = m.exact ? "exact" : m.how;
    return `${fullMove(m)} is ${SENTENCE[m.verdict]}: ${job.players[m.colour]} ${m.before} before, ${m.after} after${best} · ${exact}`;
  }

  function renderJob() {
    $("an-title").textContent = `Analysis · ${job.title}`;
    $("an-note").hidden = !job.note && !job.error;
    $("an-note").textContent = job.error || job.note;
    $("an-progress").max = Math.max(1, job.total);
    $("an-progress").value = job.done;
    $("an-count").textContent = job.status === "done" ? `${job.total} moves analysed in ${job.seconds} s`
      : job.status === "failed" ? "the analysis failed" : `analysing… ${job.done} / ${job.total} moves`;
    const sum = $("an-summary");
    sum.replaceChildren();
    for (const colour of ["white", "black"]) {
      const c = job.summary[colour];
      const parts = ["blunder", "mistake", "fine", "best"].map((v) => `${c[v]} ${v}`);
      if (c.unjudged) parts.push(`${c.unjudged} not judged`);
      sum.append(el("li", { "data-colour": colour }, `${job.players[colour]} (${job.names[colour]}): ${parts.join(", ")}`));
    }
    const list = $("an-moves");
    const known = list.children.length;
    for (const m of job.moves.slice(known)) {
      const li = el("li", { "data-ply": m.ply, "data-verdict": m.verdict || "none", class: `verdict-${m.verdict || "none"}`,
        tabindex: 0, role: "button" });
      li.append(el("span", { class: "mv" }, fullMove(m)));
      li.append(el("span", { class: "badge" }, m.verdict ? WORDS[m.verdict] : "not judged"));
      const detail = m.verdict ? `${m.before} → ${m.after}${m.verdict === "best" ? "" : ` · best ${m.best}`}` : m.problem;
      li.append(el("span", { class: "detail" }, detail));
      li.addEventListener("click", () => show(m.ply));
      li.addEventListener("keydown", (e) => { if (e.key === "Enter" || e.key === " ") { e.preventDefault(); show(m.ply); } });
      list.append(li);
    }
    markCurrent();
  }

  function markCurrent() {
    for (const li of $("an-moves").children) li.classList.toggle("current", Number(li.dataset.ply) === ply);
    const m = job && job.moves.find((x) => x.ply === ply);
    $("an-verdict").textContent = m ? describe(m) : (job && ply !== null && ply > job.first + job.done
      ? "This move is not analysed yet" : "");
  }

  async function show(next) {
    if (!job) return;
    next = Math.max(job.first, Math.min(job.first + job.total, next));
    const pos = await positions.get(next, `/api/analysis/${job.id}/position/${next}`);
    if (!pos) return;
    ply = next;
    const board = $("an-board");
    board.innerHTML = pos.svg;
    board.dataset.ply = String(ply);
    board.dataset.position = pos.position;
    $("an-status").textContent = pos.status;
    $("an-step").textContent = `${ply - job.first} / ${job.total}`;
    $("an-hidden").closest("label").hidden = !pos.hidden_pieces;
    markCurrent();
  }

  async function poll() {
    const r = await api("GET", `/api/analysis/${job.id}`);
    if (r.ok) { job = r.data; renderJob(); }
    if (!r.ok || job.status === "queued" || job.status === "running") setTimeout(poll, r.ok ? 400 : 2000);
  }

  async function start() {
    const from = source();
    if (!from) { $("an-title").textContent = "Analysis: open it from a finished game or a record"; return; }
    const r = await api("POST", "/api/analysis", from);
    if (!r.ok) {
      $("an-title").textContent = "Analysis not available";
      $("an-note").hidden = false;
      $("an-note").textContent = r.data.error || "the analysis cannot be started";
      // a live game replaced by a new one is kept in the records, where it can be analysed
      if (from.game && /replaced/.test(r.data.error || "")) $("an-note").append(" · ", el("a", { href: "/records" }, "find it in the records"));
      return;
    }
    job = r.data;
    renderJob();
    show(job.first);
    if (job.status !== "done" && job.status !== "failed") setTimeout(poll, 300);
  }

  $("an-first").addEventListener("click", () => show(job ? job.first : 0));
  $("an-prev").addEventListener("click", () => show(ply - 1));
  $("an-next").addEventListener("click", () => show(ply + 1));
  $("an-last").addEventListener("click", () => show(job ? job.first + job.total : 0));
  $("an-hidden").addEventListener("change", (e) => $("an-board").classList.toggle("show-hidden", e.target.checked));
  document.addEventListener("keydown", (e) => {
    if (!job || e.altKey || e.ctrlKey || e.metaKey || (e.target.closest && e.target.closest("input, select"))) return;
    if (e.key === "ArrowLeft") { e.preventDefault(); show(ply - 1); }
    if (e.key === "ArrowRight") { e.preventDefault(); show(ply + 1); }
  });
  Cupboard.whoami();
  start();
})();
