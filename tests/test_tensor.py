"""Tensor creation, dtypes, attributes, conversion and repr, checked against PyTorch's
behaviour (table-driven; torch itself is an extra oracle where installed)."""

import numpy as np
import pytest

import nbgrad


@pytest.fixture
def default_dtype():
    """Restore the default dtype whatever the test does to it."""
    old = nbgrad.get_default_dtype()
    yield
    nbgrad.set_default_dtype(old)


def _dtype_name(d):
    return str(d).split(".")[-1]


# ----- creation: (id, fn(m), shape, dtype, values or None for random) ---------------------------
CREATION = [
    ("tensor_float", lambda m: m.tensor([1.0, 2.0]), (2,), "float32", [1.0, 2.0]),
    ("tensor_int", lambda m: m.tensor([1, 2]), (2,), "int64", [1, 2]),
    ("tensor_bool", lambda m: m.tensor([True, False]), (2,), "bool", [True, False]),
    ("tensor_mixed", lambda m: m.tensor([[1, 2], [3.5, 4]]), (2, 2), "float32",
     [[1.0, 2.0], [3.5, 4.0]]),
    ("tensor_int_bool", lambda m: m.tensor([1, True]), (2,), "int64", [1, 1]),
    ("tensor_scalar_int", lambda m: m.tensor(3), (), "int64", 3),
    ("tensor_scalar_float", lambda m: m.tensor(2.5), (), "float32", 2.5),
    ("tensor_scalar_bool", lambda m: m.tensor(True), (), "bool", True),
    ("tensor_empty", lambda m: m.tensor([]), (0,), "float32", []),
    ("tensor_tuple", lambda m: m.tensor((1, 2, 3)), (3,), "int64", [1, 2, 3]),
    ("tensor_np_float64", lambda m: m.tensor(np.array([1.0, 2.0])), (2,), "float64", [1.0, 2.0]),
    ("tensor_np_int32", lambda m: m.tensor(np.array([1, 2], np.int32)), (2,), "int32", [1, 2]),
    ("tensor_np_scalars", lambda m: m.tensor([np.float32(1.5), np.float32(2)]), (2,),
     "float32", [1.5, 2.0]),
    ("tensor_dtype", lambda m: m.tensor([1.7, -2.2], dtype=m.int64), (2,), "int64", [1, -2]),
    ("tensor_dtype_f64", lambda m: m.tensor([1, 2], dtype=m.float64), (2,), "float64",
     [1.0, 2.0]),
    ("tensor_of_tensors", lambda m: m.tensor([m.tensor(1.0), m.tensor(2.0)]), (2,), "float32",
     [1.0, 2.0]),
    ("zeros", lambda m: m.zeros(2, 3), (2, 3), "float32", [[0.0] * 3] * 2),
    ("zeros_tuple", lambda m: m.zeros((2, 3)), (2, 3), "float32", [[0.0] * 3] * 2),
    ("zeros_list_int", lambda m: m.zeros([2], dtype=m.int32), (2,), "int32", [0, 0]),
    ("zeros_0d", lambda m: m.zeros(()), (), "float32", 0.0),
    ("zeros_empty", lambda m: m.zeros(2, 0), (2, 0), "float32", [[], []]),
    ("ones", lambda m: m.ones(3), (3,), "float32", [1.0] * 3),
    ("ones_bool", lambda m: m.ones(2, dtype=m.bool), (2,), "bool", [True, True]),
    ("empty", lambda m: m.empty(2, 4), (2, 4), "float32", None),
    ("empty_f64", lambda m: m.empty((3,), dtype=m.float64), (3,), "float64", None),
    ("full_int", lambda m: m.full((2, 2), 3), (2, 2), "int64", [[3, 3], [3, 3]]),
    ("full_float", lambda m: m.full((2,), 2.5), (2,), "float32", [2.5, 2.5]),
    ("full_bool", lambda m: m.full((1,), True), (1,), "bool", [True]),
    ("full_dtype", lambda m: m.full([2, 1], 7, dtype=m.float64), (2, 1), "float64", [[7.0], [7.0]]),
    ("rand", lambda m: m.rand(2, 3), (2, 3), "float32", None),
    ("rand_f64", lambda m: m.rand((4,), dtype=m.float64), (4,), "float64", None),
    ("randn", lambda m: m.randn(3, 2), (3, 2), "float32", None),
    ("randn_tuple", lambda m: m.randn((5,), dtype=m.float64), (5,), "float64", None),
    ("arange", lambda m: m.arange(5), (5,), "int64", [0, 1, 2, 3, 4]),
    ("arange_float_end", lambda m: m.arange(3.0), (3,), "float32", [0.0, 1.0, 2.0]),
    ("arange_start_step", lambda m: m.arange(1, 10, 3), (3,), "int64", [1, 4, 7]),
    ("arange_float_step", lambda m: m.arange(0, 1, 0.25), (4,), "float32",
     [0.0, 0.25, 0.5, 0.75]),
    ("arange_negative_step", lambda m: m.arange(10, 0, -3), (4,), "int64", [10, 7, 4, 1]),
    ("arange_dtype", lambda m: m.arange(4, dtype=m.float64), (4,), "float64",
     [0.0, 1.0, 2.0, 3.0]),
    ("arange_tenths", lambda m: m.arange(0, 1, 0.1), (10,), "float32", None),
    ("arange_empty", lambda m: m.arange(0), (0,), "int64", []),
    ("linspace", lambda m: m.linspace(0, 1, 5), (5,), "float32", [0.0, 0.25, 0.5, 0.75, 1.0]),
    ("linspace_f64", lambda m: m.linspace(-1, 1, 3, dtype=m.float64), (3,), "float64",
     [-1.0, 0.0, 1.0]),
    ("linspace_one", lambda m: m.linspace(2, 3, 1), (1,), "float32", [2.0]),
    ("eye", lambda m: m.eye(3), (3, 3), "float32", np.eye(3).tolist()),
    ("eye_rect", lambda m: m.eye(2, 3), (2, 3), "float32", np.eye(2, 3).tolist()),
    ("eye_int", lambda m: m.eye(2, dtype=m.int64), (2, 2), "int64", [[1, 0], [0, 1]]),
    ("zeros_like", lambda m: m.zeros_like(m.ones(2, 1, dtype=m.int32)), (2, 1), "int32",
     [[0], [0]]),
    ("ones_like_dtype", lambda m: m.ones_like(m.zeros(2), dtype=m.float64), (2,), "float64",
     [1.0, 1.0]),
    ("empty_like", lambda m: m.empty_like(m.ones(2, 3, dtype=m.float64)), (2, 3), "float64",
     None),
    ("full_like", lambda m: m.full_like(m.ones(2), 7), (2,), "float32", [7.0, 7.0]),
    ("full_like_int", lambda m: m.full_like(m.ones(2, dtype=m.int64), 2.7), (2,), "int64",
     [2, 2]),
    ("rand_like", lambda m: m.rand_like(m.ones(2, 3, dtype=m.float64)), (2, 3), "float64",
     None),
    ("randn_like", lambda m: m.randn_like(m.ones(4)), (4,), "float32", None),
]


