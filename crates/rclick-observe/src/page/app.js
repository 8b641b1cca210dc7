// The rclick web view: draws the router's graph with a layered layout,
// updates rates from server-sent snapshots, reads and writes handlers,
// shows the configuration text and hot-swaps a new one. Served by
// HTTPServer (crates/rclick-observe); no external scripts.
"use strict";

const token = new URLSearchParams(location.search).get("token");
const SVGNS = "http://www.w3.org/2000/svg";
const state = { graph: null, handlers: null, prev: null, last: null, rates: {}, selected: null, layout: null };

function url(path) {
  const u = new URL(path, location.href);
  if (token) u.searchParams.set("token", token);
  return u.toString();
}

async function api(path, opts) {
  const r = await fetch(url(path), opts);
  let body = null;
  try { body = await r.json(); } catch (e) { body = { code: r.status, message: r.statusText }; }
  return { status: r.status, body };
}

function el(tag, attrs, parent, text) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

function h(tag, attrs, text) {
  const e = document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}

// ---- layout: layers by longest path (back edges of cycles ignored),
// order in a layer by a few barycenter sweeps.
function layout(g) {
  const n = g.elements.length;
  const out = Array.from({ length: n }, () => []);
  g.connections.forEach((c) => out[c.from].push(c.to));
  // Back edges: found by depth-first search.
  const color = new Array(n).fill(0);
  const back = new Set();
  function dfs(v) {
    const stack = [[v, 0]];
    color[v] = 1;
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [u, i] = top;
      if (i < out[u].length) {
        top[1]++;
        const w = out[u][i];
        if (color[w] === 1) back.add(u + ">" + w);
        else if (color[w] === 0) { color[w] = 1; stack.push([w, 0]); }
      } else { color[u] = 2; stack.pop(); }
    }
  }
  for (let v = 0; v < n; v++) if (color[v] === 0) dfs(v);
  const fwd = g.connections.filter((c) => !back.has(c.from + ">" + c.to) && c.from !== c.to);
  const indeg = new Array(n).fill(0);
  const succ = Array.from({ length: n }, () => []);
  fwd.forEach((c) => { indeg[c.to]++; succ[c.from].push(c.to); });
  const layer = new Array(n).fill(0);
  const queue = [];
  for (let v = 0; v < n; v++) if (indeg[v] === 0) queue.push(v);
  while (queue.length) {
    const v = queue.shift();
    for (const w of succ[v]) {
      layer[w] = Math.max(layer[w], layer[v] + 1);
      if (--indeg[w] === 0) queue.push(w);
    }
  }
  // Elements with no connections at all go in a row of their own below.
  const connected = new Array(n).fill(false);
  g.connections.forEach((c) => { connected[c.from] = true; connected[c.to] = true; });
  let maxLayer = 0;
  for (let v = 0; v < n; v++) if (connected[v]) maxLayer = Math.max(maxLayer, layer[v]);
  for (let v = 0; v < n; v++) if (!connected[v]) layer[v] = maxLayer + 1;
  const layers = [];
  for (let v = 0; v < n; v++) (layers[layer[v]] = layers[layer[v]] || []).push(v);
  for (let i = 0; i < layers.length; i++) layers[i] = layers[i] || [];
  const pos = new Array(n).fill(0);
  const renumber = () => layers.forEach((l) => l.forEach((v, i) => { pos[v] = i; }));
  renumber();
  const preds = Array.from({ length: n }, () => []);
  fwd.forEach((c) => preds[c.to].push(c.from));
  for (let sweep = 0; sweep < 6; sweep++) {
    const down = sweep % 2 === 0;
    const order = down ? layers.keys() : [...layers.keys()].reverse();
    for (const li of order) {
      const nb = down ? preds : succ;
      const bary = (v) => (nb[v].length ? nb[v].reduce((s, u) => s + pos[u], 0) / nb[v].length : pos[v]);
      layers[li].sort((a, b) => bary(a) - bary(b) || a - b);
      layers[li].forEach((v, i) => { pos[v] = i; });
    }
  }
  // Sizes and coordinates.
  const size = g.elements.map((e) => {
    const anon = e.name.includes("@");
    const label = anon ? e.class : e.name;
    const w = Math.max(90, 7.2 * Math.max(label.length, anon ? 0 : e.class.length + 3, 16) + 16,
      14 * Math.max(e.inputs.length, e.outputs.length) + 10);
    return { w, h: 58 };
  });
  const gapX = 28, gapY = 70, margin = 20;
  const widths = layers.map((l) => l.reduce((s, v) => s + size[v].w, 0) + gapX * Math.max(0, l.length - 1));
  const maxW = Math.max(200, ...widths);
  const xy = new Array(n);
  let y = margin;
  layers.forEach((l, li) => {
    let x = margin + (maxW - widths[li]) / 2;
    const rowH = Math.max(0, ...l.map((v) => size[v].h));
    l.forEach((v) => { xy[v] = { x, y, w: size[v].w, h: size[v].h }; x += size[v].w + gapX; });
    y += rowH + gapY;
  });
  return { xy, back, width: maxW + 2 * margin, height: y - gapY + margin + 10 };
}

