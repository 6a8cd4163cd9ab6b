"""nn.utils: parametrize, parametrizations (weight_norm, spectral_norm, orthogonal), the
hook-based weight_norm / spectral_norm, conv/linear + batch norm fusion, skip_init,
get_total_norm / clip_grads_with_norm_ / clip_grad_norm, against PyTorch."""

import copy
import doctest
import importlib
import pickle
import warnings

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")


def A(t):
    return np.array(t.detach().numpy())


def close(a, b, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(A(a) if hasattr(a, "detach") else a,
                               A(b) if hasattr(b, "detach") else b, rtol=rtol, atol=atol)


def same_state(m_nb, m_t, rtol=1e-5, atol=1e-6):
    sd_nb, sd_t = m_nb.state_dict(), m_t.state_dict()
    assert list(sd_nb) == list(sd_t)
    for k in sd_t:
        close(sd_nb[k], sd_t[k], rtol, atol)


def torch_names(text):
    """PyTorch's message as nbgrad words it (its dtypes and sizes)."""
    return text.replace("torch.", "nbgrad.")


def train(lib, m, x, steps=3, lr=0.1):
    """Outputs and parameter gradients of ``steps`` SGD steps on ``m(x).square().sum()``."""
    seen = []
    for _ in range(steps):
        y = m(x)
        y.square().sum().backward()
        seen.append(y)
        with lib.no_grad():
            for p in m.parameters():
                seen.append(p.grad.clone())
                p -= lr * p.grad
                p.grad = None
    return seen


# ----- parametrizations.weight_norm --------------------------------------------------------------
@pytest.mark.parametrize("kind,dim", [("linear", 0), ("linear", None), ("linear", -2),
                                      ("conv", 0), ("conv", 1)])
def test_weight_norm_parametrization(kind, dim):
    def build(lib):
        lib.manual_seed(0)
        layer = lib.nn.Linear(4, 3) if kind == "linear" else lib.nn.Conv2d(2, 3, 3)
        m = lib.nn.utils.parametrizations.weight_norm(layer, dim=dim)
        x = lib.randn(2, 4) if kind == "linear" else lib.randn(1, 2, 4, 4)
        return m, x

    (m_t, x_t), (m_nb, x_nb) = build(torch), build(nbgrad)
    base = type(m_t).__bases__[0].__name__
    assert type(m_nb).__name__ == type(m_t).__name__ == f"Parametrized{base}"
    pl = m_nb.parametrizations.weight
    assert pl.original0.shape == m_t.parametrizations.weight.original0.shape
    assert isinstance(pl.original0, nbgrad.nn.Parameter) and not hasattr(pl, "original")
    same_state(m_nb, m_t)
    for a, b in zip(train(nbgrad, m_nb, x_nb), train(torch, m_t, x_t)):
        close(a, b, 1e-4, 1e-5)
    same_state(m_nb, m_t, 1e-4, 1e-5)
    close(m_nb.weight, m_t.weight, 1e-4, 1e-5)


def test_weight_norm_loads_old_state_dict():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        old = nbgrad.nn.utils.weight_norm(nbgrad.nn.Linear(3, 2))
    sd = old.state_dict()
    assert sorted(sd) == ["bias", "weight_g", "weight_v"]
    new = nbgrad.nn.utils.parametrizations.weight_norm(nbgrad.nn.Linear(3, 2))
    new.load_state_dict(sd)
    close(new.parametrizations.weight.original0, sd["weight_g"])
    close(new.parametrizations.weight.original1, sd["weight_v"])
    x = nbgrad.randn(4, 3)
    close(new(x), old(x))


# ----- parametrizations.spectral_norm ------------------------------------------------------------
@pytest.mark.parametrize("kind", ["linear", "conv", "convT", "vector"])
def test_spectral_norm_parametrization_train_then_eval(kind):
    def build(lib):
        lib.manual_seed(1)
        if kind == "vector":
            layer, name, x = lib.nn.Linear(3, 4), "bias", lib.randn(2, 3)
        elif kind == "linear":
            layer, name, x = lib.nn.Linear(5, 4), "weight", lib.randn(2, 5)
        elif kind == "conv":
            layer, name, x = lib.nn.Conv2d(2, 3, 3), "weight", lib.randn(1, 2, 5, 5)
        else:
            layer, name, x = lib.nn.ConvTranspose2d(2, 3, 3), "weight", lib.randn(1, 2, 4, 4)
        m = lib.nn.utils.parametrizations.spectral_norm(layer, name, n_power_iterations=2)
        return m, x

    (m_t, x_t), (m_nb, x_nb) = build(torch), build(nbgrad)
    same_state(m_nb, m_t)  # the random u, v and their 15 + 1 first iterations
    for a, b in zip(train(nbgrad, m_nb, x_nb), train(torch, m_t, x_t)):
        close(a, b, 1e-4, 1e-5)
    same_state(m_nb, m_t, 1e-4, 1e-5)
    m_nb.eval(), m_t.eval()
    before = copy.deepcopy(m_nb.state_dict())
    for _ in range(2):
        close(m_nb(x_nb), m_t(x_t), 1e-4, 1e-5)
    for k, v in m_nb.state_dict().items():  # no power iteration in eval mode
        assert np.array_equal(A(v), A(before[k]))
    if kind == "linear":  # the estimate has converged: the largest singular value is 1
        assert abs(np.linalg.norm(A(m_nb.weight), 2) - 1.0) < 1e-3


def test_spectral_norm_remove_in_train_mode_iterates_once_more():
    out = {}
    for lib in (torch, nbgrad):
        lib.manual_seed(2)
        m = lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(4, 4))
        u = m.parametrizations.weight[0]._u
        lib.nn.utils.parametrize.remove_parametrizations(m, "weight")
        out[lib] = (A(m.weight), A(u))
        assert type(m).__name__ == "Linear" and not hasattr(m, "parametrizations")
    close(out[nbgrad][0], out[torch][0])
    close(out[nbgrad][1], out[torch][1])


