"""Reliability of ``nn`` and ``nn.functional`` against PyTorch: the ``inplace`` flag of the
activations and dropouts (values, identity, version, autograd, PyTorch's errors), the
constructor signatures of the factory-made layers and losses, loss buffers, and the
arguments of gaussian_nll_loss, prelu, softmax, the ``*_with_indices`` forms and the
weighted mse / l1 losses."""

import warnings

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def rnd(*shape, seed=0):
    # values away from the kinks (0, +-1, +-3, the threshold 0.5): finite differences and
    # the two libraries' branch choices agree there
    a = np.random.default_rng(seed).uniform(-4.0, 4.0, shape)
    return np.where(np.abs(a - np.round(a * 2) / 2) < 0.05, a + 0.1, a)


def N(a, rg=False):
    return nbgrad.tensor(np.asarray(a, dtype=np.float64), dtype=nbgrad.float64,
                         requires_grad=rg)


def T(a, rg=False):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=rg)


def val(t):
    return np.asarray(t.detach().numpy(), dtype=np.float64)


# ----- in-place activations ---------------------------------------------------------------
# name -> f(F, x, inplace): the same call in both libraries
ACTIVATIONS = {
    "elu": lambda F, x, ip: F.elu(x, 0.7, ip),
    "leaky_relu": lambda F, x, ip: F.leaky_relu(x, 0.2, ip),
    "hardtanh": lambda F, x, ip: F.hardtanh(x, -2.0, 2.5, ip),
    "relu6": lambda F, x, ip: F.relu6(x, ip),
    "celu": lambda F, x, ip: F.celu(x, 1.5, ip),
    "selu": lambda F, x, ip: F.selu(x, ip),
    "silu": lambda F, x, ip: F.silu(x, ip),
    "mish": lambda F, x, ip: F.mish(x, ip),
    "hardsigmoid": lambda F, x, ip: F.hardsigmoid(x, ip),
    "hardswish": lambda F, x, ip: F.hardswish(x, ip),
    "rrelu": lambda F, x, ip: F.rrelu(x, 0.1, 0.3, False, ip),
    "threshold": lambda F, x, ip: F.threshold(x, 0.5, -2.0, ip),
    "relu": lambda F, x, ip: F.relu(x, ip),
    "elu_kw": lambda F, x, ip: F.elu(input=x, alpha=0.7, inplace=ip),
}
# the ``*_`` forms of nn.functional
UNDERSCORE = {
    "elu_": lambda F, x: F.elu_(x, 0.7),
    "leaky_relu_": lambda F, x: F.leaky_relu_(x, 0.2),
    "hardtanh_": lambda F, x: F.hardtanh_(x, -2.0, 2.5),
    "celu_": lambda F, x: F.celu_(x, 1.5),
    "selu_": lambda F, x: F.selu_(x),
    "rrelu_": lambda F, x: F.rrelu_(x, 0.1, 0.3),
    "threshold_": lambda F, x: F.threshold_(x, 0.5, -2.0),
    "relu_": lambda F, x: F.relu_(x),
}
# the top-level in-place forms (torch.selu_ ...)
TOPLEVEL = {
    "celu_": lambda m, x: m.celu_(x, 1.5),
    "selu_": lambda m, x: m.selu_(x),
    "rrelu_": lambda m, x: m.rrelu_(x, 0.1, 0.3),
    "threshold_": lambda m, x: m.threshold_(x, 0.5, -2.0),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_inplace_activation_writes_its_input(name):
    f = ACTIVATIONS[name]
    a = rnd(3, 4)
    x, tx = N(a), T(a)
    v = x._version
    y = f(F, x, True)
    f(TF, tx, True)
    assert y is x
    assert x._version == v + 1
    np.testing.assert_allclose(val(x), val(tx), rtol=1e-12, atol=1e-12)
    # out of place: the input is untouched
    x2 = N(a)
    y2 = f(F, x2, False)
    assert y2 is not x2
    np.testing.assert_array_equal(val(x2), a)
    np.testing.assert_allclose(val(y2), val(tx), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", UNDERSCORE)
def test_underscore_forms_write_their_input(name):
    f = UNDERSCORE[name]
    a = rnd(5)
    x, tx = N(a), T(a)
    assert f(F, x) is x
    f(TF, tx)
    np.testing.assert_allclose(val(x), val(tx), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", TOPLEVEL)
def test_toplevel_inplace_forms(name):
    a = rnd(5)
    x, tx = N(a), T(a)
    assert TOPLEVEL[name](nbgrad, x) is x
    TOPLEVEL[name](torch, tx)
    np.testing.assert_allclose(val(x), val(tx), rtol=1e-12, atol=1e-12)


def test_the_reported_example():
    x = nbgrad.tensor([-1.0, 2.0])
    F.elu_(x)
    np.testing.assert_allclose(x.numpy(), [np.expm1(-1.0), 2.0], rtol=1e-6)


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_inplace_activation_gradients_match_torch(name):
    f = ACTIVATIONS[name]
    a, g = rnd(3, 4), rnd(3, 4, seed=1)
    leaf, tleaf = N(a, rg=True), T(a, rg=True)
    x = leaf * 2.0  # a non-leaf that requires grad: in place is allowed
    tx = tleaf * 2.0
    assert f(F, x, True) is x
    f(TF, tx, True)
    assert x.requires_grad and x.grad_fn is not None
    # backward after the in-place call works, as in PyTorch (what it saved is intact)
    (x * N(g)).sum().backward()
    (tx * T(g)).sum().backward()
    # (PyTorch's hardsigmoid backward multiplies by a float32 1/6, even in float64)
    np.testing.assert_allclose(val(leaf.grad), val(tleaf.grad), rtol=1e-7, atol=1e-12)
    # the same as the out-of-place function's
    leaf2 = N(a, rg=True)
    (f(F, leaf2 * 2.0, False) * N(g)).sum().backward()
    np.testing.assert_allclose(val(leaf2.grad), val(leaf.grad), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name", [n for n in ACTIVATIONS if n != "elu_kw"])
def test_inplace_activation_gradcheck(name):
    f = ACTIVATIONS[name]
    x = N(rnd(2, 3, seed=2), rg=True)
    assert gradcheck(lambda t: f(F, t.clone(), True), (x,))


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_inplace_activation_errors_as_torch(name):
    f = ACTIVATIONS[name]
    a = rnd(2, 3)
    for lib, make, F_ in ((nbgrad, N, F), (torch, T, TF)):
        leaf = make(a, rg=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                               "used in an in-place operation."):
            f(F_, leaf, True)
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad "
                                               "is being used in an in-place operation."):
            f(F_, leaf[0], True)
        # outside autograd a leaf may be overwritten
        with lib.no_grad():
            assert f(F_, leaf, True) is leaf
        # an op that saved the input sees the write at backward
        x = make(a, rg=True) * 1.0
        z = x * x
        f(F_, x, True)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.sum().backward()


def test_rrelu_inplace_training_matches_out_of_place():
    a = rnd(4, 5)
    nbgrad.manual_seed(3)
    y = F.rrelu(N(a), training=True)
    nbgrad.manual_seed(3)
    leaf = N(a, rg=True)
    x = leaf * 1.0
    assert F.rrelu(x, training=True, inplace=True) is x
    np.testing.assert_array_equal(val(x), val(y))
    x.sum().backward()
    slopes = np.where(a > 0, 1.0, val(y) / a)
    np.testing.assert_allclose(val(leaf.grad), slopes, rtol=1e-12)


def test_inplace_integer_activations_keep_dtype():
    for f, tf in ((lambda x: F.hardtanh_(x), lambda x: TF.hardtanh_(x)),
                  (lambda x: F.relu6(x, True), lambda x: TF.relu6(x, True)),
                  (lambda x: F.threshold_(x, 1, 5), lambda x: TF.threshold_(x, 1, 5))):
        x, tx = nbgrad.tensor([-2, 0, 3, 8]), torch.tensor([-2, 0, 3, 8])
        assert f(x) is x
        tf(tx)
        assert x.dtype == nbgrad.int64
        assert x.tolist() == tx.tolist()


@pytest.mark.parametrize("name,args", [
    ("ReLU", (True,)), ("ELU", (0.7, True)), ("LeakyReLU", (0.2, True)),
    ("Hardtanh", (-2.0, 2.5, True)), ("ReLU6", (True,)), ("CELU", (1.5, True)),
    ("SELU", (True,)), ("SiLU", (True,)), ("Mish", (True,)), ("Hardsigmoid", (True,)),
    ("Hardswish", (True,)), ("Threshold", (0.5, -2.0, True)), ("RReLU", (0.1, 0.3, True)),
])
def test_activation_layers_inplace(name, args):
    a = rnd(3, 4)
    m, tm = getattr(nbgrad.nn, name)(*args), getattr(torch.nn, name)(*args)
    m.eval()
    tm.eval()
    x, tx = N(a), T(a)
    assert m(x) is x
    tm(tx)
    np.testing.assert_allclose(val(x), val(tx), rtol=1e-12, atol=1e-12)
    assert repr(m) == repr(tm)
    x = N(a)
    assert getattr(nbgrad.nn, name)(*args[:-1])(x) is not x  # inplace=False


# ----- in-place dropout ---------------------------------------------------------------
DROPOUTS = {
    "dropout": (lambda F, x, ip: F.dropout(x, 0.4, True, ip), (3, 8)),
    "alpha_dropout": (lambda F, x, ip: F.alpha_dropout(x, 0.4, True, ip), (3, 8)),
    "feature_alpha_dropout": (lambda F, x, ip: F.feature_alpha_dropout(x, 0.4, True, ip),
                              (2, 6, 3)),
    "dropout1d": (lambda F, x, ip: F.dropout1d(x, 0.4, True, ip), (2, 6, 3)),
    "dropout2d": (lambda F, x, ip: F.dropout2d(x, 0.4, True, ip), (2, 6, 2, 2)),
    "dropout3d": (lambda F, x, ip: F.dropout3d(x, 0.4, True, ip), (2, 6, 2, 1, 2)),
}


@pytest.mark.parametrize("name", DROPOUTS)
def test_inplace_dropout(name):
    f, shape = DROPOUTS[name]
    a, g = rnd(*shape), rnd(*shape, seed=1)
    nbgrad.manual_seed(5)
    y = f(F, N(a), False)
    nbgrad.manual_seed(5)
    leaf = N(a, rg=True)
    x = leaf * 1.0
    v = x._version
    assert f(F, x, True) is x
    assert x._version > v
    np.testing.assert_array_equal(val(x), val(y))
    # the mask is PyTorch's for the same seed
    torch.manual_seed(5)
    tleaf = T(a, rg=True)
    tx = tleaf * 1.0
    f(TF, tx, True)
    np.testing.assert_allclose(val(x), val(tx), rtol=1e-12, atol=1e-12)
    x.mul_(3.0)  # dropout saves its mask, not its result: a later write is allowed
    tx.mul_(3.0)
    (x * N(g)).sum().backward()
    (tx * T(g)).sum().backward()
    np.testing.assert_allclose(val(leaf.grad), val(tleaf.grad), rtol=1e-12, atol=1e-12)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        f(F, N(a, rg=True), True)


@pytest.mark.parametrize("call", [
    lambda F, x: F.dropout(x, 0.5, False, True), lambda F, x: F.dropout(x, 0.0, True, True),
    lambda F, x: F.alpha_dropout(x, 0.5, False, True),
    lambda F, x: F.feature_alpha_dropout(x, 0.0, True, True),
])
def test_inplace_dropout_that_does_nothing_returns_the_input(call):
    for make, F_ in ((N, F), (T, TF)):
        leaf = make(rnd(2, 3), rg=True)  # no error even for a leaf, as in PyTorch
        v = leaf._version
        assert call(F_, leaf) is leaf
        assert leaf._version == v


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d",
                                  "AlphaDropout", "FeatureAlphaDropout"])
def test_dropout_layers_inplace(name):
    shape = {"Dropout1d": (2, 4, 3), "Dropout2d": (2, 4, 2, 2),
             "Dropout3d": (2, 4, 2, 2, 2)}.get(name, (2, 4, 3))
    m = getattr(nbgrad.nn, name)(0.5, inplace=True)
    x = N(rnd(*shape))
    assert m(x) is x
    m.eval()
    assert m(x) is x
    x2 = N(rnd(*shape))
    assert getattr(nbgrad.nn, name)(0.5)(x2) is not x2


# ----- layer constructors: PyTorch's signatures ------------------------------------------
LAYERS = ("LeakyReLU ELU CELU SELU SiLU Mish Hardtanh ReLU6 Hardsigmoid Hardswish LogSigmoid "
          "Softsign Tanhshrink Hardshrink Softshrink Softplus Threshold GLU Softmin ReLU RReLU "
          "Tanh Sigmoid Softmax LogSoftmax Softmax2d GELU").split()
BAD_CALLS = [((1, 2, 3, 4, 5, 6), {}), ((5,), {}), ((), {"inplace": True}),
             ((), {"bogus": 1}), ((0.1,), {"negative_slope": 0.1}), ((), {})]


def _outcome(fn):
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fn()
    except Exception as e:  # noqa: BLE001  (the type and message are compared)
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("name", LAYERS)
def test_layer_constructor_arguments_as_torch(name):
    for args, kwargs in BAD_CALLS:
        got = _outcome(lambda: getattr(nbgrad.nn, name)(*args, **kwargs))
        want = _outcome(lambda: getattr(torch.nn, name)(*args, **kwargs))
        assert got == want, (args, kwargs)


def test_layer_constructors_positional_values():
    cases = [("LeakyReLU", (0.3, True)), ("ELU", (0.5, True)), ("CELU", (2.0,)),
             ("Hardtanh", (-3.0, 2.0, True)), ("Hardshrink", (0.3,)), ("Softshrink", (0.2,)),
             ("Softplus", (2.0, 10.0)), ("Threshold", (0.1, 20.0, True)), ("GLU", (0,)),
             ("Softmin", (1,)), ("RReLU", (0.1, 0.2, True)), ("SELU", (True,)),
             ("Hardswish", (True,)), ("Hardsigmoid", (True,))]
    for name, args in cases:
        m, tm = getattr(nbgrad.nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(m) == repr(tm)
        for attr in ("negative_slope", "alpha", "min_val", "max_val", "lambd", "beta",
                     "threshold", "value", "dim", "lower", "upper", "inplace"):
            assert getattr(m, attr, None) == getattr(tm, attr, None), (name, attr)


def test_hardtanh_deprecated_names_and_bounds():
    with pytest.warns(FutureWarning, match="`min_value` is deprecated"):
        m = nbgrad.nn.Hardtanh(min_value=-2.0)
    assert (m.min_val, m.max_val) == (-2.0, 1.0)
    with pytest.warns(FutureWarning, match="`max_value` is deprecated"):
        assert nbgrad.nn.Hardtanh(max_value=3.0).max_val == 3.0
    for lib in (nbgrad, torch):
        with pytest.raises(AssertionError):
            lib.nn.Hardtanh(1.0, -1.0)


# ----- loss constructors and buffers ------------------------------------------------------
def test_loss_positional_arguments_as_torch():
    assert nbgrad.nn.SoftMarginLoss(None, None, "sum").reduction == "sum"
    m = nbgrad.nn.PoissonNLLLoss(True, False, None, 0.5)
    assert (m.log_input, m.full, m.eps, m.reduction) == (True, False, 0.5, "mean")
    cases = [("MarginRankingLoss", (0.3, None, None, "sum")),
             ("HingeEmbeddingLoss", (2.0, None, None, "none")),
             ("SoftMarginLoss", (None, None, "sum")),
             ("CosineEmbeddingLoss", (0.1, None, None, "sum")),
             ("TripletMarginLoss", (0.5, 1.0, 1e-3, True, None, None, "sum")),
             ("MultiLabelSoftMarginLoss", (None, None, None, "sum")),
             ("PoissonNLLLoss", (False, True, None, 0.25, None, "none")),
             ("MultiMarginLoss", (2, 0.5, None, None, None, "sum")),
             ("MultiLabelMarginLoss", (None, None, "none"))]
    for name, args in cases:
        m, tm = getattr(nbgrad.nn, name)(*args), getattr(torch.nn, name)(*args)
        for attr in ("margin", "p", "eps", "swap", "log_input", "full", "reduction"):
            assert getattr(m, attr, None) == getattr(tm, attr, None), (name, attr)
        extra = args + (None,)
        assert _outcome(lambda: getattr(nbgrad.nn, name)(*extra)) == \
            _outcome(lambda: getattr(torch.nn, name)(*extra))
        assert _outcome(lambda: getattr(nbgrad.nn, name)(bogus=1)) == \
            _outcome(lambda: getattr(torch.nn, name)(bogus=1))


def test_legacy_reduction_arguments_warn():
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated"):
        m = nbgrad.nn.SoftMarginLoss(False)
    assert m.reduction == "sum"


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.MSELoss(size_average=False),
    lambda lib: lib.nn.CrossEntropyLoss(reduce=False),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(2), lib.ones(2), reduce=False),
    lambda lib: lib.nn.functional.l1_loss(lib.ones(2), lib.ones(2), size_average=True),
    lambda lib: lib.nn.functional.cross_entropy(lib.ones(2, 3), lib.tensor([0, 1]),
                                                size_average=False),
    lambda lib: lib.nn.functional.soft_margin_loss(lib.ones(2), lib.ones(2), reduce=True),
    lambda lib: lib.nn.functional.mse_loss(lib.ones(2), lib.ones(2), reduction="sum"),
])
def test_legacy_reduction_warnings_are_pytorchs(call):
    # the functional forms warn too, naming the reduction the arguments mean
    import warnings

    got = []
    for lib in (nbgrad, torch):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            call(lib)
        got.append([(x.category, str(x.message)) for x in w])
    assert got[0] == got[1]


