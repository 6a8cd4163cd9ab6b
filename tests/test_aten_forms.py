"""PyTorch's low-level and deprecated top-level functions (``native_*``, ``convolution``,
``constant_pad_nd``, the 1-d adaptive pools, ``triangular_solve``, ``frobenius_norm``,
``nuclear_norm``, ``norm_except_dim``, ``nonzero_static``, ``empty_permuted``, ``fill``,
``angle``) against PyTorch: values, gradients, warnings."""

import doctest
import warnings

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")
RNG = np.random.default_rng(0)
A = RNG.standard_normal((3, 3))
X = RNG.standard_normal((2, 3, 6))

CASES = {
    "triangular_solve": lambda m, a: m.triangular_solve(m.ones(3, 2, dtype=a.dtype), a.triu()),
    "triangular_solve_t": lambda m, a: m.triangular_solve(
        m.ones(3, 2, dtype=a.dtype), a.tril(), upper=False, transpose=True),
    "triangular_solve_unit": lambda m, a: a.triangular_solve(a.triu(), unitriangular=True),
    "frobenius_norm": lambda m, a: m.frobenius_norm(a, dim=(0, 1)),
    "frobenius_norm_dim": lambda m, a: m.frobenius_norm(a, dim=(1,), keepdim=True),
    "nuclear_norm": lambda m, a: m.nuclear_norm(a),
    "nuclear_norm_dims": lambda m, a: m.nuclear_norm(a.expand(2, 3, 3), dim=(1, 2)),
    "norm_except_dim": lambda m, a: m.norm_except_dim(a, 2, 1),
    "norm_except_dim_all": lambda m, a: m.norm_except_dim(a, 3, -1),
    "constant_pad_nd": lambda m, a: m.constant_pad_nd(a, [1, 2, 0, 1], 0.5),
    "fill": lambda m, a: m.fill(a, 2.5) * a,
    "angle": lambda m, a: m.angle(a) + a.angle(),
    "native_layer_norm": lambda m, a: m.native_layer_norm(a, [3], a[0], a[1], 1e-5),
    "native_batch_norm": lambda m, a: m.native_batch_norm(a, None, None, None, None, True,
                                                          0.1, 1e-5),
    "convolution": lambda m, a: m.convolution(a.reshape(1, 1, 9), a[:2].reshape(2, 1, 3),
                                              a[2, :2], [2], [1], [1], False, [0], 1),
    "convolution_t": lambda m, a: m.convolution(
        a.reshape(1, 1, 3, 3), a[:2, :2].reshape(1, 1, 2, 2), None, [1, 1], [0, 0], [1, 1],
        True, [0, 0], 1),
    "adaptive_avg_pool1d": lambda m, a: m.adaptive_avg_pool1d(m.tensor(X), 4) * a.sum(),
    "adaptive_max_pool1d": lambda m, a: m.adaptive_max_pool1d(m.tensor(X) * a.sum(), 4),
    "max_pool1d_with_indices": lambda m, a: m.max_pool1d_with_indices(
        m.tensor(X) * a.sum(), 2, padding=1, ceil_mode=True),
}


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch_with_gradients(name):
    res = []
    for m in (nbgrad, torch):
        a = m.tensor(A, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = CASES[name](m, a)
        outs = tuple(out) if isinstance(out, tuple) else (out,)
        diff = [o for o in outs if o.requires_grad]
        if diff:
            sum((o * (i + 1)).sum() for i, o in enumerate(diff)).backward()
        res.append(([o.detach().numpy() for o in outs],
                    a.grad if a.grad is None else a.grad.numpy()))
    (o1, g1), (o2, g2) = res
    for a, b in zip(o1, o2):
        assert a.shape == b.shape and a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert (g1 is None) == (g2 is None)
    if g1 is not None:
        np.testing.assert_allclose(g1, g2, rtol=1e-10, atol=1e-12)


def test_deprecations_warn_once_per_process_as_torchs():
    from nbgrad import _warnings

    _warnings._GIVEN.difference_update({"triangular_solve", "frobenius_norm",
                                             "nuclear_norm"})
    a = nbgrad.eye(2)
    for call, text in ((lambda: nbgrad.triangular_solve(a, a), "torch.triangular_solve is "),
                       (lambda: nbgrad.frobenius_norm(a), "at::frobenius_norm is deprecated"),
                       (lambda: nbgrad.nuclear_norm(a), "at::nuclear_norm is deprecated")):
        with pytest.warns(UserWarning, match=text):
            call()
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            call()  # (once only)


def test_shapes_dtypes_and_draws_match_torch():
    for m in (nbgrad, torch):
        assert m.nonzero_static(m.tensor([0, 1, 0, 2]), size=3).tolist() == [[1], [3], [-1]]
        assert m.nonzero_static(m.tensor([[0, 1], [2, 0]]), size=1, fill_value=9).tolist() == \
            [[0, 1]]
        assert m.tensor([0, 3]).nonzero_static(size=2).tolist() == [[1], [-1]]
        t = m.empty_permuted((2, 3, 4), (0, 2, 1))
        assert t.stride() == (12, 1, 3) and tuple(t.shape) == (2, 3, 4)
        assert not m.is_distributed(m.ones(1)) and not m.ones(1).is_distributed()
        assert m.angle(m.tensor([1, -2])).dtype == m.float32
        assert np.isnan(m.angle(m.tensor([float("nan")]))[0].item())
    draws = []
    for m in (nbgrad, torch):
        m.manual_seed(0)
        out, mask = m.native_dropout(m.ones(16), 0.5, True)
        draws.append((out.tolist(), mask.tolist(), m.native_dropout(m.ones(2), 0.5, False)))
    assert draws[0][:2] == draws[1][:2]
    assert [t.tolist() for t in draws[0][2]] == [t.tolist() for t in draws[1][2]]


@pytest.mark.parametrize("call", [
    lambda m: m.empty_permuted((2, 3), (0, 0)),
])
def test_errors_match_torch(call):
    try:
        call(torch)
    except Exception:  # noqa: BLE001 (both must raise; the messages differ in PyTorch's C++)
        with pytest.raises(RuntimeError):
            call(nbgrad)
    else:
        assert_same_error(call, torch, nbgrad)


def test_docstring_examples_run():
    from nbgrad import _aten_forms

    res = doctest.testmod(_aten_forms, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
