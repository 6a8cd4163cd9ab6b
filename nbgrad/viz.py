"""Pictures of the autograd graph, as torchviz draws PyTorch's: ``make_dot``.

``make_dot(loss, params=dict(model.named_parameters()))`` walks the graph behind ``loss``
(its ``grad_fn`` and their ``next_functions``) and returns a ``Digraph``: its ``source`` is
Graphviz DOT text, it shows itself as SVG in Jupyter, and ``save("graph.svg")`` writes SVG,
PNG or DOT by the file's extension. Graphviz's ``dot`` lays it out when it is installed;
otherwise a built-in layered layout (``nbgrad._viz_layout``) draws the SVG, and matplotlib
the PNG, so that a picture never needs a system package.

``import nbgrad`` makes it ``nbgrad.viz``; it imports nothing beyond the standard library
until a picture is drawn (matplotlib only for a PNG without Graphviz).
"""

import os
import shutil
import warnings
from collections import deque, namedtuple

from .tensor import Tensor

__all__ = ["Digraph", "GraphEdge", "GraphNode", "make_dot"]

# kind -> Graphviz colour (torchviz's); the built-in renderer maps them to hex (_viz_layout)
FILL = {"output": "darkolivegreen1", "leaf": "lightblue", "fn": "lightgrey",
        "saved": "orange", "more": "white"}

GraphNode = namedtuple("GraphNode", "id label kind group")
GraphNode.__doc__ = """One box of the picture: ``id`` (``"n3"``), ``label`` (lines joined by
``\\n``), ``kind`` (``"output"``, ``"leaf"``, ``"fn"``, ``"saved"`` or ``"more"``) and
``group`` (the module name of a parameter such as ``"encoder.0"``, else None)."""
GraphEdge = namedtuple("GraphEdge", "tail head kind")
GraphEdge.__doc__ = """An arrow from ``tail`` to ``head`` (node ids) in the forward
direction (input to consumer): ``kind`` is ``"flow"``, ``"saved"`` (a saved tensor to its
node, drawn without arrowhead) or ``"more"`` (from the node counting what was left out)."""

DOT_TIMEOUT = 60  # seconds for Graphviz's dot; a picture is not worth a hung notebook
_FORMATS = {".svg": "svg", ".png": "png", ".dot": "dot", ".gv": "dot", ".pdf": "pdf"}


# ----- the walk ---------------------------------------------------------------------------
def make_dot(var, params=None, show_attrs=False, show_saved=False, max_attr_chars=50,
             max_nodes=500):
    r"""Draw the autograd graph that produced ``var``, as torchviz's ``make_dot`` does.

    Boxes: the output tensors (green), the leaf tensors that require grad (blue; labelled
    with their name in ``params`` and their shape), the backward nodes (grey; the node's
    name, e.g. ``AddmmBackward0``) and, with ``show_saved``, the tensors they saved for
    backward (orange). Arrows point the way data flowed forward, from inputs to outputs.
    Parameters whose names have dots (``encoder.0.weight``) are grouped by module.

    Args:
        var (Tensor or sequence of Tensors): the output(s) whose history is drawn.
        params (dict, optional): names for leaf tensors, ``name -> tensor``, e.g.
            ``dict(model.named_parameters())`` (an iterable of ``(name, tensor)`` pairs
            works too). Default: ``None``.
        show_attrs (bool, optional): list each backward node's non-tensor saved
            attributes (its ``_saved_*`` values such as ``dim`` or sizes) under its name.
            Default: ``False``.
        show_saved (bool, optional): draw the tensors each node saved for backward.
            Nothing is drawn for a node whose saved tensors a backward pass freed.
            Default: ``False``.
        max_attr_chars (int, optional): longest attribute value shown; longer ones are
            cut with ``...``. Default: ``50``.
        max_nodes (int or None, optional): the most boxes drawn; the rest of the graph is
            counted and shown as one box (``… 19,500 more nodes``), so that a huge graph
            gives a picture quickly. ``None``: no limit. Default: ``500``.

    Returns:
        Digraph: ``.source`` is the DOT text; ``.save(path)`` writes SVG, PNG or DOT;
        in Jupyter it shows itself as SVG.

    Raises:
        TypeError: ``var`` is not a tensor or a sequence of tensors, or ``params`` holds
            something other than tensors.

    Example::

        >>> import nbgrad
        >>> from nbgrad.viz import make_dot
        >>> x = nbgrad.ones(3)
        >>> w = nbgrad.ones(3, requires_grad=True)
        >>> y = (x * w).sum()
        >>> g = make_dot(y, params={"w": w})
        >>> "MulBackward0" in g.source
        True
        >>> [n.label for n in g.nodes if n.kind == "leaf"]
        ['w\n(3)']
    """
    outputs = _as_tensors(var)
    if max_nodes is not None and max_nodes < 1:
        raise ValueError(f"max_nodes must be at least 1 (or None), got {max_nodes}")
    walk = _Walk(_param_names(params), show_attrs, show_saved, max_attr_chars, max_nodes)
    walk.run(outputs)
    return Digraph(walk.nodes, walk.edges)


