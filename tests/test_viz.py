"""nbgrad.viz: ``make_dot``'s pictures of the autograd graph (torchviz's API).

Most tests draw without Graphviz (the ``no_dot`` fixture hides ``dot``), so that the
built-in layout and renderers are what runs on any machine; one test uses the real ``dot``
where it is installed, and one a stand-in ``dot`` to check how it is called.
"""

import doctest
import re
import shutil
import stat
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

import nbgrad
import nbgrad.nn as nn
import nbgrad.nn.functional as F
import nbgrad.viz as viz
from nbgrad.viz import make_dot

try:
    import torch
except ImportError:  # (the names PyTorch gives are then taken as known: see _torch_mlp_names)
    torch = None

NS = "{http://www.w3.org/2000/svg}"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def no_dot(monkeypatch):
    """Graphviz's ``dot`` absent, whatever this machine has: the built-in drawing runs."""
    which = shutil.which
    monkeypatch.setattr(shutil, "which",
                        lambda name, *a, **k: None if name == "dot" else which(name, *a, **k))


def _mlp():
    nbgrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    loss = F.cross_entropy(model(nbgrad.randn(5, 4)), nbgrad.tensor([0, 1, 0, 1, 1]))
    return model, loss


def _names(fn):
    """The backward nodes' names (AccumulateGrad left out) of the graph under ``fn``,
    for nbgrad's nodes and PyTorch's alike."""
    names, seen, keep, stack = set(), set(), [], [fn]
    while stack:
        f = stack.pop()
        if f is None or id(f) in seen:
            continue
        seen.add(id(f))
        keep.append(f)  # (alive, so that no other node takes its id)
        name = f.name().rsplit("::", 1)[-1]
        if name != "AccumulateGrad":
            names.add(name)
        stack.extend(n for n, _ in f.next_functions)
    return names


def _torch_mlp_names():
    if torch is None:  # what PyTorch 2.x names them
        return {"NllLossBackward0", "LogSoftmaxBackward0", "AddmmBackward0", "TBackward0",
                "ReluBackward0"}
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.ReLU(), torch.nn.Linear(3, 2))
    loss = torch.nn.functional.cross_entropy(model(torch.randn(5, 4)),
                                             torch.tensor([0, 1, 0, 1, 1]))
    return _names(loss.grad_fn)


def _labels(g, kind):
    return sorted(n.label for n in g.nodes if n.kind == kind)


def _svg_boxes(svg):
    """``data-id -> (lines of text, (x, y, w, h))`` of the boxes of a built-in SVG."""
    root = ET.fromstring(svg)
    assert root.tag == NS + "svg"
    boxes = {}
    for grp in root.iter(NS + "g"):
        if grp.get("class", "").split()[0] != "node":
            continue
        r = grp.find(NS + "rect")
        lines = [s.text or "" for s in grp.iter(NS + "tspan")]
        boxes[grp.get("data-id")] = (lines, tuple(float(r.get(a)) for a in
                                                  ("x", "y", "width", "height")))
    return root, boxes


# ----- the graph's content ------------------------------------------------------------------
def test_mlp_names_as_pytorch():
    model, loss = _mlp()
    g = make_dot(loss, params=dict(model.named_parameters()))
    ours = set(_labels(g, "fn"))
    assert ours == _names(loss.grad_fn)  # every backward node is drawn
    for name in ours:
        assert f'label="{name}"' in g.source
    theirs = _torch_mlp_names()
    # nbgrad's cross_entropy is one NllLossBackward0 over the logits, where PyTorch has
    # LogSoftmaxBackward0 then NllLossBackward0, and its addmm reads the weight without
    # PyTorch's TBackward0 in between: so only the names both graphs have are compared
    assert ours <= theirs
    assert ours & theirs == {"AddmmBackward0", "ReluBackward0", "NllLossBackward0"}
    assert Counter(n.label for n in g.nodes)["AddmmBackward0"] == 2


