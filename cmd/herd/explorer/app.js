// The herd explorer: a form for one run, a strategy or several compared,
// on one fleet size or several, over one seed or several, simulated on
// the server by /api/run, whose answer is drawn as a chart and a table.
// Nothing is fetched from anywhere but this server.
"use strict";

const $ = (id) => document.getElementById(id);
const scalarFields = ["tiers", "clients", "runs", "seed", "rate", "arrivals", "warmup", "down", "degraded",
  "degraded-failures", "healthy", "tries", "max-calls", "capacity", "window-offsets", "delay", "delay-stddev",
  "server", "queue", "queue-limit", "drop-expired"];
const outageFields = ["clients", "runs", "seed", "rate", "arrivals", "warmup", "down", "degraded",
  "degraded-failures", "healthy", "tries", "window-offsets", "delay", "delay-stddev"];
const fleetFields = ["clients", "runs", "seed", "max-calls", "capacity", "delay", "delay-stddev"];
const layersFields = ["tiers", "tries", "rate", "warmup", "down", "healthy", "capacity"]; // its flags, not the fleet's
const overloadFields = ["clients", "runs", "seed", "server", "queue", "queue-limit", "drop-expired"]; // its strategies have no settings
const colours = ["#1f4fbf", "#b8401f", "#2a8a3a", "#8a2a8a", "#c48a00", "#008a8a", "#555555", "#d0507a"];
let info = null;        // /api/kinds
let guards = [];        // [{kind, params: {name: value}}], outermost first
let inFlight = null;    // the AbortController of the run in progress
let shown = null;       // the scenario whose settings the form shows
let last = null;        // the answer of the last run shown
let ticker = null;      // the timer of the elapsed time

function kind(name) { return info.guards.find((k) => k.name === name); }

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

function scenario() { return $("scenario").value; }

// The backoff fields: a kind, a base and a cap, whose defaults depend on
// the scenario (the outage's retry stage, or the strategies of the others).
function backoffDefaults() {
  if (scenario() === "outage") {
    const m = info.defaults.retry.match(/^([a-z-]+)\(base=([^,]+),cap=([^)]+)\)$/);
    return { kind: m[1], base: m[2], cap: m[3] };
  }
  return { kind: "full", base: info.defaults.base, cap: info.defaults.cap };
}

function backoffExpr() {
  const d = backoffDefaults();
  const k = $("backoff").value;
  if (scenario() === "pushback") return "full"; // its BackOff changes nothing
  const args = [];
  if ((info.backoffParams[k] || []).length) {
    const base = $("backoff-base").value.trim(), cap = $("backoff-cap").value.trim();
    if (base && base !== d.base) args.push("base=" + base);
    if (cap && cap !== d.cap) args.push("cap=" + cap);
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

// splitTop splits s at each sep outside parentheses.
function splitTop(s, sep) {
  const out = [];
  let depth = 0, from = 0;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === "(") depth++;
    else if (s[i] === ")") depth--;
    else if (s[i] === sep && depth === 0) { out.push(s.slice(from, i)); from = i + 1; }
  }
  out.push(s.slice(from));
  return out.map((x) => x.trim()).filter((x) => x !== "");
}

// parseStack reads a stack expression into guards, presets expanded;
// null if it names something that is not a guard.
function parseStack(expr) {
  const out = [];
  for (const t of splitTop(expr, "+")) {
    const m = t.match(/^([a-z0-9-]+)(?:\((.*)\))?$/);
    if (!m) return null;
    let gs;
    if (info.presets[m[1]] !== undefined && !kind(m[1])) {
      if (info.presets[m[1]] === "retry") { if (m[2]) return null; continue; }
      gs = parseStack(info.presets[m[1]]);
      if (!gs) return null;
    } else if (kind(m[1])) {
      gs = [newGuard(m[1])];
    } else {
      return null;
    }
    for (const a of (m[2] ? splitTop(m[2], ",") : [])) {
      const [k, v] = a.split("=");
      gs[gs.length - 1].params[k.trim()] = (v || "").trim();
    }
    out.push(...gs);
  }
  return out;
}

// clientsDefault is the fleet size of scenario sc unless the form says
// otherwise.
function clientsDefault(sc) { return sc === "overload" ? info.defaults.overloadClients : info.defaults.clients; }

// defaultOf is the default of field f in scenario sc: the layers
// scenario's flags have defaults of their own.
function defaultOf(sc, f) {
  if (f === "clients") return clientsDefault(sc);
  if (sc === "layers" && info.layersDefaults[f] !== undefined) return info.layersDefaults[f];
  return info.defaults[f];
}

// fieldsOf are the scalar fields that apply to scenario sc.
function fieldsOf(sc) {
  if (sc === "outage") return outageFields;
  if (sc === "overload") return overloadFields;
  if (sc === "layers") return layersFields;
  return fleetFields.filter((f) => sc !== "occ" || f !== "capacity");
}

