"""conv1d, conv_transpose1d / conv_transpose2d, max_pool1d / avg_pool1d and their layers
(ops/conv_variants.py, nn/modules/conv.py, nn/modules/pooling.py): values, gradients,
parameter names, initialisation (the same seed) and reprs against PyTorch, finite
differences in float64, PyTorch's errors."""

import doctest
import itertools

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import error_of

torch = pytest.importorskip("torch")
TF = torch.nn.functional


@pytest.mark.parametrize("groups, k, stride, padding, out_pad, dil", [
    c for c in itertools.product([1, 2], [(3, 3), (2, 3)], [1, 2, (2, 1)], [0, 1], [0, 1],
                                 [1, 2])
    if max(c[4], 0) < max(c[2] if isinstance(c[2], int) else max(c[2]), c[5])][::3])
def test_conv_transpose2d_matches_pytorch(groups, k, stride, padding, out_pad, dil):
    rng = np.random.default_rng(0)
    x = rng.standard_normal((2, 4, 4, 5))
    w = rng.standard_normal((4, 6 // groups, *k))
    b = rng.standard_normal(6)
    got = []
    for m, f in ((nbgrad, F), (torch, TF)):
        t = [m.tensor(a, requires_grad=True) for a in (x, w, b)]
        try:
            y = f.conv_transpose2d(*t, stride, padding, out_pad, groups, dil)
        except RuntimeError as e:
            got.append(str(e)[:40])
            continue
        (y ** 2).sum().backward()
        got.append([y.detach().numpy()] + [a.grad.numpy() for a in t])
    if isinstance(got[1], str):  # (an output padding PyTorch refuses for this stride)
        assert isinstance(got[0], str)
        return
    for a, c in zip(*got):
        np.testing.assert_allclose(a, c, rtol=1e-10, atol=1e-12)


def test_conv_gradients_by_finite_differences():
    rng = np.random.default_rng(1)

    def t(*shape):
        return nbgrad.tensor(rng.standard_normal(shape), requires_grad=True)

    x, w, b = t(1, 4, 3, 3), t(4, 2, 2, 3), t(4)
    f = (lambda a, c, d: F.conv_transpose2d(a, c, d, stride=2, padding=1, output_padding=1,
                                            groups=2))
    assert gradcheck(f, (x, w, b)) and gradgradcheck(f, (x, w, b))
    x1, w1 = t(2, 2, 6), t(3, 2, 3)
    assert gradcheck(lambda a, c: F.conv1d(a, c, stride=2, padding=1), (x1, w1))
    assert gradgradcheck(lambda a, c: F.conv1d(a, c, dilation=2), (x1, w1))
    w2 = t(2, 3, 2)
    assert gradcheck(lambda a, c: F.conv_transpose1d(a, c, stride=2), (x1, w2))
    assert gradcheck(lambda a: F.max_pool1d(a, 3, 2, 1), (x1,))
    assert gradcheck(lambda a: F.avg_pool1d(a, 3, 2, 1, ceil_mode=True), (x1,))


LAYERS = [
    (lambda m: m.nn.Conv1d(4, 6, 3, stride=2, padding=1, groups=2), (2, 4, 9), {}),
    (lambda m: m.nn.Conv1d(4, 6, 3, padding="same", dilation=2, bias=False), (4, 9), {}),
    (lambda m: m.nn.ConvTranspose2d(8, 3, 4, stride=2, padding=1), (2, 8, 5, 5), {}),
    (lambda m: m.nn.ConvTranspose2d(4, 6, 3, stride=2, padding=1, output_padding=1, groups=2,
                                    bias=False), (1, 4, 3, 4), {}),
    (lambda m: m.nn.ConvTranspose2d(4, 2, 3, stride=2), (1, 4, 3, 4),
     dict(output_size=(8, 10))),
    (lambda m: m.nn.ConvTranspose2d(4, 2, 3, stride=2), (4, 3, 4), {}),
    (lambda m: m.nn.ConvTranspose1d(4, 2, 3, stride=3, padding=1), (2, 4, 5), {}),
    (lambda m: m.nn.MaxPool1d(3, 2, 1), (2, 4, 9), {}),
    (lambda m: m.nn.MaxPool1d(2), (4, 9), {}),
    (lambda m: m.nn.AvgPool1d(3, 2, 1, ceil_mode=True), (2, 4, 9), {}),
    # padding modes other than zeros: the input padded by F.pad first
    (lambda m: m.nn.Conv1d(4, 6, 3, stride=2, padding=2, padding_mode="reflect"), (2, 4, 9), {}),
    (lambda m: m.nn.Conv2d(2, 3, (2, 4), padding="same", padding_mode="circular"),
     (2, 2, 5, 6), {}),
    (lambda m: m.nn.Conv2d(2, 4, 3, padding=(2, 1), dilation=2, groups=2,
                           padding_mode="replicate"), (2, 5, 6), {}),
    (lambda m: m.nn.Conv3d(2, 2, 3, padding=(1, 0, 2), padding_mode="reflect"),
     (1, 2, 4, 4, 5), {}),
    (lambda m: m.nn.Conv2d(2, 3, 3, padding="valid", padding_mode="circular"), (1, 2, 4, 4), {}),
]


@pytest.mark.parametrize("make, shape, kw", LAYERS)
def test_layers_match_pytorch(make, shape, kw):
    x = np.random.default_rng(2).standard_normal(shape)
    res = []
    for m in (nbgrad, torch):
        m.manual_seed(0)  # PyTorch's initial weights for the same seed
        layer = make(m).double()
        t = m.tensor(x, requires_grad=True)
        y = layer(t, **kw)
        (y ** 2).sum().backward()
        res.append((repr(layer), [n for n, _ in layer.named_parameters()],
                    [y, t.grad] + [p.grad for p in layer.parameters()]))
    assert res[0][:2] == res[1][:2]
    for a, b in zip(res[0][2], res[1][2]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_errors_match_pytorch():
    for call in [lambda m: m.nn.functional.conv_transpose2d(m.ones(1, 3, 4, 4),
                                                            m.ones(4, 2, 3, 3)),
                 lambda m: m.nn.functional.conv_transpose2d(m.ones(1, 4, 4, 4),
                                                            m.ones(4, 2, 3, 3),
                                                            output_padding=1),
                 lambda m: m.nn.functional.conv1d(m.ones(1, 2, 5, 5), m.ones(3, 2, 3)),
                 lambda m: m.nn.Conv1d(4, 3, 3, groups=2)]:
        ours = error_of(lambda: call(nbgrad))
        assert ours is not None and ours == error_of(lambda: call(torch))
    with pytest.raises(ValueError, match="does not support padding='same'"):
        nbgrad.nn.ConvTranspose2d(4, 2, 3, padding="same")  # (PyTorch: only at forward)
    with pytest.raises(ValueError, match="requested an output size of"):
        nbgrad.nn.ConvTranspose2d(4, 2, 3, stride=2)(nbgrad.ones(1, 4, 3, 4),
                                                     output_size=(12, 10))


def test_docstring_examples_run():
    from nbgrad.nn.modules import conv
    from nbgrad.ops import conv_variants

    for mod in (conv_variants, conv):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed, mod.__name__