def test_params_labels_shapes_and_colours():
    model, loss = _mlp()
    g = make_dot(loss, params=dict(model.named_parameters()))
    assert _labels(g, "leaf") == ["0.bias\n(3)", "0.weight\n(3, 4)", "2.bias\n(2)",
                                  "2.weight\n(2, 3)"]
    assert _labels(g, "output") == ["()"]
    assert re.search(r'n\d+ \[label="0\.weight\\n\(3, 4\)" fillcolor=lightblue\]', g.source)
    assert re.search(r'n\d+ \[label="\(\)" fillcolor=darkolivegreen1\]', g.source)
    assert re.search(r'n\d+ \[label="ReluBackward0" fillcolor=lightgrey\]', g.source)
    # named_parameters() itself (pairs, not a dict) names them the same
    again = make_dot(loss, params=model.named_parameters())
    assert _labels(again, "leaf") == _labels(g, "leaf")
    # without names: the shapes only
    assert _labels(make_dot(loss), "leaf") == ["(2)", "(2, 3)", "(3)", "(3, 4)"]


def test_edges_follow_the_forward_direction():
    model, loss = _mlp()
    g = make_dot(loss, params=dict(model.named_parameters()))
    by_id = {n.id: n.label for n in g.nodes}
    arrows = {(by_id[e.tail], by_id[e.head]) for e in g.edges}
    assert ("NllLossBackward0", "()") in arrows
    assert ("2.weight\n(2, 3)", "AddmmBackward0") in arrows
    assert ("ReluBackward0", "AddmmBackward0") in arrows
    assert all(f"{e.tail} -> {e.head}" in g.source for e in g.edges)


def test_sequential_parameters_grouped_in_clusters():
    model, loss = _mlp()
    g = make_dot(loss, params=dict(model.named_parameters()))
    blocks = dict(re.findall(r'subgraph "cluster_([^"]+)" \{\n(.*?)\n\t\}', g.source, re.S))
    assert set(blocks) == {"0", "2"}
    assert 'label="0"' in blocks["0"]
    assert "0.weight" in blocks["0"] and "0.bias" in blocks["0"]
    assert "2.weight" not in blocks["0"]
    assert {n.group for n in g.nodes if n.kind == "leaf"} == {"0", "2"}


class _Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(4, 3), nn.ReLU())
        self.head = nn.Linear(3, 2)

    def forward(self, x):
        return self.head(self.encoder(x))


def test_nested_module_names_group_by_module(no_dot):
    nbgrad.manual_seed(0)
    net = _Net()
    g = make_dot(net(nbgrad.randn(5, 4)).sum(), params=dict(net.named_parameters()))
    assert {n.group for n in g.nodes if n.kind == "leaf"} == {"encoder.0", "head"}
    assert 'subgraph "cluster_encoder.0"' in g.source
    # the built-in SVG: a labelled frame around each module's boxes, and only around them
    root, boxes = _svg_boxes(g._repr_svg_())
    frames = {}
    for grp in root.iter(NS + "g"):
        if grp.get("class") == "cluster":
            r = grp.find(NS + "rect")
            frames[grp.find(NS + "text").text] = [float(r.get(a)) for a in
                                                  ("x", "y", "width", "height")]
    assert set(frames) == {"encoder.0", "head"}
    for lines, (x, y, w, h) in boxes.values():
        for name, (fx, fy, fw, fh) in frames.items():
            inside = fx <= x and x + w <= fx + fw and fy <= y and y + h <= fy + fh
            overlaps = x < fx + fw and fx < x + w and y < fy + fh and fy < y + h
            assert inside == lines[0].startswith(name + "."), (lines, name)
            assert inside or not overlaps, (lines, name)


