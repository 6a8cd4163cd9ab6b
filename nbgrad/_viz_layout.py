"""The built-in drawing of ``nbgrad.viz``, for when Graphviz's ``dot`` is not installed.

A layered (Sugiyama-style) layout: layers by longest path from the outputs (layer 0, drawn
at the bottom) up to the leaves; an edge that spans several layers gets a bend point in
each (a "dummy" node) so that it can run between the boxes; a few barycenter sweeps order
each layer to reduce crossings; then each box is pulled toward the mean position of its
neighbours, keeping the order, by isotonic regression. Drawn to SVG by hand, or to PNG with
matplotlib when it is installed.
"""

import bisect
import re
import zlib
from xml.sax.saxutils import escape

CHAR_W = 6.7  # px per character of the 11 px monospace font
LINE_H = 14
PAD_X, PAD_Y = 8, 5
NODE_SEP = 18  # px between neighbouring boxes of a layer
DUMMY_SEP = 8  # ... next to an edge's bend point
RANK_SEP = 40  # px between layers: room for arrowheads and a cluster's label
CLUSTER_PAD = 8
CLUSTER_LABEL = 15
MARGIN = 12
MAX_DUMMIES = 4000  # bend points at most; longer edges beyond it are drawn straight
SWEEPS = 8  # ordering sweeps (each up and down); and rounds of pulling boxes

HEX = {"output": "#caff70", "leaf": "#add8e6", "fn": "#d3d3d3", "saved": "#ffa500",
       "more": "#ffffff"}


class Box:
    """A node of the layout (``dummy``: an edge's bend point, not drawn); ``x``, ``y`` are
    its centre."""

    __slots__ = ("id", "lines", "kind", "group", "layer", "x", "y", "w", "h", "dummy")

    def __init__(self, nid, label, kind, group, dummy=False):
        self.id, self.kind, self.group, self.dummy = nid, kind, group, dummy
        self.lines = label.split("\n") if label else []
        self.w = max((len(s) for s in self.lines), default=0) * CHAR_W + 2 * PAD_X
        self.h = len(self.lines) * LINE_H + 2 * PAD_Y
        if dummy:
            self.w = self.h = 0
        self.layer, self.x, self.y = 0, 0.0, 0.0


class Layout:
    """Where everything goes: ``boxes`` (drawn ones), ``paths`` (``(points, kind)`` per
    edge, from tail to head), ``clusters`` (``(name, x, y, w, h)``), ``width``,
    ``height``."""

    def __init__(self, boxes, paths, clusters, width, height):
        self.boxes, self.paths, self.clusters = boxes, paths, clusters
        self.width, self.height = width, height


def layout(nodes, edges):
    """The layout of ``nodes`` and ``edges`` (``nbgrad.viz``'s GraphNode and GraphEdge)."""
    boxes = [Box(n.id, n.label, n.kind, n.group) for n in nodes]
    index = {b.id: i for i, b in enumerate(boxes)}
    links = [(index[e.tail], index[e.head], e.kind) for e in edges]
    _assign_layers(boxes, links)
    chains, above, below = _add_bends(boxes, links)
    layers = _order(boxes, above, below)
    _place_x(boxes, layers, above, below)
    height = _place_y(boxes, layers)
    paths = _paths(boxes, chains, links)
    real = [b for b in boxes if not b.dummy]
    clusters = _clusters(real)
    return _fit(real, paths, clusters, height)


