"""A parsed Mermaid diagram → a static SVG, made at build time: no script, no network, the
same bytes for the same source (the site, the EPUB and the PDF all take it as it is).

Flowcharts and class diagrams get a layered layout (Sugiyama's outline, kept simple): cycles
broken by reversing the back edges of a depth-first walk, layers by longest path, the order
inside a layer by a few barycentre sweeps, straight edges clipped at the boxes. Sequence
diagrams are participants in a row, their lifelines, and the messages top-down. Sizes come
from an estimate of the monospace text width (CJK counts double), so no font is measured.
Colours are attributes the site's CSS may override (dark mode); standalone, they read well.
"""

from __future__ import annotations

import hashlib
import unicodedata
from html import escape

from .mermaid import Diagram, Edge, parse

CHAR_W, FONT = 7.8, 13       # px per monospace character at the font size
PAD_X, BOX_H = 12, 34        # box padding, box height
GAP_X, GAP_Y = 36, 56        # between boxes in a layer, between layers
MEMBER_H = 18
MARGIN = 12
COLUMN = 736  # px: the site's text column
MAX_ROW = 960  # px: a layer wider than this is wrapped (a little wider than the column is only scaled)
SWEEPS = 4
FG, BG, LINE, MUTED = "#1f2328", "#f6f8fa", "#57606a", "#8c959f"
_FILL_CLASS = {LINE: "mmd-filled", BG: "mmd-hollow", "none": "mmd-open"}


def render(source: str, title: str = "", uid: str = "") -> str:
    """The SVG of a Mermaid block (MermaidError when it does not parse). `uid` prefixes the
    ids inside it (its arrow markers): a page with two diagrams needs two prefixes."""
    return render_diagram(parse(source), title, uid)


def render_diagram(d: Diagram, title: str = "", uid: str = "") -> str:
    uid = uid or "m" + hashlib.sha256(d.source.encode("utf-8")).hexdigest()[:8]
    if d.kind == "sequence":
        w, h, body = _sequence(d, uid)
    else:
        w, h, body = _layered(d, uid)
    label = title or {"flowchart": "Flowchart", "sequence": "Sequence diagram", "class": "Class diagram"}[d.kind]
    return (f'<svg xmlns="http://www.w3.org/2000/svg" class="mermaid-svg mermaid-{d.kind}" role="img" '
            f'viewBox="0 0 {_n(w)} {_n(h)}" width="{_n(w)}" height="{_n(h)}" font-family="ui-monospace, '
            f'SFMono-Regular, Menlo, Consolas, monospace" font-size="{FONT}">'
            f"<title>{escape(label)}</title><desc>{escape(d.source.strip())}</desc>"
            f"{_defs(uid, {e.arrow for e in d.edges})}{''.join(body)}</svg>")


def text_width(s: str) -> float:
    return CHAR_W * sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _n(x: float) -> str:
    """A coordinate as few digits as it needs (stable across platforms)."""
    return f"{x:.1f}".rstrip("0").rstrip(".")


def _defs(uid: str, used: set[str]) -> str:
    """The arrow heads the diagram's edges use (only those: a page may hold many diagrams)."""
    def marker(name: str, path: str, fill: str, w: int = 10, h: int = 10, ref: float = 9) -> str:
        if name not in used:
            return ""
        return (f'<marker id="{uid}-{name}" viewBox="0 0 {w} {h}" refX="{ref}" refY="{h / 2:g}" markerWidth="{w}" '
                f'markerHeight="{h}" orient="auto-start-reverse" markerUnits="userSpaceOnUse">'
                f'<path d="{path}" fill="{fill}" stroke="{LINE}" class="mmd-marker {_FILL_CLASS[fill]}"/></marker>')

    return ("<defs>" + marker("arrow", "M0,0 L10,5 L0,10 z", LINE)
            + marker("open", "M0,0 L10,5 L0,10", "none")
            + marker("cross", "M1,1 L9,9 M9,1 L1,9", "none")
            + marker("circle", "M5,1 A4,4 0 1 1 4.9,1 z", LINE)
            + marker("inherit", "M0,0 L12,6 L0,12 z", BG, 12, 12, 11)
            + marker("realize", "M0,0 L12,6 L0,12 z", BG, 12, 12, 11)
            + marker("compose", "M0,6 L7,0 L14,6 L7,12 z", LINE, 14, 12, 13)
            + marker("aggregate", "M0,6 L7,0 L14,6 L7,12 z", BG, 14, 12, 13)
            + marker("assoc", "M0,0 L10,5 L0,10", "none")
            + marker("depend", "M0,0 L10,5 L0,10", "none")
            + "</defs>")