// compareNames are the strategies scenario sc can be compared with.
function compareNames(sc) {
  if (sc === "outage") return Object.keys(info.presets);
  if (sc === "overload") return info.overloadStrategies;
  if (sc === "layers") return info.layersStrategies;
  if (sc === "pushback") return [];
  return info.backoffs;
}

// mainStrategy is the strategy the form's editor describes.
function mainStrategy() {
  const sc = scenario();
  if (sc === "overload") return $("overload-strategy").value;
  if (sc === "layers") return $("layers-strategy").value;
  if (sc === "outage") return guardExpr();
  return backoffExpr();
}

// query returns the run the form describes, as the query of /api/run
// and of this page: only the settings that apply to the scenario, and of
// those only the ones that differ from their defaults, and the clients.
function query() {
  const q = new URLSearchParams();
  const sc = scenario();
  q.set("scenario", sc);
  for (const f of fieldsOf(sc)) {
    const v = $(f).value.trim().replace(/\s*,\s*/g, ",");
    const d = defaultOf(sc, f);
    if (v !== "" && (v !== d || f === "clients")) q.set(f, v);
  }
  const list = [mainStrategy()];
  for (const box of document.querySelectorAll("#compare input:checked")) {
    if (!list.includes(box.value)) list.push(box.value);
  }
  q.set("strategies", list.join(","));
  if (sc === "outage") {
    const r = backoffExpr();
    if (r) q.set("retry", r);
  }
  return q;
}

// showFor shows the settings that apply to the scenario and hides the
// others, whose fields it disables.
function showFor() {
  const sc = scenario(), over = sc === "overload", layers = sc === "layers";
  const show = (sel, on) => { for (const e of document.querySelectorAll(sel)) e.classList.toggle("hidden", !on); };
  show(".outage", sc === "outage");
  show(".fleet", sc !== "outage" && !over && !layers);
  show(".capacity", ["restart", "shed", "pushback", "layers"].includes(sc));
  show(".overload", over);
  show(".retrying", !over);
  show(".network", !over && !layers);
  show(".pushback", sc === "pushback");
  show(".backoff-kind", sc !== "pushback" && !layers);
  if (layers) show(".layers", true); // the settings it shares with outage
  show(".layers-only", layers);
  show(".no-layers", !layers);
  $("capacity-label").textContent = layers ? "server capacity (× the rate, for shed)" : sc === "restart" ? "connections accepted per 10 ms" : "requests served at once";
  $("capacity").step = layers ? "any" : "1"; // a multiple of the rate, such as 1.5
  $("capacity").min = layers ? "0" : "1";
  $("rate-label").textContent = layers ? "user calls per second" : "user calls per client per second";
  $("tries-label").textContent = layers ? "tries per tier" : "tries per user call";
  for (const [f, doc] of Object.entries(info.layersDocs)) if ($(f) && f !== "scenario" && f !== "strategies") $(f).title = layers ? doc : "";
  const params = (info.backoffParams[$("backoff").value] || []).length > 0;
  for (const e of document.querySelectorAll(".param")) if (sc !== "pushback" && !layers) e.classList.toggle("hidden", !params);
  renderCompare();
  for (const e of document.querySelectorAll("#form input, #form select")) e.disabled = e.closest(".hidden") !== null;
  shown = sc;
}

// renderCompare lists the strategies the scenario can be compared with,
// keeping those ticked.
function renderCompare(ticked) {
  const sc = scenario();
  const keep = new Set(ticked || [...document.querySelectorAll("#compare input:checked")].map((b) => b.value));
  const names = compareNames(sc).slice();
  for (const n of keep) if (!names.includes(n)) names.push(n);
  $("compare-set").classList.toggle("hidden", names.length === 0);
  $("compare").replaceChildren(...names.map((n) => {
    const box = el("input", { type: "checkbox", value: n, id: "compare-" + n });
    box.checked = keep.has(n);
    return el("label", { class: "check" }, box, " " + n);
  }));
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
      input.addEventListener("input", () => { g.params[p.name] = input.value.trim(); saveDraft(); });
      row.append(el("label", { title: p.doc }, p.name + " ", input));
    }
    const up = el("button", { type: "button", title: "move outward", "aria-label": `move ${g.kind} outward` }, "↑");
    up.addEventListener("click", () => { if (i > 0) { [guards[i - 1], guards[i]] = [guards[i], guards[i - 1]]; renderGuards(); saveDraft(); } });
    const rm = el("button", { type: "button", title: "remove", "aria-label": `remove ${g.kind}` }, "✕");
    rm.addEventListener("click", () => { guards.splice(i, 1); renderGuards(); saveDraft(); });
    row.append(up, rm);
    box.append(row);
  });
}

function newGuard(name) {
  const params = {};
  for (const p of kind(name).params) params[p.name] = p.default;
  return { kind: name, params };
}