def _as_tensors(var):
    if isinstance(var, Tensor):
        return [var]
    if isinstance(var, (tuple, list)) and var:
        for i, t in enumerate(var):
            if not isinstance(t, Tensor):
                raise TypeError(f"make_dot: var[{i}] is a {type(t).__name__}, not a Tensor")
        return list(var)
    raise TypeError("make_dot: var must be a Tensor or a non-empty tuple/list of Tensors, "
                    f"not {type(var).__name__}")


def _param_names(params):
    """``id(tensor) -> name`` from ``params`` (a dict or ``(name, tensor)`` pairs)."""
    if params is None:
        return {}
    pairs = params.items() if hasattr(params, "items") else params
    names = {}
    for name, t in pairs:
        if not isinstance(t, Tensor):
            raise TypeError(f"make_dot: params[{name!r}] is a {type(t).__name__}, not a Tensor")
        names.setdefault(id(t), str(name))  # (a tied parameter keeps its first name)
    return names


def _shape_text(t):
    return "(" + ", ".join(str(d) for d in t.shape) + ")"


def _node_name(fn):
    name = fn.name() if hasattr(fn, "name") else type(fn).__name__
    return name.rsplit("::", 1)[-1]  # torch::autograd::CopySlices -> CopySlices (torchviz's)


def _is_accumulator(fn):
    return hasattr(fn, "variable") and isinstance(fn.variable, Tensor)


class _Walk:
    """A breadth-first walk from the outputs, each node once, admitting boxes until
    ``max_nodes`` and then only counting (so that the cut-off box can say how many)."""

    def __init__(self, names, show_attrs, show_saved, max_chars, max_nodes):
        self.names = names
        self.show_attrs, self.show_saved = show_attrs, show_saved
        self.max_chars = max_chars
        self.room = float("inf") if max_nodes is None else max_nodes
        self.nodes, self.edges = [], []
        self.left_out = 0
        self.frontier = []  # boxes with an input that was left out

    def add(self, kind, label, group=None):
        """A new box's id, or None when the cap is reached."""
        if self.room <= 0:
            self.left_out += 1
            return None
        self.room -= 1
        nid = f"n{len(self.nodes)}"
        self.nodes.append(GraphNode(nid, label, kind, group))
        return nid

    def tensor_box(self, t, kind):
        name = self.names.get(id(t))
        label = _shape_text(t) if name is None else f"{name}\n{_shape_text(t)}"
        group = None
        if name is not None and kind == "leaf":
            group = name.rpartition(".")[0] or None  # the module: "encoder.0" of its weight
        return self.add(kind, label, group)

    def run(self, outputs):
        drawn = {}  # id(fn) -> box id (None: discovered, not drawn)
        waiting = {}  # id(fn) -> boxes that take its output, until it is drawn
        leaf_boxes = {}  # id(tensor) -> box of an output that is itself a leaf
        keep = []  # the nodes walked, alive until the walk ends (their ids are the keys)
        queue = deque()
        seen_out = set()  # (by id: Tensor's == is elementwise)
        for t in outputs:
            if id(t) in seen_out:
                continue
            seen_out.add(id(t))
            box = self.tensor_box(t, "output")
            fn = t.grad_fn
            if fn is None:
                if box is not None:
                    leaf_boxes[id(t)] = box
                continue
            self._reach(fn, box, drawn, waiting, queue, keep)
        while queue:
            fn = queue.popleft()
            box = self._draw(fn, leaf_boxes)
            drawn[id(fn)] = box
            for consumer in waiting.pop(id(fn)):
                if consumer is None:  # (a box left out takes it)
                    continue
                if box is not None:
                    self.edges.append(GraphEdge(box, consumer, "flow"))
                else:
                    self.frontier.append(consumer)
            for nxt, _ in getattr(fn, "next_functions", ()):
                if nxt is not None:
                    self._reach(nxt, box, drawn, waiting, queue, keep)
        self._add_more_box()

    def _reach(self, fn, consumer, drawn, waiting, queue, keep):
        """``consumer`` (a box, or None when not drawn) takes an output of ``fn``."""
        key = id(fn)
        if key in drawn:
            box = drawn[key]
            if box is not None and consumer is not None:
                self.edges.append(GraphEdge(box, consumer, "flow"))
            elif consumer is not None:
                self.frontier.append(consumer)
        elif key in waiting:
            waiting[key].append(consumer)
        else:
            waiting[key] = [consumer]
            keep.append(fn)
            queue.append(fn)

    def _draw(self, fn, leaf_boxes):
        if _is_accumulator(fn):
            t = fn.variable
            if id(t) in leaf_boxes:  # an output that is also an input: one box
                return leaf_boxes[id(t)]
            return self.tensor_box(t, "leaf")
        if self.room <= 0:  # (skip reading saved values of what is not drawn)
            self.left_out += 1
            return None
        saved, attrs = _saved_values(fn) if self.show_saved or self.show_attrs else ([], [])
        box = self.add("fn", self._fn_label(fn, attrs))
        if self.show_saved:
            for name, t in saved:
                sbox = self.add("saved", f"{name}\n{_shape_text(t)}")
                if sbox is None:
                    self.frontier.append(box)
                else:
                    self.edges.append(GraphEdge(sbox, box, "saved"))
        return box

    def _fn_label(self, fn, attrs):
        name = _node_name(fn)
        if not self.show_attrs or not attrs:
            return name
        lines = [f"{k}: {_cut(v, self.max_chars)}" for k, v in attrs]
        return "\n".join([name, "-" * max(len(s) for s in [name] + lines)] + lines)

    def _add_more_box(self):
        if not self.left_out:
            return
        n = self.left_out
        self.room = 1  # the one box beyond the cap
        box = self.add("more", f"\u2026 {n:,} more node{'s' if n != 1 else ''}")
        for consumer in dict.fromkeys(self.frontier):
            self.edges.append(GraphEdge(box, consumer, "more"))