def test_gaussian_nll_loss_is_keyword_only():
    for call in (lambda nn: nn.GaussianNLLLoss(True),
                 lambda nn: nn.GaussianNLLLoss(True, full=True),
                 lambda nn: nn.GaussianNLLLoss(size_average=True)):
        assert _outcome(lambda: call(nbgrad.nn)) == _outcome(lambda: call(torch.nn))
    m = nbgrad.nn.GaussianNLLLoss(full=True, eps=1e-3, reduction="sum")
    assert (m.full, m.eps, m.reduction) == (True, 1e-3, "sum")


@pytest.mark.parametrize("name,shape", [("MultiMarginLoss", (4,)),
                                        ("MultiLabelSoftMarginLoss", (4,)),
                                        ("CrossEntropyLoss", (4,)), ("NLLLoss", (4,)),
                                        ("BCELoss", (4,)), ("BCEWithLogitsLoss", (4,))])
def test_loss_weights_are_buffers(name, shape):
    w = rnd(*shape) ** 2 + 0.5
    m, tm = getattr(nbgrad.nn, name)(weight=N(w)), getattr(torch.nn, name)(weight=T(w))
    assert list(m.state_dict()) == list(tm.state_dict()) == ["weight"]
    assert [n for n, _ in m.named_buffers()] == ["weight"]
    np.testing.assert_array_equal(val(m.state_dict()["weight"]), w)
    assert list(getattr(nbgrad.nn, name)().state_dict()) == []
    assert getattr(nbgrad.nn, name)().weight is None
    m2 = m.to(nbgrad.float32)
    assert m2.weight.dtype == nbgrad.float32


