// Strata's web view: a hash router over the read-only JSON API of
// pkg/sink/web. Plain DOM, no framework, no build step. Every text that
// comes from the cluster goes through textContent, never innerHTML.
'use strict';

const SVGNS = 'http://www.w3.org/2000/svg';
const STANDINGS = ['Enforced', 'PartiallyEnforced', 'Overridden', 'Conflicted', 'Invalid', 'TargetNotFound'];

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v; else e.setAttribute(k, v);
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    e.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return e;
}

function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

async function api(path) {
  const r = await fetch('api/' + path);
  const body = await r.json();
  if (!r.ok) throw new Error(body.error || r.statusText);
  return body;
}

// Names as the API spells them: Kind/namespace/name#section.
function refString(r) {
  let s = r.kind + '/' + (r.namespace ? r.namespace + '/' : '') + r.name;
  if (r.sectionName) s += '#' + r.sectionName;
  return s;
}
function refLabel(r) {
  return r.kind + ' ' + (r.namespace ? r.namespace + '/' : '') + r.name + (r.sectionName ? '#' + r.sectionName : '');
}
function objectHref(ref) { return '#/object/' + encodeURIComponent(ref); }
function policyHref(ref) { return '#/policy/' + encodeURIComponent(ref); }
function objectLink(r) { return el('a', { href: objectHref(refString(r)) }, refLabel(r)); }
function policyLink(kind, id) { return el('a', { href: policyHref(kind + '/' + id) }, id); }
function badge(standing) {
  return standing ? el('span', { class: 'badge s-' + standing }, standing) : el('span', { class: 'muted' }, '—');
}
function fmt(v) { return typeof v === 'string' ? v : JSON.stringify(v); }

// setBy names a policy as namespace/name, or "Kind namespace/name" when
// its kind shares a value space; "(target)" is the object's own value.
function sourceLink(kind, source) {
  if (!source) return el('span', { class: 'muted' }, '—');
  if (source === '(target)') return el('span', {}, source);
  const sp = source.indexOf(' ');
  if (sp > 0) return policyLink(source.slice(0, sp), source.slice(sp + 1));
  return policyLink(kind, source);
}

function table(caption, head, rows, id) {
  return el('table', { id },
    caption ? el('caption', { class: 'muted' }, caption) : null,
    el('thead', {}, el('tr', {}, head.map(h => el('th', { scope: 'col' }, h)))),
    el('tbody', {}, rows));
}

// ---- the graph: an SVG whose viewBox zooms and pans ----

function drawGraph(g, title) {
  const byId = new Map(g.nodes.map(n => [n.id, n]));
  const W = 200, H = 30;
  const root = svg('svg', { class: 'graph', role: 'group', tabindex: '0', 'aria-label': title + ': + and - zoom, arrow keys pan, 0 resets; Tab moves between nodes, Enter opens one' });
  const edges = svg('g', {});
  for (const e of g.edges) {
    const a = byId.get(e.from), b = byId.get(e.to);
    if (!a || !b) continue;
    let x1, y1 = a.y + H / 2, x2, y2 = b.y + H / 2;
    let d;
    if (a.x === b.x) { // a policy and its target, in one column: bulge right
      const bx = a.x + W + 30 + Math.min(60, Math.abs(y2 - y1) / 8);
      d = `M${a.x + W},${y1} C${bx},${y1} ${bx},${y2} ${a.x + W},${y2}`;
    } else {
      if (a.x < b.x) { x1 = a.x + W; x2 = b.x; } else { x1 = a.x; x2 = b.x + W; }
      const mx = (x1 + x2) / 2;
      d = `M${x1},${y1} C${mx},${y1} ${mx},${y2} ${x2},${y2}`;
    }
    edges.append(svg('path', { class: 'edge' + (e.policy ? ' policy' : ''), d }));
  }
  root.append(edges);
  const nodes = svg('g', {});
  for (const n of g.nodes) {
    const cls = ['node', n.type];
    if (n.standing) cls.push('s-' + n.standing);
    if (n.id === g.focus) cls.push('focus');
    const grp = svg('g', { class: cls.join(' '), transform: `translate(${n.x},${n.y})`, 'data-id': n.id });
    let href = null;
    if (n.type === 'policy') href = policyHref(n.id);
    else if (n.type !== 'more') href = objectHref(n.id);
    const label = n.label + (n.standing ? ' (' + n.standing + ')' : '');
    if (href) {
      grp.setAttribute('tabindex', '0');
      grp.setAttribute('role', 'link');
      grp.setAttribute('aria-label', label);
      const open = () => { location.hash = href; };
      grp.addEventListener('click', ev => { if (!root.moved) open(); ev.stopPropagation(); });
      grp.addEventListener('keydown', ev => { if (ev.key === 'Enter') { open(); ev.preventDefault(); } });
    } else {
      grp.setAttribute('role', 'img');
      grp.setAttribute('aria-label', label);
    }
    const t = svg('title', {}); t.textContent = label; grp.append(t);
    grp.append(svg('rect', { width: W, height: H }));
    const text = svg('text', { x: 8, y: 19 });
    text.textContent = n.label.length > 31 ? n.label.slice(0, 30) + '…' : n.label;
    grp.append(text);
    nodes.append(grp);
  }
  root.append(nodes);

  // The initial view: everything when it fits at a readable scale; else
  // a window around the focus (or the top left) at that scale. The
  // window has the SVG's aspect ratio (width/height of its box).
  const aspect = 1240 / 340;
  const w = Math.min(Math.max(g.width + 20, g.height * aspect, 900), 2000);
  const h = w / aspect;
  const f = byId.get(g.focus);
  const fit = (size, span, c) => size <= span ? (size - span) / 2 : Math.max(Math.min(c - span / 2, size - span + 20), -20);
  let view = { x: fit(g.width, w, f ? f.x + W / 2 : 0), y: fit(g.height, h, f ? f.y + H / 2 : 0), w, h };
  const home = { ...view };
  const apply = () => root.setAttribute('viewBox', `${view.x} ${view.y} ${view.w} ${view.h}`);
  const zoom = (f, cx, cy) => {
    cx = cx ?? view.x + view.w / 2; cy = cy ?? view.y + view.h / 2;
    view.x = cx - (cx - view.x) * f; view.y = cy - (cy - view.y) * f;
    view.w *= f; view.h *= f; apply();
  };
  const pan = (dx, dy) => { view.x += dx * view.w; view.y += dy * view.h; apply(); };
  apply();
  root.addEventListener('wheel', ev => {
    ev.preventDefault();
    const r = root.getBoundingClientRect();
    const cx = view.x + (ev.clientX - r.left) / r.width * view.w;
    const cy = view.y + (ev.clientY - r.top) / r.height * view.h;
    zoom(ev.deltaY > 0 ? 1.15 : 1 / 1.15, cx, cy);
  }, { passive: false });
  let drag = null;
  root.addEventListener('pointerdown', ev => { drag = { x: ev.clientX, y: ev.clientY }; root.moved = false; });
  root.addEventListener('pointermove', ev => {
    if (!drag) return;
    const r = root.getBoundingClientRect();
    const dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
    if (Math.abs(dx) + Math.abs(dy) > 3) { root.moved = true; root.classList.add('dragging'); }
    view.x -= dx / r.width * view.w; view.y -= dy / r.height * view.h;
    drag = { x: ev.clientX, y: ev.clientY }; apply();
  });
  const stop = () => { drag = null; root.classList.remove('dragging'); };
  root.addEventListener('pointerup', stop);
  root.addEventListener('pointerleave', stop);
  root.addEventListener('keydown', ev => {
    const k = ev.key;
    if (k === '+' || k === '=') zoom(1 / 1.2);
    else if (k === '-' || k === '_') zoom(1.2);
    else if (k === 'ArrowLeft') pan(-0.1, 0);
    else if (k === 'ArrowRight') pan(0.1, 0);
    else if (k === 'ArrowUp') pan(0, -0.1);
    else if (k === 'ArrowDown') pan(0, 0.1);
    else if (k === '0') { view = { ...home }; apply(); }
    else return;
    ev.preventDefault();
  });
  const tools = el('div', { class: 'graph-tools' },
    el('button', { type: 'button', 'aria-label': 'Zoom in' }, '+'),
    el('button', { type: 'button', 'aria-label': 'Zoom out' }, '−'),
    el('button', { type: 'button', 'aria-label': 'Reset view' }, 'Reset'));
  const [bin, bout, breset] = tools.children;
  bin.onclick = () => zoom(1 / 1.2);
  bout.onclick = () => zoom(1.2);
  breset.onclick = () => { view = { ...home }; apply(); };
  const note = g.hidden ? el('p', { class: 'muted' }, `${g.nodes.length} boxes drawn; ${g.hidden} more objects and policies are grouped into “and N more” boxes.`) : null;
  return el('section', { 'aria-label': title },
    el('div', { class: 'graph-wrap' }, root, tools), legend(), note);
}

function legend() {
  return el('ul', { class: 'legend', 'aria-label': 'Policy colours' }, STANDINGS.map(s => el('li', {}, badge(s))));
}

// ---- pages ----

// notVisible says which kinds the reader may not read: their objects and
// policies are missing from every page, not absent from the cluster.
function notVisible(kinds) {
  if (!kinds || !kinds.length) return null;
  return el('p', { class: 'notice', id: 'not-visible', role: 'note' }, 'Not visible to you (the answers may be incomplete): ' + kinds.join(', '));
}

async function overview() {
  const o = await api('overview');
  const counts = Object.entries(o.counts).sort().map(([k, v]) => el('li', {}, el('strong', {}, v), ' ', k));
  const standings = STANDINGS.filter(s => o.standings[s]).map(s => el('li', {}, badge(s), ' ', o.standings[s]));
  return [
    el('h1', {}, 'Overview'),
    el('p', { class: 'muted', id: 'source', 'data-source': o.source || 'files' }, 'Read from ' + (o.source || 'files') + (o.live ? '; the page reloads when the cluster changes.' : '.')),
    notVisible(o.notVisible),
    el('ul', { class: 'counts', 'aria-label': 'Objects' }, counts),
    el('ul', { class: 'counts', 'aria-label': 'Policies by standing' }, standings),
    drawGraph(o.graph, 'GatewayClasses and their Gateways'),
    el('h2', {}, 'GatewayClasses'),
    table(null, ['GatewayClass', 'Gateways'], (o.classes || []).map(c =>
      el('tr', {}, el('td', {}, el('a', { href: objectHref(c.ref) }, c.name)), el('td', {}, c.gateways)))),
    el('h2', {}, 'Gateways'),
    table(o.moreGateways ? `The first ${o.gateways.length}; ${o.moreGateways} more: use the search.` : null,
      ['Gateway', 'Class', 'Listeners', 'Routes', 'Policies'],
      (o.gateways || []).map(g => el('tr', {},
        el('td', {}, el('a', { href: objectHref(g.ref) }, g.namespace + '/' + g.name)),
        el('td', {}, g.class), el('td', {}, g.listeners), el('td', {}, g.routes), el('td', {}, g.policies)))),
  ];
}

// graphDepth is how many steps up and down an object's graph goes.
let graphDepth = 3;

async function objectPage(ref) {
  const [page, graph] = await Promise.all([api('object?ref=' + encodeURIComponent(ref)), api('graph?depth=' + graphDepth + '&focus=' + encodeURIComponent(ref))]);
  const d = page.description;
  const depth = el('select', { id: 'depth' }, [1, 2, 3, 4].map(n => el('option', { value: n, selected: n === graphDepth }, n)));
  depth.addEventListener('change', () => { graphDepth = Number(depth.value); route(); });
  const out = [el('h1', {}, refLabel(d.object)), notVisible(page.notVisible),
    el('p', {}, el('label', { for: 'depth' }, 'Steps up and down from ' + refLabel(d.object) + ': '), depth),
    drawGraph(graph, 'Neighbourhood of ' + refLabel(d.object))];
  const links = (title, refs) => refs && refs.length ? el('p', {}, el('strong', {}, title + ': '), refs.map((r, i) => [i ? ', ' : '', objectLink(r)])) : null;
  out.push(links('Parents', d.parents), links('Children', d.children));
  if (d.sections && d.sections.length) {
    out.push(el('p', {}, el('strong', {}, 'Sections: '), d.sections.map((s, i) => [i ? ', ' : '', el('a', { href: objectHref(refString({ ...d.object, sectionName: s })) }, s)])));
  }
  out.push(el('h2', {}, `Policies (${d.policies.length})`));
  out.push(table(null, ['Kind', 'Policy', 'Relation', 'Attached to', 'Standing', 'Results'], d.policies.map(a => {
    const id = (a.policy.namespace ? a.policy.namespace + '/' : '') + a.policy.name;
    const results = Object.entries(a.results || {}).map(([k, v]) => `${k} ${v}`).join(', ');
    return el('tr', {},
      el('td', {}, a.policy.kind), el('td', {}, policyLink(a.policy.kind, id)), el('td', {}, a.relation),
      el('td', {}, a.attachedTo.map((r, i) => [i ? ', ' : '', objectLink(r)])),
      el('td', {}, badge(page.standings[a.policy.kind + '/' + id])),
      el('td', {}, a.withheld ? 'withheld' : results || '—'));
  })));
  if (d.rejected && d.rejected.length) {
    out.push(el('h2', {}, 'Rejected targetRefs'));
    out.push(table(null, ['Policy', 'Field', 'Reason', 'Message'], d.rejected.map(r => el('tr', {},
      el('td', {}, policyLink(r.policy.kind, (r.policy.namespace ? r.policy.namespace + '/' : '') + r.policy.name)),
      el('td', {}, r.field), el('td', {}, r.reason), el('td', {}, r.message)))));
  }
  out.push(el('h2', {}, 'Effective policies'));
  if (!d.effective.length) out.push(el('p', { class: 'muted' }, 'No policy is in force here.'));
  for (const k of d.effective) {
    const sec = el('section', { 'aria-label': k.kind }, el('h3', {}, `${k.kind} (${k.class})`));
    for (const t of k.targets) {
      sec.append(el('h4', {}, 'on ', objectLink(t.target)));
      for (const c of t.contexts) {
        sec.append(el('p', { class: 'muted' }, 'via ', c.path.filter(r => r.kind !== 'Namespace').map((r, i) => [i ? ' › ' : '', objectLink(r)])));
        sec.append(table(null, ['Field', 'Value', 'Set by', 'Beaten'], c.fields.map(f => el('tr', { 'data-field': f.field },
          el('td', {}, el('code', {}, f.field)),
          el('td', { class: 'value' }, f.value === undefined ? '(not in force)' : fmt(f.value)),
          el('td', { class: 'setby' }, sourceLink(k.kind, f.setBy)),
          el('td', {}, (f.beaten || []).map((b, i) => [i ? ', ' : '', sourceLink(k.kind, b)]))))));
      }
    }
    out.push(sec);
  }
  return out;
}

async function policyPage(ref) {
  const page = await api('policy?ref=' + encodeURIComponent(ref));
  const d = page.description, s = d.policy;
  const id = (s.namespace ? s.namespace + '/' : '') + s.name;
  const out = [
    el('h1', {}, `${s.kind} ${id} `, badge(page.standing)),
    el('p', {}, `Class ${s.class}; targets ${s.targets.join(', ') || 'none'}; accepted ${s.status.accepted}`,
      s.status.reasons ? ` (${s.status.reasons.join(', ')})` : '',
      `; sets a field in force on ${s.affects.targets} targets in ${s.affects.contexts} contexts.`),
    el('h2', {}, 'Attached to'),
    d.attachedTo.length ? el('ul', {}, d.attachedTo.map(r => el('li', {}, objectLink(r)))) : el('p', { class: 'muted' }, 'Nothing.'),
    el('h2', {}, 'Spec'),
    ...d.blocks.map(b => el('div', {}, el('h3', {}, el('code', {}, b.field), ' ', el('span', { class: 'muted' }, b.strategy)), el('pre', {}, JSON.stringify(b.values, null, 2)))),
    el('h2', {}, 'Status'),
    table(null, ['Ancestor', 'Type', 'Status', 'Reason', 'Message'], d.ancestors.flatMap(a => a.conditions.map(c => el('tr', {},
      el('td', {}, objectLink(a.ancestorRef)), el('td', {}, c.type), el('td', {}, c.status), el('td', {}, c.reason), el('td', {}, c.message))))),
    el('h2', {}, `Where it is in force (${d.reaches.length} targets)`),
    table(null, ['Target', 'Contexts'], d.reaches.map(r => el('tr', {}, el('td', {}, objectLink(r.target)),
      el('td', {}, Object.entries(r.results).map(([k, v]) => [badge(k), ' ', v, ' ']))))),
    el('h2', {}, 'If it were deleted'),
  ];
  if (page.impactError) out.push(el('p', {}, page.impactError));
  else {
    const im = page.impact;
    out.push(el('p', { id: 'blast' }, `Deleting it changes ${im.changed.targets} targets in ${im.changed.contexts} contexts.`));
    const rows = [];
    for (const t of im.targets || []) for (const c of t.contexts) for (const f of c.fields) {
      rows.push(el('tr', {}, el('td', {}, objectLink(t.target)), el('td', {}, c.path.filter(r => r.kind !== 'Namespace').map(refLabel).join(' › ')),
        el('td', {}, el('code', {}, f.field)),
        el('td', { class: 'value' }, f.before === undefined ? '—' : fmt(f.before), ' ', el('span', { class: 'muted' }, f.beforeSetBy || '')),
        el('td', { class: 'value' }, f.after === undefined ? '(unset)' : fmt(f.after), ' ', el('span', { class: 'muted' }, f.afterSetBy || ''))));
      if (rows.length >= 500) break;
    }
    if (rows.length) out.push(table(rows.length >= 500 ? 'The first 500 changes.' : null, ['Target', 'Via', 'Field', 'Before', 'After'], rows));
  }
  return out;
}

async function searchPage(q) {
  document.getElementById('search').value = q;
  const r = await api('search?q=' + encodeURIComponent(q));
  return [
    el('h1', {}, 'Search: ', q),
    el('p', { id: 'found' }, r.total > r.hits.length ? `${r.total} found; the first ${r.hits.length}:` : `${r.total} found.`),
    table(null, ['Kind', 'Namespace', 'Name', 'Standing'], r.hits.map(h => el('tr', {},
      el('td', {}, h.kind), el('td', {}, h.namespace || ''),
      el('td', {}, el('a', { href: h.policy ? policyHref(h.ref) : objectHref(h.ref) }, h.name)),
      el('td', {}, h.policy ? badge(h.standing) : ''))), 'results'),
  ];
}

// ---- router ----

async function route() {
  const status = document.getElementById('status');
  const page = document.getElementById('page');
  const h = location.hash.replace(/^#\/?/, '');
  const [name, ...rest] = h.split('/');
  const arg = decodeURIComponent(rest.join('/'));
  status.textContent = 'Loading…';
  try {
    let content;
    if (name === 'object') content = await objectPage(arg);
    else if (name === 'policy') content = await policyPage(arg);
    else if (name === 'search') content = await searchPage(arg);
    else content = await overview();
    page.replaceChildren(...content.flat().filter(Boolean));
    // What is shown, for tests and scripts to wait on.
    page.dataset.route = location.hash || '#/';
    status.textContent = '';
    const h1 = page.querySelector('h1');
    document.title = (h1 ? h1.textContent + ' · ' : '') + 'Strata';
    if (route.moved) document.getElementById('main').focus();
    route.moved = true;
  } catch (err) {
    page.replaceChildren(el('h1', {}, 'Not available'), el('p', {}, String(err.message || err)));
    status.textContent = '';
  }
}

document.getElementById('search-form').addEventListener('submit', ev => {
  ev.preventDefault();
  const q = document.getElementById('search').value.trim();
  if (q) location.hash = '#/search/' + encodeURIComponent(q);
});
window.addEventListener('hashchange', route);
// A live source pushes "reload" when a watch saw a change.
if (window.EventSource) {
  window.strataEvents = new EventSource('api/events');
  window.strataEvents.addEventListener('reload', route);
}
route();