def _cut(value, limit):
    text = repr(value) if isinstance(value, str) else str(value)
    text = text.replace("\n", " ")
    return text if len(text) <= limit else text[:max(limit - 3, 0)] + "..."


# ----- what a node saved --------------------------------------------------------------------
def _saved_values(fn):
    """``(tensors, others)``: the ``(name, value)`` pairs node ``fn`` saved for backward,
    tensors and the rest. Names as PyTorch's ``grad_fn._saved_<name>`` where nbgrad exposes
    them (the rows of its op table), else the saved values in order."""
    names = [a for a in dir(type(fn)) if a.startswith("_saved_")]
    if names:
        pairs = []
        for attr in names:
            try:
                pairs.append((attr[len("_saved_"):], getattr(fn, attr)))
            except Exception:  # freed by a backward pass, changed in place
                pass  # since, or odd: a picture does not fail for one value it cannot show
        return _split_tensors(pairs)
    try:
        values = fn.saved_tensors
    except Exception:  # (as above)
        return [], []
    return _split_tensors(zip(_row_names(fn, len(values)), values))


def _row_names(fn, n):
    """Names of an elementwise row's saved values (PyTorch's: the input is ``self``)."""
    op = getattr(type(fn), "op", None)
    saves = getattr(op, "saves", None)
    if isinstance(saves, tuple) and len(saves) == n:
        return [{"input": "self"}.get(s, s) for s in saves]
    return [f"saved_tensors[{i}]" for i in range(n)]


def _split_tensors(pairs):
    tensors, others = [], []
    for name, v in pairs:
        if isinstance(v, Tensor):
            tensors.append((name, v))
        elif isinstance(v, (tuple, list)) and any(isinstance(x, Tensor) for x in v):
            tensors += [(f"{name}[{i}]", x) for i, x in enumerate(v) if isinstance(x, Tensor)]
        else:
            others.append((name, v))
    return tensors, others


# ----- DOT text ---------------------------------------------------------------------------
def _quote(text):
    text = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return f'"{text}"'


def _dot_node(n):
    style = ' style="filled,dashed"' if n.kind == "more" else ""
    return f"\t{n.id} [label={_quote(n.label)} fillcolor={FILL[n.kind]}{style}]"


def _dot_source(nodes, edges):
    lines = ["digraph {", '\tgraph [size="12,12"]',
             "\tnode [fontname=monospace fontsize=10 height=0.2 "
             "shape=box style=filled]"]
    groups = {}
    for n in nodes:
        if n.group is None:
            lines.append(_dot_node(n))
        else:
            groups.setdefault(n.group, []).append(n)
    for name, members in groups.items():
        lines.append(f"\tsubgraph {_quote('cluster_' + name)} {{")
        lines.append(f"\t\tlabel={_quote(name)} style=rounded color=grey50 fontname=monospace")
        lines += ["\t" + _dot_node(n) for n in members]
        lines.append("\t}")
    extra = {"flow": "", "saved": " [dir=none]", "more": " [style=dashed]"}
    lines += [f"\t{e.tail} -> {e.head}{extra[e.kind]}" for e in edges]
    lines.append("}")
    return "\n".join(lines) + "\n"


# ----- the picture --------------------------------------------------------------------------
class Digraph:
    """The picture ``make_dot`` returns, in the spirit of ``graphviz.Digraph``.

    Attributes:
        source (str): the graph as Graphviz DOT text.
        nodes (list of GraphNode): its boxes, in the order the walk met them.
        edges (list of GraphEdge): its arrows.
    """

    def __init__(self, nodes, edges):
        self.nodes = list(nodes)
        self.edges = list(edges)
        self.source = _dot_source(self.nodes, self.edges)
        self._layout = None
        self._svg = None

    def __repr__(self):
        return f"<nbgrad.viz.Digraph: {len(self.nodes)} nodes, {len(self.edges)} edges>"

    def pipe(self, format="svg"):  # noqa: A002  (graphviz's name)
        """The picture as bytes in ``format``: ``"svg"``, ``"png"``, ``"dot"``, or with
        Graphviz's ``dot`` installed any format it writes (``"pdf"``, ...)."""
        fmt = format.lower()
        if fmt in ("dot", "gv"):
            return self.source.encode("utf-8")
        if fmt == "svg":
            return self._svg_text().encode("utf-8")
        out = _run_dot(self.source, fmt)
        if out is not None:
            return out
        if fmt == "png":
            from . import _viz_layout

            return _viz_layout.to_png(self._built_in_layout())
        raise RuntimeError(f"writing {fmt!r} needs Graphviz's dot program on PATH "
                           "(without it nbgrad writes svg, png and dot)")

    def render(self, path, format=None):  # noqa: A002  (graphviz's name)
        """Write the picture to ``path``, in the format its extension names (``.svg``,
        ``.png``, ``.dot``/``.gv``; ``.pdf`` needs Graphviz), or in ``format``, which is
        added to ``path`` as its extension when missing. Returns the path written."""
        path = os.fspath(path)
        ext = os.path.splitext(path)[1].lower()
        if format is not None:
            if ext != "." + format.lower():
                path = f"{path}.{format.lower()}"
            fmt = format.lower()
        elif ext in _FORMATS:
            fmt = _FORMATS[ext]
        else:
            raise ValueError(f"cannot tell the format of {path!r} from its extension: "
                             "use .svg, .png, .dot or .gv, or pass format=")
        data = self.pipe(fmt)
        with open(path, "wb") as f:
            f.write(data)
        return path

    save = render

    def _repr_svg_(self):
        return self._svg_text()

    def _svg_text(self):
        if self._svg is None:
            out = _run_dot(self.source, "svg")
            if out is not None:
                self._svg = out.decode("utf-8")
            else:
                from . import _viz_layout

                self._svg = _viz_layout.to_svg(self._built_in_layout())
        return self._svg

    def _built_in_layout(self):
        if self._layout is None:
            from . import _viz_layout

            self._layout = _viz_layout.layout(self.nodes, self.edges)
        return self._layout


def _run_dot(source, fmt):
    """Graphviz's output in ``fmt``, or None without a working ``dot`` (with a warning
    when it is there but fails: the caller falls back on the built-in drawing)."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    import subprocess

    try:
        res = subprocess.run([exe, f"-T{fmt}"], input=source.encode("utf-8"),
                             capture_output=True, timeout=DOT_TIMEOUT, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        warnings.warn(f"Graphviz's dot failed ({e}); drawing without it", stacklevel=3)
        return None
    if res.returncode != 0 or not res.stdout:
        msg = res.stderr.decode("utf-8", "replace").strip()[:300]
        warnings.warn(f"Graphviz's dot failed (exit {res.returncode}: {msg}); drawing "
                      "without it", stacklevel=3)
        return None
    return res.stdout