// fill sets the form from a run's settings, as a query holds them: the
// first strategy in the editor, the others ticked for comparison.
function fill(f) {
  $("scenario").value = info.scenarios.includes(f.scenario) ? f.scenario : info.defaults.scenario;
  const sc = scenario();
  for (const name of scalarFields) $(name).value = f[name] ?? defaultOf(sc, name) ?? "";
  const list = splitTop(f.strategies || "", ",");
  const first = list[0];
  $("overload-strategy").value = sc === "overload" && info.overloadStrategies.includes(first) ? first : info.defaults.overloadStrategy;
  $("layers-strategy").value = sc === "layers" && info.layersStrategies.includes(first) ? first : info.layersStrategies[0];
  const d = backoffDefaults();
  const expr = sc === "outage" ? (f.retry || info.defaults.retry) : sc === "overload" ? d.kind : (first || "full");
  const m = expr.match(/^([a-z-]+)(?:\((.*)\))?$/);
  $("backoff").value = m && info.backoffs.includes(m[1]) ? m[1] : d.kind;
  let base = d.base, cap = d.cap;
  for (const a of (m && m[2] ? m[2].split(",") : [])) {
    const [k, v] = a.split("=");
    if (k === "base") base = v;
    if (k === "cap") cap = v;
  }
  $("backoff-base").value = base;
  $("backoff-cap").value = cap;
  if (sc === "outage") guards = (first && parseStack(first)) || (first ? guards : parseStack(info.defaults.strategies) || []);
  renderGuards();
  showFor();
  renderCompare(list.slice(1));
  for (const e of document.querySelectorAll("#form input, #form select")) e.disabled = e.closest(".hidden") !== null;
}

// saveDraft keeps the form's edits for the page's address in the tab's
// session storage, so that a reload shows them again.
function saveDraft() {
  if (!info) return;
  try { sessionStorage.setItem("draft" + location.search, query().toString()); } catch (e) { /* storage off: no draft */ }
}

function takeDraft() {
  try {
    const d = sessionStorage.getItem("draft" + location.search);
    sessionStorage.removeItem("draft" + location.search);
    return d;
  } catch (e) {
    return null;
  }
}

function setStatus(state, text) {
  document.body.dataset.state = state;
  $("status").textContent = text;
}

// clearErrors removes the errors shown at their fields.
function clearErrors() {
  for (const e of document.querySelectorAll(".field-error")) e.remove();
  for (const e of document.querySelectorAll("[aria-invalid]")) { e.removeAttribute("aria-invalid"); e.removeAttribute("aria-describedby"); }
  for (const e of document.querySelectorAll(".invalid")) e.classList.remove("invalid");
}

// showError shows the error of a run at the field it is about, or under
// the Run button.
function showError(body) {
  let target = null;
  const f = body.field;
  if (f === "strategies") {
    const sc = scenario();
    const row = body.guard && document.querySelector(`#guards .guard[data-kind="${body.guard}"]`);
    target = row && (body.setting && row.querySelector(`input[id$="-${body.setting}"]`) || row.querySelector("input")) ||
      (sc === "outage" ? $("add-guard") : sc === "overload" ? $("overload-strategy") : sc === "layers" ? $("layers-strategy") : $("backoff"));
  } else if (f === "retry") {
    target = $("backoff");
  } else if (f && $(f)) {
    target = $(f);
  }
  const msg = el("span", { class: "field-error", id: "error-" + (f || "run"), role: "alert" }, body.error);
  if (target && target.closest(".hidden") === null) {
    target.setAttribute("aria-invalid", "true");
    target.setAttribute("aria-describedby", msg.id);
    (target.closest(".guard") || target.closest("label") || target).classList.add("invalid");
    (target.closest(".guard") || target.closest("label") || target).after(msg);
    target.focus({ preventScroll: false });
  } else {
    $("status").after(msg);
  }
}

async function run(q, opts = {}) {
  if (inFlight) inFlight.abort();
  const ctl = new AbortController();
  inFlight = ctl;
  clearErrors();
  $("result").classList.add("stale");
  const started = performance.now();
  const sims = (q.get("clients") || "1").split(",").length * (q.get("strategies") || "x").split(",").length * Number(q.get("runs") || 1);
  const tick = () => setStatus("running", `running ${sims > 1 ? sims + " simulations" : "…"} ${((performance.now() - started) / 1000).toFixed(1)} s`);
  clearInterval(ticker);
  tick();
  ticker = setInterval(tick, 200);
  $("cancel").hidden = false;
  let res, body;
  try {
    res = await fetch("api/run?" + q.toString(), { signal: ctl.signal });
    body = await res.json();
  } catch (e) {
    if (inFlight !== ctl) return; // a newer run was asked for
    inFlight = null;
    clearInterval(ticker);
    $("cancel").hidden = true;
    document.body.dataset.runs = Number(document.body.dataset.runs) + 1;
    setStatus(ctl.signal.aborted ? "cancelled" : "error", ctl.signal.aborted ? "cancelled" : String(e));
    return;
  }
  if (inFlight !== ctl) return; // a newer run was asked for
  inFlight = null;
  clearInterval(ticker);
  $("cancel").hidden = true;
  document.body.dataset.runs = Number(document.body.dataset.runs) + 1;
  if (!res.ok) {
    setStatus("error", res.status === 400 ? "not run: see the marked setting" : body.error || res.statusText);
    showError(body);
    return;
  }
  const search = "?" + q.toString();
  takeDraft();
  if (opts.push && search !== location.search) history.pushState({}, "", search);
  else if (search !== location.search) history.replaceState({}, "", search);
  fill(Object.fromEntries(q));
  $("permalink").href = location.href;
  $("command").textContent = body.command;
  last = body;
  $("result").classList.remove("stale");
  drawTable(body);
  $("note").textContent = body.note || "";
  drawResult();
  setStatus("done", `done in ${((performance.now() - started) / 1000).toFixed(2)} s`);
}