def test_bce_with_logits_pos_weight_is_a_buffer():
    m = nbgrad.nn.BCEWithLogitsLoss(pos_weight=N([2.0, 1.0]))
    tm = torch.nn.BCEWithLogitsLoss(pos_weight=T([2.0, 1.0]))
    assert list(m.state_dict()) == list(tm.state_dict())


def test_weighted_margin_losses_match_torch():
    x, w = rnd(3, 4), rnd(4, seed=1) ** 2 + 0.5
    y = np.array([0, 3, 1])
    got = nbgrad.nn.MultiMarginLoss(weight=N(w))(N(x), nbgrad.tensor(y))
    want = torch.nn.MultiMarginLoss(weight=T(w))(T(x), torch.tensor(y))
    np.testing.assert_allclose(val(got), val(want), rtol=1e-10)
    yl = (rnd(3, 4, seed=2) > 0).astype(np.float64)
    got = nbgrad.nn.MultiLabelSoftMarginLoss(weight=N(w))(N(x), N(yl))
    want = torch.nn.MultiLabelSoftMarginLoss(weight=T(w))(T(x), T(yl))
    np.testing.assert_allclose(val(got), val(want), rtol=1e-10)


# ----- gaussian_nll_loss with a float variance ---------------------------------------
@pytest.mark.parametrize("var", [1.0, 0.25, 1e-9])
def test_gaussian_nll_loss_float_var(var):
    mu, y = rnd(2, 3), rnd(2, 3, seed=1)
    for reduction in ("mean", "sum", "none"):
        got = F.gaussian_nll_loss(N(mu), N(y), var, reduction=reduction)
        want = TF.gaussian_nll_loss(T(mu), T(y), var, reduction=reduction)
        np.testing.assert_allclose(val(got), val(want), rtol=1e-10)
    got = nbgrad.nn.GaussianNLLLoss(full=True)(N(mu), N(y), var)
    want = torch.nn.GaussianNLLLoss(full=True)(T(mu), T(y), var)
    np.testing.assert_allclose(val(got), val(want), rtol=1e-10)
    m = N(mu, rg=True)
    F.gaussian_nll_loss(m, N(y), var).backward()
    tm = T(mu, rg=True)
    TF.gaussian_nll_loss(tm, T(y), var).backward()
    np.testing.assert_allclose(val(m.grad), val(tm.grad), rtol=1e-10)