# ----- layers -------------------------------------------------------------------------------
def _assign_layers(boxes, links):
    """Longest path from the outputs: each box one layer above the highest box that takes
    its output. Iterative (Kahn's order), so a 20,000-deep chain is no recursion problem."""
    n = len(boxes)
    ins = [[] for _ in range(n)]
    pending = [0] * n
    for t, h, _ in links:
        ins[h].append(t)
        pending[t] += 1
    stack = [i for i in range(n) if pending[i] == 0]
    while stack:
        v = stack.pop()
        for u in ins[v]:
            if boxes[u].layer < boxes[v].layer + 1:
                boxes[u].layer = boxes[v].layer + 1
            pending[u] -= 1
            if pending[u] == 0:
                stack.append(u)
    # a module's parameters share a layer (the highest of them), so that one frame holds
    # them; moving a source up keeps every edge pointing down
    top = {}
    for i, b in enumerate(boxes):
        if b.group is not None and not ins[i]:
            top[b.group] = max(top.get(b.group, 0), b.layer)
    for i, b in enumerate(boxes):
        if b.group is not None and not ins[i]:
            b.layer = top[b.group]


def _add_bends(boxes, links):
    """Each edge as a chain of box indices, with a bend point in each layer it crosses
    (within ``MAX_DUMMIES``, shortest edges first); and the neighbours each box has in the
    layer above and below through those chains."""
    chains = [None] * len(links)
    budget = MAX_DUMMIES
    for k in sorted(range(len(links)), key=lambda k: _span(boxes, links[k])):
        t, h, _ = links[k]
        span = _span(boxes, links[k])
        if span < 1 or span - 1 > budget:
            chains[k] = [t, h]  # drawn straight, left out of the ordering
            continue
        budget -= span - 1
        chain = [t]
        for layer in range(boxes[t].layer - 1, boxes[h].layer, -1):
            bend = Box("", "", "", None, dummy=True)
            bend.layer = layer
            chain.append(len(boxes))
            boxes.append(bend)
        chains[k] = chain + [h]
    above = [[] for _ in boxes]
    below = [[] for _ in boxes]
    for chain in chains:
        for a, b in zip(chain, chain[1:]):
            if boxes[a].layer == boxes[b].layer + 1:
                below[a].append(b)
                above[b].append(a)
    return chains, above, below


def _span(boxes, link):
    return boxes[link[0]].layer - boxes[link[1]].layer


# ----- order within layers -----------------------------------------------------------------
def _order(boxes, above, below):
    """Each layer's boxes left to right: walk order to start with, then barycenter sweeps
    up and down; a module's boxes stay side by side (one frame around them)."""
    layers = [[] for _ in range(max(b.layer for b in boxes) + 1)]
    for i, b in enumerate(boxes):
        layers[b.layer].append(i)
    pos = [0] * len(boxes)
    for layer in layers:
        for p, i in enumerate(layer):
            pos[i] = p
    best, fewest = [list(layer) for layer in layers], _crossings(layers, below, pos)
    up = [(k, below) for k in range(1, len(layers))]
    down = [(k, above) for k in range(len(layers) - 2, -1, -1)]
    for sweep in [up, down] * SWEEPS:
        if not fewest:
            break
        for k, ref in sweep:
            _sort_layer(boxes, layers[k], ref, pos)
        n = _crossings(layers, below, pos)
        if n < fewest:  # a sweep can make it worse: keep the best order seen
            best, fewest = [list(layer) for layer in layers], n
    return best


def _crossings(layers, below, pos):
    """How many pairs of edge segments cross between neighbouring layers: with the
    segments sorted by their upper end, the inversions among their lower ends."""
    total = 0
    for layer in layers[1:]:
        ends = [pos[b] for _, b in sorted((pos[a], pos[b]) for a in layer for b in below[a])]
        seen = []
        for e in ends:
            total += len(seen) - bisect.bisect_right(seen, e)
            bisect.insort(seen, e)
    return total


def _sort_layer(boxes, layer, ref, pos):
    bary = {}
    for i in layer:
        nb = ref[i]
        bary[i] = sum(pos[u] for u in nb) / len(nb) if nb else pos[i]
    group_key = {}
    for i in layer:
        g = boxes[i].group
        if g is not None:
            group_key.setdefault(g, []).append(bary[i])
    group_key = {g: sum(v) / len(v) for g, v in group_key.items()}

    def key(i):
        g = boxes[i].group
        return (bary[i] if g is None else group_key[g], g or "", bary[i], pos[i])

    layer.sort(key=key)
    for p, i in enumerate(layer):
        pos[i] = p


# ----- coordinates --------------------------------------------------------------------------
def _place_x(boxes, layers, above, below):
    for layer in layers:  # packed left to right to start with
        x = 0.0
        for a, b in zip([None] + layer, layer):
            x += _gap(boxes, a, b)
            boxes[b].x = x
    for _ in range(SWEEPS):
        for k in range(1, len(layers)):
            _pull(boxes, layers[k], below)
        for k in range(len(layers) - 2, -1, -1):
            _pull(boxes, layers[k], above)


def _gap(boxes, a, b):
    """Distance between the centres of neighbours ``a`` and ``b`` (a None: from 0)."""
    if a is None:
        return boxes[b].w / 2
    ba, bb = boxes[a], boxes[b]
    sep = DUMMY_SEP if ba.dummy or bb.dummy else NODE_SEP
    if ba.group != bb.group:  # room for the frames' padding
        sep += CLUSTER_PAD * ((ba.group is not None) + (bb.group is not None))
    return (ba.w + bb.w) / 2 + sep


def _pull(boxes, layer, ref):
    """Move the boxes of ``layer`` as close as they can get to the mean x of their
    neighbours in ``ref``, keeping their order and gaps: with offsets taken out the
    constraint is that positions do not decrease, so the least-squares answer is an
    isotonic regression (pool adjacent violators)."""
    offsets, off = [], 0.0
    for a, b in zip([None] + layer, layer):
        off += _gap(boxes, a, b) if a is not None else 0.0
        offsets.append(off)
    blocks = []  # [sum, count] of pooled targets
    for i, o in zip(layer, offsets):
        nb = ref[i]
        want = sum(boxes[u].x for u in nb) / len(nb) if nb else boxes[i].x
        blocks.append([want - o, 1])
        while len(blocks) > 1 and blocks[-2][0] * blocks[-1][1] > blocks[-1][0] * blocks[-2][1]:
            s, c = blocks.pop()
            blocks[-1][0] += s
            blocks[-1][1] += c
    k = 0
    for s, c in blocks:
        for _ in range(c):
            boxes[layer[k]].x = s / c + offsets[k]
            k += 1


def _place_y(boxes, layers):
    """Top-down y of each layer's row (the leaves' layer on top); returns the bottom."""
    y = MARGIN + CLUSTER_LABEL + CLUSTER_PAD
    for layer in reversed(layers):
        row = max([boxes[i].h for i in layer] + [LINE_H])
        for i in layer:
            boxes[i].y = y + row / 2
        y += row + RANK_SEP
    return y - RANK_SEP + CLUSTER_PAD + MARGIN


# ----- edges and frames --------------------------------------------------------------------
def _paths(boxes, chains, links):
    """Each edge's polyline, leaving its tail's bottom and entering its head's top at ports
    spread along the side in the order of where the edges come from (no arrowheads piled
    on one point)."""
    outs, ins = {}, {}
    for k, chain in enumerate(chains):
        outs.setdefault(chain[0], []).append((boxes[chain[1]].x, k))
        ins.setdefault(chain[-1], []).append((boxes[chain[-2]].x, k))
    start, end = {}, {}
    for ports, where, side in ((outs, start, 1), (ins, end, -1)):
        for i, lst in ports.items():
            b = boxes[i]
            lst.sort()
            for j, (_, k) in enumerate(lst):
                frac = 0.5 if len(lst) == 1 else 0.15 + 0.7 * j / (len(lst) - 1)
                where[k] = (b.x - b.w / 2 + b.w * frac, b.y + side * b.h / 2)
    paths = []
    for k, chain in enumerate(chains):
        pts = [start[k]] + [(boxes[i].x, boxes[i].y) for i in chain[1:-1]] + [end[k]]
        paths.append((pts, links[k][2]))
    return paths


def _clusters(real):
    frames = {}
    for b in real:
        if b.group is not None:
            frames.setdefault(b.group, []).append(b)
    out = []
    for name, members in frames.items():
        x0 = min(b.x - b.w / 2 for b in members) - CLUSTER_PAD
        x1 = max(b.x + b.w / 2 for b in members) + CLUSTER_PAD
        y0 = min(b.y - b.h / 2 for b in members) - CLUSTER_PAD - CLUSTER_LABEL
        y1 = max(b.y + b.h / 2 for b in members) + CLUSTER_PAD
        w = max(x1 - x0, len(name) * CHAR_W + 2 * CLUSTER_PAD)
        out.append((name, (x0 + x1 - w) / 2, y0, w, y1 - y0))
    return out


def _fit(real, paths, clusters, height):
    """Shift everything right of the left margin; the canvas's size."""
    xs = [b.x - b.w / 2 for b in real] + [c[1] for c in clusters]
    xs += [x for pts, _ in paths for x, _ in pts]
    dx = MARGIN - min(xs)
    for b in real:
        b.x += dx
    paths = [([(x + dx, y) for x, y in pts], kind) for pts, kind in paths]
    clusters = [(n, x + dx, y, w, h) for n, x, y, w, h in clusters]
    right = [b.x + b.w / 2 for b in real] + [c[1] + c[3] for c in clusters]
    right += [x for pts, _ in paths for x, _ in pts]
    return Layout(real, paths, clusters, max(right) + MARGIN, height)


# ----- SVG ----------------------------------------------------------------------------------
_BAD_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _x(text):
    """``text`` escaped for XML content and attribute values."""
    return escape(_BAD_XML.sub("\ufffd", text), {'"': "&quot;"})


def _f(v):
    return f"{v:.1f}"


def to_svg(lay):
    """The layout as an SVG document (a str starting with ``<svg``)."""
    # an id of its own: SVGs inlined in one page (a notebook) share one id space
    mark = "nbgrad-arrow-%08x" % zlib.crc32(
        "\0".join(s for b in lay.boxes for s in b.lines).encode("utf-8", "replace"))
    w, h = _f(lay.width), _f(lay.height)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="monospace" font-size="11">',
           f'<defs><marker id="{mark}" viewBox="0 0 10 10" refX="10" refY="5" '
           'markerWidth="8" markerHeight="8" markerUnits="userSpaceOnUse" orient="auto">'
           '<path d="M0,0L10,5L0,10z" fill="#333"/></marker></defs>',
           f'<rect class="background" width="{w}" height="{h}" fill="white"/>']
    for name, x, y, cw, ch in lay.clusters:
        out.append(f'<g class="cluster"><rect x="{_f(x)}" y="{_f(y)}" width="{_f(cw)}" '
                   f'height="{_f(ch)}" rx="6" fill="#f7f7f7" stroke="#808080"/>'
                   f'<text x="{_f(x + CLUSTER_PAD)}" y="{_f(y + CLUSTER_LABEL - 3)}" '
                   f'fill="#555">{_x(name)}</text></g>')
    for pts, kind in lay.paths:
        attrs = {"flow": f' marker-end="url(#{mark})"', "saved": "",
                 "more": f' stroke-dasharray="4 3" marker-end="url(#{mark})"'}[kind]
        points = " ".join(f"{_f(x)},{_f(y)}" for x, y in pts)
        out.append(f'<polyline class="edge" points="{points}" fill="none" stroke="#333"'
                   f'{attrs}/>')
    for b in lay.boxes:
        out.append(_svg_box(b))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _svg_box(b):
    dash = ' stroke-dasharray="4 3"' if b.kind == "more" else ""
    x0, y0 = b.x - b.w / 2, b.y - b.h / 2
    top = b.y - len(b.lines) * LINE_H / 2
    spans = "".join(f'<tspan x="{_f(b.x)}" y="{_f(top + LINE_H * (j + 0.75))}">{_x(s)}</tspan>'
                    for j, s in enumerate(b.lines))
    return (f'<g class="node {b.kind}" data-id="{b.id}"><title>{_x(" ".join(b.lines))}</title>'
            f'<rect x="{_f(x0)}" y="{_f(y0)}" width="{_f(b.w)}" height="{_f(b.h)}" '
            f'fill="{HEX[b.kind]}" stroke="black"{dash}/>'
            f'<text text-anchor="middle">{spans}</text></g>')


# ----- PNG (matplotlib) ---------------------------------------------------------------------
MAX_PNG_SIDE = 16000  # px: a taller picture is scaled down (Agg's limit is 2**16)


def to_png(lay):
    """The layout as PNG bytes, drawn with matplotlib (no pyplot: no global state). Edges,
    arrowheads and boxes go in one collection each: an artist per edge took seconds for a
    few hundred boxes."""
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.collections import LineCollection, PolyCollection
        from matplotlib.figure import Figure
        from matplotlib.patches import FancyBboxPatch
    except ImportError:
        raise RuntimeError("writing PNG needs Graphviz's dot program on PATH or matplotlib "
                           "installed (pip install matplotlib); SVG and DOT always work") from None
    import io

    fig = Figure(figsize=(lay.width / 100, lay.height / 100))
    FigureCanvasAgg(fig)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.set_xlim(0, lay.width)
    ax.set_ylim(lay.height, 0)  # y down, as in the SVG
    ax.axis("off")
    pt = 72 / 100  # points per px at 100 dpi
    text = dict(family="monospace", fontsize=11 * pt, parse_math=False)  # ($ is no TeX)
    for name, x, y, w, h in lay.clusters:
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0,rounding_size=6",
                                    fc="#f7f7f7", ec="#808080", lw=pt))
        ax.text(x + CLUSTER_PAD, y + 3, name, ha="left", va="top", color="#555", **text)
    for kind, style in (("flow", "-"), ("saved", "-"), ("more", "--")):
        lines = [pts for pts, k in lay.paths if k == kind]
        if lines:
            ax.add_collection(LineCollection(lines, colors="#333", linewidths=pt,
                                             linestyles=style))
    heads = [_arrowhead(pts[-2], pts[-1]) for pts, k in lay.paths if k != "saved"]
    if heads:
        ax.add_collection(PolyCollection(heads, facecolors="#333", edgecolors="none"))
    ax.add_collection(PolyCollection(
        [[(b.x - b.w / 2, b.y - b.h / 2), (b.x + b.w / 2, b.y - b.h / 2),
          (b.x + b.w / 2, b.y + b.h / 2), (b.x - b.w / 2, b.y + b.h / 2)] for b in lay.boxes],
        facecolors=[HEX[b.kind] for b in lay.boxes], edgecolors="black", linewidths=pt,
        linestyles=["--" if b.kind == "more" else "-" for b in lay.boxes]))
    for b in lay.boxes:
        ax.text(b.x, b.y, "\n".join(b.lines), ha="center", va="center",
                linespacing=LINE_H / 11, **text)
    buf = io.BytesIO()
    scale = min(1.0, MAX_PNG_SIDE / max(lay.width, lay.height))
    fig.savefig(buf, format="png", dpi=100 * scale)
    return buf.getvalue()


def _arrowhead(p0, p1, length=8.0, half=3.5):
    """The triangle of an arrow from ``p0`` ending at ``p1``."""
    dx, dy = p1[0] - p0[0], p1[1] - p0[1]
    n = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / n, dy / n
    bx, by = p1[0] - ux * length, p1[1] - uy * length
    return [p1, (bx - uy * half, by + ux * half), (bx + uy * half, by - ux * half)]