def test_show_saved_draws_saved_tensors():
    x = nbgrad.ones(3, requires_grad=True)
    w = nbgrad.ones(3, requires_grad=True)
    y = (x * w).relu().sum()
    assert not _labels(make_dot(y), "saved")
    g = make_dot(y, params={"x": x, "w": w}, show_saved=True)
    # PyTorch's names: MulBackward0._saved_self/_saved_other, ReluBackward0._saved_result
    assert _labels(g, "saved") == ["other\n(3)", "result\n(3)", "self\n(3)"]
    by_id = {n.id: n for n in g.nodes}
    saved_edges = [e for e in g.edges if e.kind == "saved"]
    assert sorted(by_id[e.head].label for e in saved_edges) == [
        "MulBackward0", "MulBackward0", "ReluBackward0"]
    assert all(by_id[e.tail].kind == "saved" for e in saved_edges)
    assert g.source.count("[dir=none]") == 3
    assert g.source.count("fillcolor=orange") == 3
    if torch is not None:
        tx = torch.ones(3, requires_grad=True)
        ty = (tx * torch.ones(3, requires_grad=True)).relu().sum()
        mul = ty.grad_fn.next_functions[0][0].next_functions[0][0]
        assert {a for a in dir(mul) if a.startswith("_saved_")} == {"_saved_self",
                                                                   "_saved_other"}
    y.backward()  # frees what was saved: nothing to draw, and no error
    assert not _labels(make_dot(y, show_saved=True), "saved")


def test_show_attrs_lists_non_tensor_attributes():
    x = nbgrad.ones(2, 3, requires_grad=True)
    g = make_dot(x.sum(1), show_attrs=True)
    (label,) = _labels(g, "fn")
    lines = label.split("\n")
    assert lines[0] == "SumBackward1"
    assert set(lines[1]) == {"-"}
    assert {"dim: (1,)", "keepdim: False", "self_sym_sizes: (2, 3)"} <= set(lines[2:])
    (short,) = _labels(make_dot(x.sum(1), show_attrs=True, max_attr_chars=5), "fn")
    assert "self_sym_sizes: (2..." in short.split("\n")
    # a node whose saved values are all tensors shows its name alone
    assert _labels(make_dot(x * x, show_attrs=True), "fn") == ["MulBackward0"]


class _Square(nbgrad.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a

    @staticmethod
    def backward(ctx, g):
        (a,) = ctx.saved_tensors
        return 2 * a * g


def test_custom_function_saved_tensors():
    x = nbgrad.ones(3, requires_grad=True)
    g = make_dot(_Square.apply(x), show_saved=True)
    assert _labels(g, "fn") == [_Square.apply(x).grad_fn.name().rsplit("::", 1)[-1]]
    assert _labels(g, "saved") == ["saved_tensors[0]\n(3)"]


def test_shared_subgraphs_appear_once():
    x = nbgrad.ones(3, requires_grad=True)
    w = nbgrad.ones(3, requires_grad=True)
    h = x * w
    g = make_dot((h * h + h).sum())
    assert Counter(n.label for n in g.nodes if n.kind == "fn") == {
        "SumBackward0": 1, "AddBackward0": 1, "MulBackward0": 2}
    assert len(g.nodes) == 7  # and the output, x and w
    leaves = {n.id for n in g.nodes if n.kind == "leaf"}
    (inner,) = {e.head for e in g.edges if e.tail in leaves}  # the box of x * w
    assert sum(e.tail == inner for e in g.edges) == 3  # h used three times
    # 40 doublings: 2**40 paths through the graph, 41 nodes to visit
    z = x
    for _ in range(40):
        z = z + z
    assert len(make_dot(z).nodes) == 42


def test_two_outputs():
    x = nbgrad.ones(3, requires_grad=True)
    w = nbgrad.ones(3, requires_grad=True)
    a = x * w
    y1, y2 = a.sum(), (a + x).sum()
    g = make_dot((y1, y2), params={"x": x, "w": w})
    assert _labels(g, "output") == ["()", "()"]
    assert _labels(g, "leaf") == ["w\n(3)", "x\n(3)"]
    assert Counter(n.label for n in g.nodes)["MulBackward0"] == 1
    assert len(make_dot([y1, y1]).nodes) == len(make_dot(y1).nodes)  # one box per tensor


def test_outputs_without_history():
    g = make_dot(nbgrad.ones(2, 3))  # no grad_fn, no grad: one box all the same
    assert [(n.kind, n.label) for n in g.nodes] == [("output", "(2, 3)")]
    assert not g.edges
    w = nbgrad.ones(3, requires_grad=True)
    assert [n.label for n in make_dot(w, params={"w": w}).nodes] == ["w\n(3)"]
    # a leaf that is an output and an input of another output: drawn once
    g = make_dot((w, (w * w).sum()), params={"w": w})
    assert [n.label for n in g.nodes].count("w\n(3)") == 1
    assert _labels(g, "leaf") == []


def test_bad_arguments():
    t = nbgrad.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="Tensor"):
        make_dot(3.0)
    with pytest.raises(TypeError, match=r"var\[1\]"):
        make_dot([t, "y"])
    with pytest.raises(TypeError, match="non-empty"):
        make_dot(())
    with pytest.raises(TypeError, match="params"):
        make_dot(t * 2, params={"t": [1.0]})
    with pytest.raises(ValueError, match="max_nodes"):
        make_dot(t, max_nodes=0)