def test_spectral_norm_two_forwards_one_backward():
    # the buffers change in place between the forwards; each graph keeps its own copies
    for lib in (torch, nbgrad):
        lib.manual_seed(0)
        m = lib.nn.utils.parametrizations.spectral_norm(lib.nn.Linear(3, 3))
        loss = m(lib.ones(1, 3)).sum() - m(lib.zeros(1, 3)).sum()
        loss.backward()
        assert m.parametrizations.weight.original.grad is not None


# ----- parametrizations.orthogonal ---------------------------------------------------------------
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5)])
@pytest.mark.parametrize("omap", ["matrix_exp", "cayley", "householder"])
@pytest.mark.parametrize("triv", [True, False])
def test_orthogonal(shape, omap, triv):
    def build(lib):
        lib.manual_seed(0)
        m = lib.nn.utils.parametrizations.orthogonal(
            lib.nn.Linear(shape[1], shape[0]), orthogonal_map=omap, use_trivialization=triv)
        return m, lib.randn(2, shape[1])

    (m_t, x_t), (m_nb, x_nb) = build(torch), build(nbgrad)
    same_state(m_nb, m_t, 1e-5, 1e-5)
    for a, b in zip(train(nbgrad, m_nb, x_nb, 2), train(torch, m_t, x_t, 2)):
        close(a, b, 1e-4, 1e-5)
    W = m_nb.weight
    G = W.T @ W if shape[0] >= shape[1] else W @ W.T
    close(G, np.eye(min(shape)), atol=1e-5)


def test_orthogonal_assignment_and_default_map():
    for lib in (torch, nbgrad):
        lib.manual_seed(0)
        m = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 3))
        assert m.parametrizations.weight[0].orthogonal_map.name == "matrix_exp"
        Q = lib.linalg.qr(lib.randn(3, 3))[0]
        m.weight = Q
        close(m.weight, Q, atol=1e-5)
        m2 = lib.nn.utils.parametrizations.orthogonal(lib.nn.Linear(3, 5))
        assert m2.parametrizations.weight[0].orthogonal_map.name == "householder"


