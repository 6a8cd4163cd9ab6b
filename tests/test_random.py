"""Random numbers as PyTorch draws them on the CPU: Generator, seeding and state, every
sampling function and method, nn.init and layer initialisation, dropout masks, data
shuffling. Each is compared with PyTorch for the same seed (bit for bit, except float32
normals of 16 or more elements, whose vectorised log/sin/cos in PyTorch differ in the last
places), and a few PyTorch values are written out so the checks stand without it."""

import doctest
import struct

import numpy as np
import pytest

import nbgrad
from nbgrad import nn
from nbgrad.utils import data as D
from tests._errors import assert_same_error, error_of

torch = pytest.importorskip("torch")


def _both(fn, seed=0):
    """``fn(module)`` for nbgrad and PyTorch after the same seed, as NumPy arrays."""
    out = []
    for m in (nbgrad, torch):
        m.manual_seed(seed)
        r = fn(m)
        out.append([np.asarray(x.detach().numpy() if hasattr(x, "detach") else x)
                    for x in (r if isinstance(r, (tuple, list)) else (r,))])
    return out


def _same(fn, seed=0, close=()):
    """Bit for bit, but for the results at ``close`` (float32 normals of 16 or more)."""
    ours, theirs = _both(fn, seed)
    assert len(ours) == len(theirs)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a.shape == b.shape and a.dtype == b.dtype, (a.dtype, b.dtype)
        if i in close:
            np.testing.assert_allclose(a, b, rtol=4e-6, atol=4e-6)
        else:
            np.testing.assert_array_equal(a, b, err_msg=str(i))


def _dt(m, name):
    return getattr(m, name)


# ----- values known from PyTorch (no PyTorch needed to read them) --------------------------
def test_known_pytorch_values():
    nbgrad.manual_seed(0)
    assert np.allclose(nbgrad.rand(3).numpy(), [0.4963, 0.7682, 0.0885], atol=1e-4)
    nbgrad.manual_seed(0)
    assert np.allclose(nbgrad.randn(3).numpy(), [1.5410, -0.2934, -2.1788], atol=1e-4)
    assert nbgrad.initial_seed() == 0
    g = nbgrad.Generator()
    assert g.initial_seed() == 67280421310721  # PyTorch's default seed
    assert nbgrad.Generator().manual_seed(42) is not None
    assert np.allclose(nbgrad.rand(2, generator=nbgrad.Generator().manual_seed(42)).numpy(),
                       [0.8823, 0.9150], atol=1e-4)


# ----- creation functions ------------------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 7, 2**40 + 3, -5])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_rand_and_randn_match_pytorch(seed, dtype):
    # randn: one at a time under 16 elements (a pair's second sample cached across calls),
    # Box-Muller over blocks of 16 from 16 on (the tail block redrawn)
    sizes = [(1,), (3,), (5, 3), (15,), (16,), (17,), (4, 10), (1000,)]

    def draw(m):
        out = []
        for s in sizes:
            out.append(m.rand(*s, dtype=_dt(m, dtype)))
            out.append(m.randn(*s, dtype=_dt(m, dtype)))
        return out

    ours, theirs = _both(draw, seed)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a.dtype == b.dtype and a.shape == b.shape
        if i % 2 and dtype == "float32" and a.size >= 16:
            np.testing.assert_allclose(a, b, rtol=4e-6, atol=4e-6)
        else:
            np.testing.assert_array_equal(a, b)


def test_randint_randperm_and_likes_match_pytorch():
    def draw(m):
        x = m.zeros(3, 4)
        return (m.randint(10, (5,)), m.randint(-3, 99, (2, 3)), m.randint(2**30, (4,)),
                m.randint(2**40, (4,)), m.randint(low=2, high=9, size=(3,)),
                m.randint(high=5, size=(3,)), m.randint(0, 7, (6,), dtype=_dt(m, "int32")),
                m.randint(0, 7, (2,), dtype=_dt(m, "float64")), m.randperm(1), m.randperm(10),
                m.randperm(300), m.randperm(4, dtype=_dt(m, "float32")), m.rand_like(x),
                m.randn_like(x), m.randint_like(x, 5), m.randint_like(x, 2, 5))

    _same(draw, 3)


