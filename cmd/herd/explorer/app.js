// The herd explorer: a form for one simulation, run on the server by
// /api/run, whose answer is drawn as a chart and a table. Nothing is
// fetched from anywhere but this server.
"use strict";

const $ = (id) => document.getElementById(id);
const scalarFields = ["clients", "seed", "rate", "arrivals", "warmup", "down", "degraded",
  "degraded-failures", "healthy", "tries", "max-calls", "capacity", "window-offsets"];
const fleetFields = ["clients", "seed", "max-calls", "capacity"];
const overloadFields = ["clients", "seed"]; // its strategies have no settings
let info = null;        // /api/kinds
let guards = [];        // [{kind, params: {name: value}}], outermost first
let inFlight = null;    // the AbortController of the run in progress
let shown = null;       // the scenario whose settings the form shows

function kind(name) { return info.guards.find((k) => k.name === name); }

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

// The backoff fields: a kind, a base and a cap, whose defaults depend on
// the scenario (the outage's retry stage, or the strategies of the others).
function backoffDefaults() {
  if (scenario() === "outage") {
    const m = info.defaults.retry.match(/^([a-z-]+)\(base=([^,]+),cap=([^)]+)\)$/);
    return { kind: m[1], base: m[2], cap: m[3] };
  }
  return { kind: "full", base: info.defaults.base, cap: info.defaults.cap };
}

function scenario() { return $("scenario").value; }

function backoffExpr() {
  const d = backoffDefaults();
  const k = $("backoff").value;
  const args = [];
  if ((info.backoffParams[k] || []).length) {
    const base = $("backoff-base").value.trim(), cap = $("backoff-cap").value.trim();
    const defBase = scenario() === "outage" ? d.base : info.defaults.base;
    const defCap = scenario() === "outage" ? d.cap : info.defaults.cap;
    if (base && base !== defBase) args.push("base=" + base);
    if (cap && cap !== defCap) args.push("cap=" + cap);
  }
  if (scenario() === "outage" && k === "full" && args.length === 0) return "";
  return args.length ? `${k}(${args.join(",")})` : k;
}

function guardExpr() {
  if (guards.length === 0) return "retry";
  return guards.map((g) => {
    const k = kind(g.kind);
    const args = k.params.filter((p) => (g.params[p.name] ?? p.default) !== p.default)
      .map((p) => `${p.name}=${g.params[p.name]}`);
    return args.length ? `${g.kind}(${args.join(",")})` : g.kind;
  }).join("+");
}

// clientsDefault is the fleet size of scenario sc unless the form says
// otherwise.
function clientsDefault(sc) { return sc === "overload" ? info.defaults.overloadClients : info.defaults.clients; }

// query returns the run the form describes, as the query of /api/run
// and of this page: only the settings that apply to the scenario, and of
// those only the ones that differ from their defaults, and the clients.
function query() {
  const q = new URLSearchParams();
  const sc = scenario();
  q.set("scenario", sc);
  const fields = sc === "outage" ? scalarFields.filter((f) => !["max-calls", "capacity"].includes(f))
    : sc === "overload" ? overloadFields
      : fleetFields.filter((f) => sc === "restart" || f !== "capacity");
  for (const f of fields) {
    const v = $(f).value.trim();
    const d = f === "clients" ? clientsDefault(sc) : info.defaults[f];
    if (v !== "" && (v !== d || f === "clients")) q.set(f, v);
  }
  if (sc === "overload") {
    q.set("strategies", $("overload-strategy").value);
  } else if (sc === "outage") {
    q.set("strategies", guardExpr());
    const r = backoffExpr();
    if (r) q.set("retry", r);
  } else {
    q.set("strategies", backoffExpr());
  }
  return q;
}

// showFor shows the settings that apply to the scenario and hides the
// others, whose fields it disables.
function showFor() {
  const sc = scenario(), over = sc === "overload";
  for (const e of document.querySelectorAll(".outage")) e.classList.toggle("hidden", sc !== "outage");
  for (const e of document.querySelectorAll(".fleet")) e.classList.toggle("hidden", sc === "outage" || over);
  for (const e of document.querySelectorAll(".restart")) e.classList.toggle("hidden", sc !== "restart");
  for (const e of document.querySelectorAll(".overload")) e.classList.toggle("hidden", !over);
  for (const e of document.querySelectorAll(".retrying")) e.classList.toggle("hidden", over);
  const params = (info.backoffParams[$("backoff").value] || []).length > 0;
  for (const e of document.querySelectorAll(".param")) e.classList.toggle("hidden", !params);
  for (const e of document.querySelectorAll("#form input, #form select")) e.disabled = e.closest(".hidden") !== null;
  shown = sc;
}

function renderGuards() {
  const box = $("guards");
  box.replaceChildren();
  if (guards.length === 0) box.append(el("p", {}, "No guard: retries alone."));
  guards.forEach((g, i) => {
    const k = kind(g.kind);
    const row = el("div", { class: "guard", "data-kind": g.kind, id: `guard-${i}` }, el("span", { class: "kind", title: k.doc }, g.kind));
    for (const p of k.params) {
      const input = el("input", { id: `guard-${i}-${p.name}`, name: `guard-${i}-${p.name}`, value: g.params[p.name] ?? p.default, title: p.doc });
      input.addEventListener("input", () => { g.params[p.name] = input.value.trim(); });
      row.append(el("label", { title: p.doc }, p.name + " ", input));
    }
    const up = el("button", { type: "button", title: "move outward" }, "↑");
    up.addEventListener("click", () => { if (i > 0) { [guards[i - 1], guards[i]] = [guards[i], guards[i - 1]]; renderGuards(); } });
    const rm = el("button", { type: "button", title: "remove" }, "✕");
    rm.addEventListener("click", () => { guards.splice(i, 1); renderGuards(); });
    row.append(up, rm);
    box.append(row);
  });
}

function newGuard(name) {
  const params = {};
  for (const p of kind(name).params) params[p.name] = p.default;
  return { kind: name, params };
}

// fill sets the form from a run's answer: its settings as the server read
// them, and its guards.
function fill(res) {
  const f = res.form;
  $("scenario").value = f.scenario || "outage";
  const sc = scenario();
  for (const name of scalarFields) $(name).value = f[name] ?? (name === "clients" ? clientsDefault(sc) : info.defaults[name]);
  $("overload-strategy").value = sc === "overload" && f.strategies ? f.strategies : info.defaults.overloadStrategy;
  const d = backoffDefaults();
  const expr = sc === "outage" ? (f.retry || info.defaults.retry) : sc === "overload" ? d.kind : (f.strategies || "full");
  const m = expr.match(/^([a-z-]+)(?:\((.*)\))?$/);
  $("backoff").value = m ? m[1] : d.kind;
  let base = scenario() === "outage" ? d.base : info.defaults.base, cap = scenario() === "outage" ? d.cap : info.defaults.cap;
  for (const a of (m && m[2] ? m[2].split(",") : [])) {
    const [k, v] = a.split("=");
    if (k === "base") base = v;
    if (k === "cap") cap = v;
  }
  $("backoff-base").value = base;
  $("backoff-cap").value = cap;
  guards = (res.guards || []).map((g) => ({ kind: g.kind, params: { ...g.params } }));
  renderGuards();
  showFor();
}

function setStatus(state, text) {
  document.body.dataset.state = state;
  $("status").textContent = text;
}

async function run(q) {
  if (inFlight) inFlight.abort();
  const ctl = new AbortController();
  inFlight = ctl;
  setStatus("running", "running…");
  const started = performance.now();
  let res, body;
  try {
    res = await fetch("api/run?" + q.toString(), { signal: ctl.signal });
    body = await res.json();
  } catch (e) {
    if (ctl.signal.aborted) return;
    setStatus("error", String(e));
    document.body.dataset.runs = Number(document.body.dataset.runs) + 1;
    return;
  }
  if (inFlight !== ctl) return; // a newer run was asked for
  inFlight = null;
  document.body.dataset.runs = Number(document.body.dataset.runs) + 1;
  if (!res.ok) {
    setStatus("error", body.error || res.statusText);
    return;
  }
  fill(body);
  history.replaceState(null, "", "?" + q.toString());
  $("permalink").href = location.href;
  $("command").textContent = body.command;
  drawTable(body.columns, body.cells);
  $("note").textContent = body.note || "";
  drawChart(body.chart);
  setStatus("done", `done in ${((performance.now() - started) / 1000).toFixed(2)} s`);
}

// drawTable writes the row as the command's table does: for outage, its
// load, then its user calls, each as a table of its own.
function drawTable(columns, cells) {
  let cut = columns.indexOf("user_calls");
  if (cut < 0) cut = columns.length;
  const part = (from, to) => el("table", {},
    el("thead", {}, el("tr", {}, ...columns.slice(from, to).map((c) => el("th", { "data-column": c }, c)))),
    el("tbody", {}, el("tr", {}, ...cells.slice(from, to).map((c, i) => el("td", { "data-column": columns[from + i] }, c)))));
  const parts = [part(0, cut)];
  if (cut < columns.length) parts.push(part(cut, columns.length));
  $("table").replaceChildren(...parts);
}

const NS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

// niceStep returns a round step that cuts span into at most n parts.
function niceStep(span, n) {
  const raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

function timeLabel(s) {
  if (s === 0) return "0";
  if (s >= 60 && s % 60 === 0) return `${s / 60}m`;
  if (s >= 1) return `${+s.toFixed(2)}s`;
  return `${+(s * 1000).toFixed(1)}ms`;
}

// drawChart draws the load: for outage, the mean of each bin as a line
// and its busiest window as a band, over the shaded phases, against a
// linear time axis; for overload, its panels (drawOverload); for the
// others, the calls per window against a logarithmic one. The series
// drawn are kept in data-mean and data-peak.
function drawChart(c) {
  if (c.kind === "overload") {
    drawOverload(c);
    return;
  }
  const W = 960, H = 340, L = 52, R = 12, T = 12, B = 38;
  const logX = c.kind !== "outage";
  const xmin = logX ? c.window / 2 : 0;
  const xmax = logX ? Math.max(c.x[c.x.length - 1] || 1, 10 * xmin) : c.phases[c.phases.length - 1];
  const top = Math.max(1.2, ...c.mean, ...(c.peak || [])) * 1.08;
  const sx = (x) => L + (logX ? Math.log(x / xmin) / Math.log(xmax / xmin) : (x - xmin) / (xmax - xmin)) * (W - L - R);
  const sy = (y) => H - B - (y / top) * (H - T - B);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img",
    "data-kind": c.kind, "data-mean": c.mean.join(","), "data-peak": (c.peak || []).join(",") });
  if (!logX) {
    const shades = [[1, "#d7d7d7"], [2, "#eeeeee"]];
    for (const [p, fill] of shades) {
      if (c.phases[p + 1] > c.phases[p]) {
        root.append(svg("rect", { x: sx(c.phases[p]), y: T, width: sx(c.phases[p + 1]) - sx(c.phases[p]), height: H - T - B, fill }));
      }
    }
  }
  // Axes and grid.
  const ystep = niceStep(top, 6);
  for (let y = 0; y <= top; y += ystep) {
    root.append(svg("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), stroke: "#e4e4e4" }),
      svg("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end" }, logX ? String(Math.round(y)) : `${+y.toFixed(2)}×`));
  }
  const xticks = [];
  if (logX) {
    for (let e = Math.floor(Math.log10(xmin)); Math.pow(10, e) <= xmax; e++) if (Math.pow(10, e) >= xmin) xticks.push(Math.pow(10, e));
  } else {
    xticks.push(...timeTicks(xmax));
  }
  for (const x of xticks) {
    root.append(svg("line", { x1: sx(x), x2: sx(x), y1: T, y2: H - B, stroke: "#e4e4e4" }),
      svg("text", { x: sx(x), y: H - B + 16, "text-anchor": "middle" }, timeLabel(x)));
  }
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" },
    logX ? "time since the herd failed (log scale)" : "time since the start (grey: the dependency down; light grey: degraded)"));
  const path = (ys) => c.x.map((x, i) => `${i ? "L" : "M"}${sx(Math.max(x, xmin)).toFixed(1)},${sy(ys[i]).toFixed(1)}`).join("");
  if (c.peak && c.peak.length) {
    const area = path(c.peak) + `L${sx(c.x[c.x.length - 1]).toFixed(1)},${sy(0)}L${sx(c.x[0]).toFixed(1)},${sy(0)}Z`;
    root.append(svg("path", { d: area, fill: "#5b8def", "fill-opacity": "0.25", stroke: "none", class: "peak" }));
  }
  root.append(svg("path", { d: path(c.mean), fill: "none", stroke: "#1f4fbf", "stroke-width": "1.2", class: "mean" }));
  if (!logX) {
    root.append(svg("line", { x1: L, x2: W - R, y1: sy(1), y2: sy(1), stroke: "#555", "stroke-dasharray": "4 3" }));
  }
  $("chart").replaceChildren(root);
  $("chart-title").textContent = c.title;
}

// timeTicks are the round times from 0 to end, ten at most.
function timeTicks(end) {
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].find((s) => end / s <= 10) || 3600;
  const out = [];
  for (let x = 0; x <= end; x += step) out.push(x);
  return out;
}

// yTicks are the labelled values of a panel's axis: round steps, or on a
// logarithmic axis 1, 2 and 5 times the powers of ten, within it.
function yTicks(p) {
  const out = [];
  if (p.log) {
    for (let e = Math.floor(Math.log10(p.min)); Math.pow(10, e) <= p.max; e++) {
      for (const m of [1, 2, 5]) {
        const y = m * Math.pow(10, e);
        if (y >= p.min && y <= p.max) out.push(y);
      }
    }
    return out;
  }
  const step = p.name === "limit" ? Math.max(1, niceStep(p.max - p.min, 4)) : niceStep(p.max - p.min, 4);
  for (let y = p.min; y <= p.max; y += step) out.push(+y.toFixed(6));
  return out;
}

// drawOverload draws the overload chart as the command's does: against
// time over the stages whose load is above their capacity, shaded, a
// panel each for the goodput, the p99 latency (on a logarithmic axis) and
// the fleet's limit, each over its dashed guide per stage. Each panel
// keeps the series it draws in data-x and data-y.
function drawOverload(c) {
  const W = 960, PH = 130, L = 52, R = 12, T = 20, GAP = 30, B = 38;
  const H = T + c.panels.length * (PH + GAP) - GAP + B;
  const end = c.stages.length ? c.stages[c.stages.length - 1].end : 1;
  const sx = (x) => L + (x / end) * (W - L - R);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img", "data-kind": c.kind });
  c.panels.forEach((p, k) => {
    const top = T + k * (PH + GAP), bottom = top + PH;
    const frac = p.log ? (y) => Math.log(Math.max(y, p.min) / p.min) / Math.log(p.max / p.min) : (y) => (y - p.min) / (p.max - p.min);
    const sy = (y) => bottom - Math.min(1, frac(y)) * PH;
    const g = svg("g", { class: "panel", "data-series": p.name, "data-x": p.x.join(","), "data-y": p.y.join(",") });
    for (const st of c.stages) {
      if (st.over) g.append(svg("rect", { x: sx(st.start), y: top, width: sx(st.end) - sx(st.start), height: PH, fill: "#e8e8e8" }));
    }
    for (const y of yTicks(p)) {
      g.append(svg("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), stroke: "#dcdcdc" }),
        svg("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end" }, p.name === "p99" ? `${y}×` : String(y)));
    }
    for (const x of timeTicks(end)) {
      g.append(svg("line", { x1: sx(x), x2: sx(x), y1: top, y2: bottom, stroke: "#dcdcdc" }));
      if (k === c.panels.length - 1) g.append(svg("text", { x: sx(x), y: bottom + 16, "text-anchor": "middle" }, timeLabel(x)));
    }
    c.stages.forEach((st, i) => {
      const v = p.guide[i];
      if (v >= p.min && v <= p.max) {
        g.append(svg("line", { x1: sx(st.start), x2: sx(st.end), y1: sy(v), y2: sy(v), stroke: "#5a5a5a", "stroke-dasharray": "4 3", class: "guide" }));
      }
    });
    if (p.x.length) {
      const d = p.x.map((x, i) => `${i ? "L" : "M"}${sx(x).toFixed(1)},${sy(p.y[i]).toFixed(1)}`).join("");
      g.append(svg("path", { d, fill: "none", stroke: ["#1f4fbf", "#b8401f", "#2a8a3a"][k % 3], "stroke-width": "1.2", class: "series" }));
    }
    g.append(svg("rect", { x: L, y: top, width: W - L - R, height: PH, fill: "none", stroke: "#999" }),
      svg("text", { x: L, y: top - 6 }, p.title));
    root.append(g);
  });
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" },
    "time since the start (grey: the load above the capacity; stages: " + c.stages.map((s) => s.name).join(", ") + ")"));
  $("chart").replaceChildren(root);
  $("chart-title").textContent = c.title;
}