# ----- the cap ------------------------------------------------------------------------------
def test_cap_on_a_20000_op_chain(no_dot):
    x = nbgrad.ones(2, requires_grad=True)
    c = nbgrad.full((2,), 0.5)
    y = x
    for _ in range(20000):
        y = y * c
    start = time.perf_counter()
    g = make_dot(y, params={"x": x}, max_nodes=200)
    svg = g._repr_svg_()
    elapsed = time.perf_counter() - start
    assert len(g.nodes) == 201
    (more,) = [n for n in g.nodes if n.kind == "more"]
    assert more.label == f"\u2026 {20002 - 200:,} more nodes"  # 20,000 nodes, x, the output
    assert "19,802 more nodes" in g.source
    assert [e.kind for e in g.edges if e.tail == more.id] == ["more"]
    _, boxes = _svg_boxes(svg)
    assert len(boxes) == 201
    assert elapsed < 20, elapsed  # (about 0.1 s; loose for a loaded machine)
    assert len(make_dot(y, max_nodes=None).nodes) == 20002


# ----- the renderings -----------------------------------------------------------------------
def test_built_in_svg_is_xml_with_every_label_and_no_overlaps(no_dot):
    model, loss = _mlp()
    params = dict(model.named_parameters())
    params['<w&"odd">'] = params.pop("0.bias")  # (labels are escaped)
    g = make_dot(loss, params=params, show_saved=True, show_attrs=True)
    svg = g._repr_svg_()
    root, boxes = _svg_boxes(svg)
    assert {n.id: n.label.split("\n") for n in g.nodes} == {k: v[0] for k, v in boxes.items()}
    assert len(root.findall(f".//{NS}polyline")) == len(g.edges)
    rows = {}
    for _, (x, y, w, h) in boxes.values():
        rows.setdefault(round(y + h / 2, 1), []).append((x, x + w))
    assert len(rows) > 3
    for spans in rows.values():
        spans.sort()
        assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:])), spans
    assert svg.startswith("<svg")


def test_png_with_matplotlib_else_a_clear_error(no_dot, tmp_path):
    _, loss = _mlp()
    g = make_dot(loss)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        with pytest.raises(RuntimeError, match="matplotlib"):
            g.save(tmp_path / "g.png")
        return
    path = g.save(tmp_path / "g.png")
    assert path == str(tmp_path / "g.png")
    data = (tmp_path / "g.png").read_bytes()
    assert data.startswith(PNG_SIGNATURE) and len(data) > 1000


def test_without_dot_or_matplotlib_svg_and_dot_still_work(no_dot, monkeypatch, tmp_path):
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.setitem(sys.modules, name, None)
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    g = make_dot(nbgrad.ones(2, requires_grad=True) * 2)
    with pytest.raises(RuntimeError, match="dot.*matplotlib"):
        g.save(tmp_path / "g.png")
    with pytest.raises(RuntimeError, match="dot"):
        g.pipe("pdf")
    assert ET.parse(g.save(tmp_path / "g.svg")).getroot().tag == NS + "svg"
    assert (tmp_path / "g.svg").read_text(encoding="utf-8") == g._repr_svg_()


def test_dot_files_and_render_names(tmp_path):
    _, loss = _mlp()
    g = make_dot(loss)
    assert g.save(tmp_path / "g.dot") == str(tmp_path / "g.dot")
    assert (tmp_path / "g.dot").read_text(encoding="utf-8") == g.source
    assert g.source.startswith("digraph {") and g.source.rstrip().endswith("}")
    assert g.render(tmp_path / "graph", format="gv") == str(tmp_path / "graph.gv")
    assert (tmp_path / "graph.gv").read_text(encoding="utf-8") == g.source
    with pytest.raises(ValueError, match="extension"):
        g.save(tmp_path / "g.txt")


def test_repr_and_repr_svg(no_dot):
    g = make_dot((nbgrad.ones(2, requires_grad=True) * 2).sum())
    assert repr(g) == f"<nbgrad.viz.Digraph: {len(g.nodes)} nodes, {len(g.edges)} edges>"
    svg = g._repr_svg_()
    assert isinstance(svg, str) and svg.startswith(("<svg", "<?xml"))
    assert g.pipe("svg").decode("utf-8") == svg


_FAKE_DOT = """#!{python}
import sys
src = sys.stdin.buffer.read()
fmt = sys.argv[1]
if {fail}:
    sys.stderr.write("no good")
    sys.exit(2)
if fmt == "-Tpng":
    sys.stdout.buffer.write(b"\\x89PNG\\r\\n\\x1a\\nfake")
else:
    sys.stdout.write('<svg xmlns="http://www.w3.org/2000/svg"><!--fake %d %s--></svg>'
                     % (len(src), fmt))
"""


def _fake_dot(tmp_path, monkeypatch, fail=False):
    exe = tmp_path / "dot"
    exe.write_text(_FAKE_DOT.format(python=sys.executable, fail=fail))
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    which = shutil.which
    monkeypatch.setattr(shutil, "which",
                        lambda name, *a, **k: str(exe) if name == "dot" else which(name, *a, **k))


def test_dot_is_given_the_source_when_installed(tmp_path, monkeypatch):
    _fake_dot(tmp_path, monkeypatch)
    g = make_dot((nbgrad.ones(2, requires_grad=True) * 2).sum())
    n = len(g.source.encode("utf-8"))
    assert f"<!--fake {n} -Tsvg-->" in g._repr_svg_()
    assert open(g.save(tmp_path / "g.png"), "rb").read() == PNG_SIGNATURE + b"fake"
    assert f"fake {n} -Tpdf".encode() in g.pipe("pdf")


def test_a_failing_dot_falls_back_with_a_warning(tmp_path, monkeypatch):
    _fake_dot(tmp_path, monkeypatch, fail=True)
    g = make_dot((nbgrad.ones(2, requires_grad=True) * 2).sum())
    with pytest.warns(UserWarning, match="dot failed.*no good"):
        svg = g._repr_svg_()
    assert 'class="node' in svg and ET.fromstring(svg).tag == NS + "svg"


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz's dot is not installed")
def test_graphviz_dot_draws_the_svg():
    model, loss = _mlp()
    g = make_dot(loss, params=dict(model.named_parameters()))
    svg = g.pipe("svg").decode("utf-8")
    assert ET.fromstring(svg).tag == NS + "svg"
    assert "AddmmBackward0" in svg and "0.weight" in svg and "cluster" in svg


def test_docstring_example():
    res = doctest.testmod(viz)
    assert res.attempted > 0 and res.failed == 0