def test_gaussian_nll_loss_var_checks_as_torch():
    mu, y = rnd(4, 3, 5), rnd(4, 3, 5, seed=1)
    for vshape in [(4, 1, 5), (1, 3, 5), (4, 3), (4, 3, 1), (4, 2, 5), (4, 1, 1), (5,)]:
        v = rnd(*vshape, seed=2) ** 2 + 0.1
        got = _outcome(lambda: F.gaussian_nll_loss(N(mu), N(y), N(v)))
        want = _outcome(lambda: TF.gaussian_nll_loss(T(mu), T(y), T(v)))
        assert got == want, vshape
        if got is None:
            np.testing.assert_allclose(val(F.gaussian_nll_loss(N(mu), N(y), N(v))),
                                       val(TF.gaussian_nll_loss(T(mu), T(y), T(v))),
                                       rtol=1e-10)
    for bad in (-1.0,):
        assert _outcome(lambda: F.gaussian_nll_loss(N(mu), N(y), bad)) == \
            ("ValueError", "var has negative entry/entries")


# ----- prelu ---------------------------------------------------------------------------
@pytest.mark.parametrize("shape,n", [((3,), 3), ((), 3), ((2, 4), 3), ((2, 3), 3),
                                     ((4, 3, 2), 3), ((3,), 1), ((), 1), ((2, 5), 1)])