# ----- parametrize: custom parametrizations ------------------------------------------------------
def _symmetric(lib, with_inverse):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).T

    if with_inverse:
        Symmetric.right_inverse = lambda self, A: A.triu()
    return Symmetric()


def _split(lib):
    class Split(lib.nn.Module):
        def forward(self, a, b):
            return a + 2 * b

        def right_inverse(self, X):
            return X / 2, X / 4

    return Split()


def test_symmetric_parametrization_gradient_and_assignment():
    for with_inverse in (False, True):
        res = {}
        for lib in (torch, nbgrad):
            lib.manual_seed(0)
            m = lib.nn.Linear(3, 3)
            w0 = m.weight
            P = lib.nn.utils.parametrize
            P.register_parametrization(m, "weight", _symmetric(lib, with_inverse))
            assert m.parametrizations.weight.original is w0  # the same Parameter object
            close(m.weight, m.weight.T)
            x = lib.randn(2, 3)
            m(x).pow(2).sum().backward()
            res[lib] = [m.weight, w0.grad, m.bias.grad]
            S = lib.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 5.0], [3.0, 5.0, 6.0]])
            if with_inverse:
                m.weight = S
                close(m.weight, S)
                assert m.parametrizations.weight.original is w0
                res[lib].append(w0)
        for a, b in zip(res[nbgrad], res[torch]):
            close(a, b)


def test_symmetric_missing_right_inverse_error():
    def call(lib):
        m = lib.nn.utils.parametrize.register_parametrization(
            lib.nn.Linear(3, 3), "weight", _symmetric(lib, False))
        m.weight = lib.zeros(3, 3)

    assert_same_error(call, torch, nbgrad)


def test_tuple_right_inverse():
    res = {}
    for lib in (torch, nbgrad):
        lib.manual_seed(0)
        m = lib.nn.Linear(3, 2)
        w = m.weight.detach().clone()
        P = lib.nn.utils.parametrize
        P.register_parametrization(m, "weight", _split(lib))
        pl = m.parametrizations.weight
        assert not hasattr(pl, "original") and pl.ntensors == 2 and not pl.is_tensor
        assert isinstance(pl.original0, lib.nn.Parameter) and pl.original1.requires_grad
        assert list(m.state_dict()) == ["bias", "parametrizations.weight.original0",
                                        "parametrizations.weight.original1"]
        close(m.weight, w)
        m(lib.ones(1, 3)).sum().backward()
        m.weight = lib.ones(2, 3)
        res[lib] = [pl.original0.grad, pl.original1.grad, pl.original0, pl.original1]
        with pytest.raises(ValueError, match="Cannot leave unparametrized"):
            P.remove_parametrizations(m, "weight", leave_parametrized=False)
        P.remove_parametrizations(m, "weight")
        assert isinstance(m.weight, lib.nn.Parameter) and type(m).__name__ == "Linear"
        res[lib].append(m.weight)
    for a, b in zip(res[nbgrad], res[torch]):
        close(a, b)


def test_remove_parametrizations_leave_parametrized():
    for leave in (True, False):
        res = {}
        for lib in (torch, nbgrad):
            lib.manual_seed(0)
            m = lib.nn.Linear(3, 3)
            w0 = m.weight
            P = lib.nn.utils.parametrize
            P.register_parametrization(m, "weight", _symmetric(lib, False))
            P.register_parametrization(m, "bias", _double(lib))
            P.remove_parametrizations(m, "weight", leave_parametrized=leave)
            assert m.weight is w0 and isinstance(m.weight, lib.nn.Parameter)
            assert type(m).__name__ == "ParametrizedLinear"
            assert list(m.state_dict()) == ["weight", "parametrizations.bias.original"]
            P.remove_parametrizations(m, "bias", leave_parametrized=leave)
            assert type(m) is lib.nn.Linear and not hasattr(m, "parametrizations")
            assert list(m.state_dict()) == ["weight", "bias"]
            res[lib] = [m.weight, m.bias]
        for a, b in zip(res[nbgrad], res[torch]):
            close(a, b)