# ------------------------------------------------------------------ layered layout


def _sizes(d: Diagram) -> dict[str, tuple[float, float]]:
    out: dict[str, tuple[float, float]] = {}
    for nid, n in d.nodes.items():
        if d.kind == "class":
            rows = [n.label, *d.members.get(nid, [])]
            w = max(text_width(r) for r in rows) + 2 * PAD_X
            h = float(BOX_H) + (MEMBER_H * len(d.members.get(nid, [])) + 8 if d.members.get(nid) else 0)
        else:
            w, h = text_width(n.label) + 2 * PAD_X + (16 if n.shape in ("rhombus", "hexagon", "circle") else 0), float(BOX_H)
        out[nid] = (max(w, 48.0), h)
    return out


def layers(nodes: list[str], edges: list[tuple[str, str]]) -> list[list[str]]:
    """The nodes in layers, each layer in its drawing order (deterministic)."""
    succ: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b in edges:
        if a != b and b not in succ[a]:
            succ[a].append(b)
    # break cycles: reverse the back edges of a DFS in node order
    state: dict[str, int] = {}
    dag: dict[str, list[str]] = {n: [] for n in nodes}
    for root in nodes:
        if root in state:
            continue
        stack = [(root, iter(succ[root]))]
        state[root] = 1
        while stack:
            v, it = stack[-1]
            w = next(it, None)
            if w is None:
                state[v] = 2
                stack.pop()
            elif state.get(w) == 1:
                dag[w].append(v)  # a back edge, drawn reversed for the layering only
            else:
                dag[v].append(w)
                if w not in state:
                    state[w] = 1
                    stack.append((w, iter(succ[w])))
    level = {n: 0 for n in nodes}
    indeg = {n: 0 for n in nodes}
    for v in nodes:
        for w in dag[v]:
            indeg[w] += 1
    ready = [n for n in nodes if indeg[n] == 0]
    while ready:
        v = ready.pop(0)
        for w in dag[v]:
            level[w] = max(level[w], level[v] + 1)
            indeg[w] -= 1
            if indeg[w] == 0:
                ready.append(w)
    rows: list[list[str]] = [[] for _ in range(max(level.values(), default=0) + 1)]
    for n in nodes:
        rows[level[n]].append(n)
    pred: dict[str, list[str]] = {n: [] for n in nodes}
    for v in nodes:
        for w in dag[v]:
            pred[w].append(v)
    for sweep in range(SWEEPS):
        down = sweep % 2 == 0
        order = range(1, len(rows)) if down else range(len(rows) - 2, -1, -1)
        for k in order:
            ref = rows[k - 1] if down else rows[k + 1]
            pos = {n: i for i, n in enumerate(ref)}
            near = pred if down else dag

            def bary(n: str, i: int, near: dict[str, list[str]] = near, pos: dict[str, int] = pos) -> tuple[float, int]:
                ps = [pos[m] for m in near[n] if m in pos]
                return (sum(ps) / len(ps) if ps else float(i), i)

            rows[k] = [n for _, n in sorted(((bary(n, i), n) for i, n in enumerate(rows[k])), key=lambda x: x[0])]
    return rows