// label names a row of the result among the others: its strategy, and
// its fleet size when there are several.
function label(body, r) {
  const sizes = new Set(body.rows.map((x) => x.clients)).size;
  const strategies = new Set(body.rows.map((x) => x.strategy)).size;
  if (sizes > 1 && strategies === 1) return `${r.clients} clients`;
  return sizes > 1 ? `${r.strategy}, ${r.clients} clients` : r.strategy;
}

// drawTable writes a line per row of the answer, as the command's table
// does: for outage, its load, then its user calls, each as a table of its
// own. With several runs each number shows the range over them.
function drawTable(body) {
  const columns = body.columns;
  let cut = columns.indexOf("user_calls");
  if (cut < 0) cut = columns.length;
  const part = (from, to) => el("table", {},
    el("thead", {}, el("tr", {}, ...columns.slice(from, to).map((c, i) => el("th", { "data-column": c, scope: "col" }, body.headers[from + i])))),
    el("tbody", {}, ...body.rows.map((r) => el("tr", {}, ...r.cells.slice(from, to).map((c, i) => {
      const k = from + i;
      const td = el("td", { "data-column": columns[k], "data-label": body.headers[k] }, c);
      if (r.low && r.low[k] !== "" && r.low[k] !== r.high[k]) td.append(el("span", { class: "spread" }, ` ${r.low[k]}–${r.high[k]}`));
      return td;
    })))));
  const parts = [part(0, cut)];
  if (cut < columns.length) parts.push(part(cut, columns.length));
  $("table").replaceChildren(...parts);
}

// drawResult draws the chart of the last answer: the rows' series over
// time, overlaid; or, over several fleet sizes, the measure picked
// against the fleet size.
function drawResult() {
  const body = last;
  if (!body) return;
  const sizes = [...new Set(body.rows.map((r) => r.clients))];
  $("metric-box").hidden = sizes.length < 2;
  if (sizes.length > 1) {
    drawSweep(body, sizes);
  } else if (body.chart.kind === "overload") {
    drawOverload(body);
  } else if (body.chart.kind === "layers") {
    drawLayers(body);
  } else {
    drawChart(body);
  }
}

const NS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...children) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const c of children) e.append(c);
  return e;
}

// chartWidth is the width the chart is drawn at: that of its box, so
// that its labels keep their size on a phone.
function chartWidth() { return Math.max(340, Math.min(960, Math.round($("chart").clientWidth || 960))); }

// frame returns the chart's root, with its accessible name and its title.
function frame(W, H, title, attrs) {
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, width: "100%", role: "img", "aria-labelledby": "chart-name",
    xmlns: NS, "font-family": "system-ui, sans-serif", ...attrs });
  root.append(svg("title", { id: "chart-name" }, title), svg("rect", { x: 0, y: 0, width: W, height: H, fill: "#fff" }));
  return root;
}

// legend draws the names of the series, each in its colour, at the top
// of the chart, in as many lines as they need.
function legend(root, names, L, W) {
  if (names.length < 2) return 0;
  const g = svg("g", { class: "legend", "data-names": names.join("|") });
  let x = L, y = 14;
  for (const [i, n] of names.entries()) {
    const w = 22 + 7 * n.length;
    if (x + w > W && x > L) { x = L; y += 16; }
    g.append(svg("rect", { x, y: y - 9, width: 14, height: 4, fill: colours[i % colours.length] }),
      svg("text", { x: x + 18, y }, n));
    x += w + 10;
  }
  root.append(g);
  return y + 8;
}