def _double(lib, calls=None):
    class Double(lib.nn.Module):
        def forward(self, X):
            if calls is not None:
                calls.append(1)
            return 2 * X

        def right_inverse(self, X):
            return X / 2

    return Double()


def test_chained_parametrizations_and_buffers():
    res = {}
    for lib in (torch, nbgrad):
        lib.manual_seed(0)
        m = lib.nn.BatchNorm1d(3)
        P = lib.nn.utils.parametrize
        with lib.no_grad():
            m.running_mean.copy_(lib.tensor([1.0, 2.0, 3.0]))
        P.register_parametrization(m, "running_mean", _double(lib))
        P.register_parametrization(m, "running_mean", _double(lib))
        assert len(m.parametrizations.running_mean) == 2
        assert "parametrizations.running_mean.original" in m.state_dict()
        assert not isinstance(m.parametrizations.running_mean.original, lib.nn.Parameter)
        m.running_mean = lib.tensor([4.0, 8.0, 12.0])
        res[lib] = [m.running_mean, m.parametrizations.running_mean.original]
    for a, b in zip(res[nbgrad], res[torch]):
        close(a, b)
    close(res[nbgrad][1], np.array([1.0, 2.0, 3.0]))


def test_cached():
    calls = []
    P = nbgrad.nn.utils.parametrize
    m = P.register_parametrization(nbgrad.nn.Linear(2, 2), "weight", _double(nbgrad, calls))
    calls.clear()
    with P.cached():
        w1, w2 = m.weight, m.weight
        with P.cached():
            assert m.weight is w1
    assert w1 is w2 and len(calls) == 1
    m.weight
    assert len(calls) == 2 and not P._cache


def test_state_dict_roundtrip_and_torch_values():
    P_nb, P_t = nbgrad.nn.utils.parametrize, torch.nn.utils.parametrize
    m_t = P_t.register_parametrization(torch.nn.Linear(3, 3), "weight", _symmetric(torch, True))
    m_nb = P_nb.register_parametrization(nbgrad.nn.Linear(3, 3), "weight",
                                         _symmetric(nbgrad, True))
    m_nb.load_state_dict({k: nbgrad.tensor(A(v)) for k, v in m_t.state_dict().items()})
    same_state(m_nb, m_t)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)
    close(m_nb(nbgrad.tensor(x)), m_t(torch.tensor(x)))
    with pytest.raises(RuntimeError, match="Missing key"):
        m_nb.load_state_dict({"bias": nbgrad.zeros(3), "weight": nbgrad.zeros(3, 3)})


def test_deepcopy_pickle_repr_and_helpers():
    P = nbgrad.nn.utils.parametrize
    m = nbgrad.nn.utils.parametrizations.weight_norm(nbgrad.nn.Linear(3, 2))
    m2 = copy.deepcopy(m)
    assert type(m2) is type(m)
    close(m2.weight, m.weight)
    assert m2.parametrizations.weight.original0 is not m.parametrizations.weight.original0
    with pytest.raises(RuntimeError, match="Serialization of parametrized modules"):
        pickle.dumps(m)
    mt = torch.nn.utils.parametrizations.weight_norm(torch.nn.Linear(3, 2))
    assert repr(m) == repr(mt)
    assert P.type_before_parametrizations(m) is nbgrad.nn.Linear
    assert P.type_before_parametrizations(nbgrad.nn.ReLU()) is nbgrad.nn.ReLU
    assert P.is_parametrized(m) and P.is_parametrized(m, "weight")
    assert not P.is_parametrized(m, "bias") and not P.is_parametrized(nbgrad.nn.ReLU())
    # a parameter assigned over the property is refused, as in PyTorch
    with pytest.raises(KeyError):
        m.weight = nbgrad.nn.Parameter(nbgrad.zeros(2, 3))