@pytest.mark.parametrize("fn,shape,dtype,values", [pytest.param(*c[1:], id=c[0])
                                                   for c in CREATION])
def test_creation(fn, shape, dtype, values):
    t = fn(nbgrad)
    assert isinstance(t, nbgrad.Tensor)
    assert t.shape == shape and isinstance(t.shape, nbgrad.Size)
    assert t.dtype == getattr(nbgrad, dtype)
    assert t.numpy().dtype == np.dtype(dtype)
    assert t.device.type == "cpu" and not t.requires_grad and t.is_leaf
    if values is not None:
        assert t.tolist() == values


@pytest.mark.parametrize("fn,shape,dtype,values", [pytest.param(*c[1:], id=c[0])
                                                   for c in CREATION])
def test_creation_matches_torch(fn, shape, dtype, values):
    torch = pytest.importorskip("torch")
    t, tt = fn(nbgrad), fn(torch)
    assert tuple(t.shape) == tuple(tt.shape)
    assert t.dtype.name == _dtype_name(tt.dtype)
    if values is not None:
        np.testing.assert_allclose(t.numpy(), tt.numpy(), rtol=1e-6)


def test_arange_linspace_values_against_numpy():
    np.testing.assert_allclose(nbgrad.arange(0, 1, 0.1).numpy(), np.arange(0, 1, 0.1), rtol=1e-6)
    np.testing.assert_allclose(nbgrad.arange(-2.5, 3, 0.5, dtype=nbgrad.float64).numpy(),
                               np.arange(-2.5, 3, 0.5))
    np.testing.assert_allclose(nbgrad.linspace(-3, 7, 11).numpy(), np.linspace(-3, 7, 11))