// yTitle writes a vertical axis title.
function yTitle(root, text, x, y) {
  root.append(svg("text", { x, y, transform: `rotate(-90 ${x} ${y})`, "text-anchor": "middle", class: "axis-title" }, text));
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

// drawChart draws the load of each row: for outage, the mean of each bin
// as a line (and, for one row, its busiest window as a band) over the
// shaded phases, against a linear time axis; for the others, the calls
// per window against a logarithmic one. The series of the first row are
// kept in data-mean and data-peak.
function drawChart(body) {
  const c = body.chart, rows = body.rows;
  const W = chartWidth(), H = Math.round(Math.max(300, W * 0.4)), L = 62, R = 12, B = 42;
  const logX = c.kind !== "outage";
  const names = rows.map((r) => label(body, r));
  const root = frame(W, H, c.title + (rows.length > 1 ? " — " + names.join(", ") : ""),
    { "data-kind": c.kind, "data-mean": c.mean.join(","), "data-peak": (c.peak || []).join(","), "data-rows": rows.length });
  const T = 12 + legend(root, names, L, W - R);
  const xmin = logX ? c.window / 2 : 0;
  const xmax = logX ? Math.max(...rows.map((r) => r.chart.x[r.chart.x.length - 1] || 1), 10 * xmin) : c.phases[c.phases.length - 1];
  const top = Math.max(1.2, ...rows.flatMap((r) => r.chart.mean), ...(rows.length === 1 ? (c.peak || []) : [])) * 1.08;
  const sx = (x) => L + (logX ? Math.log(x / xmin) / Math.log(xmax / xmin) : (x - xmin) / (xmax - xmin)) * (W - L - R);
  const sy = (y) => H - B - (y / top) * (H - T - B);
  if (!logX) {
    for (const [p, fill] of [[1, "#d7d7d7"], [2, "#eeeeee"]]) {
      if (c.phases[p + 1] > c.phases[p]) {
        root.append(svg("rect", { x: sx(c.phases[p]), y: T, width: sx(c.phases[p + 1]) - sx(c.phases[p]), height: H - T - B, fill }));
      }
    }
  }
  const ystep = niceStep(top, 6);
  for (let y = 0; y <= top; y += ystep) {
    root.append(svg("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), stroke: "#e4e4e4" }),
      svg("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end" }, logX ? String(Math.round(y)) : `${+y.toFixed(2)}×`));
  }
  const xticks = [];
  if (logX) {
    for (let e = Math.floor(Math.log10(xmin)); Math.pow(10, e) <= xmax; e++) if (Math.pow(10, e) >= xmin) xticks.push(Math.pow(10, e));
  } else {
    xticks.push(...timeTicks(xmax, W));
  }
  for (const x of xticks) {
    root.append(svg("line", { x1: sx(x), x2: sx(x), y1: T, y2: H - B, stroke: "#e4e4e4" }),
      svg("text", { x: sx(x), y: H - B + 16, "text-anchor": "middle" }, timeLabel(x)));
  }
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title" },
    logX ? "time since the herd failed (log scale)" : W < 600 ? "time (grey: down; light grey: degraded)" : "time since the start (grey: the dependency down; light grey: degraded)"));
  yTitle(root, logX ? "calls per 10 ms window" : "load sent ÷ normal load", 14, (T + H - B) / 2);
  const path = (cx, ys) => cx.map((x, i) => `${i ? "L" : "M"}${sx(Math.max(x, xmin)).toFixed(1)},${sy(ys[i]).toFixed(1)}`).join("");
  if (rows.length === 1 && c.peak && c.peak.length) {
    const area = path(c.x, c.peak) + `L${sx(c.x[c.x.length - 1]).toFixed(1)},${sy(0)}L${sx(Math.max(c.x[0], xmin)).toFixed(1)},${sy(0)}Z`;
    root.append(svg("path", { d: area, fill: "#5b8def", "fill-opacity": "0.25", stroke: "none", class: "peak" }));
  }
  rows.forEach((r, i) => {
    root.append(svg("path", { d: path(r.chart.x, r.chart.mean), fill: "none", stroke: colours[i % colours.length], "stroke-width": "1.4",
      class: "mean", "data-name": names[i] }));
  });
  if (!logX) {
    root.append(svg("line", { x1: L, x2: W - R, y1: sy(1), y2: sy(1), stroke: "#555", "stroke-dasharray": "4 3" }));
  }
  $("chart").replaceChildren(root);
  $("chart-title").textContent = c.title;
}