def test_transfer_parametrizations_and_params():
    res = {}
    for lib in (torch, nbgrad):
        lib.manual_seed(0)
        P = lib.nn.utils.parametrize
        a = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(3, 2))
        P.register_parametrization(a, "bias", _double(lib))
        b = P.transfer_parametrizations_and_params(a, lib.nn.Linear(3, 2))
        assert b.parametrizations.weight.original1 is a.parametrizations.weight.original1
        assert b.parametrizations.bias.original is a.parametrizations.bias.original
        c = P.transfer_parametrizations_and_params(a, lib.nn.Module(), "bias")
        assert list(c.parametrizations) == ["bias"]
        assert P.transfer_parametrizations_and_params(lib.nn.ReLU(), b) is b
        x = lib.randn(2, 3)
        res[lib] = [b(x), c.bias]
    for p, q in zip(res[nbgrad], res[torch]):
        close(p, q)


def test_unsafe_parametrization():
    class Flat(nbgrad.nn.Module):
        def forward(self, X):
            return X.reshape(-1).double()

    P = nbgrad.nn.utils.parametrize
    m = P.register_parametrization(nbgrad.nn.Linear(2, 3), "weight", Flat(), unsafe=True)
    assert m.weight.shape == (6,) and m.weight.dtype == nbgrad.float64
    assert m.parametrizations.weight.unsafe


def _shape_changer(lib):
    class Sum(lib.nn.Module):
        def forward(self, X):
            return X.sum(0)

    return Sum()


def _dtype_changer(lib):
    class Dbl(lib.nn.Module):
        def forward(self, X):
            return X.double()

    return Dbl()


def _bad_inverse(lib, what):
    class Bad(lib.nn.Module):
        def forward(self, X, *rest):
            return X

        def right_inverse(self, X):
            return {"int": 3, "dtype": X.double(), "elem": (X, 3)}[what]

    return Bad()


@pytest.mark.parametrize("case", [
    "missing", "shape", "dtype", "shape2", "dtype2", "inv_int", "inv_dtype", "inv_elem",
    "remove_none", "orth_map", "orth_1d", "orth_none", "sn_dim", "sn_iters", "wn_dim",
    "old_wn_twice", "old_wn_remove", "old_sn_twice", "old_sn_remove", "old_sn_none",
])
def test_errors_match_torch(case):
    def call(lib):
        P, Z = lib.nn.utils.parametrize, lib.nn.utils.parametrizations
        m = lib.nn.Linear(2, 3)
        if case == "missing":
            P.register_parametrization(m, "nope", _double(lib))
        elif case == "shape":
            P.register_parametrization(m, "weight", _shape_changer(lib))
        elif case == "dtype":
            P.register_parametrization(m, "weight", _dtype_changer(lib))
        elif case == "shape2":
            P.register_parametrization(m, "weight", _double(lib))
            P.register_parametrization(m, "weight", _shape_changer(lib))
        elif case == "dtype2":
            P.register_parametrization(m, "weight", _double(lib))
            P.register_parametrization(m, "weight", _dtype_changer(lib))
        elif case.startswith("inv_"):
            P.register_parametrization(m, "weight", _bad_inverse(lib, case[4:]))
        elif case == "remove_none":
            P.remove_parametrizations(m, "weight")
        elif case == "orth_map":
            Z.orthogonal(m, orthogonal_map="qr")
        elif case == "orth_1d":
            Z.orthogonal(m, "bias")
        elif case == "orth_none":
            Z.orthogonal(m, "nope")
        elif case == "sn_dim":
            Z.spectral_norm(m, dim=2)
        elif case == "sn_iters":
            Z.spectral_norm(m, n_power_iterations=0)
        elif case == "wn_dim":
            Z.weight_norm(m, dim=2)
        elif case == "old_wn_twice":
            lib.nn.utils.weight_norm(lib.nn.utils.weight_norm(m))
        elif case == "old_wn_remove":
            lib.nn.utils.remove_weight_norm(m)
        elif case == "old_sn_twice":
            lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(m))
        elif case == "old_sn_remove":
            lib.nn.utils.remove_spectral_norm(m)
        elif case == "old_sn_none":
            lib.nn.utils.spectral_norm(lib.nn.Linear(2, 3, bias=False), "bias")

    assert_same_error(call, torch, nbgrad, torch_names)