def test_generator_objects_draw_their_own_stream():
    def draw(m):
        g1 = m.Generator().manual_seed(11)
        g2 = m.Generator().manual_seed(11)
        a = m.rand(4, generator=g1)
        b = m.randn(3, generator=g1)
        c = m.rand(4, generator=g2)
        d = m.rand(2)  # the default generator is untouched by g1 and g2
        e = m.randperm(6, generator=g1)
        f = m.randint(5, (3,), generator=g2)
        return a, b, c, d, e, f, m.empty(3).uniform_(generator=g1), m.empty(20).normal_(
            generator=g2)

    ours, theirs = _both(draw, 1)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=4e-6, atol=4e-6)
    np.testing.assert_array_equal(ours[0], ours[2])


# ----- in-place samplers -------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_in_place_samplers_match_pytorch(dtype):
    def draw(m):
        e = lambda *s: m.empty(*s, dtype=_dt(m, dtype))  # noqa: E731
        return (e(7).uniform_(-0.3, 0.45), e(7).uniform_(2, 2), e(40).uniform_(-5, 5),
                e(5).normal_(3.0, 0.5), e(6).normal_(), e(33).normal_(-1.0, 2.5),
                e(8).random_(), e(6).random_(10), e(6).random_(-4, 4),
                e(6).random_(**{"from": 3, "to": 9}),
                e(9).bernoulli_(0.3), e(9).bernoulli_(), e(5).exponential_(),
                e(5).exponential_(2.5))

    ours, theirs = _both(draw, 5)
    for i, (a, b) in enumerate(zip(ours, theirs)):
        assert a.dtype == b.dtype
        if dtype == "float32" and a.size >= 16 and i == 5:
            np.testing.assert_allclose(a, b, rtol=4e-6, atol=4e-6)
        else:
            np.testing.assert_array_equal(a, b, err_msg=str(i))


def test_integer_and_bool_random_and_bernoulli_tensor():
    def draw(m):
        x = m.empty(5, dtype=m.int64).random_()
        y = m.empty(5, dtype=m.int32).random_()
        z = m.empty(6, dtype=m.bool).random_()
        p32 = m.tensor([[0.1, 0.5, 0.9], [0.0, 1.0, 0.5]])
        p64 = p32.double()
        return (x, y, z, m.empty(5, dtype=m.int32).random_(-7, 7), m.bernoulli(p32),
                m.bernoulli(p64), m.bernoulli(p32, 0.5), m.empty(2, 3).bernoulli_(p32),
                m.empty(2, 3).bernoulli_(m.tensor([0.2, 0.5, 0.8])))

    _same(draw, 9)
    for m in (nbgrad, torch):  # whole float32 numbers of 7 digits print whole, as PyTorch
        m.manual_seed(9)
    assert repr(nbgrad.empty(3).random_()) == repr(torch.empty(3).random_())


def test_fills_follow_pytorch_element_order_on_views():
    # non-contiguous tensors are filled in memory order (by decreasing stride), one sample
    # at a time for normal_
    def draw(m):
        a = m.zeros(4, 5).t()
        a.uniform_()
        b = m.zeros(6, 4).t()
        b.normal_()
        c = m.zeros(3, 8)[:, ::2]
        c.random_(100)
        base = m.zeros(5, 6)
        base[1:4, 2:5].normal_(1.0, 2.0)
        return a, b, c, base

    _same(draw, 2)


def test_normal_function_overloads():
    def draw(m):
        mean, std = m.arange(6.0).reshape(2, 3), m.full((3,), 0.5)
        return (m.normal(mean, std), m.normal(mean, 2.0), m.normal(1.0, std),
                m.normal(0.5, 2.0, (4,)), m.normal(0.5, 2.0, size=(2, 2)),
                m.normal(m.zeros(20), m.ones(20)), m.normal(0.0, 1.0, (3,),
                                                            dtype=m.float64))

    _same(draw, 4, close=(5,))
    x = nbgrad.normal(nbgrad.zeros(3, requires_grad=True), 1.0)
    assert x.shape == (3,) and not x.requires_grad


def test_multinomial_matches_pytorch():
    def draw(m):
        w = m.tensor([[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 2.0, 5.0]])
        return (m.multinomial(w, 3), m.multinomial(w, 1), m.multinomial(w, 9, True),
                m.multinomial(w[0], 2), m.multinomial(w.double(), 5, replacement=True),
                # (one sample with replacement: PyTorch's exponential-race path)
                m.multinomial(w, 1, True), m.multinomial(w[1], 1, replacement=True))

    _same(draw, 6)


# ----- nn: init, layers, dropout -----------------------------------------------------------
def test_nn_init_functions_match_pytorch():
    def draw(m):
        i = m.nn.init
        return (i.uniform_(m.empty(3, 4), -0.2, 0.3), i.normal_(m.empty(3, 4), 0.1, 0.02),
                i.normal_(m.empty(10, 10)), i.xavier_uniform_(m.empty(5, 7)),
                i.xavier_normal_(m.empty(5, 7), gain=2.0), i.kaiming_uniform_(m.empty(6, 3)),
                i.kaiming_normal_(m.empty(6, 3, 2, 2), mode="fan_out", nonlinearity="relu"),
                i.kaiming_uniform_(m.empty(4, 4, dtype=m.float64), a=0.1))

    ours, theirs = _both(draw, 8)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=4e-6, atol=1e-7)
    ours, theirs = _both(lambda m: m.nn.init.orthogonal_(m.empty(3, 5), gain=1.5), 8)
    np.testing.assert_allclose(ours[0], theirs[0], atol=1e-5)  # (two LAPACKs' QR)
    w = ours[0]
    np.testing.assert_allclose(w @ w.T, 2.25 * np.eye(3), atol=1e-5)


def test_dirac_sparse_and_the_deprecated_init_names_match_pytorch():
    import warnings

    def draw(m):
        i = m.nn.init
        g = m.Generator().manual_seed(3)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            old = (i.uniform(m.empty(2, 3)), i.normal(m.empty(3)), i.constant(m.empty(2), 0.5),
                   i.eye(m.empty(2, 3)), i.xavier_uniform(m.empty(3, 2)),
                   i.kaiming_normal(m.empty(3, 2)), i.sparse(m.empty(4, 2), 0.5))
        assert [str(x.message) for x in w][:2] == [
            "`nn.init.uniform` is now deprecated in favor of `nn.init.uniform_`.",
            "`nn.init.normal` is now deprecated in favor of `nn.init.normal_`."]
        assert all(x.category is FutureWarning for x in w) and len(w) == len(old)
        return (i.sparse_(m.empty(6, 4), sparsity=0.4), i.sparse_(m.empty(3, 2), 0.5, 0.1, g),
                i.dirac_(m.empty(4, 2, 3, 3), groups=2), i.dirac_(m.empty(3, 5, 4)),
                i.dirac_(m.empty(2, 2, 3, 3, 3))) + old

    ours, theirs = _both(draw, 12)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=4e-6, atol=1e-7)
    for call in (lambda m: m.nn.init.dirac_(m.empty(2, 2)),
                 lambda m: m.nn.init.dirac_(m.empty(3, 2, 3), groups=2),
                 lambda m: m.nn.init.sparse_(m.empty(2, 2, 2), 0.5)):
        assert_same_error(call, torch, nbgrad)


def test_layers_initialise_as_pytorch():
    def build(m):
        n = m.nn
        layers = [n.Linear(5, 3), n.Conv2d(2, 4, 3), n.Embedding(6, 3), n.LSTM(3, 4, 2),
                  n.GRU(2, 3), n.LayerNorm(4), n.MultiheadAttention(8, 2),
                  n.TransformerEncoderLayer(8, 2, dim_feedforward=16)]
        return [p for layer in layers for p in layer.state_dict().values()]

    ours, theirs = _both(build, 13)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=4e-6, atol=1e-7)


def test_dropout_masks_match_pytorch():
    def draw(m):
        F = m.nn.functional
        x = m.arange(1.0, 41.0).reshape(4, 10)
        drop = m.nn.Dropout(0.25)
        return (F.dropout(x, 0.3), F.dropout(x, 0.5, training=True), drop(x),
                F.dropout2d(m.ones(2, 3, 2, 2), 0.4), F.dropout(x.double(), 0.1))

    _same(draw, 21)


def test_large_samples_match_pytorch():
    # from nbgrad.random.COMPILED_DRAWS on, compiled loops draw (the Mersenne Twister itself)
    # and make the samples in one pass; the stream must go on exactly as PyTorch's
    big = nbgrad.random.COMPILED_DRAWS + 37

    def draw(m):
        f = m.nn.functional
        x = m.ones(big)
        return (m.rand(big), m.rand(big, dtype=m.float64), m.rand(5),
                m.empty(big).bernoulli_(0.3), m.empty(big, dtype=m.float64).bernoulli_(0.6),
                m.empty(big, dtype=m.float16).bernoulli_(0.5),
                m.empty(big, dtype=m.bfloat16).bernoulli_(0.5),
                m.empty(big, dtype=m.bool).bernoulli_(0.2),
                m.empty(big, dtype=m.int64).bernoulli_(0.9), m.empty(3).bernoulli_(0.5),
                f.dropout(x, 0.25), f.dropout(x.double(), 0.3), f.dropout(x.half(), 0.1),
                f.alpha_dropout(x, 0.2, training=True), m.randint(7, (big,)),
                m.randint(2**40, (big,)), m.empty(big).uniform_(-2, 3), m.randperm(big),
                m.get_rng_state())

    _same(lambda m: [t.float() if t.dtype == m.bfloat16 else t for t in draw(m)], 8)


@pytest.mark.parametrize("skip", [0, 1, 396, 623, 624, 625, 1500])
@pytest.mark.parametrize("n", [nbgrad.random.COMPILED_DRAWS, 3 * 624 * 40 + 5])
def test_compiled_draws_are_the_mersenne_twisters(skip, n):
    # the compiled twister against NumPy's, from any position in the 624-word block
    ours = nbgrad.Generator().manual_seed(skip)
    ref = np.random.MT19937()
    ours._random(skip)
    ref.state = ours._bits.state
    np.testing.assert_array_equal(ours._random(n), ref.random_raw(n))
    np.testing.assert_array_equal(ours._random(n + 1), ref.random_raw(n + 1))
    after = ours._bits.state["state"]
    assert after["pos"] == ref.state["state"]["pos"]
    np.testing.assert_array_equal(after["key"], ref.state["state"]["key"])
    np.testing.assert_array_equal(ours._random(9), ref.random_raw(9))


def test_threads_sharing_a_generator_draw_each_word_once():
    import threading

    g = nbgrad.Generator().manual_seed(1)
    ref = np.random.MT19937()
    ref.state = g._bits.state
    got = []

    def work():
        for n in (nbgrad.random.COMPILED_DRAWS * 2, 50):
            got.append(g._random(n))

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    words = np.concatenate(got)
    np.testing.assert_array_equal(np.sort(words), np.sort(ref.random_raw(words.size)))


# ----- data --------------------------------------------------------------------------------
def test_data_loading_shuffles_as_pytorch():
    def draw(m):
        d = __import__(m.__name__ + ".utils.data", fromlist=["x"])
        ds = d.TensorDataset(m.arange(23))
        loader = d.DataLoader(ds, batch_size=5, shuffle=True)
        epochs = [[b[0].tolist() for b in loader] for _ in range(2)]
        g = m.Generator().manual_seed(4)
        seeded = [b[0].tolist() for b in d.DataLoader(ds, batch_size=7, shuffle=True,
                                                      generator=g)]
        a, b = d.random_split(range(10), [0.6, 0.4])
        c, e = d.random_split(range(9), [4, 5], generator=m.Generator().manual_seed(2))
        rs = list(d.RandomSampler(range(6), replacement=True, num_samples=40))
        rs2 = list(d.RandomSampler(range(5), num_samples=12))
        sub = list(d.SubsetRandomSampler([10, 20, 30, 40]))
        return [np.array(sum(epochs, []), dtype=object), np.array(seeded, dtype=object),
                np.array(list(a)), np.array(list(b)), np.array(list(c)), np.array(list(e)),
                np.array(rs), np.array(rs2), np.array(sub), m.rand(2)]

    ours, theirs = _both(draw, 17)
    for a, b in zip(ours, theirs):
        assert a.tolist() == b.tolist()