def test_prelu_channels_as_torch(shape, n):
    a = rnd(*shape)
    w = np.linspace(0.1, 0.4, n)
    got = _outcome(lambda: F.prelu(N(a), N(w)))
    want = _outcome(lambda: TF.prelu(T(a), T(w)))
    assert got == want
    if got is None:
        y, ty = F.prelu(N(a), N(w)), TF.prelu(T(a), T(w))
        assert tuple(y.shape) == tuple(ty.shape)
        np.testing.assert_allclose(val(y), val(ty), rtol=1e-12)
    m = nbgrad.nn.PReLU(n)
    tm = torch.nn.PReLU(n)
    assert _outcome(lambda: m(N(a).float())) == _outcome(lambda: tm(T(a).float()))


def test_prelu_weight_must_be_1d():
    assert _outcome(lambda: F.prelu(N(rnd(2, 3)), N(np.ones((1, 3))))) == \
        _outcome(lambda: TF.prelu(T(rnd(2, 3)), T(np.ones((1, 3)))))
    y = F.prelu(N(rnd(2, 3)), N(np.array(0.3)))
    np.testing.assert_allclose(val(y), val(TF.prelu(T(rnd(2, 3)), T(np.array(0.3)))))


# ----- softmax's _stacklevel ---------------------------------------------------------
@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_third_positional_is_stacklevel(name):
    a = rnd(2, 3)
    x = nbgrad.tensor(a, dtype=nbgrad.float32)
    y = getattr(F, name)(x, 1, 3)
    ty = getattr(TF, name)(torch.tensor(a, dtype=torch.float32), 1, 3)
    assert y.dtype == nbgrad.float32
    np.testing.assert_allclose(val(y), val(ty), rtol=1e-6, atol=1e-7)
    y = getattr(F, name)(x, 1, 3, nbgrad.float64)
    assert y.dtype == nbgrad.float64
    assert _outcome(lambda: getattr(F, name)(x, 1, 3, None, 5))[0] == "TypeError"
    # nbgrad.softmax (torch.softmax) takes dtype third
    if name != "softmin":
        assert getattr(nbgrad, name)(x, 1, nbgrad.float64).dtype == nbgrad.float64