function portX(box, i, count) {
  return box.x + (box.w * (i + 1)) / (count + 1);
}

function draw() {
  const g = state.graph;
  const svg = document.getElementById("graph");
  svg.innerHTML = "";
  const L = layout(g);
  state.layout = L;
  svg.setAttribute("width", L.width);
  svg.setAttribute("height", L.height);
  svg.setAttribute("viewBox", `0 0 ${L.width} ${L.height}`);
  const defs = el("defs", {}, svg);
  const m = el("marker", { id: "arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse" }, defs);
  el("path", { d: "M0,0 L10,5 L0,10 z", fill: "#667085" }, m);
  const edges = el("g", {}, svg);
  g.connections.forEach((c, i) => {
    const a = L.xy[c.from], b = L.xy[c.to];
    const fromE = g.elements[c.from], toE = g.elements[c.to];
    const x1 = portX(a, c.from_port, fromE.outputs.length), y1 = a.y + a.h;
    const x2 = portX(b, c.to_port, toE.inputs.length), y2 = b.y;
    let d;
    if (y2 > y1) {
      const my = (y1 + y2) / 2;
      d = `M${x1},${y1} C${x1},${my} ${x2},${my} ${x2},${y2 - 1}`;
    } else {
      // A back edge: around the right side.
      const side = Math.max(a.x + a.w, b.x + b.w) + 30 + 8 * (i % 4);
      d = `M${x1},${y1} C${x1},${y1 + 40} ${side},${y1 + 40} ${side},${(y1 + y2) / 2} S${x2},${y2 - 40} ${x2},${y2 - 1}`;
    }
    const pull = fromE.outputs[c.from_port] === "pull";
    el("path", { d, class: "edge" + (pull ? " pull" : ""), "marker-end": "url(#arrow)", "data-edge": i }, edges);
    el("text", { x: (x1 + x2) / 2 + 6, y: (y1 + y2) / 2 + 3, class: "edgelabel", "data-edge": i }, edges, "");
  });
  const nodes = el("g", {}, svg);
  g.elements.forEach((e, v) => {
    const b = L.xy[v];
    const queue = /Queue$/.test(e.class);
    const gr = el("g", { class: "node" + (queue ? " queue" : "") + (state.selected === e.name ? " selected" : ""), "data-name": e.name }, nodes);
    el("rect", { class: "box", x: b.x, y: b.y, width: b.w, height: b.h }, gr);
    el("rect", { class: "fill", x: b.x + 1, y: b.y + b.h - 5, width: 0, height: 4 }, gr);
    const anon = e.name.includes("@");
    const t = el("text", { x: b.x + 8, y: b.y + 17 }, gr);
    if (anon) {
      el("tspan", { class: "name" }, t, e.class);
    } else {
      el("tspan", { class: "name" }, t, e.name);
      el("tspan", { class: "class" }, t, " :: " + e.class);
    }
    el("text", { class: "stat", x: b.x + 8, y: b.y + 33 }, gr, "");
    el("text", { class: "stat drops", x: b.x + 8, y: b.y + 47 }, gr, "");
    e.inputs.forEach((p, i) => el("rect", { class: "port " + p, x: portX(b, i, e.inputs.length) - 4, y: b.y - 4, width: 8, height: 7 }, gr));
    e.outputs.forEach((p, i) => el("rect", { class: "port " + p, x: portX(b, i, e.outputs.length) - 4, y: b.y + b.h - 3, width: 8, height: 7 }, gr));
    gr.addEventListener("click", () => select(e.name));
    el("title", {}, gr, `${e.name} :: ${e.class}(${e.config})\n${e.file}:${e.line}`);
  });
  drawSource();
  if (state.last) paint(state.last);
}

function fmtRate(r) {
  if (r === undefined || r === null || !isFinite(r)) return "";
  if (r >= 1e6) return (r / 1e6).toFixed(2) + " Mpps";
  if (r >= 1e3) return (r / 1e3).toFixed(1) + " kpps";
  return r.toFixed(r < 10 ? 1 : 0) + " pps";
}

function value(st, name) {
  const v = st.values.find((p) => p[0] === name);
  return v ? v[1] : undefined;
}

// Packets per second of each element from two snapshots.
function rates(prev, cur) {
  const out = {};
  if (!prev || prev.generation !== cur.generation) return out;
  const dt = cur.time - prev.time;
  if (!(dt > 0)) return out;
  const before = {};
  prev.elements.forEach((e) => { before[e.name] = e; });
  cur.elements.forEach((e) => {
    const p = before[e.name];
    if (!p) return;
    const count = (s) => (s.cost ? s.cost[0] : value(s, "count"));
    const a = count(p), b = count(e);
    if (a !== undefined && b !== undefined && b >= a) out[e.name] = (b - a) / dt;
  });
  return out;
}

function paint(snap) {
  const g = state.graph;
  if (!g || !state.layout) return;
  const rs = state.rates;
  const byName = {};
  snap.elements.forEach((e) => { byName[e.name] = e; });
  document.querySelectorAll("#graph .node").forEach((node) => {
    const name = node.getAttribute("data-name");
    const st = byName[name];
    const [line1, line2] = node.querySelectorAll("text.stat");
    const fill = node.querySelector("rect.fill");
    if (!st) return;
    const parts = [];
    const len = value(st, "length"), cap = value(st, "capacity"), count = value(st, "count");
    if (len !== undefined) parts.push(cap !== undefined ? `${len}/${cap}` : `len ${len}`);
    if (count !== undefined) parts.push(`count ${count}`);
    if (rs[name] !== undefined) parts.push(fmtRate(rs[name]));
    if (st.cost) parts.push(`${st.cost[1].toFixed(1)} ns/pkt`);
    line1.textContent = parts.join(" · ");
    const drops = value(st, "drops");
    line2.textContent = drops ? `drops ${drops}` : "";
    if (len !== undefined && cap) {
      const box = node.querySelector("rect.box");
      fill.setAttribute("width", Math.max(0, (Number(box.getAttribute("width")) - 2) * Math.min(1, len / cap)));
    }
  });
  // A connection's rate: its upstream element's when that has one
  // output, else its downstream element's when that has one input.
  g.connections.forEach((c, i) => {
    const a = g.elements[c.from], b = g.elements[c.to];
    let r;
    if (a.outputs.length === 1 && rs[a.name] !== undefined) r = rs[a.name];
    else if (b.inputs.length === 1 && rs[b.name] !== undefined) r = rs[b.name];
    const label = document.querySelector(`#graph text.edgelabel[data-edge="${i}"]`);
    const path = document.querySelector(`#graph path.edge[data-edge="${i}"]`);
    if (label) label.textContent = r ? fmtRate(r) : "";
    if (path) path.classList.toggle("busy", !!r);
  });
  document.getElementById("summary").textContent =
    `${g.elements.length} elements · ${g.connections.length} connections · ${snap.threads} thread${snap.threads > 1 ? "s" : ""}` +
    (snap.profiling ? " · profiling" : "") + ` · configuration ${snap.generation}`;
}

function drawSource() {
  const box = document.getElementById("source");
  box.innerHTML = "";
  const lines = state.graph.source.split("\n");
  lines.forEach((l, i) => {
    const d = h("div", { "data-line": i + 1 });
    d.appendChild(h("span", { class: "no" }, String(i + 1)));
    d.appendChild(document.createTextNode(l));
    box.appendChild(d);
  });
  highlightSource();
  const ta = document.getElementById("newconfig");
  if (!ta.dataset.touched) ta.value = state.graph.source;
}

function highlightSource() {
  document.querySelectorAll("#source div.hl").forEach((d) => d.classList.remove("hl"));
  const e = state.graph && state.graph.elements.find((x) => x.name === state.selected);
  if (!e || e.line < 1) return;
  const d = document.querySelector(`#source div[data-line="${e.line}"]`);
  if (d) { d.classList.add("hl"); d.scrollIntoView({ block: "nearest" }); }
}

