// stet review: a face over the review endpoints. It decides nothing: every
// fact and every refusal comes from stet.
"use strict";
const token = document.body.dataset.token;
const $ = (s) => document.querySelector(s);

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else if (k.startsWith("data-")) e.setAttribute(k, v);
    else e[k] = v;
  }
  for (const k of kids) if (k != null) e.append(k);
  return e;
}

async function api(path, params, body) {
  const u = new URL("api/" + path, location.href);
  u.search = "";
  for (const [k, v] of Object.entries(params || {})) if (v !== "" && v != null) u.searchParams.set(k, v);
  const opt = { headers: { "X-Stet-Token": token } };
  if (body) {
    opt.method = "POST";
    opt.headers["Content-Type"] = "application/json";
    opt.body = JSON.stringify(body);
  }
  const r = await fetch(u, opt);
  const data = await r.json();
  if (!r.ok) throw data;
  return data;
}

function counts(f) {
  if (f.dir) return el("span", { class: "counts" }, "directory");
  if (!f.exact) return el("span", { class: "counts", title: "a version is known by hash only" }, "?");
  return el("span", { class: "counts" }, el("span", { class: "add" }, "+" + f.added), " ", el("span", { class: "del" }, "\u2212" + f.removed));
}

function fileRow(f, session, turn) {
  return el("li", { class: "file", "data-path": f.path },
    el("a", { onclick: () => showDiffs(session, turn, f.path) }, f.path),
    counts(f),
    f.from ? el("span", { class: "tag" }, "moved from " + f.from) : null,
    f.created ? el("span", { class: "tag created" }, "created") : null,
    f.deleted ? el("span", { class: "tag deleted" }, "deleted") : null);
}

function diffView(text) {
  const pre = el("pre", { class: "diff" });
  for (const line of text.split("\n")) {
    if (line === "") continue;
    let c = "ctx";
    if (line.startsWith("+++") || line.startsWith("---")) c = "head";
    else if (line.startsWith("+")) c = "add";
    else if (line.startsWith("-")) c = "del";
    else if (line.startsWith("@@")) c = "hunk";
    pre.append(el("span", { class: c }, line));
  }
  return pre;
}

let sessions = [];

async function loadSessions() {
  sessions = await api("sessions");
  const nav = $("#sessions");
  nav.replaceChildren();
  for (const s of sessions) {
    nav.append(el("button", { class: "session", "data-id": s.id, onclick: () => { location.hash = "s=" + encodeURIComponent(s.id); } },
      el("b", {}, s.id), el("br"),
      `${s.turns.length} turns, ${s.receipts} changes, ${s.files.length} files, ${s.refusals} refused`));
  }
}

async function showSession(id, preview) {
  for (const b of document.querySelectorAll(".session")) b.classList.toggle("on", b.dataset.id === id);
  const s = sessions.find((x) => x.id === id);
  const d = $("#detail");
  if (!s) { d.replaceChildren(el("p", { class: "note" }, "No session " + id)); return; }
  const stands = {};
  for (const st of await api("stands", { session: id })) stands[st.receipt] = st;
  d.replaceChildren(
    el("h2", {}, "Session " + s.id),
    el("div", { class: "actions" },
      el("button", { id: "preview-session", onclick: () => previewUndo({ session: id }) }, "Preview undo of this session")),
    el("div", { id: "undo" }),
    el("h3", {}, "Files changed in the session"),
    el("ul", { class: "files session-files" }, ...s.files.map((f) => fileRow(f, id, 0))));
  for (const t of s.turns) {
    const box = el("div", { class: "turn", "data-turn": t.turn },
      el("h3", {}, t.turn ? "Turn " + t.turn : "Before the first turn"),
      t.request ? el("div", { class: "request" }, t.request) : el("div", { class: "note" }, "(no pinned request)"),
      t.inputs && t.inputs.length ? el("div", { class: "inputs" }, "Declared inputs: " + t.inputs.join(", ")) : null,
      el("ul", { class: "files" }, ...t.files.map((f) => fileRow(f, id, t.turn))),
      el("table", { class: "receipts" }, ...t.receipts.map((r) => {
        const st = stands[r.id] || {};
        return el("tr", { class: "receipt", "data-id": r.id },
          el("td", {}, r.id), el("td", {}, r.tool), el("td", {}, r.from ? r.from + " \u2192 " + r.path : r.path),
          el("td", {}, el("span", { class: "tag " + (r.verified ? "verified" : "unverified") }, r.verified ? "verified" : "NOT verified")),
          el("td", {}, el("span", { class: "tag " + (st.state || ""), title: st.message || "" }, st.state === "changed" ? "changed since" : (st.state || "?"))),
          el("td", {}, st.state === "stands" ? el("button", { onclick: () => previewUndo({ receipts: [r.id] }) }, "undo\u2026") : null));
      })),
      t.receipts.length ? el("button", { onclick: () => previewUndo({ session: id, turn: t.turn }) }, "Preview undo of this turn") : null,
      t.refusals ? el("div", { class: "note" }, t.refusals + " refused call(s)") : null);
    d.append(box);
  }
  d.append(el("div", { id: "diffs" }));
  const groups = await api("refusals", { session: id });
  d.append(el("h3", {}, "What the guards stopped"),
    groups.length ? el("div", { id: "refusals" }, ...groups.map((g) => el("div", { class: "refusal", "data-kind": g.kind },
      el("b", {}, g.kind + " (" + g.count + ")"),
      el("ul", {}, ...g.refusals.map((r) => el("li", {}, (r.path ? r.path + ": " : "") + r.message)))))) : el("p", { class: "note" }, "Nothing was refused."));
  if (preview) await previewUndo({ session: id });
}

async function showDiffs(session, turn, path, offset) {
  const box = $("#diffs") || $("#detail").appendChild(el("div", { id: "diffs" }));
  const page = await api("diff", { session, turn: turn || "", path: path || "", offset: offset || 0, limit: 1 });
  box.replaceChildren(el("h3", {}, "Diff" + (turn ? " of turn " + turn : "") + (path ? " of " + path : "")));
  for (const f of page.files) box.append(el("div", { class: "filediff", "data-path": f.path }, el("b", {}, f.path), " ", counts(f), diffView(f.diff)));
  const next = page.offset + page.files.length;
  if (next < page.total) box.append(el("button", { id: "next-file", onclick: () => showDiffs(session, turn, path, next) }, `Next file (${next + 1} of ${page.total})`));
  if (page.offset > 0) box.append(el("button", { onclick: () => showDiffs(session, turn, path, page.offset - 1) }, "Previous file"));
  box.scrollIntoView();
}

async function previewUndo(spec) {
  const box = $("#undo");
  box.replaceChildren(el("p", { class: "note" }, "Checking\u2026"));
  try {
    const res = await api("undo", {}, Object.assign({ dry_run: true }, spec));
    box.replaceChildren(el("div", { id: "preview", class: "box" },
      el("b", {}, res.message),
      ...res.steps.map((s) => el("div", { class: "step", "data-receipt": s.receipt }, s.receipt + " " + s.tool + " " + s.path, diffView(s.diff))),
      res.skipped.length ? el("ul", { class: "skipped" }, ...res.skipped.map((s) => el("li", {}, s.receipt + " " + s.path + ": " + s.reason))) : null,
      res.steps.length ? el("button", { id: "perform", class: "danger", onclick: () => performUndo(spec) }, "Undo these changes") : null));
  } catch (e) {
    box.replaceChildren(el("div", { id: "preview", class: "box refused" }, e.message || e.error || String(e)));
  }
}

async function performUndo(spec) {
  const box = $("#undo");
  try {
    const res = await api("undo", {}, Object.assign({ dry_run: false }, spec));
    await loadSessions();
    await showSession(spec.session || currentSession());
    $("#undo").replaceChildren(el("div", { id: "result", class: "box" }, res.message,
      el("ul", {}, ...res.receipts.map((r) => el("li", { class: "new-receipt", "data-id": r.id }, r.id + " " + r.tool + " " + r.path)))));
  } catch (e) {
    box.replaceChildren(el("div", { id: "result", class: "box refused" }, e.message || e.error || String(e)));
  }
}

function currentSession() {
  return new URLSearchParams(location.hash.slice(1)).get("s") || (sessions[0] && sessions[0].id);
}

async function route() {
  const p = new URLSearchParams(location.hash.slice(1));
  const id = p.get("s");
  if (id) await showSession(id, p.get("preview") === "1");
  if (id && p.get("diff") === "1") await showDiffs(id, +(p.get("turn") || 0), p.get("path") || "");
  document.body.dataset.ready = "1";
}

$("#search").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const q = $("#q").value.trim();
  const paths = await api("search", { q });
  const d = $("#detail");
  d.replaceChildren(el("h2", {}, "Files matching " + q));
  for (const p of paths) {
    const h = await api("history", { path: p });
    d.append(el("h3", {}, p), el("table", { class: "history" }, ...h.map((e) => el("tr", {},
      el("td", {}, e.session), el("td", {}, "turn " + e.turn), el("td", {}, e.id), el("td", {}, e.tool), el("td", {}, counts(e.change)),
      el("td", {}, el("span", { class: "tag " + e.stands.state, title: e.stands.message }, e.stands.state))))));
  }
});

$("#verify-btn").addEventListener("click", async () => {
  const v = $("#verify");
  v.hidden = false;
  const r = await api("verify");
  const rep = r.report;
  v.replaceChildren(el("b", {}, r.ok ? "Journal verified: " : "PROBLEMS FOUND: "),
    `${rep.receipts} receipts, ${rep.lines} lines, ${rep.blobs} blobs`,
    el("ul", {}, ...(rep.problems || []).map((p) => el("li", { class: "refused" }, (p.line ? "line " + p.line + ": " : "") + (p.receipt ? p.receipt + ": " : "") + p.message))));
});

window.addEventListener("hashchange", route);
(async () => {
  const about = await api("about");
  $("#notseen").textContent = about.not_seen;
  await loadSessions();
  await route();
})();