def test_rand_range_and_randn_moments():
    nbgrad.manual_seed(0)
    u = nbgrad.rand(10000).numpy()
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.02
    z = nbgrad.randn(10000, dtype=nbgrad.float64).numpy()
    assert abs(z.mean()) < 0.05 and abs(z.std() - 1.0) < 0.05


@pytest.mark.parametrize("fn", [
    lambda: nbgrad.rand(3, 2), lambda: nbgrad.randn(4), lambda: nbgrad.rand_like(nbgrad.ones(3)),
    lambda: nbgrad.randn(2, dtype=nbgrad.float64), lambda: nbgrad.randint(0, 10, (5,)),
], ids=["rand", "randn", "rand_like", "randn_f64", "randint"])
def test_manual_seed_reproducible(fn):
    nbgrad.manual_seed(1234)
    a = fn().tolist()
    b = fn().tolist()
    nbgrad.manual_seed(1234)
    assert fn().tolist() == a
    assert a != b or len(a) == 0  # the stream moves on
    nbgrad.manual_seed(99)
    assert fn().tolist() != a


def test_requires_grad_at_creation():
    for t in [nbgrad.tensor([1.0], requires_grad=True), nbgrad.zeros(2, requires_grad=True),
              nbgrad.ones(2, dtype=nbgrad.float64, requires_grad=True),
              nbgrad.randn(2, requires_grad=True), nbgrad.full((2,), 1.5, requires_grad=True)]:
        assert t.requires_grad and t.is_leaf and t.grad is None and t.grad_fn is None


