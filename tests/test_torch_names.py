"""PyTorch's top-level names nbgrad had not (issue #16): the functional and in-place forms
(``torch.exp_ dropout layer_norm batch_norm embedding kl_div ...``, each with PyTorch's
argument order), ``*_copy``, the window functions, ``trapezoid cumulative_trapezoid vander``,
``broadcast_shapes result_type can_cast scalar_tensor concat row_stack chain_matmul``, the
process switches (threads, determinism, matmul precision), the in-place view methods
(``t_ transpose_ squeeze_ unsqueeze_ swapdims_``) and the complex API on real tensors;
against PyTorch."""

import math

import numpy as np
import pytest

import nbgrad
from nbgrad.autograd import gradcheck

torch = pytest.importorskip("torch")

_R = np.random.default_rng(5)
_X = _R.standard_normal((2, 3, 4))
_W = _R.standard_normal(4)
_IDX = np.array([[0, 2], [1, 0]])


def _same(a, b, tol=1e-6):
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol)
        return
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy().astype(np.float64),
                               b.detach().numpy().astype(np.float64), rtol=tol, atol=tol)


# fn(lib, x): x is a float32 tensor of _X
_CALLS = [
    lambda m, x: m.exp_(x.clone()),
    lambda m, x: m.clamp_(x.clone(), -0.5, 0.5),
    lambda m, x: m.sigmoid_(x.clone()),
    lambda m, x: m.zero_(x.clone()),
    lambda m, x: m.relu_(x.clone()),
    lambda m, x: m.celu(x, 0.5) + m.selu(x) + m.threshold(x, 0.1, -1.0),
    lambda m, x: m.celu_(x.clone()) + m.selu_(x.clone()) + m.threshold_(x.clone(), 0.1, 2.0),
    lambda m, x: m.rrelu(x),
    lambda m, x: m.dropout(x, 0.3, False) + m.alpha_dropout(x, 0.3, False),
    lambda m, x: m.layer_norm(x, (4,), m.tensor(_W, dtype=m.float32), None, 1e-3),
    lambda m, x: m.group_norm(x, 3),
    lambda m, x: m.batch_norm(x, m.ones(3), m.zeros(3), m.zeros(3), m.ones(3), False, 0.1,
                              1e-5, False),
    lambda m, x: m.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False),
    lambda m, x: m.embedding(x[0], m.tensor(_IDX)),
    lambda m, x: m.kl_div(x.log_softmax(-1), x.softmax(-1), 2),
    lambda m, x: m.kl_div(x, x.exp(), 0, log_target=True),
    lambda m, x: m.margin_ranking_loss(x[0], x[1], m.ones(3, 4), 0.1, 0),
    lambda m, x: m.hinge_embedding_loss(x, x.sign(), 0.5, 2),
    lambda m, x: m.cosine_embedding_loss(x[0], x[1], m.tensor([1.0, -1.0, 1.0])),
    lambda m, x: m.triplet_margin_loss(x[0], x[1], x[0] * 2),
    lambda m, x: m.poisson_nll_loss(x, x.abs(), True, False, 1e-8, 1),
    lambda m, x: m.binary_cross_entropy_with_logits(x, x.sigmoid(), None, m.ones(4), 1),
    lambda m, x: m.max_pool1d(x, 2) + m.avg_pool1d(x, 2),
    lambda m, x: m.conv1d(x, x[:, :, :2]),
    lambda m, x: m.cosine_similarity(x[0], x[1]) + m.pairwise_distance(x[0], x[1]),
    lambda m, x: m.rms_norm(x, (4,)),
    lambda m, x: m.t_copy(x[0]) + 0 * m.transpose_copy(x[0], 0, 1),
    lambda m, x: m.unsqueeze_copy(m.squeeze_copy(x[:1]), 0),
    lambda m, x: m.split_copy(x, 1, 2)[1],
    lambda m, x: m.unbind_copy(x)[1],
    lambda m, x: m.expand_copy(x[:1], (3, 3, 4)) + m.select_copy(x, 0, 1),
    lambda m, x: m.diagonal_copy(x, 0, 1, 2),
    lambda m, x: m.concat([x, x], 1) + 0 * m.concatenate([x, x], dim=1),
    lambda m, x: m.row_stack([x[0], x[1]]),
    lambda m, x: m.chain_matmul(x[0], x[1].mT, x[0]),
    lambda m, x: m.trapezoid(x) + m.trapz(x, dx=0.5, dim=1).sum(),
    lambda m, x: m.trapezoid(x, x[0, 0].cumsum(0)),
    lambda m, x: m.trapezoid(x, x[0].cumsum(1), dim=-1),
    lambda m, x: m.cumulative_trapezoid(x, dim=1) + 0 * m.cumulative_trapezoid(x, dx=2.0,
                                                                                  dim=1),
    lambda m, x: m.cumulative_trapezoid(x, x[0, 0].cumsum(0)),
    lambda m, x: m.trapezoid(x[:, :0]),
    lambda m, x: m.cumulative_trapezoid(x[:, :0], dim=1),
    lambda m, x: m.vander(x[0, 0]) + m.vander(x[0, 1], 4, True),
    lambda m, x: m.vander(m.tensor([2, 3], dtype=m.int8), 3),
    lambda m, x: m.vander(m.tensor([True, False]), 2),
    lambda m, x: x.mH + x.adjoint(),
    lambda m, x: x.conj() + x.resolve_conj() + x.resolve_neg() + x.real + x.conj_physical(),
    lambda m, x: x[0].H,
    lambda m, x: x.isreal(),
    lambda m, x: m.scalar_tensor(3) + m.scalar_tensor(2, dtype=m.int64),
]


@pytest.mark.parametrize("k", range(len(_CALLS)))
def test_matches_torch(k):
    fn = _CALLS[k]
    x = nbgrad.tensor(_X, dtype=nbgrad.float32)
    tx = torch.tensor(_X, dtype=torch.float32)
    _same(fn(nbgrad, x), fn(torch, tx), 1e-5)


def test_windows_match_torch():
    for name in ("hann_window", "hamming_window", "blackman_window", "bartlett_window",
                 "kaiser_window"):
        for n in (0, 1, 2, 5, 16):
            for periodic in (True, False):
                for dt in ("float32", "float64"):
                    got = getattr(nbgrad, name)(n, periodic, dtype=getattr(nbgrad, dt))
                    want = getattr(torch, name)(n, periodic, dtype=getattr(torch, dt))
                    _same(got, want, 1e-6 if dt == "float32" else 1e-12)
    _same(nbgrad.hamming_window(7, False, 0.6, 0.3), torch.hamming_window(7, False, 0.6, 0.3))
    _same(nbgrad.kaiser_window(9, True, 5.0), torch.kaiser_window(9, True, 5.0))
    w = nbgrad.hann_window(4, requires_grad=True)
    assert w.requires_grad and w.is_leaf
    for call in (lambda m: m.hann_window(-1), lambda m: m.bartlett_window(3, dtype=m.int64)):
        with pytest.raises(RuntimeError) as want:
            call(torch)
        with pytest.raises(RuntimeError, match=str(want.value)[:40].replace("(", r"\(")):
            call(nbgrad)


def test_gradients_of_the_composites():
    x = nbgrad.tensor(_X[0], requires_grad=True)
    pts = nbgrad.tensor(np.cumsum(_R.random(4)) + 0.1, requires_grad=True)
    for f in (lambda a, p: nbgrad.trapezoid(a, p), lambda a, p: nbgrad.cumulative_trapezoid(a, p),
              lambda a, p: nbgrad.vander(a[0], 4) * p, lambda a, p: nbgrad.trapezoid(a, dx=0.3)):
        assert gradcheck(f, (x, pts))
    tx = torch.tensor(_X[0], requires_grad=True)  # (torch 2.13's vander has no gradient:
    y = nbgrad.trapezoid(x, x[0]).sum() + nbgrad.cumulative_trapezoid(x).sum()  # its copy is
    ty = torch.trapezoid(tx, tx[0]).sum() + torch.cumulative_trapezoid(tx).sum()  # in place)
    (g,) = nbgrad.autograd.grad(y, x)
    (tg,) = torch.autograd.grad(ty, tx)
    np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12)


def test_broadcast_result_type_can_cast():
    for shapes in [((2, 1), (3,)), (2, (3, 1)), ((), (4, 1), (1, 5)), ((0, 1), (3,))]:
        assert tuple(nbgrad.broadcast_shapes(*shapes)) == tuple(torch.broadcast_shapes(*shapes))
    with pytest.raises(RuntimeError) as want:
        torch.broadcast_shapes((2, 3), (4, 3))
    with pytest.raises(RuntimeError, match="^" + str(want.value).replace("(", r"\(")
                       .replace(")", r"\)").replace("[", r"\[").replace("]", r"\]") + "$"):
        nbgrad.broadcast_shapes((2, 3), (4, 3))
    for a, b in [(np.ones(2, np.float32), 1.0), (np.ones(2, np.int32), 2.5), (3, 2.0),
                 (np.array(1), np.ones(2, np.int8)), (np.ones(2, np.float16), 1)]:
        def lib(m, v):
            return m.tensor(v) if isinstance(v, np.ndarray) else v
        assert str(nbgrad.result_type(lib(nbgrad, a), lib(nbgrad, b))).split(".")[-1] == \
            str(torch.result_type(lib(torch, a), lib(torch, b))).split(".")[-1]
    names = ["float32", "float64", "float16", "int32", "int64", "uint8", "int8", "bool"]
    for a in names:
        for b in names:
            assert nbgrad.can_cast(getattr(nbgrad, a), getattr(nbgrad, b)) == \
                torch.can_cast(getattr(torch, a), getattr(torch, b)), (a, b)


def test_process_switches():
    n = nbgrad.get_num_threads()
    try:
        nbgrad.set_num_threads(1)
        assert nbgrad.get_num_threads() == 1
    finally:
        nbgrad.set_num_threads(n)
    for bad in (0, -1):
        with pytest.raises(RuntimeError, match="set_num_threads expects a positive integer"):
            nbgrad.set_num_threads(bad)
    assert nbgrad.get_num_interop_threads() >= 1
    assert not nbgrad.are_deterministic_algorithms_enabled()
    try:
        nbgrad.use_deterministic_algorithms(True, warn_only=True)
        assert nbgrad.are_deterministic_algorithms_enabled()
        assert nbgrad.is_deterministic_algorithms_warn_only_enabled()
        assert nbgrad.get_deterministic_debug_mode() == 1
        nbgrad.set_deterministic_debug_mode("error")
        assert nbgrad.get_deterministic_debug_mode() == 2
        with pytest.raises(TypeError, match="must be bool, not int"):
            nbgrad.use_deterministic_algorithms(1)
        with pytest.raises(RuntimeError, match="expected 0, 1, or 2, but got 5"):
            nbgrad.set_deterministic_debug_mode(5)
    finally:
        nbgrad.use_deterministic_algorithms(False)
    assert nbgrad.get_float32_matmul_precision() == "highest"
    try:
        nbgrad.set_float32_matmul_precision("high")
        assert nbgrad.get_float32_matmul_precision() == "high"
        with pytest.warns(UserWarning, match="is not one of 'highest', 'high', or 'medium'"):
            nbgrad.set_float32_matmul_precision("fast")
        assert nbgrad.get_float32_matmul_precision() == "high"
    finally:
        nbgrad.set_float32_matmul_precision("highest")
    assert nbgrad.set_flush_denormal(True) is False
    assert not nbgrad.is_warn_always_enabled()


def test_in_place_view_methods():
    for name, args in [("t_", ()), ("transpose_", (0, 1)), ("swapdims_", (1, 0)),
                       ("swapaxes_", (0, 1)), ("unsqueeze_", (1,)), ("squeeze_", ())]:
        res = []
        for m in (nbgrad, torch):
            x = m.tensor(_X[0, :1] if name == "squeeze_" else _X[0], requires_grad=True)
            y = x * 2
            before = y._version
            z = getattr(y, name)(*args)
            assert z is y and y._version == before + 1
            (y * m.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()
            res.append((y.detach().numpy(), x.grad.numpy()))
        for a, b in zip(*res):
            np.testing.assert_array_equal(a, b)
    leaf = nbgrad.ones(2, 3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation."):
        leaf.t_()
    with nbgrad.no_grad():
        leaf.t_()
    assert leaf.shape == (3, 2) and leaf.is_leaf and leaf.requires_grad
    base = nbgrad.arange(6.0).reshape(2, 3)
    row = base[1]
    row.unsqueeze_(0)
    assert row.shape == (1, 3) and base.shape == (2, 3)
    row[0, 0] = 7.0  # (still a view of base's storage)
    assert base[1, 0].item() == 7.0
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with "
                                           "non-complex dtypes."):
        nbgrad.ones(2).imag
    with pytest.raises(RuntimeError, match=r"tensor.H is only supported on matrices \(2-D "
                                           r"tensors\). Got 3-D tensor."):
        nbgrad.ones(2, 2, 2).H
    assert math.isclose(nbgrad.tensor(2.0).conj().item(), 2.0)


def test_docstring_examples_run():
    import doctest

    from nbgrad import _runtime, _torch_names
    from nbgrad.ops import windows

    for mod in (_runtime, _torch_names, windows):  # (compound's: tests/test_compound.py)
        res = doctest.testmod(mod)
        assert res.attempted and not res.failed, mod.__name__


def test_data_ptr_and_storage_offset():
    for key in [(slice(None),), (1,), (slice(1, None), 2), (Ellipsis, slice(None, None, 2))]:
        x, tx = nbgrad.arange(24.0).reshape(2, 3, 4), torch.arange(24.0).reshape(2, 3, 4)
        v, tv = x[key], tx[key]
        assert v.storage_offset() == tv.storage_offset()
        assert v.data_ptr() - x.data_ptr() == tv.data_ptr() - tx.data_ptr()
        t, tt = v.t() if v.ndim == 2 else v, tv.t() if tv.ndim == 2 else tv
        assert t.storage_offset() == tt.storage_offset()
    assert nbgrad.ones(3).storage_offset() == 0


def test_buffer_registers_when_assigned():
    for m in (nbgrad, torch):
        mod = m.nn.Module()
        mod.a = m.nn.Buffer(m.ones(2))
        mod.b = m.nn.Buffer(m.zeros(1), persistent=False)
        mod.c = m.nn.Buffer(m.ones(1))
        mod.c = m.nn.Buffer(m.ones(1) * 2)  # (a buffer replaced)
        mod.p = m.nn.Parameter(m.ones(1))
        with pytest.raises(TypeError, match="as parameter 'p'"):
            mod.p = m.nn.Buffer(m.ones(1))
        mod.q = 3
        with pytest.raises(KeyError, match="attribute 'q' already exists"):
            mod.q = m.nn.Buffer(m.ones(1))  # (as register_buffer)
        assert isinstance(mod.a, m.nn.Buffer) and not isinstance(m.ones(1), m.nn.Buffer)
        assert type(mod.a) is m.Tensor and not mod.a.requires_grad
        assert list(mod.state_dict()) == ["p", "a", "c"] and mod.c.item() == 2
        assert [n for n, _ in mod.named_buffers()] == ["a", "b", "c"]
    src = nbgrad.ones(2, requires_grad=True)
    b = nbgrad.nn.Buffer(src)
    assert not b.requires_grad and b.data_ptr() == src.data_ptr()
    with pytest.raises(TypeError, match="expected a Tensor as data, but got list"):
        nbgrad.nn.Buffer([1.0])
