"""group_norm, instance_norm, rms_norm (ops/group_norm.py) and GroupNorm, RMSNorm,
InstanceNorm1d / 2d: values, gradients, running statistics, parameter and buffer names and
reprs against PyTorch (train and eval), finite differences in float64."""

import doctest

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import error_of

torch = pytest.importorskip("torch")

LAYERS = [
    (lambda m: m.nn.GroupNorm(2, 4), (3, 4, 5)),
    (lambda m: m.nn.GroupNorm(1, 4, affine=False), (2, 4, 3, 3)),
    (lambda m: m.nn.GroupNorm(4, 4, bias=False), (2, 4, 3)),
    (lambda m: m.nn.RMSNorm(5), (3, 4, 5)),
    (lambda m: m.nn.RMSNorm((4, 5), eps=1e-3), (3, 4, 5)),
    (lambda m: m.nn.InstanceNorm2d(3), (2, 3, 4, 4)),
    (lambda m: m.nn.InstanceNorm1d(3, affine=True), (2, 3, 6)),
    (lambda m: m.nn.InstanceNorm2d(3, track_running_stats=True, affine=True), (2, 3, 4, 4)),
    (lambda m: m.nn.InstanceNorm1d(3), (3, 6)),
]


@pytest.mark.parametrize("make, shape", LAYERS)
def test_layers_match_pytorch(make, shape):
    x = np.random.default_rng(0).standard_normal(shape)
    res = []
    for m in (nbgrad, torch):
        layer = make(m).double()
        t = m.tensor(x, requires_grad=True)
        y, y2 = layer(t), layer(t * 2)  # (twice: running statistics move twice)
        ((y * y2) ** 2).sum().backward()
        layer.eval()
        y3 = layer(t)
        res.append((repr(layer), [n for n, _ in layer.named_parameters()],
                    [n for n, _ in layer.named_buffers()],
                    [y, y3, t.grad] + [p.grad for p in layer.parameters()]
                    + list(layer.buffers())))
    assert res[0][:3] == res[1][:3]
    for a, b in zip(res[0][3], res[1][3]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_functions_by_finite_differences():
    rng = np.random.default_rng(1)

    def t(*shape):
        return nbgrad.tensor(rng.standard_normal(shape), requires_grad=True)

    x, w, b = t(2, 4, 3), t(4), t(4)
    for f in (lambda a, c, d: F.group_norm(a, 2, c, d),
              lambda a, c, d: F.instance_norm(a, weight=c, bias=d),
              lambda a, c, d: F.rms_norm(a, (3,), c[:3]) + d.sum()):
        assert gradcheck(f, (x, w, b)) and gradgradcheck(f, (x, w, b))


def test_errors_match_pytorch():
    for call in [lambda m: m.nn.GroupNorm(3, 4), lambda m: m.nn.functional.group_norm(
                     m.ones(2, 4, 3), 3), lambda m: m.nn.functional.rms_norm(m.ones(2, 3), (4,)),
                 lambda m: m.nn.functional.instance_norm(m.ones(2, 3, 1))]:
        ours = error_of(lambda: call(nbgrad))
        theirs = error_of(lambda: call(torch))
        assert ours is not None and ours[0] is theirs[0], (ours, theirs)


def test_docstring_examples_run():
    from nbgrad.ops import group_norm

    res = doctest.testmod(group_norm,
                          optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