def _layered(d: Diagram, uid: str) -> tuple[float, float, list[str]]:
    sizes = _sizes(d)
    # a class diagram's parents above their children: the layering follows the marked end
    up = {"inherit", "realize", "compose", "aggregate"}
    rows = layers(list(d.nodes), [(e.dst, e.src) if e.arrow in up else (e.src, e.dst) for e in d.edges])
    horizontal = d.direction in ("LR", "RL")
    if not horizontal:
        rows = _wrapped(rows, sizes)
    # along = the axis of the layers' sequence; across = inside a layer
    span = {n: sizes[n][1] if horizontal else sizes[n][0] for n in d.nodes}
    mid = _across(rows, span, [(e.src, e.dst) for e in d.edges])
    lo = min(mid[n] - span[n] / 2 for n in mid)
    widest = max(mid[n] + span[n] / 2 for n in mid) - lo
    thick = [max((sizes[n][0] if horizontal else sizes[n][1]) for n in r) for r in rows]
    centre: dict[str, tuple[float, float]] = {}
    along = float(MARGIN)
    for r, th in zip(rows, thick, strict=True):
        for n in r:
            a, c = along + th / 2, MARGIN + mid[n] - lo
            centre[n] = (a, c) if horizontal else (c, a)
        along += th + GAP_Y
    w, h = (along - GAP_Y + MARGIN, widest + 2 * MARGIN) if horizontal else (widest + 2 * MARGIN, along - GAP_Y + MARGIN)
    if d.direction in ("BT", "RL"):
        centre = {n: ((w - x, y) if horizontal else (x, h - y)) for n, (x, y) in centre.items()}
    out = [_edge(e, centre, sizes, uid) for e in d.edges]
    for nid, node in d.nodes.items():
        x, y = centre[nid]
        bw, bh = sizes[nid]
        out.append(_class_box(d, nid, x, y, bw, bh) if d.kind == "class" else _box(node.shape, node.label, x, y, bw, bh))
    return w, h, out


def _across(rows: list[list[str]], span: dict[str, float], edges: list[tuple[str, str]]) -> dict[str, float]:
    """Each node's centre inside its layer: the widest layer packed, every other layer placed
    towards the mean of its neighbours in the layers already placed (outwards from the widest),
    in its order and never closer than GAP_X: a chain runs straight, a fan sits under its root."""
    near: dict[str, list[str]] = {n: [] for r in rows for n in r}
    for a, b in edges:
        if a != b:
            near[a].append(b)
            near[b].append(a)
    ext = [sum(span[n] for n in r) + GAP_X * (len(r) - 1) for r in rows]
    start = ext.index(max(ext))
    mid: dict[str, float] = {}
    x = 0.0
    for n in rows[start]:
        mid[n] = x + span[n] / 2
        x += span[n] + GAP_X
    for k in [*range(start + 1, len(rows)), *range(start - 1, -1, -1)]:
        r = rows[k]
        want = [_mean([mid[m] for m in near[n] if m in mid]) for n in r]
        centre_all = sum(mid.values()) / len(mid)
        x = centre_all - ext[k] / 2  # where the layer starts when nothing pulls it
        placed: list[tuple[str, float]] = []
        for n, w in zip(r, want, strict=True):
            if placed:
                last, c = placed[-1]
                floor = c + (span[last] + span[n]) / 2 + GAP_X
            else:
                floor = -float("inf") if w is not None else x + span[n] / 2
            placed.append((n, max(floor, w) if w is not None else floor))
        # the gaps pushed nodes right of where they were wanted: move the layer back by the mean
        pushed = [c - w for (_, c), w in zip(placed, want, strict=True) if w is not None]
        shift = max(0.0, sum(pushed) / len(pushed)) if pushed else 0.0
        for n, c in placed:
            mid[n] = c - shift
    return mid


def _mean(xs: list[float]) -> float | None:
    return sum(xs) / len(xs) if xs else None


def _wrapped(rows: list[list[str]], sizes: dict[str, tuple[float, float]]) -> list[list[str]]:
    """Layers wider than a page split into several rows (a layer holds no edge inside it, so
    the split adds no crossing), so that a picture is not shrunk until its text is unreadable."""
    out: list[list[str]] = []
    for r in rows:
        cur: list[str] = []
        width = 0.0
        for n in r:
            if cur and width + sizes[n][0] > MAX_ROW:
                out.append(cur)
                cur, width = [], 0.0
            cur.append(n)
            width += sizes[n][0] + GAP_X
        out.append(cur)
    return out


def _clip(cx: float, cy: float, w: float, h: float, tx: float, ty: float) -> tuple[float, float]:
    """Where the segment from a box's centre towards (tx, ty) leaves the box."""
    dx, dy = tx - cx, ty - cy
    if dx == 0 and dy == 0:
        return cx, cy
    s = min((w / 2) / abs(dx) if dx else float("inf"), (h / 2) / abs(dy) if dy else float("inf"))
    return cx + dx * s, cy + dy * s


