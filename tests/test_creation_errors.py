"""Bad sizes and arguments to the creation functions and to view/reshape/expand raise
PyTorch's exception types with PyTorch's messages (not NumPy's ValueError or MemoryError),
compared case by case with torch."""

import re

import numpy as np
import pytest

import nbgrad
from tests._errors import error_of

torch = pytest.importorskip("torch")

# Allocations beyond any address space (2**62 bytes) but below int64's byte count: the system
# refuses them at once, whatever its overcommit policy.
HUGE = 2**60

CASES = {
    # sizes beyond int64: the argument parser's TypeError
    "zeros 2**64": lambda m: m.zeros(2**64),
    "zeros 3, 2**64": lambda m: m.zeros(3, 2**64),
    "ones -2**64": lambda m: m.ones(-(2**64)),
    "empty (2**64,)": lambda m: m.empty((2**64,)),
    "full 2**64": lambda m: m.full((2**64,), 1.0),
    "rand 2**64": lambda m: m.rand(2**64),
    "randn 2**63": lambda m: m.randn(2**63),
    "randint 2**64": lambda m: m.randint(0, 3, (2**64,)),
    "zeros float": lambda m: m.zeros(2.5),
    "zeros (2, float)": lambda m: m.zeros((2, 2.5)),
    "ones (2, str)": lambda m: m.ones(2, "a"),
    # negative sizes
    "zeros -1": lambda m: m.zeros(-1),
    "zeros 2, -1": lambda m: m.zeros(2, -1),
    "ones -1": lambda m: m.ones(-1),
    "empty 2, -3": lambda m: m.empty((2, -3)),
    "full -1": lambda m: m.full((-1,), 2.0),
    "rand -1": lambda m: m.rand(-1),
    "randint -1": lambda m: m.randint(0, 3, (-1,)),
    # byte counts beyond int64
    "ones 2**62": lambda m: m.ones(2**62),
    "zeros 2**60 float64": lambda m: m.zeros(2**60, dtype=m.float64),
    "empty 2**40, 2**40": lambda m: m.empty(2**40, 2**40),
    "randn 2**62": lambda m: m.randn(2**62),
    "randint 2**62": lambda m: m.randint(0, 3, (2**62,)),
    "arange 2**62": lambda m: m.arange(2**62),
    "linspace 2**62": lambda m: m.linspace(0, 1, 2**62),
    # memory the system refuses
    "zeros huge": lambda m: m.zeros(HUGE),
    "ones huge": lambda m: m.ones(HUGE),
    "empty huge": lambda m: m.empty(HUGE),
    "full huge": lambda m: m.full((HUGE,), 1.0),
    "rand huge": lambda m: m.rand(HUGE),
    "randn huge": lambda m: m.randn(HUGE),
    "arange huge": lambda m: m.arange(HUGE, dtype=m.float32),
    "linspace huge": lambda m: m.linspace(0, 1, HUGE),
    "eye huge": lambda m: m.eye(2**30),
    "expanded contiguous huge": lambda m: m.zeros(1).expand(2**30, 2**30).contiguous(),
    "expanded mul huge": lambda m: m.zeros(1).expand(2**30, 2**30) * 2,
    # arguments of tensor, randint, arange, linspace, eye
    "tensor [2**63]": lambda m: m.tensor([2**63]),
    "tensor [1, -2**63-1]": lambda m: m.tensor([1, -(2**63) - 1]),
    "tensor 2**64": lambda m: m.tensor(2**64),
    "tensor [2**63] int64": lambda m: m.tensor([2**63], dtype=m.int64),
    "tensor ragged": lambda m: m.tensor([[1, 2], [3]]),
    "tensor ragged deep": lambda m: m.tensor([[[1], [2]], [[3]]]),
    "tensor ragged long": lambda m: m.tensor([[1, 2], [3, 4, 5]]),
    "tensor not a sequence": lambda m: m.tensor([[1, 2], 3]),
    "tensor list in ints": lambda m: m.tensor([1, [2]]),
    "randint low == high": lambda m: m.randint(3, 3, (2,)),
    "randint low > high": lambda m: m.randint(5, 2, (2,)),
    "randint high 0": lambda m: m.randint(0, (2,)),
    "randint high 2**64": lambda m: m.randint(0, 2**64, (2,)),
    "arange step 0": lambda m: m.arange(0, 3, 0),
    "arange step nan": lambda m: m.arange(0, 3, float("nan")),
    "arange wrong sign": lambda m: m.arange(0, 3, -1),
    "arange backwards": lambda m: m.arange(3.0, 0.0),
    "arange inf": lambda m: m.arange(float("inf")),
    "arange -inf": lambda m: m.arange(float("-inf"), 0),
    "arange nan": lambda m: m.arange(0, float("nan")),
    "arange tiny step": lambda m: m.arange(0, 1, 1e-20),
    "arange 2**64": lambda m: m.arange(0, 2**64),
    "linspace -1": lambda m: m.linspace(0, 1, -1),
    "linspace 2**64": lambda m: m.linspace(0, 1, 2**64),
    "eye -1": lambda m: m.eye(-1),
    "eye 3, -1": lambda m: m.eye(3, -1),
    "eye 2**32": lambda m: m.eye(2**32),
    "eye 2**64": lambda m: m.eye(2**64),
    # view / reshape / expand
    "view -2": lambda m: m.zeros(6).view(-2, 3),
    "view 2, -1, -2": lambda m: m.zeros(2, 3).view(2, -1, -2),
    "view -1, -1": lambda m: m.zeros(6).view(-1, -1),
    "view 4, -1": lambda m: m.zeros(6).view(4, -1),
    "view 0, -1": lambda m: m.zeros(6).view(0, -1),
    "view 0, -1 of empty": lambda m: m.zeros(0).view(0, -1),
    "view 2**64": lambda m: m.zeros(6).view(2**64),
    "view 2**62": lambda m: m.zeros(6).view(2**62, 1),
    "reshape -3, -2": lambda m: m.zeros(6).reshape(-3, -2),
    "reshape -1, 2**63": lambda m: m.zeros(6).reshape(-1, 2**63),
    "expand 2**64": lambda m: m.zeros(3).expand(2**64, 3),
    "expand 2**62": lambda m: m.zeros(3).expand(2**62, 3),
    "expand 2**40, 2**40": lambda m: m.zeros(1).expand(2**40, 2**40),
    "expand -2, 3": lambda m: m.zeros(3).expand(-2, 3),
    "expand -2 existing": lambda m: m.zeros(1, 3).expand(-2, 3),
    "expand -1 leading": lambda m: m.zeros(3).expand(-1, 3),
    "expand -1 leading 1": lambda m: m.zeros(3).expand(2, -1, 3),
    "expand 2, -2": lambda m: m.zeros(1, 3).expand(2, -2),
    "expand 4 vs 3": lambda m: m.zeros(3).expand(4),
}


def _outcome(m, name):
    try:
        CASES[name](m)
    except Exception as e:  # noqa: BLE001 (the type is what is compared)
        msg = str(e).split("\n")[0]
        msg = re.sub(r"^\[enforce fail at [^\]]*\] err == 0\. ", "", msg)  # C++ location
        return type(e), msg.rstrip('"')
    return None, None


@pytest.mark.parametrize("name", list(CASES))
def test_error_matches_torch(name):
    want_type, want_msg = _outcome(torch, name)
    assert want_type is not None, "torch accepts this case; the table is wrong"
    got_type, got_msg = _outcome(nbgrad, name)
    assert got_type is want_type, (got_type, got_msg, want_msg)
    if name.startswith("ones (2, str)"):
        return  # the parser's wording names the Python type the same way; checked below
    assert got_msg == want_msg


@pytest.mark.parametrize("case", [
    ("linspace float steps", lambda: nbgrad.linspace(0, 1, 2.5), TypeError, "steps"),
    # PyTorch makes a (-2, 0) tensor here; a negative size is refused instead
    ("expand negative empty", lambda: nbgrad.zeros(0).expand(-2, 0), RuntimeError,
     "negative dimension -2"),
    # NumPy cannot hold a stride-0 view whose dense size exceeds int64 bytes; PyTorch can
    ("expand beyond numpy", lambda: nbgrad.zeros(1).expand(2**31, 2**31), RuntimeError,
     "exceeds the int64 range"),
], ids=lambda c: c[0])
def test_errors_where_torch_differs(case):
    _, fn, typ, phrase = case
    with pytest.raises(typ, match=phrase):
        fn()


def test_valid_edge_cases_still_work():
    """What PyTorch accepts near the error cases, with PyTorch's values."""
    pairs = [
        (nbgrad.tensor([1.5, 2**70]), torch.tensor([1.5, 2**70])),
        (nbgrad.tensor([2**63], dtype=nbgrad.float64), torch.tensor([2**63], dtype=torch.float64)),
        (nbgrad.tensor([[1, 2], [3, 4]]), torch.tensor([[1, 2], [3, 4]])),
        (nbgrad.tensor([[], []]), torch.tensor([[], []])),
        (nbgrad.arange(0, 3, float("inf")), torch.arange(0, 3, float("inf"))),
        (nbgrad.arange(3, 3), torch.arange(3, 3)),
        (nbgrad.arange(3.0, 0.0, -1.0), torch.arange(3.0, 0.0, -1.0)),
        (nbgrad.randint(2, 3, (4,)), torch.randint(2, 3, (4,))),
        (nbgrad.randint(1, (3,)), torch.randint(1, (3,))),
        (nbgrad.linspace(0, 1, 0), torch.linspace(0, 1, 0)),
        (nbgrad.eye(0, 3), torch.eye(0, 3)),
        (nbgrad.zeros(1, 3).expand(2, -1), torch.zeros(1, 3).expand(2, -1)),
        (nbgrad.zeros(6).view(-1, 3), torch.zeros(6).view(-1, 3)),
    ]
    for a, b in pairs:
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[1] == str(b.dtype).split(".")[1]
        np.testing.assert_array_equal(a.numpy(), b.numpy())


FACTORIES = {
    "zeros": lambda m, **kw: m.zeros(2, 3, **kw),
    "ones": lambda m, **kw: m.ones(2, **kw),
    "empty": lambda m, **kw: m.empty(2, **kw),
    "full": lambda m, **kw: m.full((2,), 1.5, **kw),
    "zeros_like": lambda m, **kw: m.zeros_like(m.ones(2), **kw),
    "ones_like": lambda m, **kw: m.ones_like(m.ones(2), **kw),
    "empty_like": lambda m, **kw: m.empty_like(m.ones(2), **kw),
    "full_like": lambda m, **kw: m.full_like(m.ones(2), 3.0, **kw),
    "rand": lambda m, **kw: m.rand(2, **kw),
    "randn": lambda m, **kw: m.randn(2, **kw),
    "randint": lambda m, **kw: m.randint(0, 5, (2,), **kw),
    "randperm": lambda m, **kw: m.randperm(4, **kw),
    "rand_like": lambda m, **kw: m.rand_like(m.ones(2), **kw),
    "randn_like": lambda m, **kw: m.randn_like(m.ones(2), **kw),
    "randint_like": lambda m, **kw: m.randint_like(m.ones(2), 3, **kw),
    "arange": lambda m, **kw: m.arange(4, **kw),
    "linspace": lambda m, **kw: m.linspace(0, 1, 5, **kw),
    "logspace": lambda m, **kw: m.logspace(0, 1, 5, **kw),
    "eye": lambda m, **kw: m.eye(3, **kw),
    "empty_strided": lambda m, **kw: m.empty_strided((2, 3), (1, 2), **kw),
    "triu_indices": lambda m, **kw: m.triu_indices(3, 3, **kw),
    "tril_indices": lambda m, **kw: m.tril_indices(3, 3, **kw),
    "new_zeros": lambda m, **kw: m.ones(2).new_zeros(3, **kw),
    "new_ones": lambda m, **kw: m.ones(2).new_ones(3, **kw),
    "new_empty": lambda m, **kw: m.ones(2).new_empty(3, **kw),
    "new_full": lambda m, **kw: m.ones(2).new_full((3,), 2.0, **kw),
    "hann_window": lambda m, **kw: m.hann_window(4, **kw),
}


def test_tensor_takes_pin_memory():
    assert nbgrad.tensor([1.0], pin_memory=False).tolist() == [1.0]
    if not nbgrad.cuda.is_available():
        assert error_of(lambda: nbgrad.tensor([1.0], pin_memory=True)) == \
            error_of(lambda: torch.tensor([1.0], pin_memory=True))


@pytest.mark.parametrize("name", sorted(FACTORIES))
def test_factories_take_pytorchs_layout_and_pin_memory(name):
    """``layout=strided`` (often forwarded as ``layout=x.layout``) and ``pin_memory=False``
    are accepted as PyTorch's are; another layout is refused, and ``pin_memory=True``
    without a GPU is PyTorch's RuntimeError."""
    make = FACTORIES[name]
    opts = dict(layout=nbgrad.strided)
    if name != "hann_window":
        opts["pin_memory"] = False
    got = make(nbgrad, **opts)
    want = make(torch, **{k: (torch.strided if k == "layout" else v) for k, v in opts.items()})
    assert tuple(got.shape) == tuple(want.shape) and got.layout is nbgrad.strided
    with pytest.raises(NotImplementedError, match="is not supported: nbgrad tensors are strided"):
        make(nbgrad, layout="sparse_coo")
    if name != "hann_window" and not nbgrad.cuda.is_available():
        ours = error_of(lambda: make(nbgrad, pin_memory=True))
        assert ours == error_of(lambda: make(torch, pin_memory=True))