async function select(name) {
  state.selected = name;
  document.querySelectorAll("#graph .node").forEach((n) => n.classList.toggle("selected", n.getAttribute("data-name") === name));
  highlightSource();
  if (!state.handlers || state.handlers.generation !== state.graph.generation) {
    const r = await api("api/handlers");
    state.handlers = { generation: state.graph.generation, list: r.body || [] };
  }
  const e = state.graph.elements.find((x) => x.name === name);
  const entry = state.handlers.list.find((x) => x.element === name);
  const box = document.getElementById("element");
  box.className = "";
  box.innerHTML = "";
  box.appendChild(h("div", {}, `${name} :: ${e.class}(${e.config})`));
  box.appendChild(h("div", { class: "muted" }, `${e.file}:${e.line} · ${e.inputs.length} in, ${e.outputs.length} out`));
  const table = h("table", { id: "handlers" });
  box.appendChild(table);
  for (const hd of (entry ? entry.handlers : [])) {
    const tr = h("tr", { "data-handler": hd.name });
    tr.appendChild(h("td", { class: "h" }, hd.name + (hd.read ? "" : " (w)")));
    const v = h("td", { class: "v" });
    const pre = h("pre", {}, "");
    v.appendChild(pre);
    const msg = h("div", { class: "msg" });
    v.appendChild(msg);
    tr.appendChild(v);
    const w = h("td", { class: "w" });
    if (hd.write) {
      const input = h("input", { type: "text", placeholder: "value" });
      const b = h("button", { class: "write" }, "Write");
      const go = async () => {
        const r = await api(`api/elements/${encodeURIComponent(name).replace(/%2F/g, "/")}/${encodeURIComponent(hd.name)}`, { method: "POST", body: input.value });
        msg.className = "msg " + (r.status === 200 ? "ok" : "err");
        msg.textContent = `${r.body.code} ${r.body.message}`;
        if (r.status === 200) refreshHandlers(table, name);
      };
      b.addEventListener("click", go);
      input.addEventListener("keydown", (ev) => { if (ev.key === "Enter") go(); });
      w.appendChild(input);
      w.appendChild(b);
    }
    tr.appendChild(w);
    table.appendChild(tr);
  }
  refreshHandlers(table, name);
}

async function refreshHandlers(table, name) {
  const entry = state.handlers.list.find((x) => x.element === name);
  for (const hd of (entry ? entry.handlers : [])) {
    if (!hd.read) continue;
    const r = await api(`api/elements/${encodeURIComponent(name).replace(/%2F/g, "/")}/${encodeURIComponent(hd.name)}`);
    const tr = table.querySelector(`tr[data-handler="${CSS.escape(hd.name)}"]`);
    if (!tr) continue;
    const pre = tr.querySelector("pre");
    pre.textContent = r.status === 200 ? r.body.value : `${r.body.code} ${r.body.message}`;
    pre.classList.toggle("err", r.status !== 200);
  }
}

async function loadGraph() {
  const r = await api("api/graph");
  if (r.status !== 200) throw new Error(r.body.message);
  state.graph = r.body;
  state.prev = null;
  state.rates = {};
  draw();
  if (state.selected && state.graph.elements.some((e) => e.name === state.selected)) select(state.selected);
}

function listen() {
  const es = new EventSource(url("api/events"));
  const status = document.getElementById("status");
  es.addEventListener("snapshot", async (ev) => {
    const snap = JSON.parse(ev.data);
    status.textContent = "live";
    status.className = "live";
    if (!state.graph || snap.generation !== state.graph.generation) {
      try { await loadGraph(); } catch (e) { return; }
    }
    state.rates = rates(state.prev, snap);
    state.prev = snap;
    state.last = snap;
    paint(snap);
  });
  es.onerror = () => { status.textContent = "router not answering; retrying"; status.className = "down"; };
}

document.getElementById("newconfig").addEventListener("input", (e) => { e.target.dataset.touched = "1"; });
document.getElementById("install").addEventListener("click", async () => {
  const msg = document.getElementById("swapmsg");
  msg.className = "msg";
  msg.textContent = "building…";
  const r = await api("api/global/hotconfig", { method: "POST", body: document.getElementById("newconfig").value });
  if (r.status === 200) {
    msg.className = "msg ok";
    msg.textContent = "installed";
    delete document.getElementById("newconfig").dataset.touched;
  } else {
    msg.className = "msg err";
    msg.textContent = `${r.body.code} ${r.body.message}\nThe running configuration was kept.`;
  }
});

loadGraph().catch((e) => { document.getElementById("status").textContent = String(e); }).finally(listen);
