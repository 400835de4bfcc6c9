// The records page: the list of games, downloads, import and a replay viewer with steps.
"use strict";

(() => {
  const { api, alert, el } = Cupboard;
  const $ = (id) => document.getElementById(id);
  let viewing = null;  // {file, index, moves, ply}
  let listed = 0;  // the newest list asked for: an older answer arriving late is dropped

  async function loadList() {
    const query = new URLSearchParams({ demo: $("filter-demo").value });
    if ($("filter-variant").value) query.set("variant", $("filter-variant").value);
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
    note.hidden = !(r.data.demo_files && $("filter-demo").value === "0");
    note.textContent = `${r.data.demo_files} demo game(s) kept apart: choose "demo games" to see them.`;
    if (!r.data.games.length) list.append(el("li", { class: "note" }, "No recorded game yet."));
    for (const g of r.data.games) {
      const li = el("li", { "data-file": g.file, "data-index": g.index });
      const result = g.result === "*" ? "unfinished" : g.result;
      li.append(el("span", { class: "who" }, `${g.white} – ${g.black}`));
      const acts = el("span", { class: "acts" });
      const replay = el("button", { type: "button", class: "replay" }, "Replay");
      replay.addEventListener("click", () => openGame(g));
      const download = el("a", { class: "button", href: `/api/records/${encodeURIComponent(g.file)}`, download: g.file }, "Download");
      const remove = el("button", { type: "button", class: "delete control-only" }, "Delete");
      remove.addEventListener("click", () => deleteFile(g.file));
      const analyse = el("a", { class: "button analyse", href: `/analysis?file=${encodeURIComponent(g.file)}&index=${g.index}` }, "Analyse");
      acts.append(replay, download, analyse, remove);
      li.append(acts);
      li.append(el("span", { class: "meta" }, `${g.demo ? "demo · " : ""}${g.date} · ${g.variant} · ${result} · ${g.moves} moves`));
      list.append(li);
    }
    const broken = $("broken");
    broken.replaceChildren(...r.data.broken.map((b) => el("li", { class: "alert" }, b.error)));
  }

  async function deleteFile(file) {
    if (!window.confirm(`Delete the record file ${file}? This cannot be undone.`)) return;
    const r = await api("DELETE", `/api/records/${encodeURIComponent(file)}`);
    if (!r.ok) { alert(r.data.error || "not deleted", "alert"); return; }
    if (viewing && viewing.file === file) { viewing = null; $("viewer").hidden = true; }
    alert(`Deleted ${file}`, "info", false);
    loadList();
  }

  async function openGame(g) {
    const r = await api("GET", `/api/records/${encodeURIComponent(g.file)}/${g.index}`);
    if (!r.ok) { alert(r.data.error, "warn"); return; }
    viewing = { file: g.file, index: g.index, moves: r.data.moves, ply: 0 };
    $("viewer").hidden = false;
    $("viewer-title").textContent = `${g.white} – ${g.black} · ${g.result}`;
    $("step-range").max = String(viewing.moves.length);
    const list = $("replay-moves");
    list.replaceChildren(...viewing.moves.map((text, i) => {
      const li = el("li", { class: i % 2 ? "black" : "white", "data-ply": i + 1 }, text);
      li.addEventListener("click", () => show(i + 1));
      return li;
    }));
    await show(viewing.moves.length);
    $("viewer").scrollIntoView({ behavior: "smooth" });
  }

  async function show(ply) {
    if (!viewing) return;
    ply = Math.max(0, Math.min(viewing.moves.length, ply));
    const r = await api("GET", `/api/records/${encodeURIComponent(viewing.file)}/${viewing.index}/${ply}`);
    if (!r.ok) { alert(r.data.error, "warn"); return; }
    viewing.ply = ply;
    $("replay-board").innerHTML = r.data.svg;
    $("replay-status").textContent = r.data.status;
    $("step-label").textContent = `${ply} / ${r.data.total}`;
    $("step-range").value = String(ply);
    for (const li of $("replay-moves").children) li.classList.toggle("current", Number(li.dataset.ply) === ply);
  }

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
  $("filter-variant").addEventListener("change", loadList);
  $("filter-demo").addEventListener("change", loadList);
  document.addEventListener("keydown", (e) => {
    if (!viewing) return;
    if (e.key === "ArrowLeft") show(viewing.ply - 1);
    if (e.key === "ArrowRight") show(viewing.ply + 1);
  });
  Cupboard.whoami();
  loadList();
})();