# ----- state -------------------------------------------------------------------------------
def _fields(state_bytes):
    return (struct.unpack_from("<qiiQ", state_bytes, 0), state_bytes[24:5016],
            struct.unpack_from("<dddi", state_bytes, 5016),
            struct.unpack_from("<f?", state_bytes, 5048))


@pytest.mark.parametrize("draws", [0, 3, 624, 700])
def test_state_bytes_are_pytorchs(draws):
    for m in (nbgrad, torch):
        m.manual_seed(5)
        m.rand(draws)
        m.randn(3)  # leaves a cached normal in the state
    ours = nbgrad.get_rng_state()
    assert ours.dtype is nbgrad.uint8 and ours.shape == (5056,)
    assert _fields(ours.numpy().tobytes()) == _fields(torch.get_rng_state().numpy().tobytes())
    torch.manual_seed(5)
    assert _fields(nbgrad.manual_seed(5).get_state().numpy().tobytes()) == _fields(
        torch.get_rng_state().numpy().tobytes())


def test_state_round_trip_fork_rng_and_seed():
    nbgrad.manual_seed(3)
    nbgrad.randn(1)  # a cached normal travels with the state
    s = nbgrad.get_rng_state()
    a = (nbgrad.randn(5).numpy(), nbgrad.rand(4).numpy())
    nbgrad.set_rng_state(s)
    b = (nbgrad.randn(5).numpy(), nbgrad.rand(4).numpy())
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    g = nbgrad.Generator().set_state(s)
    assert np.array_equal(nbgrad.randn(5, generator=g).numpy(), a[0])
    nbgrad.manual_seed(0)
    with nbgrad.random.fork_rng():
        nbgrad.rand(100)
    assert np.allclose(nbgrad.rand(1).numpy(), [0.4963], atol=1e-4)
    g = nbgrad.Generator()
    s1 = g.seed()
    assert g.initial_seed() == s1 and 0 <= s1 < 2**64
    assert nbgrad.seed() == nbgrad.initial_seed()
    with pytest.raises(RuntimeError, match="size 5056 but found the input RNG state size "
                                           "to be 10"):
        nbgrad.set_rng_state(nbgrad.zeros(10, dtype=nbgrad.uint8))
    with pytest.raises(TypeError, match="RNG state must be a torch.ByteTensor"):
        nbgrad.set_rng_state(nbgrad.zeros(5056))
    # a state saved as the 632 int64 words of earlier nbgrad versions still loads
    nbgrad.set_rng_state(nbgrad.from_numpy(s.numpy().view(np.int64).copy()))
    assert np.array_equal(nbgrad.randn(5).numpy(), a[0])
    assert nbgrad.random.manual_seed is nbgrad.manual_seed
    assert nbgrad.manual_seed(-1).initial_seed() == 2**64 - 1  # (negative seeds wrap)