def _edge(e: Edge, centre: dict[str, tuple[float, float]], sizes: dict[str, tuple[float, float]], uid: str) -> str:
    (x1, y1), (x2, y2) = centre[e.src], centre[e.dst]
    dash = ' stroke-dasharray="5,4"' if e.style == "dotted" else ""
    width = 2.5 if e.style == "thick" else 1.3
    if e.src == e.dst:  # a self-loop: a small arc on the box's right
        w, h = sizes[e.src]
        sx, sy = x1 + w / 2, y1 - h / 4
        path = f'<path d="M{_n(sx)},{_n(sy)} c30,-14 30,{_n(h / 2 + 14)} 0,{_n(h / 2)}" fill="none"'
        end = f' marker-end="url(#{uid}-{e.arrow})"' if e.arrow not in ("none", "link") else ""
        lab = _edge_label(e.label, sx + 30, y1)
        return f'<g class="mmd-edge">{path} stroke="{LINE}" stroke-width="{width}"{dash}{end}/>{lab}</g>'
    ax, ay = _clip(x1, y1, *sizes[e.src], x2, y2)
    bx, by = _clip(x2, y2, *sizes[e.dst], x1, y1)
    end = f' marker-end="url(#{uid}-{e.arrow})"' if e.arrow not in ("none", "link") else ""
    line = (f'<line x1="{_n(ax)}" y1="{_n(ay)}" x2="{_n(bx)}" y2="{_n(by)}" stroke="{LINE}" '
            f'stroke-width="{width}"{dash}{end}/>')
    return f'<g class="mmd-edge">{line}{_edge_label(e.label, (ax + bx) / 2, (ay + by) / 2)}</g>'


def _edge_label(label: str, x: float, y: float) -> str:
    if not label:
        return ""
    w = text_width(label) + 8
    return (f'<rect class="mmd-label-bg" x="{_n(x - w / 2)}" y="{_n(y - 9)}" width="{_n(w)}" height="18" rx="3" '
            f'fill="#ffffff" opacity="0.85"/><text class="mmd-label" x="{_n(x)}" y="{_n(y + 4)}" '
            f'text-anchor="middle" fill="{FG}">{escape(label)}</text>')


def _box(shape: str, label: str, x: float, y: float, w: float, h: float) -> str:
    left, t = x - w / 2, y - h / 2
    if shape == "rhombus":
        pts = f"{_n(x)},{_n(t)} {_n(left + w)},{_n(y)} {_n(x)},{_n(t + h)} {_n(left)},{_n(y)}"
        frame = f'<polygon points="{pts}"'
    elif shape == "hexagon":
        k = 10
        pts = " ".join(f"{_n(a)},{_n(b)}" for a, b in ((left + k, t), (left + w - k, t), (left + w, y), (left + w - k, t + h),
                                                        (left + k, t + h), (left, y)))
        frame = f'<polygon points="{pts}"'
    else:
        rx = {"round": 8, "stadium": h / 2, "circle": h / 2}.get(shape, 3)
        frame = f'<rect x="{_n(left)}" y="{_n(t)}" width="{_n(w)}" height="{_n(h)}" rx="{_n(rx)}"'
    extra = (f'<line x1="{_n(left + 6)}" y1="{_n(t)}" x2="{_n(left + 6)}" y2="{_n(t + h)}" stroke="{LINE}"/>'
             f'<line x1="{_n(left + w - 6)}" y1="{_n(t)}" x2="{_n(left + w - 6)}" y2="{_n(t + h)}" stroke="{LINE}"/>'
             if shape == "subroutine" else "")
    return (f'<g class="mmd-node">{frame} fill="{BG}" stroke="{LINE}" stroke-width="1.2"/>{extra}'
            f'<text x="{_n(x)}" y="{_n(y + 4.5)}" text-anchor="middle" fill="{FG}">{escape(label)}</text></g>')