@pytest.mark.parametrize("fn,exc,match", [
    (lambda: nbgrad.tensor([[1], [2, 3]]), ValueError, None),
    (lambda: nbgrad.tensor("abc"), TypeError, None),
    (lambda: nbgrad.tensor([1, "a"]), TypeError, None),
    (lambda: nbgrad.tensor([1, 2], requires_grad=True), RuntimeError,
     "floating point .*can require gradients"),
    (lambda: nbgrad.zeros(2, -1), RuntimeError, None),
    (lambda: nbgrad.zeros(2.5), TypeError, None),
    (lambda: nbgrad.rand(3, dtype=nbgrad.int64), (RuntimeError, NotImplementedError),
     "check_uniform_bounds"),
    (lambda: nbgrad.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    (lambda: nbgrad.from_numpy([1, 2]), TypeError, None),
    (lambda: nbgrad.from_numpy(np.ones(3)[::-1]), ValueError, "negative"),
    (lambda: nbgrad.from_numpy(np.ones(2, np.uint16)), TypeError, "uint16"),
    (lambda: nbgrad.tensor([1.0], dtype="complex64"), TypeError, None),
    (lambda: nbgrad.set_default_dtype(nbgrad.int64), TypeError, None),
], ids=["ragged", "string", "string_in_list", "int_requires_grad", "negative_dim",
        "float_size", "rand_int", "arange_step0", "from_numpy_list", "from_numpy_negative_stride",
        "from_numpy_uint16", "bad_dtype", "default_int"])
def test_creation_errors(fn, exc, match):
    with pytest.raises(exc, match=match) as info:
        fn()
    assert "numba" not in str(info.value).lower()


# ----- memory sharing: tensor() copies, from_numpy/numpy() share -------------------------------
def test_tensor_copies_its_input():
    a = np.array([1.0, 2.0])
    t = nbgrad.tensor(a)
    a[0] = 100.0
    assert t.tolist() == [1.0, 2.0]
    assert not np.shares_memory(t.numpy(), a)
    u = nbgrad.tensor(t)  # a Tensor is copied too
    t.numpy()[1] = -1.0
    assert u.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("np_dtype", ["float32", "float64", "int64", "int32", "bool"])
def test_from_numpy_shares_memory(np_dtype):
    a = np.zeros((2, 3), dtype=np_dtype)
    t = nbgrad.from_numpy(a)
    assert t.dtype == getattr(nbgrad, np_dtype) and t.shape == (2, 3)
    a[1, 2] = 1
    assert t.tolist()[1][2] == 1
    t.numpy()[0, 0] = 1
    assert a[0, 0] == 1
    assert t.numpy() is a or np.shares_memory(t.numpy(), a)


def test_from_numpy_noncontiguous_view():
    a = np.arange(12.0).reshape(3, 4)
    t = nbgrad.from_numpy(a[:, ::2])
    assert t.shape == (3, 2) and not t.is_contiguous()
    assert t.stride() == (4, 2)
    a[2, 2] = -5
    assert t.tolist()[2][1] == -5.0
    assert (t * 2).tolist() == (a[:, ::2] * 2).tolist()


def test_numpy_shares_and_detach_numpy():
    x = nbgrad.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        x.numpy()
    d = x.detach().numpy()
    d[0] = 5.0
    assert x.tolist() == [5.0, 1.0, 1.0]
    assert np.asarray(nbgrad.tensor([1.0, 2.0])).tolist() == [1.0, 2.0]


# ----- attributes ---------------------------------------------------------------------------------
def test_shape_size_ndim_numel():
    x = nbgrad.zeros(2, 3, 4)
    assert x.shape == (2, 3, 4) == x.size() and isinstance(x.size(), nbgrad.Size)
    assert repr(x.shape) == "nbgrad.Size([2, 3, 4])"
    assert x.size(0) == 2 and x.size(-1) == 4 and x.size(dim=1) == 3
    assert x.ndim == 3 == x.dim() and x.numel() == 24 and x.shape.numel() == 24
    assert len(x) == 2
    with pytest.raises(IndexError, match="Dimension out of range"):
        x.size(3)
    s = nbgrad.tensor(1.0)
    assert s.shape == () and s.ndim == 0 and s.numel() == 1
    with pytest.raises(TypeError, match="len\\(\\) of a 0-d tensor"):
        len(s)


def test_dtype_device_attributes():
    x = nbgrad.ones(2, dtype=nbgrad.float64)
    assert x.dtype is nbgrad.float64 and x.dtype == nbgrad.double
    assert repr(x.dtype) == "nbgrad.float64" and x.dtype.is_floating_point
    assert x.element_size() == 8 and x.is_floating_point()
    assert not nbgrad.ones(1, dtype=nbgrad.int64).is_floating_point()
    assert x.device == nbgrad.device("cpu") and str(x.device) == "cpu"
    assert x.device.type == "cpu" and not x.is_cuda
    assert nbgrad.float is nbgrad.float32 and nbgrad.long is nbgrad.int64
    assert nbgrad.int is nbgrad.int32 and nbgrad.bool.name == "bool"


def test_T_and_strides():
    x = nbgrad.tensor(np.arange(6.0).reshape(2, 3))
    assert x.T.shape == (3, 2) and x.T.tolist() == np.arange(6.0).reshape(2, 3).T.tolist()
    assert x.stride() == (3, 1) and x.T.stride() == (1, 3) and x.stride(1) == 1
    assert x.is_contiguous() and not x.T.is_contiguous()
    assert x.T.contiguous().is_contiguous() and x.T.contiguous().stride() == (2, 1)


def test_data_is_a_detached_alias():
    x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    d = x.data
    assert not d.requires_grad and d.is_leaf and d.grad_fn is None
    assert np.shares_memory(d.numpy(), x.detach().numpy())
    d.numpy()[0] = 9.0
    assert x.tolist() == [9.0, 2.0]
    x.data = nbgrad.tensor([3.0, 4.0])
    assert x.tolist() == [3.0, 4.0] and x.requires_grad


def test_is_leaf_grad_fn_and_version():
    a = nbgrad.tensor([1.0, 2.0], requires_grad=True)
    b = nbgrad.tensor([1.0, 2.0])
    assert a.is_leaf and b.is_leaf
    c = a * 2
    assert not c.is_leaf and c.grad_fn is not None and c.grad_fn.name() == "MulBackward0"
    assert (b * 2).is_leaf  # results of ops on tensors that need no grad are leaves
    with nbgrad.no_grad():
        assert (a * 2).is_leaf and not (a * 2).requires_grad
    assert a._version == 0
    assert a.detach()._vc is a._vc
    d = a.detach()
    d._vc[0] += 1
    assert a._version == 1


def test_grad_attribute_checks():
    x = nbgrad.zeros(2, requires_grad=True)
    x.grad = nbgrad.ones(2)
    assert x.grad.tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="assign a gradient of size '\\[3\\]' to a tensor of "
                       "size '\\[2\\]'"):
        x.grad = nbgrad.ones(3)
    with pytest.raises(RuntimeError, match="assign a gradient with dtype"):
        x.grad = nbgrad.ones(2, dtype=nbgrad.float64)
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None"):
        x.grad = "a"
    x.grad = None
    assert x.grad is None