// timeTicks are the round times from 0 to end, fewer on a narrow chart.
function timeTicks(end, W) {
  const most = W < 600 ? 5 : 10;
  const step = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 1800, 3600].find((s) => end / s <= most) || 3600;
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
// the fleet's limit, each over its dashed guide per stage, a line per
// row. Each panel keeps the first row's series in data-x and data-y.
function drawOverload(body) {
  const c = body.chart, rows = body.rows;
  const W = chartWidth(), PH = W < 600 ? 110 : 130, L = 62, R = 12, GAP = 34, B = 42;
  const names = rows.map((r) => label(body, r));
  const probe = frame(W, 10, "", {});
  const T = 22 + legend(probe, names, L, W - R);
  const H = T + c.panels.length * (PH + GAP) - GAP + B;
  const end = c.stages.length ? c.stages[c.stages.length - 1].end : 1;
  const sx = (x) => L + (x / end) * (W - L - R);
  const root = frame(W, H, c.title + (rows.length > 1 ? " — " + names.join(", ") : ""), { "data-kind": c.kind, "data-rows": rows.length });
  legend(root, names, L, W - R);
  c.panels.forEach((p, k) => {
    const top = T + k * (PH + GAP), bottom = top + PH;
    const lo = Math.min(p.min, ...rows.map((r) => r.chart.panels[k].min)), hi = Math.max(p.max, ...rows.map((r) => r.chart.panels[k].max));
    const frac = p.log ? (y) => Math.log(Math.max(y, lo) / lo) / Math.log(hi / lo) : (y) => (y - lo) / (hi - lo);
    const sy = (y) => bottom - Math.min(1, frac(y)) * PH;
    const g = svg("g", { class: "panel", "data-series": p.name, "data-x": p.x.join(","), "data-y": p.y.join(",") });
    for (const st of c.stages) {
      if (st.over) g.append(svg("rect", { x: sx(st.start), y: top, width: sx(st.end) - sx(st.start), height: PH, fill: "#e8e8e8" }));
    }
    for (const y of yTicks({ ...p, min: lo, max: hi })) {
      g.append(svg("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), stroke: "#dcdcdc" }),
        svg("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end" }, p.name === "p99" ? `${y}×` : String(y)));
    }
    for (const x of timeTicks(end, W)) {
      g.append(svg("line", { x1: sx(x), x2: sx(x), y1: top, y2: bottom, stroke: "#dcdcdc" }));
      if (k === c.panels.length - 1) g.append(svg("text", { x: sx(x), y: bottom + 16, "text-anchor": "middle" }, timeLabel(x)));
    }
    c.stages.forEach((st, i) => {
      const v = p.guide[i];
      if (v >= lo && v <= hi) {
        g.append(svg("line", { x1: sx(st.start), x2: sx(st.end), y1: sy(v), y2: sy(v), stroke: "#5a5a5a", "stroke-dasharray": "4 3", class: "guide" }));
      }
    });
    rows.forEach((r, i) => {
      const q = r.chart.panels[k];
      if (!q.x.length) return;
      const d = q.x.map((x, j) => `${j ? "L" : "M"}${sx(x).toFixed(1)},${sy(q.y[j]).toFixed(1)}`).join("");
      const colour = rows.length > 1 ? colours[i % colours.length] : ["#1f4fbf", "#b8401f", "#2a8a3a"][k % 3];
      g.append(svg("path", { d, fill: "none", stroke: colour, "stroke-width": "1.3", class: "series", "data-name": names[i] }));
    });
    g.append(svg("rect", { x: L, y: top, width: W - L - R, height: PH, fill: "none", stroke: "#999" }),
      svg("text", { x: L, y: top - 6 }, p.title));
    root.append(g);
  });
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title" },
    W < 600 ? "time (grey: load above capacity)" : "time since the start (grey: the load above the capacity; stages: " + c.stages.map((s) => s.name).join(", ") + ")"));
  $("chart").replaceChildren(root);
  $("chart-title").textContent = c.title;
}

// drawSweep draws a measure against the fleet size, on a logarithmic
// axis, a line per strategy, each point the mean of its runs with a bar
// from their least to their greatest.
function drawSweep(body, sizes) {
  const sel = $("metric");
  const numeric = body.columns.filter((c) => !["clients", "runs"].includes(c) && body.rows.every((r) => r.values[c] !== undefined));
  const pick = numeric.includes(sel.value) ? sel.value : { outage: "total_x", overload: "goodput" }[body.rows[0].chart.kind] || "calls";
  sel.replaceChildren(...numeric.map((c) => el("option", { value: c }, body.headers[body.columns.indexOf(c)])));
  sel.value = numeric.includes(pick) ? pick : numeric[0];
  const col = sel.value, k = body.columns.indexOf(col), header = body.headers[k];
  const strategies = [...new Set(body.rows.map((r) => r.strategy))];
  const W = chartWidth(), H = Math.round(Math.max(300, W * 0.4)), L = 62, R = 16, B = 42;
  const title = `${header} against the fleet size`;
  const root = frame(W, H, title + " — " + strategies.join(", "), { "data-kind": "sweep", "data-rows": body.rows.length, "data-metric": col });
  const T = 12 + legend(root, strategies, L, W - R);
  const xs = sizes.slice().sort((a, b) => a - b);
  const xmin = xs[0] / 1.3, xmax = xs[xs.length - 1] * 1.3;
  const hiOf = (r) => r.high ? Number(r.high[k]) : r.values[col];
  const loOf = (r) => r.low ? Number(r.low[k]) : r.values[col];
  const top = Math.max(...body.rows.map(hiOf), 1e-9) * 1.1, bottom = Math.min(0, ...body.rows.map(loOf));
  const sx = (x) => L + Math.log(x / xmin) / Math.log(xmax / xmin) * (W - L - R);
  const sy = (y) => H - B - ((y - bottom) / (top - bottom)) * (H - T - B);
  const step = niceStep(top - bottom, 6);
  for (let y = Math.ceil(bottom / step) * step; y <= top; y += step) {
    root.append(svg("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), stroke: "#e4e4e4" }),
      svg("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end" }, String(+y.toPrecision(4))));
  }
  for (const x of xs) {
    root.append(svg("line", { x1: sx(x), x2: sx(x), y1: T, y2: H - B, stroke: "#e4e4e4" }),
      svg("text", { x: sx(x), y: H - B + 16, "text-anchor": "middle" }, String(x)));
  }
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title" }, "clients (log scale)"));
  yTitle(root, header, 14, (T + H - B) / 2);
  strategies.forEach((s, i) => {
    const pts = body.rows.filter((r) => r.strategy === s).sort((a, b) => a.clients - b.clients);
    const colour = colours[i % colours.length];
    root.append(svg("path", { d: pts.map((r, j) => `${j ? "L" : "M"}${sx(r.clients).toFixed(1)},${sy(r.values[col]).toFixed(1)}`).join(""),
      fill: "none", stroke: colour, "stroke-width": "1.6", class: "mean", "data-name": s }));
    for (const r of pts) {
      root.append(svg("circle", { cx: sx(r.clients), cy: sy(r.values[col]), r: 3, fill: colour }));
      if (r.low) root.append(svg("line", { x1: sx(r.clients), x2: sx(r.clients), y1: sy(loOf(r)), y2: sy(hiOf(r)), stroke: colour, class: "spread" }));
    }
  });
  $("chart").replaceChildren(root);
  $("chart-title").textContent = title + (body.runs > 1 ? `: the mean of ${body.runs} runs, the bars from the least to the greatest` : "");
}