# ----- the hook-based weight_norm / spectral_norm ------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, None])
def test_old_weight_norm(dim):
    def build(lib):
        lib.manual_seed(0)
        with pytest.warns(FutureWarning) as rec:
            m = lib.nn.utils.weight_norm(lib.nn.Conv2d(2, 3, 3), dim=dim)
        return m, lib.randn(1, 2, 4, 4), str(rec[0].message)

    (m_t, x_t, w_t), (m_nb, x_nb, w_nb) = build(torch), build(nbgrad)
    assert w_nb == w_t
    assert type(m_nb) is nbgrad.nn.Conv2d and "weight" not in m_nb._parameters
    same_state(m_nb, m_t)
    assert list(m_nb.state_dict()) == ["bias", "weight_g", "weight_v"]
    for a, b in zip(train(nbgrad, m_nb, x_nb), train(torch, m_t, x_t)):
        close(a, b, 1e-4, 1e-5)
    nbgrad.nn.utils.remove_weight_norm(m_nb)
    torch.nn.utils.remove_weight_norm(m_t)
    assert isinstance(m_nb.weight, nbgrad.nn.Parameter) and not m_nb._forward_pre_hooks
    same_state(m_nb, m_t, 1e-4, 1e-5)


@pytest.mark.parametrize("kind", ["linear", "convT"])
def test_old_spectral_norm(kind):
    def build(lib):
        lib.manual_seed(3)
        layer = lib.nn.Linear(4, 3) if kind == "linear" else lib.nn.ConvTranspose2d(2, 3, 2)
        m = lib.nn.utils.spectral_norm(layer, n_power_iterations=2)
        x = lib.randn(2, 4) if kind == "linear" else lib.randn(1, 2, 3, 3)
        return m, x

    (m_t, x_t), (m_nb, x_nb) = build(torch), build(nbgrad)
    same_state(m_nb, m_t)
    assert list(m_nb.state_dict()) == ["bias", "weight_orig", "weight_u", "weight_v"]
    close(m_nb.weight, m_t.weight)  # the plain weight until the first forward
    for a, b in zip(train(nbgrad, m_nb, x_nb), train(torch, m_t, x_t)):
        close(a, b, 1e-4, 1e-5)
    same_state(m_nb, m_t, 1e-4, 1e-5)
    m_nb.eval(), m_t.eval()
    u = A(m_nb.weight_u)
    close(m_nb(x_nb), m_t(x_t), 1e-4, 1e-5)
    assert np.array_equal(A(m_nb.weight_u), u)
    nbgrad.nn.utils.remove_spectral_norm(m_nb)
    torch.nn.utils.remove_spectral_norm(m_t)
    same_state(m_nb, m_t, 1e-4, 1e-5)
    assert list(m_nb.state_dict()) == ["bias", "weight"]


# ----- fusion ------------------------------------------------------------------------------------
def _set_bn_stats(lib, bn, seed):
    g = np.random.default_rng(seed)
    n = bn.num_features
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor(g.standard_normal(n).astype(np.float32)))
        bn.running_var.copy_(lib.tensor(g.uniform(0.5, 2.0, n).astype(np.float32)))
        if bn.weight is not None:
            bn.weight.copy_(lib.tensor(g.standard_normal(n).astype(np.float32)))
            bn.bias.copy_(lib.tensor(g.standard_normal(n).astype(np.float32)))


