"""Indexing ops: advanced ``x[key]`` / ``x[key] = v``, ``index_select gather scatter_add
index_add take_along_dim index_put`` and ``nn.functional.embedding``.

Values and gradients are compared with PyTorch (the oracle, where installed) and NumPy;
``gradcheck`` / ``gradgradcheck`` run in float64; duplicate indices must accumulate.
"""

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def _nb(a, rg=False):
    return nbgrad.tensor(np.asarray(a), requires_grad=rg)


def _th(a, rg=False):
    return torch.tensor(np.asarray(a), requires_grad=rg)


def _conv(key, m):
    """A key spelled with nbgrad tensors, turned into one for module ``m``."""
    def one(k):
        if isinstance(k, nbgrad.Tensor):
            return m.tensor(k.numpy()) if m is torch else k
        return k

    return tuple(one(k) for k in key) if isinstance(key, tuple) else one(key)


def _x(shape=(3, 4, 5)):
    return RNG.standard_normal(shape)


T = nbgrad.tensor
B = np.array([True, False, True])
M45 = RNG.random((4, 5)) > 0.5

# ----- advanced getitem: values, gradients (with duplicates), double backward --------------
KEYS = [
    [0, 2],
    [2, 0, 2, 2],  # duplicates accumulate
    [-1, -3],
    [],
    (slice(None), [1, 1, 3]),
    (0, slice(None), [1, 2]),  # torch (not NumPy): ints select first -> shape (4, 2)
    ([0, 1], slice(None), 0),
    ([[0, 1], [1, 2]],),
    (Ellipsis, [1, -2]),
    (slice(None), [0, 1], [4, 4]),
    (slice(None), [[0], [1]], [1, 2, 3]),  # broadcast index tensors
    ([0, 2], slice(None), [1, 4]),  # separated by a slice -> result dims first
    (slice(None), [0, 1], None, [1, 2]),
    (None, [0, 1], None, [1, 2]),
    (slice(1, None, 2), [3, 0]),
    T([0, 2, 2]),
    T([[1], [0]], dtype=nbgrad.int32),
    T(B),
    B.tolist(),
    (slice(None), T(M45)),
    (T(B), slice(None), [1, 2]),
    (1, T(M45)),
    (T(B), [[1], [3]]),
    True,
    ([0, 1], True),
    np.array([1, 1, 0]),
]
KIDS = [f"k{i}" for i in range(len(KEYS))]


@pytest.mark.parametrize("key", KEYS, ids=KIDS)
def test_getitem_values_and_grads(key):
    a = _x()
    x, tx = _nb(a, True), _th(a, True)
    y, ty = x[_conv(key, nbgrad)], tx[_conv(key, torch)]
    assert tuple(y.shape) == tuple(ty.shape)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    go = RNG.standard_normal(tuple(ty.shape))
    y.backward(_nb(go))
    ty.backward(_th(go))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("key", [KEYS[1], KEYS[6], KEYS[11], KEYS[19], KEYS[24]],
                         ids=["dup", "int", "sep", "mask", "true"])
def test_getitem_gradcheck(key):
    x = _nb(_x((3, 4, 5)), True)
    assert gradcheck(lambda t: t[key], (x,))
    assert gradgradcheck(lambda t: t[key] ** 2, (x,))


def test_getitem_grad_fn_name_and_copy():
    x = _nb(_x((3, 4)), True)
    y = x[[0, 0]]
    assert y.grad_fn.name() == "IndexBackward0"
    z = x.detach()
    w = z[[1]]
    w[0, 0] = 100.0  # a copy: the source is untouched
    assert z[1, 0].item() != 100.0


def test_getitem_noncontiguous_and_dtypes():
    a = np.arange(24).reshape(4, 6)
    mask = a.T % 3 == 0
    for dt in (nbgrad.int64, nbgrad.int32, nbgrad.float32, nbgrad.bool):
        x = nbgrad.tensor(a, dtype=dt).t()  # transposed view
        n = (a.T).astype(dt.np)
        np.testing.assert_array_equal(x[[5, 0, 5], 1:3].numpy(), n[[5, 0, 5], 1:3])
        np.testing.assert_array_equal(x[T(mask)].numpy(), n[mask])
    x = _nb(_x((4, 6)), True)
    y = x.t()[[1, 1, 5], ::2]
    y.sum().backward()
    g = np.zeros((6, 4))
    g[1, ::2] = 2.0
    g[5, ::2] = 1.0
    np.testing.assert_allclose(x.grad.numpy(), g.T)


def test_getitem_mask_all_and_empty():
    a = _x((3, 4))
    x = _nb(a)
    np.testing.assert_array_equal(x[x > 100].numpy(), a[a > 100])
    assert tuple(x[x > 100].shape) == (0,)
    np.testing.assert_array_equal(x[x > -100].numpy(), a.reshape(-1))
    s = nbgrad.tensor(3.0)
    assert tuple(s[True].shape) == (1,) and tuple(s[False].shape) == (0,)


# ----- advanced setitem / index_put -----------------------------------------------------------
SET = [
    ([0, 2], "s"),  # scalar value
    ([0, 2], (4, 5)),  # value broadcast over the indexed rows
    ([1, 1, 2], (3, 4, 5)),  # duplicates: one of the writes wins, as in PyTorch
    ((slice(None), [0, 3]), (3, 2, 5)),
    ((slice(None), [0, 3], [1, 1]), (1, 2)),  # leading ones are dropped from the value
    ((0, slice(None), [1, 2]), (4, 1)),
    ("mask", (1,)),
    ("mask", "n"),  # value with one entry per selected element
]


def _set_key(key):
    if key == "mask":
        return T(M45), (slice(None), torch.tensor(M45))
    return key, key


@pytest.mark.parametrize("key,vshape", SET, ids=[f"s{i}" for i in range(len(SET))])
def test_setitem_values_and_grads(key, vshape):
    k_nb, k_th = _set_key(key)
    if key == "mask":
        k_nb = (slice(None), k_nb)
    a = _x()
    if vshape == "n":
        vshape = (3, int(M45.sum()))
    dup = key == [1, 1, 2]
    v = 7.5 if vshape == "s" else RNG.standard_normal(vshape)
    if dup:  # make the duplicate writes agree so the value is well defined
        v = np.broadcast_to(RNG.standard_normal((1, 4, 5)), vshape).copy()
    x0, tx0 = _nb(a, True), _th(a, True)
    x, tx = x0 * 1, tx0 * 1
    vn = v if vshape == "s" else _nb(v, True)
    vt = v if vshape == "s" else _th(v, True)
    x[k_nb] = vn
    tx[k_th] = vt
    np.testing.assert_array_equal(x.detach().numpy(), tx.detach().numpy())
    assert x.grad_fn.name() == "IndexPutBackward0"
    go = RNG.standard_normal(a.shape)
    (x * _nb(go)).sum().backward()
    (tx * _th(go)).sum().backward()
    np.testing.assert_allclose(x0.grad.numpy(), tx0.grad.numpy())
    if vshape != "s":
        np.testing.assert_allclose(vn.grad.numpy(), vt.grad.numpy())


def test_setitem_gradcheck():
    x = _nb(_x((3, 4)), True)
    v = _nb(_x((2, 4)), True)

    def f(a, b):
        c = a * 1
        c[[2, 0]] = b * b
        return c * c

    assert gradcheck(f, (x, v))
    assert gradgradcheck(f, (x, v))

    def g(a, b):
        c = a * 1.5
        c[c > 0] = b.sum()
        return c

    assert gradcheck(g, (x, v))


def test_setitem_noncontiguous_target_and_dtype_conversion():
    a = np.zeros((4, 6))
    x = nbgrad.tensor(a)
    xt = x.t()  # a non-contiguous view: writes reach the base
    xt[[0, 5], 1] = nbgrad.tensor([1.0, 2.0])
    a.T[[0, 5], 1] = [1.0, 2.0]
    np.testing.assert_array_equal(x.numpy(), a)
    xi = nbgrad.zeros(3, dtype=nbgrad.int64)
    xi[[0, 2]] = nbgrad.tensor([1.7, 2.2], dtype=nbgrad.float64)
    assert xi.tolist() == [1, 0, 2]
    v0 = x._version
    x[[0]] = 1.0
    assert x._version > v0


def test_index_put_accumulate():
    a = _x((3, 4))
    v = _x((4, 4))
    idx = [0, 2, 0, 0]
    for acc in (True, False):
        x0, tx0 = _nb(a, True), _th(a, True)
        vn, vt = _nb(v, True), _th(v, True)
        y = nbgrad.index_put(x0, (T(idx),), vn, accumulate=acc)
        ty = torch.index_put(tx0, (torch.tensor(idx),), vt, accumulate=acc)
        if acc:
            np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
        go = RNG.standard_normal((3, 4))
        y.backward(_nb(go))
        ty.backward(_th(go))
        np.testing.assert_allclose(x0.grad.numpy(), tx0.grad.numpy())
        np.testing.assert_allclose(vn.grad.numpy(), vt.grad.numpy())
    z = nbgrad.zeros(2, 2)
    z.index_put_((T([1, 1, 1]), T([0, 0, 1])), nbgrad.ones(3), accumulate=True)
    assert z.tolist() == [[0.0, 0.0], [2.0, 1.0]]
    z.index_put_((T(1), T(0)), nbgrad.tensor(5.0), accumulate=True)  # 0-d index tensors
    assert z.tolist() == [[0.0, 0.0], [7.0, 1.0]]
    x = _nb(a, True)
    assert gradgradcheck(
        lambda t, w: nbgrad.index_put(t * t, (T(idx),), w * w, accumulate=True), (x, _nb(v, True))
    )
    with pytest.raises(RuntimeError, match="source and destination dtypes match"):
        nbgrad.zeros(3).index_put_((T([0]),), nbgrad.ones(1, dtype=nbgrad.float64))
    with pytest.raises(TypeError, match="must be Tensor"):
        nbgrad.zeros(3).index_put_((T([0]),), 1.0)


# ----- index_select / index_add --------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_index_select(dim):
    a = _x((3, 4, 5))
    idx = [2, 0, 2, 1]
    x, tx = _nb(a, True), _th(a, True)
    y = nbgrad.index_select(x, dim, T(idx))
    ty = torch.index_select(tx, dim, torch.tensor(idx))
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    go = RNG.standard_normal(tuple(ty.shape))
    y.backward(_nb(go))
    ty.backward(_th(go))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    assert y.grad_fn.name() == "IndexSelectBackward0"
    x = _nb(a, True)
    assert gradcheck(lambda t: t.index_select(dim, T(idx)), (x,))
    assert gradgradcheck(lambda t: t.index_select(dim, T(idx)) ** 2, (x,))


def test_index_select_edge_cases():
    x = nbgrad.arange(12.0).reshape(3, 4)
    assert tuple(x.index_select(0, T(1)).shape) == (1, 4)  # 0-d index
    assert x.index_select(1, T([3, 0], dtype=nbgrad.int32)).tolist() == [[3, 0], [7, 4], [11, 8]]
    assert tuple(x.index_select(0, T([], dtype=nbgrad.int64)).shape) == (0, 4)
    assert x.t().index_select(0, T([1])).tolist() == [[1.0, 5.0, 9.0]]  # non-contiguous
    assert nbgrad.index_select(nbgrad.tensor(5.0), 0, T([0])).item() == 5.0
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, T([3]))
    with pytest.raises(IndexError, match="index out of range in self"):
        x.index_select(0, T([-1]))
    with pytest.raises(RuntimeError, match="Expected dtype int32 or int64 for index"):
        x.index_select(0, T([0.0]))
    with pytest.raises(IndexError, match="Index is supposed to be a vector"):
        x.index_select(0, T([[0]]))
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.index_select(2, T([0]))


def test_index_add():
    a, s = _x((3, 4)), _x((5, 4))
    idx = [0, 2, 0, 0, 1]
    for alpha in (1, 2.5):
        x, tx = _nb(a, True), _th(a, True)
        sn, st = _nb(s, True), _th(s, True)
        y = nbgrad.index_add(x, 0, T(idx), sn, alpha=alpha)
        ty = torch.index_add(tx, 0, torch.tensor(idx), st, alpha=alpha)
        np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
        go = RNG.standard_normal((3, 4))
        y.backward(_nb(go))
        ty.backward(_th(go))
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
        np.testing.assert_allclose(sn.grad.numpy(), st.grad.numpy())
    x, sn = _nb(a, True), _nb(_x((3, 2)), True)
    assert gradcheck(lambda t, u: t.index_add(1, T([3, 3]), u * u), (x, sn))
    assert gradgradcheck(lambda t, u: t.index_add(1, T([3, 3]), u * u), (x, sn))
    z = nbgrad.zeros(3, 4)
    z.index_add_(0, T([1, 1]), nbgrad.ones(2, 4))
    assert z.sum().item() == 8.0 and z[1].tolist() == [2.0] * 4
    with pytest.raises(RuntimeError, match="source tensor shape must match"):
        nbgrad.index_add(nbgrad.zeros(3, 4), 0, T([0, 0]), nbgrad.ones(2, 3))
    with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0 with size 3"):
        nbgrad.index_add(nbgrad.zeros(3, 4), 0, T([0, 5]), nbgrad.ones(2, 4))
    with pytest.raises(RuntimeError, match="Number of indices"):
        nbgrad.index_add(nbgrad.zeros(3, 4), 0, T([0, 1]), nbgrad.ones(1, 4))
    with pytest.raises(RuntimeError, match="must have the same scalar type"):
        nbgrad.index_add(nbgrad.zeros(3, 4), 0, T([0]), nbgrad.ones(1, 4, dtype=nbgrad.float64))


# ----- gather / scatter_add / take_along_dim -------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_gather(dim):
    a = _x((3, 4, 5))
    ishape = [2, 3, 4]
    ishape[dim] = 6  # larger than the input along dim: allowed
    idx = RNG.integers(0, a.shape[dim], ishape)
    x, tx = _nb(a, True), _th(a, True)
    y = nbgrad.gather(x, dim, T(idx))
    ty = torch.gather(tx, dim, torch.tensor(idx))
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    go = RNG.standard_normal(ishape)
    y.backward(_nb(go))
    ty.backward(_th(go))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    assert y.grad_fn.name() == "GatherBackward0"
    x = _nb(_x((3, 4)), True)
    i2 = T([[0, 0, 2], [1, 1, 1]])
    assert gradcheck(lambda t: t.gather(0, i2), (x,))
    assert gradgradcheck(lambda t: t.gather(0, i2).tanh(), (x,))
    assert gradgradcheck(lambda t: t.t().gather(1, i2.t()) ** 2, (x,))  # non-contiguous


def test_gather_errors_and_edges():
    x = nbgrad.arange(12.0).reshape(3, 4)
    assert nbgrad.gather(x, 0, T([[0]], dtype=nbgrad.int32)).tolist() == [[0.0]]
    assert nbgrad.gather(nbgrad.tensor(5.0), 0, T(0)).item() == 5.0
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x.gather(0, T([[3]]))
    with pytest.raises(RuntimeError, match="index -1 is out of bounds for dimension 1 with size 4"):
        x.gather(1, T([[-1]]))
    with pytest.raises(RuntimeError, match="Expected dtype int32/int64 for index"):
        x.gather(0, T([[0.0]]))
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        x.gather(0, T([0]))
    with pytest.raises(RuntimeError, match="Size does not match at dimension 1"):
        x.gather(0, T([[0, 1, 2, 0, 1]]))


def test_scatter_add():
    a = _x((3, 4))
    s = _x((5, 6))  # larger than the index: only its corner is used
    idx = [[0, 2, 0, 0], [1, 1, 1, 2], [0, 0, 0, 0]]
    x, tx = _nb(a, True), _th(a, True)
    sn, st = _nb(s, True), _th(s[:3, :4], True)
    y = nbgrad.scatter_add(x, 0, T(idx), sn)
    ty = torch.scatter_add(tx, 0, torch.tensor(idx), st)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    go = RNG.standard_normal((3, 4))
    y.backward(_nb(go))
    ty.backward(_th(go))  # (torch's backward rejects a src larger than the index)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    gs = np.zeros((5, 6))
    gs[:3, :4] = st.grad.numpy()
    np.testing.assert_allclose(sn.grad.numpy(), gs)
    assert y.grad_fn.name() == "ScatterAddBackward0"
    x, sn = _nb(a, True), _nb(_x((2, 4)), True)
    i2 = T([[2, 2, 0, 1], [2, 0, 0, 1]])
    assert gradcheck(lambda t, u: t.scatter_add(0, i2, u), (x, sn))
    assert gradgradcheck(lambda t, u: (t * t).scatter_add(0, i2, u * u), (x, sn))
    assert gradgradcheck(lambda t, u: t.scatter_add(1, i2, u).sin(), (x, sn))


def test_scatter_add_inplace_and_errors():
    z = nbgrad.zeros(2, 3)
    z.scatter_add_(1, T([[0, 0, 0]]), nbgrad.ones(1, 3))
    assert z.tolist() == [[3.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    zi = nbgrad.zeros(4, dtype=nbgrad.int64)
    zi.scatter_add_(0, T([3, 3, 0]), nbgrad.tensor([1, 2, 5]))
    assert zi.tolist() == [5, 0, 0, 3]
    w = nbgrad.ones(3, dtype=nbgrad.float64, requires_grad=True)
    b = nbgrad.zeros(3, dtype=nbgrad.float64)
    b.scatter_add_(0, T([0, 0, 2]), w * 2)
    b.sum().backward()
    assert w.grad.tolist() == [2.0, 2.0, 2.0]
    x = nbgrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 0 with size 3"):
        x.scatter_add(0, T([[3]]), nbgrad.ones(1, 1))
    with pytest.raises(RuntimeError, match="Expected self.dtype to be equal to src.dtype"):
        x.scatter_add(0, T([[0]]), nbgrad.ones(1, 1, dtype=nbgrad.float64))
    with pytest.raises(RuntimeError, match="to be no larger than self"):
        x.scatter_add(0, T([[0, 1]]), nbgrad.ones(1, 1))
    with pytest.raises(RuntimeError, match="same number of dimensions as self"):
        x.scatter_add(0, T([0]), nbgrad.ones(5, 5))


def test_take_along_dim():
    a = _x((3, 4))
    x, tx = _nb(a, True), _th(a, True)
    for idx, dim in (([[0, 3], [1, 1], [2, 0]], 1), ([[2, 0, 1, 2]], 0), ([[0], [1], [3]], 1),
                     ([5, 0, 5], None)):
        y = nbgrad.take_along_dim(x, T(idx), dim)
        ty = torch.take_along_dim(tx, torch.tensor(idx), dim)
        np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
        go = RNG.standard_normal(tuple(ty.shape))
        y.backward(_nb(go))
        ty.backward(_th(go))
        np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    with pytest.raises(RuntimeError, match="same number of dimensions"):
        nbgrad.take_along_dim(x, T([0]), 1)


# ----- embedding ------------------------------------------------------------------------------
@pytest.mark.parametrize("pad,freq", [(None, False), (2, False), (-1, True), (None, True)])
def test_embedding(pad, freq):
    w = _x((6, 3))
    idx = [[0, 2, 2, 5], [1, 2, 0, 5]]
    wn, wt = _nb(w, True), _th(w, True)
    y = F.embedding(T(idx), wn, padding_idx=pad, scale_grad_by_freq=freq)
    ty = torch.nn.functional.embedding(torch.tensor(idx), wt, padding_idx=pad,
                                       scale_grad_by_freq=freq)
    np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
    go = RNG.standard_normal((2, 4, 3))
    y.backward(_nb(go))
    ty.backward(_th(go))
    np.testing.assert_allclose(wn.grad.numpy(), wt.grad.numpy(), rtol=1e-12)
    wn = _nb(w, True)
    assert gradgradcheck(lambda t: F.embedding(T(idx), t * t, padding_idx=pad), (wn,))


def test_embedding_errors():
    w = nbgrad.zeros(3, 2)
    assert tuple(F.embedding(T(1), w).shape) == (2,)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(T([0, 5]), w)
    with pytest.raises(IndexError, match="index out of range in self"):
        F.embedding(T([-1]), w)
    with pytest.raises(RuntimeError, match="'indices' to have one of the following scalar types"):
        F.embedding(T([0.0]), w)
    with pytest.raises(AssertionError, match="Padding_idx must be within num_embeddings"):
        F.embedding(T([0]), w, padding_idx=5)
    with pytest.raises(NotImplementedError, match="sparse"):
        F.embedding(T([0]), w, sparse=True)


@pytest.mark.parametrize("norm_type", [2.0, 1.0, float("inf")])
def test_embedding_max_norm(norm_type):
    w = _x((6, 3)) * 2
    idx = [[0, 2, 2], [5, 0, 1]]
    wn, wt = _nb(w, True), _th(w, True)
    y = F.embedding(T(idx), wn, max_norm=1.5, norm_type=norm_type)
    ty = torch.nn.functional.embedding(torch.tensor(idx), wt, max_norm=1.5, norm_type=norm_type)
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(wn.detach().numpy(), wt.detach().numpy(), rtol=1e-12)
    assert wn._version > 0
    go = RNG.standard_normal((2, 3, 3))
    y.backward(_nb(go))
    ty.backward(_th(go))
    np.testing.assert_allclose(wn.grad.numpy(), wt.grad.numpy(), rtol=1e-12)


# ----- indexing errors in PyTorch's words ----------------------------------------------------
ERRS = [
    ([5], IndexError, "index 5 is out of bounds for dimension 0 with size 3"),
    ([-4], IndexError, "index -4 is out of bounds for dimension 0 with size 3"),
    ((slice(None), [5]), IndexError, "index 5 is out of bounds for dimension 0 with size 4"),
    ((slice(None), [1], [9]), IndexError, "index 9 is out of bounds for dimension 1 with size 5"),
    ((7, [0]), IndexError, "index 7 is out of bounds for dimension 0 with size 3"),
    (T([1.0]), IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    ([0.5], IndexError, "tensors used as indices must be long, int, byte or bool tensors"),
    (T([True, False]), IndexError, r"The shape of the mask \[2\] at index 0 does not match the "
     r"shape of the indexed tensor \[3, 4, 5\] at index 0"),
    ((slice(None), T([True])), IndexError, r"shape of the indexed tensor \[3, 4, 5\] at index 1"),
    (([0, 1], [0, 1, 2]), IndexError, r"shape mismatch: indexing tensors could not be broadcast "
     r"together with shapes \[2\], \[3\]"),
    (([0], [0], [0], [0]), IndexError, "too many indices for tensor of dimension 3"),
    ((Ellipsis, [0], Ellipsis), IndexError, "an index can only have a single ellipsis"),
]


@pytest.mark.parametrize("key,exc,msg", ERRS, ids=[f"e{i}" for i in range(len(ERRS))])
def test_index_errors(key, exc, msg):
    x = nbgrad.zeros(3, 4, 5)
    with pytest.raises(exc, match=msg):
        x[key]
    with pytest.raises(exc, match=msg):
        x[key] = 1.0


def test_setitem_value_shape_error():
    x = nbgrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match=r"shape mismatch: value tensor of shape \[3\] cannot "
                       r"be broadcast to indexing result of shape \[2, 4\]"):
        x[[0, 1]] = nbgrad.ones(3)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        nbgrad.zeros(3, requires_grad=True)[[0]] = 1.0


def test_inplace_version_check_through_index():
    x = _nb(_x((3,)), True)
    y = x * 1
    z = y * y  # saves y
    y[[0]] = 5.0  # an advanced write bumps y's version
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


# ----- large inputs: the parallel kernels ------------------------------------------------------
def test_parallel_kernels_match_numpy():
    n = 400_000
    a = RNG.standard_normal((n // 100, 100))
    idx = RNG.integers(0, a.shape[0], 3000)
    x = _nb(a, True)
    y = x[idx]  # take (parallel)
    np.testing.assert_array_equal(y.detach().numpy(), a[idx])
    go = RNG.standard_normal(y.shape)
    y.backward(_nb(go))  # put with accumulation over duplicates (parallel)
    g = np.zeros_like(a)
    np.add.at(g, idx, go)
    np.testing.assert_allclose(x.grad.numpy(), g, rtol=1e-12, atol=1e-12)
    gi = RNG.integers(0, a.shape[0], a.shape)
    s = nbgrad.gather(_nb(a), 0, T(gi))  # gather (parallel)
    np.testing.assert_array_equal(s.numpy(), np.take_along_axis(a, gi, 0))
    r = nbgrad.scatter_add(nbgrad.zeros(a.shape, dtype=nbgrad.float64), 0, T(gi), _nb(a))
    ref = np.zeros_like(a)
    np.add.at(ref, (gi, np.arange(100)[None, :]), a)
    np.testing.assert_allclose(r.numpy(), ref, rtol=1e-12, atol=1e-12)


# ----- random keys against PyTorch --------------------------------------------------------------
def _random_key(rng, shape):
    """A random mix of ints, slices, None, ..., index arrays (1-d or 2-d) and bool masks."""
    items, d = [], 0
    while d < len(shape) and rng.random() < 0.85:
        r = rng.random()
        if r < 0.15:
            items.append(("n", None))
            continue
        if r < 0.35:
            items.append(("v", int(rng.integers(-shape[d], shape[d]))))
        elif r < 0.55:
            items.append(("v", slice(int(rng.integers(-shape[d], shape[d])), None,
                                     int(rng.integers(1, 3)))))
        elif r < 0.85:
            n = int(rng.integers(0, 4))
            size = (n,) if rng.random() < 0.7 or not n else (2, 1)
            items.append(("t", rng.integers(-shape[d], shape[d], size=size)))
        else:
            k = min(int(rng.integers(1, 3)), len(shape) - d)
            items.append(("t", rng.random(shape[d:d + k]) > 0.5))
            d += k - 1
        d += 1
    if rng.random() < 0.2:
        items.insert(int(rng.integers(0, len(items) + 1)), ("v", Ellipsis))

    def key(m):
        return tuple(m.tensor(v) if t == "t" else v for t, v in items)

    return key


def test_random_keys_match_torch():
    rng = np.random.default_rng(1)
    for _ in range(300):
        shape = tuple(int(s) for s in rng.integers(1, 5, size=int(rng.integers(1, 5))))
        key = _random_key(rng, shape)
        a = rng.standard_normal(shape)
        x, tx = _nb(a, True), _th(a, True)
        try:
            ty = tx[key(torch)]
        except IndexError as e:  # e.g. index arrays that do not broadcast together
            with pytest.raises(IndexError) as info:
                x[key(nbgrad)]
            assert str(info.value) == str(e)
            continue
        y = x[key(nbgrad)]
        assert tuple(y.shape) == tuple(ty.shape)
        np.testing.assert_array_equal(y.detach().numpy(), ty.detach().numpy())
        if ty.numel():
            go = rng.standard_normal(tuple(ty.shape))
            y.backward(_nb(go))
            ty.backward(_th(go))
            np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), atol=1e-12)
        v = rng.standard_normal(tuple(ty.shape))
        z, tz = _nb(a), _th(a)
        z[key(nbgrad)] = _nb(v)
        tz[key(torch)] = _th(v)
        np.testing.assert_array_equal(z.numpy(), tz.numpy())


# ----- backward of a read of whole rows: straight into fresh zeros ------------------------------
@pytest.mark.parametrize("dim", [0, 1])
def test_row_read_backward_adds_duplicates_into_zeros_as_torch(dim):
    torch = pytest.importorskip("torch")
    a = np.random.default_rng(7).standard_normal((6, 5)).astype(np.float32)
    idx = np.array([4, 1, 4, 4, 0])
    g = np.random.default_rng(8).standard_normal((5, 5) if dim == 0 else (6, 5)).astype(
        np.float32)
    grads = []
    for lib in (nbgrad, torch):
        w = lib.tensor(a, requires_grad=True)
        i = lib.tensor(idx)
        out = F.embedding(i, w) if dim == 0 and lib is nbgrad else (
            torch.nn.functional.embedding(i, w) if dim == 0 else w.index_select(1, i))
        out.backward(lib.tensor(g))
        grads.append(w.grad.numpy())
        assert w.grad.grad_fn is None
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-6, atol=1e-6)


def test_embedding_gradgradcheck():
    w = nbgrad.tensor(np.random.default_rng(9).standard_normal((5, 3)), requires_grad=True)
    i = nbgrad.tensor([[1, 4, 1], [0, 1, 3]])
    assert gradcheck(lambda t: F.embedding(i, t), (w,))
    assert gradgradcheck(lambda t: F.embedding(i, t) ** 2, (w,))


def test_scatter_index_fill_index_copy_in_place_and_errors():
    """The assigning ops (their values and gradients: tests/test_func_rows.py) in place,
    with a number, with ``reduce=``, and PyTorch's errors."""
    import doctest

    import torch

    from nbgrad.ops import index as ix

    for m in (nbgrad, torch):
        x = m.zeros(2, 4)
        assert x.scatter_(1, m.tensor([[1], [3]]), 1.0) is x
        assert x.tolist() == [[0, 1, 0, 0], [0, 0, 0, 1]] and x._version == 1
        y = m.zeros(3)
        y.index_fill_(0, m.tensor([1]), 2)
        y.index_copy_(0, m.tensor([2]), m.tensor([5.0]))
        assert y.tolist() == [0, 2, 5]
        with pytest.warns(UserWarning, match="reduce argument of .*scatter with Tensor src is "
                                             "deprecated"):
            z = m.zeros(2, 3).scatter(0, m.tensor([[1, 0, 1]]), m.ones(2, 3), reduce="add")
        assert z.tolist() == [[0, 1, 0], [1, 0, 1]]
        assert m.zeros(3).index_fill(0, m.tensor([2]), m.tensor(4.0)).tolist() == [0, 0, 4]
        with pytest.raises(RuntimeError, match="index 5 is out of bounds for dimension 0"):
            m.zeros(2, 3).scatter(0, m.tensor([[5, 0, 0]]), 1.0)
        with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 1"):
            m.zeros(2, 3).index_fill(1, m.tensor([3]), 1.0)
        with pytest.raises(RuntimeError, match="same dtype"):
            m.zeros(3).index_copy(0, m.tensor([0]), m.ones(1, dtype=m.float64))
        with pytest.raises(RuntimeError, match="Index tensor must have the same number"):
            m.zeros(2, 3).scatter(0, m.tensor([1]), 1.0)
    res = doctest.testmod(ix, optionflags=doctest.ELLIPSIS)
    assert res.attempted >= 2 and not res.failed