# ----- the *_with_indices forms -------------------------------------------------------
@pytest.mark.parametrize("name,shape,args", [
    ("max_pool1d_with_indices", (1, 2, 6), (2, None, 0, 1, False, False)),
    ("max_pool2d_with_indices", (1, 2, 4, 4), (2, None, 0, 1, False, False)),
    ("max_pool3d_with_indices", (1, 1, 4, 4, 4), (2, None, 0, 1, False, False)),
    ("adaptive_max_pool1d_with_indices", (1, 2, 6), (3, False)),
    ("adaptive_max_pool2d_with_indices", (1, 2, 4, 4), (2, False)),
    ("adaptive_max_pool3d_with_indices", (1, 1, 4, 4, 4), (2, False)),
])
def test_with_indices_take_return_indices_positionally(name, shape, args):
    a = rnd(*shape)
    v, i = getattr(F, name)(N(a), *args)
    tv, ti = getattr(TF, name)(T(a), *args)
    np.testing.assert_array_equal(val(v), val(tv))
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    v2, i2 = getattr(F, name)(N(a), *args[:-1], return_indices=False)
    np.testing.assert_array_equal(i2.numpy(), ti.numpy())


# ----- weighted mse_loss / l1_loss ----------------------------------------------------
@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_weighted_pointwise_losses(name, reduction):
    x, t, w = rnd(3, 4), rnd(3, 4, seed=1), rnd(3, 4, seed=2) ** 2
    nx, nw = N(x, rg=True), N(w, rg=True)
    tx, tw = T(x, rg=True), T(w, rg=True)
    y = getattr(F, name)(nx, N(t), reduction=reduction, weight=nw)
    ty = getattr(TF, name)(tx, T(t), reduction=reduction, weight=tw)
    np.testing.assert_allclose(val(y), val(ty), rtol=1e-12)
    y.sum().backward()
    ty.sum().backward()
    np.testing.assert_allclose(val(nx.grad), val(tx.grad), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(val(nw.grad), val(tw.grad), rtol=1e-10, atol=1e-14)
    # positionally, after PyTorch's size_average, reduce and reduction
    y = getattr(F, name)(N(x), N(t), None, None, reduction, N(w))
    np.testing.assert_allclose(val(y), val(ty), rtol=1e-12)


@pytest.mark.parametrize("name", ["mse_loss", "l1_loss"])
def test_weighted_pointwise_loss_errors(name):
    x, t = rnd(3, 4), rnd(3, 4, seed=1)
    for w, red in ((rnd(4), "mean"), (rnd(3, 4), "avg")):
        got = _outcome(lambda: getattr(F, name)(N(x), N(t), reduction=red, weight=N(w)))
        want = _outcome(lambda: getattr(TF, name)(T(x), T(t), reduction=red, weight=T(w)))
        assert got == want