@pytest.mark.parametrize("kind", ["conv", "conv_nobias", "convT", "noaffine"])
def test_fuse_conv_bn_eval(kind):
    res = {}
    for lib in (torch, nbgrad):
        lib.manual_seed(0)
        nn = lib.nn
        if kind == "conv":
            conv, bn, x = nn.Conv2d(2, 3, 3), nn.BatchNorm2d(3), lib.randn(1, 2, 5, 5)
        elif kind == "conv_nobias":
            conv, bn, x = nn.Conv2d(2, 3, 3, bias=False), nn.BatchNorm2d(3), lib.randn(1, 2, 5, 5)
        elif kind == "convT":
            conv, bn, x = nn.ConvTranspose2d(2, 3, 3), nn.BatchNorm2d(3), lib.randn(1, 2, 4, 4)
        else:
            conv, bn, x = nn.Conv2d(2, 3, 1), nn.BatchNorm2d(3, affine=False), lib.randn(2, 2, 3, 3)
        _set_bn_stats(lib, bn, 0)
        conv.eval(), bn.eval()
        fused = lib.nn.utils.fuse_conv_bn_eval(conv, bn, transpose=kind == "convT")
        assert type(fused) is type(conv) and fused is not conv
        assert isinstance(fused.bias, lib.nn.Parameter) and fused.weight.requires_grad
        ref = bn(conv(x))
        close(fused(x), ref, 1e-4, 1e-5)
        res[lib] = [fused(x), fused.weight, fused.bias]
    for a, b in zip(res[nbgrad], res[torch]):
        close(a, b, 1e-5, 1e-6)


@pytest.mark.parametrize("features", [3, 1])
def test_fuse_linear_bn_eval(features):
    res = {}
    for lib in (torch, nbgrad):
        lib.manual_seed(0)
        lin, bn = lib.nn.Linear(4, 3), lib.nn.BatchNorm1d(features)
        _set_bn_stats(lib, bn, 1)
        lin.eval(), bn.eval()
        x = lib.randn(5, 4)
        fused = lib.nn.utils.fuse_linear_bn_eval(lin, bn)
        if features == 3:
            close(fused(x), bn(lin(x)), 1e-4, 1e-5)
        res[lib] = [fused(x), fused.weight, fused.bias]
    for a, b in zip(res[nbgrad], res[torch]):
        close(a, b, 1e-5, 1e-6)


def test_fuse_weights_dtypes_and_requires_grad():
    for lib in (torch, nbgrad):
        w, b = lib.nn.utils.fuse_conv_bn_weights(
            lib.ones(2, 1, 1, dtype=lib.float64), None, lib.zeros(2), lib.ones(2), 0.0,
            None, None)
        assert w.dtype == lib.float64 and b.dtype == lib.float64
        assert not w.requires_grad and not b.requires_grad
        w, b = lib.nn.utils.fuse_linear_bn_weights(
            lib.nn.Parameter(lib.ones(2, 3)), lib.zeros(2), lib.zeros(2), lib.ones(2), 0.0,
            lib.ones(2), lib.zeros(2))
        assert w.requires_grad and not b.requires_grad


@pytest.mark.parametrize("case", ["conv_train", "linear_train", "linear_features"])
def test_fusion_errors(case):
    def call(lib):
        nn = lib.nn
        if case == "conv_train":
            nn.utils.fuse_conv_bn_eval(nn.Conv2d(1, 2, 1), nn.BatchNorm2d(2).eval())
        elif case == "linear_train":
            nn.utils.fuse_linear_bn_eval(nn.Linear(1, 2).eval(), nn.BatchNorm1d(2))
        else:
            nn.utils.fuse_linear_bn_eval(nn.Linear(1, 2).eval(), nn.BatchNorm1d(3).eval())

    assert_same_error(call, torch, nbgrad)


