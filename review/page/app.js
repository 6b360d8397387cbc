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

// plural: "1 turn", "2 turns", "1,024 changes".
function plural(n, word, many) {
  return n.toLocaleString("en-US") + " " + (n === 1 ? word : (many || word + "s"));
}

// ago says how long ago t was, in words.
function ago(t, now) {
  const s = Math.round((now - t) / 1000);
  if (s < 45) return "just now";
  const steps = [[60, "minute"], [3600, "hour"], [86400, "day"], [86400 * 30, "month"], [86400 * 365, "year"]];
  let unit = steps[0];
  for (const st of steps) if (s >= st[0] * 0.9) unit = st;
  return plural(Math.max(1, Math.round(s / unit[0])), unit[1]) + " ago";
}

// when shows a time both ways: how long ago, and the UTC time itself.
function when(iso) {
  const t = new Date(iso);
  if (!iso || isNaN(t) || t.getFullYear() < 2000) return el("span", { class: "when" }, "");
  const abs = t.toISOString().slice(0, 16).replace("T", " ") + " UTC";
  return el("time", { class: "when", dateTime: t.toISOString(), title: abs }, ago(t, Date.now()) + " (" + abs + ")");
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
// fleet: the page is over many machines' journals (stet review --journal):
// undo runs on the machine that holds the files, and the page says how.
let fleet = false;

async function loadSummary() {
  const m = await api("summary");
  const box = $("#summary");
  const stopped = m.refused
    ? el("span", {}, "the guards stopped " + plural(m.refused, "call") + ": ",
      ...m.kinds.map((k, i) => el("span", { class: "kind", "data-kind": k.kind, title: k.kind }, (i ? "; " : "") + k.count.toLocaleString("en-US") + " " + k.words)))
    : el("span", {}, "the guards stopped nothing");
  box.replaceChildren(el("b", {}, plural(m.sessions, "session")), " \u00b7 ",
    plural(m.files, "file") + " changed \u00b7 ",
    el("span", { id: "standing" }, plural(m.changes, "change") + ", " + m.standing.toLocaleString("en-US") + " still standing"), " \u00b7 ", stopped);
  box.hidden = false;
}

async function loadSessions(more) {
  const q = $("#session-q") ? $("#session-q").value.trim() : "";
  const page = await api("sessions", { offset: more ? sessions.length : 0, q });
  sessions = more ? sessions.concat(page) : page;
  const nav = $("#sessions");
  if (!more) nav.replaceChildren();
  const old = $("#more-sessions");
  if (old) old.remove();
  for (const s of page) {
    nav.append(el("button", { class: "session", "data-id": s.id, onclick: () => { location.hash = "s=" + encodeURIComponent(s.id); } },
      s.host ? el("span", { class: "host" }, s.host + " \u00b7 " + s.workspace, el("br")) : null,
      el("b", {}, s.host ? s.session : s.id), el("br"),
      [plural(s.turn_count, "turn"), plural(s.receipts, "change"), plural(s.file_count, "file"), s.refusals.toLocaleString("en-US") + " refused"].join(", "),
      el("br"), when(s.end)));
  }
  // The server sends sessions a page at a time; the summary counts them all.
  if (page.length === 100) nav.append(el("button", { id: "more-sessions", onclick: () => loadSessions(true) }, "More sessions"));
}

async function showSession(id, preview) {
  for (const b of document.querySelectorAll(".session")) b.classList.toggle("on", b.dataset.id === id);
  let s = sessions.find((x) => x.id === id);
  const d = $("#detail");
  if (!s || s.light) {
    try { s = await api("session", { id }); } catch (e) { s = null; }
  }
  if (!s) { d.replaceChildren(el("p", { class: "note" }, "No session " + id)); return; }
  const stands = {};
  for (const st of await api("stands", { session: id })) stands[st.receipt] = st;
  d.replaceChildren(
    el("h2", {}, "Session " + (s.host ? s.session : s.id)),
    s.host ? el("p", { class: "where" }, "on " + s.host + " \u00b7 workspace " + s.workspace + " \u00b7 state " + s.state_dir + " \u00b7 shipped by " + s.shipper) : null,
    el("p", { class: "note" }, "started ", when(s.start), ", last active ", when(s.end)),
    el("div", { class: "actions" },
      el("button", { id: "preview-session", onclick: () => previewUndo({ session: id }) }, fleet ? "How to undo this session\u2026" : "Preview undo of this session")),
    el("div", { id: "undo" }),
    el("h3", {}, "Files changed in the session"),
    el("ul", { class: "files session-files" }, ...s.files.map((f) => fileRow(f, id, 0))));
  for (const t of s.turns) {
    const box = el("div", { class: "turn", "data-turn": t.turn },
      el("h3", {}, t.turn ? "Turn " + t.turn : "Before the first turn", " ", when(t.time)),
      t.request ? el("div", { class: "request" }, t.request) : el("div", { class: "note" }, "(no pinned request)"),
      t.inputs && t.inputs.length ? el("div", { class: "inputs" }, "Declared inputs: " + t.inputs.join(", ")) : null,
      el("ul", { class: "files" }, ...t.files.map((f) => fileRow(f, id, t.turn))),
      el("table", { class: "receipts" }, ...t.receipts.map((r) => {
        const st = stands[r.id] || {};
        return el("tr", { class: "receipt", "data-id": r.id },
          el("td", {}, r.id), el("td", {}, when(r.time)), el("td", {}, r.tool), el("td", {}, r.from ? r.from + " \u2192 " + r.path : r.path),
          el("td", {}, el("span", { class: "tag " + (r.verified ? "verified" : "unverified") }, r.verified ? "verified" : "NOT verified")),
          el("td", {}, el("span", { class: "tag " + (st.state || ""), title: (st.message || "") + (fleet && st.seen ? " (as its host saw it " + st.seen + ")" : "") }, st.state === "changed" ? "changed since" : (st.state || "?"))),
          el("td", {}, st.state === "stands" ? el("button", { onclick: () => previewUndo({ receipts: [r.id] }) }, "undo\u2026") : null));
      })),
      t.receipts.length ? el("button", { onclick: () => previewUndo({ session: id, turn: t.turn }) }, "Preview undo of this turn") : null,
      t.refusals ? el("div", { class: "note" }, plural(t.refusals, "refused call")) : null);
    d.append(box);
  }
  d.append(el("div", { id: "diffs" }));
  const groups = await api("refusals", { session: id });
  d.append(el("h3", {}, "What the guards stopped"),
    groups.length ? el("div", { id: "refusals" }, ...groups.map((g) => refusalGroup(id, g))) : el("p", { class: "note" }, "Nothing was refused."));
  if (preview) await previewUndo({ session: id });
}

// refusalGroup shows one kind's count in words and its first page, with a
// button for the next page: the server never sends them all at once.
function refusalGroup(session, g) {
  const list = el("ul", {});
  const box = el("div", { class: "refusal", "data-kind": g.kind },
    el("b", { title: g.kind }, g.words + " (" + g.count.toLocaleString("en-US") + ")"), list);
  const add = (page) => {
    for (const r of page.refusals) list.append(el("li", {}, when(r.time), " ", (r.path ? r.path + ": " : "") + r.message));
    const shown = page.offset + page.refusals.length;
    const old = box.querySelector(".more");
    if (old) old.remove();
    if (shown < page.count) {
      box.append(el("button", { class: "more", onclick: async () => {
        const next = await api("refusals", { session, kind: g.kind, offset: shown });
        if (next.length) add(next[0]);
      } }, "Show more (" + shown.toLocaleString("en-US") + " of " + g.count.toLocaleString("en-US") + " shown)"));
    }
  };
  add(g);
  return box;
}

// diffSeq numbers the diff requests: only the newest one's answer is shown
// (keys pressed quickly ask for several; answers may come back out of order).
let diffSeq = 0;

async function showDiffs(session, turn, path, offset) {
  const box = $("#diffs") || $("#detail").appendChild(el("div", { id: "diffs" }));
  const mine = ++diffSeq;
  const page = await api("diff", { session, turn: turn || "", path: path || "", offset: offset || 0, limit: 1 });
  if (mine !== diffSeq) return;
  box.replaceChildren(el("h3", {}, "Diff" + (turn ? " of turn " + turn : "") + (path ? " of " + path : "")));
  for (const f of page.files) box.append(el("div", { class: "filediff", "data-path": f.path }, el("b", {}, f.path), " ", counts(f), diffView(f.diff)));
  const next = page.offset + page.files.length;
  if (next < page.total) box.append(el("button", { id: "next-file", onclick: () => showDiffs(session, turn, path, next) }, `Next file (${next + 1} of ${page.total})`));
  if (page.offset > 0) box.append(el("button", { onclick: () => showDiffs(session, turn, path, page.offset - 1) }, "Previous file"));
  box.scrollIntoView();
}

async function previewUndo(spec) {
  const box = $("#undo");
  if (fleet) {
    // Undo runs where the files are: the page names the command.
    try {
      const res = await api("undo", {}, Object.assign({ dry_run: true }, spec));
      const c = res.command;
      box.replaceChildren(el("div", { id: "undo-command", class: "box" },
        el("b", {}, c.message), el("p", {}, "On " + c.host + ", run:"), el("pre", { class: "command" }, c.command)));
    } catch (e) {
      box.replaceChildren(el("div", { id: "preview", class: "box refused" }, e.message || e.error || String(e)));
    }
    return;
  }
  box.replaceChildren(el("p", { class: "note" }, "Checking\u2026"));
  try {
    const res = await api("undo", {}, Object.assign({ dry_run: true }, spec));
    box.replaceChildren(el("div", { id: "preview", class: "box" },
      el("b", {}, res.message),
      ...res.steps.map((s) => el("div", { class: "step", "data-receipt": s.receipt }, s.receipt + " " + s.tool + " " + s.path, diffView(s.diff))),
      res.skipped.length ? el("ul", { class: "skipped" }, ...res.skipped.map((s) => el("li", {}, s.receipt + " " + s.path + ": " + s.reason))) : null,
      res.steps.length ? el("button", { id: "perform", class: "danger", onclick: () => performUndo(spec, res.set) }, "Undo these " + plural(res.steps.length, "change")) : null));
  } catch (e) {
    box.replaceChildren(el("div", { id: "preview", class: "box refused" }, e.message || e.error || String(e)));
  }
}

// performUndo confirms the preview whose set is given: the server undoes
// exactly those receipts, or refuses and sends the new preview.
async function performUndo(spec, set) {
  const box = $("#undo");
  try {
    const res = await api("undo", {}, Object.assign({ dry_run: false, expect: set }, spec));
    await loadSummary();
    await loadSessions();
    await showSession(spec.session || currentSession());
    $("#undo").replaceChildren(el("div", { id: "result", class: "box" }, res.message,
      el("ul", {}, ...res.receipts.map((r) => el("li", { class: "new-receipt", "data-id": r.id }, r.id + " " + r.tool + " " + r.path)))));
  } catch (e) {
    box.replaceChildren(el("div", { id: "result", class: "box refused" }, e.message || e.error || String(e)));
    if (e.preview) {
      await previewUndo(spec);
      $("#undo").prepend(el("div", { id: "result", class: "box refused" }, e.message));
    }
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
    fleet ? `${rep.journals} journals, ${rep.chains} chains, ${rep.lines} lines (${rep.redacted} without their bytes: deny-read), ${rep.blobs} blobs`
      : `${rep.receipts} receipts, ${rep.lines} lines, ${rep.blobs} blobs`,
    el("ul", {}, ...(rep.problems || []).map((p) => el("li", { class: "refused" },
      (p.host ? p.host + " " + p.state_dir + (p.seq ? " seq " + p.seq : "") + ": " : "") + (p.blob ? "blob " + p.blob + ": " : "") +
      (p.line ? "line " + p.line + ": " : "") + (p.receipt ? p.receipt + ": " : "") + (p.message || p.Msg || "")))));
});

// Keys: j / k (or n / p) go to the next or previous file of the session and
// show its diff; the file is marked and scrolled into view.
document.addEventListener("keydown", (ev) => {
  if (ev.target.closest && ev.target.closest("input, textarea") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const step = { j: 1, n: 1, k: -1, p: -1 }[ev.key];
  if (!step) return;
  const links = [...document.querySelectorAll(".session-files .file a")];
  if (!links.length) return;
  const at = links.findIndex((a) => a.parentElement.classList.contains("on"));
  const next = links[Math.min(Math.max(at + step, 0), links.length - 1)];
  for (const a of links) a.parentElement.classList.toggle("on", a === next);
  next.parentElement.scrollIntoView({ block: "nearest" });
  next.click();
  ev.preventDefault();
});

window.addEventListener("hashchange", route);
(async () => {
  const about = await api("about");
  $("#notseen").textContent = about.not_seen;
  fleet = !!about.fleet;
  if (fleet) {
    document.title = "stet review: " + about.where;
    $("#verify-btn").textContent = "Verify every chain";
    const f = el("form", { id: "session-filter" }, el("input", { id: "session-q", type: "search", placeholder: "host, workspace or session\u2026", "aria-label": "filter sessions" }));
    f.addEventListener("submit", (ev) => { ev.preventDefault(); loadSessions(); });
    $("#sessions").before(f);
  }
  await loadSummary();
  await loadSessions();
  await route();
})();