def _class_box(d: Diagram, nid: str, x: float, y: float, w: float, h: float) -> str:
    left, t = x - w / 2, y - h / 2
    parts = [f'<g class="mmd-node mmd-class"><rect x="{_n(left)}" y="{_n(t)}" width="{_n(w)}" height="{_n(h)}" '
             f'rx="3" fill="{BG}" stroke="{LINE}" stroke-width="1.2"/>',
             f'<text x="{_n(x)}" y="{_n(t + BOX_H / 2 + 4.5)}" text-anchor="middle" font-weight="bold" '
             f'fill="{FG}">{escape(d.nodes[nid].label)}</text>']
    members = d.members.get(nid, [])
    if members:
        sep = t + BOX_H
        parts.append(f'<line x1="{_n(left)}" y1="{_n(sep)}" x2="{_n(left + w)}" y2="{_n(sep)}" stroke="{LINE}"/>')
        for k, m in enumerate(members):
            parts.append(f'<text x="{_n(left + PAD_X)}" y="{_n(sep + 4 + MEMBER_H * (k + 1) - 4)}" fill="{FG}">'
                         f"{escape(m)}</text>")
    return "".join(parts) + "</g>"


# ------------------------------------------------------------------ sequence diagrams

MSG_GAP = 40


def _sequence(d: Diagram, uid: str) -> tuple[float, float, list[str]]:
    ids = list(d.nodes)
    widths = {p: max(text_width(d.nodes[p].label) + 2 * PAD_X, 60.0) for p in ids}
    index = {p: i for i, p in enumerate(ids)}
    # the distance between neighbours' centres fits their boxes and every label between them
    dist = [widths[a] / 2 + widths[b] / 2 + GAP_X for a, b in zip(ids, ids[1:])]
    for e in d.edges:
        i, j = sorted((index[e.src], index[e.dst]))
        need = text_width(e.label) + 24
        if i == j:
            if i < len(dist):
                dist[i] = max(dist[i], need + 30)
            continue
        have = sum(dist[i:j])
        if have < need:
            dist[j - 1] += need - have
    xs = [MARGIN + widths[ids[0]] / 2]
    for gap in dist:
        xs.append(xs[-1] + gap)
    x_of = {p: xs[index[p]] for p in ids}
    top = MARGIN + BOX_H
    y_end = top + MSG_GAP * (len(d.edges) + 1)
    right = max(x_of[p] + widths[p] / 2 for p in ids)
    self_room = max((text_width(e.label) + 40 for e in d.edges if e.src == e.dst and index[e.src] == len(ids) - 1),
                    default=0)
    w, h = right + MARGIN + self_room, y_end + BOX_H + MARGIN
    out = []
    for p in ids:
        x = x_of[p]
        out.append(f'<line class="mmd-lifeline" x1="{_n(x)}" y1="{_n(top)}" x2="{_n(x)}" y2="{_n(y_end)}" '
                   f'stroke="{MUTED}" stroke-dasharray="3,3"/>')
    for k, e in enumerate(d.edges):
        y = top + MSG_GAP * (k + 1)
        dash = ' stroke-dasharray="5,4"' if e.style == "dotted" else ""
        end = f' marker-end="url(#{uid}-{e.arrow})"' if e.arrow != "none" else ""
        a, b = x_of[e.src], x_of[e.dst]
        if e.src == e.dst:
            path = f'<path d="M{_n(a)},{_n(y - 6)} h28 v14 h-28" fill="none" stroke="{LINE}" stroke-width="1.3"{dash}{end}/>'
            label = f'<text x="{_n(a + 34)}" y="{_n(y + 4)}" fill="{FG}">{escape(e.label)}</text>'
        else:
            path = f'<line x1="{_n(a)}" y1="{_n(y)}" x2="{_n(b)}" y2="{_n(y)}" stroke="{LINE}" stroke-width="1.3"{dash}{end}/>'
            label = f'<text x="{_n((a + b) / 2)}" y="{_n(y - 6)}" text-anchor="middle" fill="{FG}">{escape(e.label)}</text>'
        out.append(f'<g class="mmd-edge mmd-message">{path}{label}</g>')
    for p in ids:
        for y in (MARGIN, y_end):
            out.append(_box("rect", d.nodes[p].label, x_of[p], y + BOX_H / 2, widths[p], BOX_H))
    return w, h, out