# ----- skip_init ---------------------------------------------------------------------------------
def test_skip_init():
    nbgrad.manual_seed(0)
    m = nbgrad.nn.utils.skip_init(nbgrad.nn.Linear, 5, 2, bias=False)
    after = nbgrad.rand(3)
    nbgrad.manual_seed(0)
    assert np.array_equal(A(after), A(nbgrad.rand(3)))  # the generator did not move
    assert type(m) is nbgrad.nn.Linear and m.weight.shape == (2, 5) and m.bias is None
    assert isinstance(m.weight, nbgrad.nn.Parameter) and m.weight.requires_grad
    m2 = nbgrad.nn.utils.skip_init(nbgrad.nn.Conv2d, in_channels=2, out_channels=3,
                                   kernel_size=3)
    assert m2.weight.shape == (3, 2, 3, 3) and m2.bias.shape == (3,)
    assert list(m2.state_dict()) == list(nbgrad.nn.Conv2d(2, 3, 3).state_dict())


@pytest.mark.parametrize("case", ["not_module", "no_device"])
def test_skip_init_errors(case):
    def call(lib):
        if case == "not_module":
            lib.nn.utils.skip_init(int)
        else:
            lib.nn.utils.skip_init(lib.nn.ReLU)

    assert_same_error(call, torch, nbgrad)


# ----- get_total_norm / clip_grads_with_norm_ / clip_grad_norm -----------------------------------
@pytest.mark.parametrize("norm_type", [2.0, 1, "inf", 3.5])
def test_total_norm_and_clipping(norm_type):
    g = np.random.default_rng(0)
    arrs = [g.standard_normal(s).astype(np.float32) for s in ((3, 4), (5,), ())]
    res = {}
    for lib in (torch, nbgrad):
        ts = [lib.tensor(a) for a in arrs]
        total = lib.nn.utils.get_total_norm(ts, norm_type)
        ps = [lib.zeros(a.shape, requires_grad=True) for a in arrs]
        for p, t in zip(ps, ts):
            p.grad = t.clone()
        out = lib.nn.utils.clip_grads_with_norm_(ps, 1.5, total)
        assert out is None
        qs = [lib.zeros(a.shape, requires_grad=True) for a in arrs]
        for q, t in zip(qs, ts):
            q.grad = t.clone()
        with pytest.warns(FutureWarning) as rec:
            total2 = lib.nn.utils.clip_grad_norm(qs, 1.5, norm_type)
        res[lib] = [total, total2, *(p.grad for p in ps), *(q.grad for q in qs),
                    lib.nn.utils.get_total_norm(ts[0], norm_type), str(rec[0].message)]
    for a, b in zip(res[nbgrad][:-1], res[torch][:-1]):
        close(a, b)
    assert res[nbgrad][-1] == res[torch][-1]
    # a large max_norm leaves the gradients as they were
    p = nbgrad.zeros(2, requires_grad=True)
    p.grad = nbgrad.tensor([3.0, 4.0])
    nbgrad.nn.utils.clip_grads_with_norm_(p, 10.0, nbgrad.tensor(5.0))
    close(p.grad, np.array([3.0, 4.0]))
    assert float(nbgrad.nn.utils.get_total_norm([])) == 0.0


def test_total_norm_nonfinite_and_empty_generator():
    def call(lib):
        lib.nn.utils.get_total_norm([lib.tensor([1.0, float("inf")])], error_if_nonfinite=True)

    assert_same_error(call, torch, nbgrad)
    for lib in (torch, nbgrad):
        with pytest.warns(UserWarning, match="empty generator"):
            lib.nn.utils.clip_grad_norm_((p for p in []), 1.0)


# ----- docstring examples ------------------------------------------------------------------------
@pytest.mark.parametrize("name", ["parametrize", "parametrizations", "weight_norm",
                                  "spectral_norm", "fusion", "init", "clip_grad"])
def test_docstring_examples(name):
    mod = importlib.import_module(f"nbgrad.nn.utils.{name}")
    res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed
