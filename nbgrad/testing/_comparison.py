"""``assert_close``: PyTorch's ``torch.testing.assert_close`` for nbgrad tensors, NumPy
arrays, Python numbers and (nested) sequences and mappings of them, with its default
tolerances per dtype and its failure messages."""

import math
from collections.abc import Mapping, Sequence

import numpy as np

from .. import dtypes as _dt
from ..ops.index import _host
from ..tensor import Tensor

# (rtol, atol) by dtype when neither is given; other dtypes compare exactly
_TOLERANCES = {_dt.float16: (1e-3, 1e-5), _dt.bfloat16: (1.6e-2, 1e-5),
               _dt.float32: (1.3e-6, 1e-5), _dt.float64: (1e-7, 1e-7)}


class _Mismatch(Exception):
    """A failed comparison: the exception type and the message to raise."""

    def __init__(self, kind, text):
        super().__init__(text)
        self.kind, self.text = kind, text


def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    """Assert that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``.

    Tensors (and NumPy arrays, compared with NumPy arrays) must have the same shape, device
    and dtype (``check_dtype=False`` compares in their promoted dtype) and, with
    ``check_stride``, the same strides; their values must satisfy ``|actual - expected| <=
    atol + rtol * |expected|`` elementwise (infinities equal only to themselves; NaNs only
    with ``equal_nan``). Python numbers compare likewise, booleans and ``None`` exactly;
    sequences and mappings compare item by item.

    Args:
        actual: the value computed.
        expected: the value it should be.
        rtol (float, optional): relative tolerance; with ``atol``, both or neither. When
            omitted, by dtype: 1e-3 for float16, 1.6e-2 for bfloat16, 1.3e-6 for float32,
            1e-7 for float64 (and Python floats), 0 otherwise.
        atol (float, optional): absolute tolerance; by dtype 1e-5 for 16- and 32-bit
            floats, 1e-7 for float64, 0 otherwise.
        equal_nan (bool): NaNs at the same place are equal. Default: False.
        check_device, check_dtype, check_layout, check_stride (bool): compare these
            attributes of tensors first (``check_stride`` is off by default).
        msg (str or callable, optional): the message of a failure, or a function of the
            default message that returns one.

    Raises:
        AssertionError: a mismatch, with PyTorch's message (how many elements differ, the
            greatest absolute and relative differences and where).
        TypeError: inputs of types that cannot be compared (a tensor with a number, ...).
        ValueError: only one of ``rtol`` and ``atol`` given.

    Example::

        >>> import nbgrad
        >>> from nbgrad.testing import assert_close
        >>> assert_close(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([1.0, 2.0 + 1e-7]))
        >>> assert_close(nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([1.0, 2.5]))
        Traceback (most recent call last):
        ...
        AssertionError: Tensor-likes are not close!
        <BLANKLINE>
        Mismatched elements: 1 / 2 (50.0%)
        Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
        Greatest relative difference: 0.20000000298023224 at index (1,) (up to 1.3e-06 allowed)
    """
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted, but "
                         f"got no {'rtol' if rtol is None else 'atol'}.")
    opts = dict(rtol=rtol, atol=atol, equal_nan=equal_nan, check_device=check_device,
                check_dtype=check_dtype, check_stride=check_stride,
                allow_subclasses=allow_subclasses)
    try:
        _compare(actual, expected, (), opts)
    except _Mismatch as m:
        text = m.text
        if msg is not None:
            text = msg(text) if callable(msg) else msg
        raise m.kind(text) from None


def _where(path):
    return "".join(f"[{k!r}]" for k in path)


def _fail(text, path, kind=AssertionError):
    if path:
        text += f"\n\nThe failure occurred for item {_where(path)}"
    raise _Mismatch(kind, text)


def _is_seq(x):
    return isinstance(x, Sequence) and not isinstance(x, str)


def _compare(a, b, path, opts):
    if _is_seq(a) and _is_seq(b):
        if len(a) != len(b):
            _fail(f"The length of the sequences mismatch: {len(a)} != {len(b)}", path)
        for i, (x, y) in enumerate(zip(a, b)):
            _compare(x, y, path + (i,), opts)
        return
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        if a.keys() != b.keys():
            missing, extra = sorted(b.keys() - a.keys()), sorted(a.keys() - b.keys())
            _fail("The keys of the mappings do not match:\n"
                  f"Missing keys in the actual mapping: {missing}\n"
                  f"Additional keys in the actual mapping: {extra}", path)
        for k in a:
            _compare(a[k], b[k], path + (k,), opts)
        return
    if a is None and b is None:
        return
    if isinstance(a, bool) and isinstance(b, bool):
        if a is not b:
            _fail(f"Booleans mismatch: {a} is not {b}", path)
        return
    if _is_number(a) and _is_number(b):
        _compare_numbers(a, b, path, opts)
        return
    pair = _tensor_pair(a, b, opts["allow_subclasses"])
    if pair is None:
        raise _Mismatch(TypeError, f"No comparison pair was able to handle inputs of type "
                                   f"{type(a)} and {type(b)}.")
    _compare_tensors(*pair, path, opts)


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def _compare_numbers(a, b, path, opts):
    if opts["check_dtype"] and type(a) is not type(b):
        _fail(f"The (d)types do not match: {type(a)} != {type(b)}.", path)
    rtol, atol = opts["rtol"], opts["atol"]
    if rtol is None:
        floats = isinstance(a, float) or isinstance(b, float)
        rtol, atol = (1e-7, 1e-7) if floats else (0.0, 0.0)
    if a == b or (opts["equal_nan"] and a != a and b != b):
        return
    diff = abs(a - b)
    if math.isfinite(diff) and diff <= atol + rtol * abs(b):
        return
    rel = math.inf if b == 0 else diff / abs(b)
    _fail(_message("Scalars", f"Expected {b} but got {a}.", diff, None, atol, rel, None, rtol),
          path)


def _tensor_pair(a, b, allow_subclasses):
    """``a`` and ``b`` as (kind, host array, dtype, shape, device, strides) pairs, or None
    when they are not two tensors or two NumPy arrays."""
    if isinstance(a, Tensor) and isinstance(b, Tensor):
        if not allow_subclasses and type(a) is not type(b):
            return None
        return [(_host(x), x.dtype, tuple(x.shape), x.device, x.stride()) for x in (a, b)]
    if isinstance(a, np.ndarray) and isinstance(b, np.ndarray):
        return [(x, _dt.as_dtype(x.dtype), x.shape, "cpu",
                 tuple(s // max(x.itemsize, 1) for s in x.strides)) for x in (a, b)]
    return None


def _compare_tensors(a, b, path, opts):
    (xa, dta, sa, deva, sta), (xb, dtb, sb, devb, stb) = a, b
    from ..tensor import Size

    if sa != sb:
        _attr("shape", Size(sa), Size(sb), path)
    if opts["check_device"] and deva != devb:
        _attr("device", deva, devb, path)
    if opts["check_dtype"] and dta is not dtb:
        _attr("dtype", dta, dtb, path)
    if opts["check_stride"] and sta != stb:
        _attr("stride()", sta, stb, path)
    rtol, atol = opts["rtol"], opts["atol"]
    if rtol is None:
        rtol = max(_TOLERANCES.get(dta, (0.0, 0.0))[0], _TOLERANCES.get(dtb, (0.0, 0.0))[0])
        atol = max(_TOLERANCES.get(dta, (0.0, 0.0))[1], _TOLERANCES.get(dtb, (0.0, 0.0))[1])
    dt = dta if dta is dtb else _dt.promote_types(dta, dtb)
    # (in the values' own dtype, as PyTorch computes; integers and bools as int64)
    work = dt.np if dt.is_floating_point else np.int64
    xa, xb = np.asarray(xa).astype(work), np.asarray(xb).astype(work)
    close = _isclose(xa, xb, rtol, atol, opts["equal_nan"])
    if close.all():
        return
    if sa == ():
        va, vb = xa.item(), xb.item()
        diff = abs(va - vb)
        rel = math.inf if vb == 0 else diff / abs(vb)
        _fail(_message("Scalars", f"Expected {vb} but got {va}.", diff, None, atol, rel,
                       None, rtol), path)
    _fail(_tensor_message(xa, xb, close, sa, rtol, atol, dt.is_floating_point), path)


def _isclose(a, b, rtol, atol, equal_nan):
    """PyTorch's ``isclose`` in the values' own dtype: equal, or a finite allowed error
    that the difference does not exceed."""
    with np.errstate(invalid="ignore", over="ignore"):
        close = a == b
        if a.dtype.kind not in "iub":  # (floats; ml_dtypes' bfloat16 is kind "V")
            t = a.dtype.type
            allowed = t(atol) + np.abs(t(rtol) * b)
            close |= np.isfinite(allowed) & (np.abs(a - b) <= allowed)
            if equal_nan:
                close |= np.isnan(a) & np.isnan(b)
        elif rtol or atol:
            close |= np.abs(a - b) <= atol + rtol * np.abs(b)
    return close


def _tensor_message(a, b, close, shape, rtol, atol, floating):
    n = close.size
    bad = n - int(close.sum())
    extra = f"Mismatched elements: {bad} / {n} ({bad / n:.1%})"
    a, b, ok = a.reshape(-1), b.reshape(-1), close.reshape(-1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.abs(a - b)
        diff[ok] = 0
        # (integers: int64 differences, their ratios in float32, PyTorch's default dtype)
        rel = diff / np.abs(b) if floating else (diff / np.abs(b)).astype(np.float32)
        rel[ok] = 0
    i, j = int(np.argmax(diff)), int(np.argmax(rel))
    num = float if floating else int
    return _message("Tensor-likes", extra, num(diff[i]), np.unravel_index(i, shape), atol,
                    float(rel[j]), np.unravel_index(j, shape), rtol)


def _message(what, extra, diff, diff_at, atol, rel, rel_at, rtol):
    def line(kind, value, at, tol):
        text = (f"{kind.title()} difference: {value}" if at is None else
                f"Greatest {kind} difference: {value} at index {tuple(int(k) for k in at)}")
        return text + ("" if equal else f" (up to {tol} allowed)") + "\n"

    equal = rtol == 0 and atol == 0
    out = f"{what} are not {'equal' if equal else 'close'}!\n\n{extra}\n"
    out += line("absolute", diff, diff_at, atol) + line("relative", rel, rel_at, rtol)
    return out.strip()


def _attr(name, a, b, path):
    _fail(f"The values for attribute '{name}' do not match: {a} != {b}.", path)