# ----- conversion ------------------------------------------------------------------------------------
@pytest.mark.parametrize("value,dtype,expected", [
    (2.5, "float32", 2.5), (2.5, "float64", 2.5), (7, "int64", 7), (-3, "int32", -3),
    (True, "bool", True),
])
def test_item(value, dtype, expected):
    x = nbgrad.tensor([value], dtype=getattr(nbgrad, dtype))
    v = x.item()
    assert v == expected and type(v) is type(expected)
    assert nbgrad.tensor(value, dtype=getattr(nbgrad, dtype)).item() == expected
    assert float(x) == float(expected) and int(x) == int(expected)
    assert bool(nbgrad.tensor([value])) is bool(value)


def test_tolist():
    assert nbgrad.tensor([[1, 2], [3, 4]]).tolist() == [[1, 2], [3, 4]]
    assert type(nbgrad.tensor([1]).tolist()[0]) is int
    assert nbgrad.tensor(2.5).tolist() == 2.5
    assert nbgrad.tensor([True]).tolist() == [True]
    assert nbgrad.zeros(2, 0).tolist() == [[], []]
    assert [t.tolist() for t in nbgrad.tensor([[1, 2], [3, 4]])] == [[1, 2], [3, 4]]


@pytest.mark.parametrize("conv,dtype", [
    (lambda t: t.float(), "float32"), (lambda t: t.double(), "float64"),
    (lambda t: t.long(), "int64"), (lambda t: t.int(), "int32"), (lambda t: t.bool(), "bool"),
    (lambda t: t.to(nbgrad.float64), "float64"), (lambda t: t.to("float64"), "float64"),
    (lambda t: t.to(dtype=nbgrad.int32), "int32"),
    (lambda t: t.to("cpu", nbgrad.float64), "float64"),
    (lambda t: t.to(nbgrad.ones(1, dtype=nbgrad.int64)), "int64"),
    (lambda t: t.type_as(nbgrad.ones(1, dtype=nbgrad.float64)), "float64"),
], ids=["float", "double", "long", "int", "bool", "to_dtype", "to_str", "to_kw", "to_dev_dtype",
        "to_tensor", "type_as"])
def test_dtype_conversions(conv, dtype):
    src = [1.5, -2.7, 0.0, 3.0]
    x = nbgrad.tensor(src)
    y = conv(x)
    assert y.dtype == getattr(nbgrad, dtype)
    assert y.tolist() == np.array(src, np.float32).astype(dtype).tolist()
    if dtype != "float32":
        assert not np.shares_memory(y.numpy(), x.numpy())


def test_to_returns_self_when_nothing_changes():
    x = nbgrad.ones(2)
    assert x.to("cpu") is x and x.to(nbgrad.float32) is x and x.cpu() is x and x.float() is x
    assert x.to(nbgrad.float32, copy=True) is not x
    assert x.contiguous() is x


def test_clone_and_contiguous_are_copies():
    x = nbgrad.tensor(np.arange(6.0).reshape(2, 3))
    c = x.clone()
    c.numpy()[0, 0] = 100.0
    assert x.tolist()[0][0] == 0.0
    tc = x.t().contiguous()
    assert tc.is_contiguous() and tc.tolist() == x.t().tolist()
    assert not np.shares_memory(tc.numpy(), x.numpy())


# ----- repr -----------------------------------------------------------------------------------------
REPRS = [
    ("float", lambda m: m.tensor([1.0, 2.0, 3.0]), "tensor([1., 2., 3.])"),
    ("float_frac", lambda m: m.tensor([[1.5, 2.25], [3.0, 4.0]]),
     "tensor([[1.5000, 2.2500],\n        [3.0000, 4.0000]])"),
    ("int", lambda m: m.tensor([1, 2, 3]), "tensor([1, 2, 3])"),
    ("int_2d", lambda m: m.tensor([[1, -2], [30, 4]]), "tensor([[ 1, -2],\n        [30,  4]])"),
    ("bool", lambda m: m.tensor([True, False]), "tensor([ True, False])"),
    ("bool_all_true", lambda m: m.tensor([True, True]), "tensor([True, True])"),
    ("float64", lambda m: m.tensor([1.5, 2.0], dtype=m.float64),
     "tensor([1.5000, 2.0000], dtype=nbgrad.float64)"),
    ("int32", lambda m: m.tensor([1, 2], dtype=m.int32), "tensor([1, 2], dtype=nbgrad.int32)"),
    ("scalar", lambda m: m.tensor(3.5), "tensor(3.5000)"),
    ("scalar_int", lambda m: m.tensor(3), "tensor(3)"),
    ("requires_grad", lambda m: m.tensor([1.0, 2.0], requires_grad=True),
     "tensor([1., 2.], requires_grad=True)"),
    ("grad_fn", lambda m: m.tensor([1.0, 2.0], requires_grad=True) * 2,
     "tensor([2., 4.], grad_fn=<MulBackward0>)"),
    ("sum_grad_fn", lambda m: m.tensor([1.0, 2.0], requires_grad=True).sum(),
     "tensor(3., grad_fn=<SumBackward0>)"),
    ("f64_requires_grad", lambda m: m.tensor([0.5, 0.25], dtype=m.float64, requires_grad=True),
     "tensor([0.5000, 0.2500], dtype=nbgrad.float64, requires_grad=True)"),
    ("small", lambda m: m.tensor([1e-5, 1.0]), "tensor([1.0000e-05, 1.0000e+00])"),
    ("large", lambda m: m.tensor([1e10, 1.0]), "tensor([1.0000e+10, 1.0000e+00])"),
    ("wide_ints", lambda m: m.tensor([1.0, 2000.0]), "tensor([1.0000e+00, 2.0000e+03])"),
    ("negative", lambda m: m.tensor([-1.5, 0.0]), "tensor([-1.5000,  0.0000])"),
    ("empty", lambda m: m.tensor([]), "tensor([])"),
    ("empty_int", lambda m: m.tensor([], dtype=m.int64), "tensor([], dtype=nbgrad.int64)"),
    ("empty_2d", lambda m: m.zeros(2, 0), "tensor([], size=(2, 0))"),
    ("matrix", lambda m: m.arange(6.0).reshape(2, 3),
     "tensor([[0., 1., 2.],\n        [3., 4., 5.]])"),
    ("3d", lambda m: m.zeros(2, 1, 2),
     "tensor([[[0., 0.]],\n\n        [[0., 0.]]])"),
]


@pytest.mark.parametrize("fn,expected", [pytest.param(*r[1:], id=r[0]) for r in REPRS])
def test_repr(fn, expected):
    assert repr(fn(nbgrad)) == expected


@pytest.mark.parametrize("fn,expected", [pytest.param(*r[1:], id=r[0]) for r in REPRS])
def test_repr_matches_torch(fn, expected):
    torch = pytest.importorskip("torch")
    assert repr(fn(torch)).replace("torch.", "nbgrad.") == expected


def test_repr_with_float64_default(default_dtype):
    nbgrad.set_default_dtype(nbgrad.float64)
    assert repr(nbgrad.tensor([1.5, 2.0])) == "tensor([1.5000, 2.0000])"
    assert repr(nbgrad.tensor([1.0], dtype=nbgrad.float32)) == "tensor([1.], dtype=nbgrad.float32)"


# ----- default dtype ------------------------------------------------------------------------------
def test_default_dtype_is_float32():
    assert nbgrad.get_default_dtype() is nbgrad.float32


@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_set_default_dtype(default_dtype, dt):
    d = getattr(nbgrad, dt)
    nbgrad.set_default_dtype(d)
    assert nbgrad.get_default_dtype() is d
    for t in [nbgrad.tensor([1.5]), nbgrad.tensor(2.0), nbgrad.zeros(2), nbgrad.ones(1),
              nbgrad.empty(1), nbgrad.rand(2), nbgrad.randn(2), nbgrad.arange(2.0),
              nbgrad.linspace(0, 1, 3), nbgrad.eye(2), nbgrad.full((1,), 0.5),
              nbgrad.tensor([1, 2]) / 2, nbgrad.tensor([1, 2]) * 1.5]:
        assert t.dtype is d
    assert nbgrad.tensor([1, 2]).dtype is nbgrad.int64  # integers are unaffected
    assert nbgrad.tensor([1.5], dtype=nbgrad.float32).dtype is nbgrad.float32


def test_set_default_dtype_matches_torch(default_dtype):
    torch = pytest.importorskip("torch")
    old = torch.get_default_dtype()
    try:
        for m in (nbgrad, torch):
            m.set_default_dtype(m.float64)
        for fn in [lambda m: m.tensor([1, 2]) / 2, lambda m: m.tensor([1]) + 2.5,
                   lambda m: m.tensor([1.0], dtype=m.float32) + 2.5,
                   lambda m: m.tensor([1.0], dtype=m.float32) + m.tensor(2.5),
                   lambda m: m.arange(3.0), lambda m: m.full((1,), 2.0)]:
            assert fn(nbgrad).dtype.name == _dtype_name(fn(torch).dtype)
    finally:
        torch.set_default_dtype(old)


_NP_SCALARS = [
    (np.float64(1.5), "float64"), (np.int32(3), "int32"), (np.float32(2), "float32"),
    (np.bool_(True), "bool"), ([np.float64(1.5)], "float64"), ([np.float64(1.5), 2.0], "float64"),
    ([np.int32(1)], "int32"), ([np.int32(1), 2], "int64"), ([1.0, np.float32(2)], "float32"),
    ([np.int32(1), np.float32(2)], "float32"), ([True, np.int32(2)], "int32"),
    ([np.float32(1), np.int64(3)], "float32"), ([[np.float64(1)], [2]], "float64"),
    ([np.int64(2), 1.0], "float32"),
]


@pytest.mark.parametrize("data, want", _NP_SCALARS)
def test_numpy_scalars_keep_their_dtype_as_in_pytorch(data, want):
    # (a float64 NumPy scalar had become float32, an int32 one int64)
    t = nbgrad.tensor(data)
    assert str(t.dtype) == f"nbgrad.{want}"
    assert t.tolist() == np.asarray(data).tolist()
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None:
        assert str(torch.tensor(data).dtype) == f"torch.{want}"
    assert nbgrad.as_tensor(data).dtype is t.dtype