// drawLayers draws the layers scenario's answer: for each phase, a bar
// per strategy of the calls the bottom tier received per user call, on a
// logarithmic axis from 1 (nothing retried) when some strategy reaches
// 10, each bar labelled with its figure, and the time each strategy took
// to be healthy again in its legend. Each bar keeps its strategy, phase
// and figure in data-name, data-phase and data-value.
function drawLayers(body) {
  const rows = body.rows, c = body.chart;
  const phases = [["warmup_x", "healthy"], ["down_x", "down"], ["healthy_x", "back"]];
  const names = rows.map((r) => {
    const rec = r.values.recovery_s;
    return r.strategy + (rec === undefined ? " (never healthy again)" : rec > 0 ? ` (healthy again after ${+rec.toFixed(2)} s)` : "");
  });
  const W = chartWidth(), H = Math.round(Math.max(300, W * 0.4)), L = 62, R = 12, B = 42;
  const root = frame(W, H, c.title + (rows.length > 1 ? " — " + rows.map((r) => r.strategy).join(", ") : ""), { "data-kind": c.kind, "data-rows": rows.length });
  const T = 12 + (rows.length > 1 ? legend(root, names, L, W - R) : 0);
  const most = Math.max(1, ...rows.flatMap((r) => phases.map(([k]) => r.values[k] || 0)));
  const log = most >= 10;
  const top = log ? Math.pow(10, Math.ceil(Math.log10(most * 1.2))) : most * 1.15;
  const bottom = log ? 0.5 : 0;
  const frac = (y) => log ? Math.log(Math.max(y, bottom) / bottom) / Math.log(top / bottom) : y / top;
  const sy = (y) => H - B - frac(y) * (H - T - B);
  const ticks = [];
  if (log) {
    for (let p = 1; p <= top; p *= 10) for (const m of [1, 2, 5]) if (m * p <= top) ticks.push(m * p);
  } else {
    const step = niceStep(top, 6);
    for (let y = 0; y <= top; y += step) ticks.push(+y.toFixed(6));
  }
  for (const y of ticks) {
    root.append(svg("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), stroke: "#e4e4e4" }),
      svg("text", { x: L - 6, y: sy(y) + 4, "text-anchor": "end" }, `${y}×`));
  }
  const group = (W - L - R) / phases.length, pad = group * 0.15;
  const bw = (group - 2 * pad) / Math.max(1, rows.length);
  phases.forEach(([k, name], p) => {
    const x0 = L + p * group + pad;
    rows.forEach((r, i) => {
      const v = r.values[k] || 0, x = x0 + i * bw, y = sy(Math.max(v, bottom));
      root.append(svg("rect", { x: x + 1, y, width: Math.max(1, bw - 2), height: sy(bottom) - y, fill: colours[i % colours.length],
        class: "bar", "data-name": r.strategy, "data-phase": name, "data-value": String(v) }));
      root.append(svg("text", { x: x + bw / 2, y: y - 4, "text-anchor": "middle", "font-size": "11" }, String(+v.toFixed(2))));
    });
    root.append(svg("text", { x: L + p * group + group / 2, y: H - B + 16, "text-anchor": "middle" },
      { healthy: "healthy", down: "dependency down", back: "healthy again" }[name]));
  });
  root.append(svg("line", { x1: L, x2: W - R, y1: sy(1), y2: sy(1), stroke: "#555", "stroke-dasharray": "4 3" }));
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 6, "text-anchor": "middle", class: "axis-title" },
    "phase of the dependency" + (log ? " (log scale; dashed: 1 call per user call)" : " (dashed: 1 call per user call)")));
  yTitle(root, "bottom calls per user call", 14, (T + H - B) / 2);
  $("chart").replaceChildren(root);
  $("chart-title").textContent = c.title;
}