def test_seed_parsing_and_errors_match_pytorch():
    for call in [lambda m: m.manual_seed(-1).initial_seed(),
                 lambda m: m.manual_seed(2**64 - 1).initial_seed(),
                 lambda m: m.Generator().manual_seed(2**64),
                 lambda m: m.Generator().manual_seed(-2**63 - 1),
                 lambda m: m.Generator().manual_seed(1.5),
                 lambda m: m.Generator().manual_seed("3"),
                 lambda m: m.Generator().set_state(np.zeros(5056, np.uint8)),
                 lambda m: m.Generator("meta"),
                 lambda m: m.empty(3).uniform_(2, 1),
                 lambda m: m.empty(3).normal_(0, -1),
                 lambda m: m.empty(3, dtype=m.int64).uniform_(),
                 lambda m: m.empty(3, dtype=m.int64).normal_(),
                 lambda m: m.empty(3).random_(5, 2),
                 lambda m: m.empty(3, dtype=m.int32).random_(0, 2**40),
                 lambda m: m.empty(3).bernoulli_(1.5),
                 lambda m: m.empty(3).exponential_(-1),
                 lambda m: m.empty(3, dtype=m.int64).exponential_(),
                 lambda m: m.empty(3, requires_grad=True).uniform_(),
                 lambda m: m.normal(m.zeros(2), m.ones(3)),
                 lambda m: m.normal(m.zeros(2), -1.0),
                 lambda m: m.bernoulli(m.tensor([0.5, 2.0])),
                 lambda m: m.randint(5, 2, (3,))]:
        assert error_of(lambda: call(nbgrad)) == error_of(lambda: call(torch))


def test_generator_argument_is_checked():
    with pytest.raises(TypeError, match="argument 'generator' must be torch.Generator, not int"):
        nbgrad.rand(3, generator=5)
    with pytest.raises(TypeError, match="must be torch.Generator"):
        nbgrad.randperm(3, generator=np.random.default_rng(0))
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator but "
                                           "found 'cuda'"):
        nbgrad.randn(3, generator=nbgrad.Generator("cuda"))
    with pytest.raises(TypeError, match="nbgrad.Generator, not Generator"):
        D.DataLoader(D.TensorDataset(nbgrad.arange(3)), shuffle=True,
                     generator=np.random.default_rng(0))
    with pytest.raises(TypeError, match="unexpected keyword argument 'too'"):
        nbgrad.empty(2).random_(too=3)


def test_in_place_sampling_and_autograd():
    w = nbgrad.zeros(3, requires_grad=True)
    with nbgrad.no_grad():
        w.uniform_(-1, 1)
    assert w.is_leaf and w.requires_grad and w.grad_fn is None
    y = w * 2
    y.normal_()  # the sample replaces y: its old value gets no gradient
    y.sum().backward()
    assert np.array_equal(w.grad.numpy(), np.zeros(3, np.float32))
    p = nn.Parameter(nbgrad.empty(2, 2))
    v = p._version
    nn.init.normal_(p)
    assert p._version > v and p.is_leaf and p.grad_fn is None


def test_docstring_examples_run():
    from nbgrad import creation, random
    from nbgrad.nn import init
    from nbgrad.ops import sampling

    for mod in (random, creation, sampling, init):
        res = doctest.testmod(mod, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        assert res.attempted and not res.failed, mod.__name__


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_cauchy_log_normal_geometric_give_pytorchs_samples(dtype):
    for name, args in (("cauchy_", ()), ("cauchy_", (1.5, 0.5)), ("log_normal_", ()),
                       ("log_normal_", (0.2, 0.7)), ("geometric_", (0.3,))):
        for n, transpose in ((3, False), (40, False), (6, True)):
            out = []
            for m in (nbgrad, torch):
                m.manual_seed(7)
                x = m.empty(n, dtype=getattr(m, dtype))
                m.empty(3).normal_()  # (a kept second normal sample: log_normal_ reads it)
                x = x.reshape(2, -1).t() if transpose else x
                out.append(getattr(x, name)(*args).numpy())
            # (float64 log-normal: NumPy's exp and C's may differ in the last bit)
            np.testing.assert_allclose(out[0], out[1], rtol=4e-16 if name == "log_normal_"
                                       else 0)
    x = nbgrad.empty(4, dtype=nbgrad.int64).geometric_(0.5)
    assert x.dtype == nbgrad.int64 and (x.numpy() >= 1).all()
    for call in (lambda m: m.empty(2, dtype=m.int64).cauchy_(),
                 lambda m: m.empty(2).log_normal_(std=0.0),
                 lambda m: m.empty(2).geometric_(1.5),
                 lambda m: m.empty(2).cauchy_(sigma=-1.0)):
        assert error_of(lambda: call(nbgrad)) == error_of(lambda: call(torch))