async function main() {
  info = await (await fetch("api/kinds")).json();
  for (const s of info.scenarios) $("scenario").append(el("option", {}, s));
  for (const s of info.overloadStrategies) $("overload-strategy").append(el("option", {}, s));
  $("overload-bound").textContent = String(info.limits.overloadClients);
  for (const b of info.backoffs) $("backoff").append(el("option", {}, b));
  for (const k of info.guards) $("add-guard").append(el("option", { value: k.name, title: k.doc }, k.name));
  for (const [name, expr] of Object.entries(info.presets)) $("preset").append(el("option", { value: name }, `${name}: ${expr}`));
  $("scenario").addEventListener("change", () => {
    const sc = scenario();
    if ((shown === "overload") !== (sc === "overload")) $("clients").value = clientsDefault(sc);
    const d = backoffDefaults();
    $("backoff").value = d.kind; $("backoff-base").value = d.base; $("backoff-cap").value = d.cap;
    showFor();
  });
  $("backoff").addEventListener("change", showFor);
  $("add-guard").addEventListener("change", (e) => {
    if (e.target.value) guards.push(newGuard(e.target.value));
    e.target.value = "";
    renderGuards();
  });
  $("preset").addEventListener("change", async (e) => {
    const name = e.target.value;
    e.target.value = "";
    if (!name) return;
    const expr = info.presets[name];
    guards = expr === "retry" ? [] : expr.split("+").map((t) => {
      const m = t.match(/^([a-z-]+)(?:\((.*)\))?$/);
      const g = newGuard(m[1]);
      for (const a of (m[2] ? m[2].split(",") : [])) { const [k, v] = a.split("="); g.params[k] = v; }
      return g;
    });
    renderGuards();
  });
  $("form").addEventListener("submit", (e) => { e.preventDefault(); run(query()); });
  let q = new URLSearchParams(location.search);
  if (!q.has("scenario")) q = new URLSearchParams({ scenario: info.defaults.scenario, clients: info.defaults.clients, strategies: info.defaults.strategies });
  fill({ form: Object.fromEntries(q), guards: [] });
  await run(q);
}

main();