// download saves data as a file of the given name.
function download(name, type, data) {
  const a = el("a", { href: URL.createObjectURL(new Blob([data], { type })), download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

// csv is the answer's table as CSV: a line per row, the columns by name.
function csv(body) {
  const q = (s) => /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  const lines = [body.columns.join(",")];
  for (const r of body.rows) lines.push(r.cells.map((c) => q(String(c))).join(","));
  return lines.join("\n") + "\n";
}

function chartSVG() {
  const s = $("chart").querySelector("svg");
  return s ? new XMLSerializer().serializeToString(s) : "";
}

async function main() {
  info = await (await fetch("api/kinds")).json();
  for (const s of info.scenarios) $("scenario").append(el("option", {}, s));
  for (const s of info.overloadStrategies) $("overload-strategy").append(el("option", {}, s));
  for (const s of info.layersStrategies) $("layers-strategy").append(el("option", {}, s));
  $("overload-bound").textContent = String(info.limits.overloadClients);
  for (const b of info.backoffs) $("backoff").append(el("option", {}, b));
  for (const k of info.guards) $("add-guard").append(el("option", { value: k.name, title: k.doc }, k.name));
  for (const [name, expr] of Object.entries(info.presets)) $("preset").append(el("option", { value: name }, `${name}: ${expr}`));
  $("scenario").addEventListener("change", () => {
    const sc = scenario();
    if ((shown === "overload") !== (sc === "overload")) $("clients").value = clientsDefault(sc);
    // A setting left at its default takes the new scenario's default.
    for (const f of layersFields) if ($(f).value === (defaultOf(shown, f) ?? "")) $(f).value = defaultOf(sc, f) ?? "";
    const d = backoffDefaults();
    $("backoff").value = d.kind; $("backoff-base").value = d.base; $("backoff-cap").value = d.cap;
    // The layers scenario compares its strategies side by side at once.
    renderCompare(sc === "layers" ? info.layersStrategies.filter((s) => s !== $("layers-strategy").value) : []);
    showFor();
    saveDraft();
  });
  $("backoff").addEventListener("change", showFor);
  // A guard is added by the button, not by the list's change, which keys
  // (ArrowDown) fire as they move through it.
  $("add-guard-button").addEventListener("click", () => {
    const name = $("add-guard").value;
    if (!name) return;
    guards.push(newGuard(name));
    $("add-guard").value = "";
    renderGuards();
    saveDraft();
  });
  $("preset-button").addEventListener("click", () => {
    const name = $("preset").value;
    if (!name) return;
    $("preset").value = "";
    guards = parseStack(info.presets[name]) || [];
    renderGuards();
    saveDraft();
  });
  $("form").addEventListener("input", saveDraft);
  $("form").addEventListener("change", saveDraft);
  $("form").addEventListener("submit", (e) => { e.preventDefault(); run(query(), { push: true }); });
  $("cancel").addEventListener("click", () => { if (inFlight) inFlight.abort(); });
  $("metric").addEventListener("change", drawResult);
  $("download-csv").addEventListener("click", () => last && download("herd.csv", "text/csv", csv(last)));
  $("download-svg").addEventListener("click", () => download("herd.svg", "image/svg+xml", chartSVG()));
  $("download-png").addEventListener("click", () => {
    const s = $("chart").querySelector("svg");
    if (!s) return;
    const [, , w, h] = s.getAttribute("viewBox").split(" ").map(Number);
    const img = new Image();
    img.onload = () => {
      const canvas = el("canvas", { width: 2 * w, height: 2 * h });
      const g = canvas.getContext("2d");
      g.scale(2, 2);
      g.drawImage(img, 0, 0, w, h);
      canvas.toBlob((b) => download("herd.png", "image/png", b), "image/png");
    };
    img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(chartSVG());
  });
  let width = chartWidth();
  window.addEventListener("resize", () => { if (chartWidth() !== width) { width = chartWidth(); drawResult(); } });
  window.addEventListener("popstate", () => {
    const q = new URLSearchParams(location.search);
    fill(Object.fromEntries(q));
    run(q);
  });
  let q = new URLSearchParams(location.search);
  if (!q.has("scenario")) q = new URLSearchParams({ scenario: info.defaults.scenario, clients: info.defaults.clients, strategies: info.defaults.strategies });
  const draft = takeDraft();
  fill(Object.fromEntries(q));
  await run(q);
  // A reload keeps the edits made since the run, as they were.
  if (draft && draft !== q.toString()) {
    fill(Object.fromEntries(new URLSearchParams(draft)));
    saveDraft();
  }
}

main();
