"""``repr`` of tensors in PyTorch's layout: its element formats (whole floats as ``3.``,
scientific notation by the magnitudes' span), widths, line breaks, summaries of large
tensors and suffixes, on a host copy of the data; ``set_printoptions`` as PyTorch's."""

import math

import numpy as np

from . import dtypes as _dt

_DEFAULT_SHOWN = {"int64", "bool"}


class _PrintOptions:
    """PyTorch's ``PRINT_OPTS``: what ``set_printoptions`` changes."""

    precision, threshold, edgeitems, linewidth, sci_mode = 4, 1000, 3, 80, None

    def __repr__(self):
        return (f"PrintOptions(precision={self.precision}, threshold={self.threshold}, "
                f"edgeitems={self.edgeitems}, linewidth={self.linewidth}, "
                f"sci_mode={self.sci_mode})")


PRINT_OPTS = _PrintOptions()
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80),
             "full": (4, float("inf"), 3, 80)}


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None,
                     profile=None, sci_mode=None):
    """How tensors print, as ``torch.set_printoptions``: ``precision`` digits after the
    point (default 4), more than ``threshold`` elements summarised (1000) with
    ``edgeitems`` at each end (3), lines of ``linewidth`` characters (80); ``profile``
    ``"default"``, ``"short"`` or ``"full"`` sets those four; ``sci_mode`` True or False
    forces scientific notation on or off (None, which every call without it sets: chosen
    from the values).

    Args:
        precision (int, optional): the number of digits after the decimal point. Default:
            ``None``, unchanged (4 initially).
        threshold (int, optional): the number of elements above which a tensor is printed
            summarised. Default: ``None``, unchanged (1000 initially).
        edgeitems (int, optional): the number of items shown at each end of each dim in a
            summary. Default: ``None``, unchanged (3 initially).
        linewidth (int, optional): the number of characters per line. Default: ``None``,
            unchanged (80 initially).
        profile (str, optional): ``"default"``, ``"short"`` or ``"full"``: sets the four
            options above at once (the others given override it). Default: ``None``.
        sci_mode (bool, optional): force scientific notation on (``True``) or off
            (``False``); ``None`` lets the values decide. Every call sets it. Default:
            ``None``.

    Example::

        >>> import nbgrad
        >>> nbgrad.set_printoptions(precision=2)
        >>> nbgrad.tensor([1.23456, 2.0])
        tensor([1.23, 2.00])
        >>> nbgrad.set_printoptions(profile="default")
    """
    o = PRINT_OPTS
    if profile in _PROFILES:
        o.precision, o.threshold, o.edgeitems, o.linewidth = _PROFILES[profile]
    if precision is not None:
        o.precision = precision
    if threshold is not None:
        o.threshold = threshold
    if edgeitems is not None:
        o.edgeitems = edgeitems
    if linewidth is not None:
        o.linewidth = linewidth
    o.sci_mode = sci_mode


class _Formatter:
    """PyTorch's element formatter: one width for all elements, from the nonzero finite
    values (so ``nan``, ``inf`` and zeros never widen a column)."""

    def __init__(self, arr):
        self.floating = arr.dtype.kind == "f"
        self.int_mode, self.sci_mode, self.max_width = True, False, 1
        flat = arr.reshape(-1)
        o = PRINT_OPTS
        if not self.floating:
            for v in flat.tolist():
                self.max_width = max(self.max_width, len(f"{v}"))
            return
        vals = flat[np.isfinite(flat) & (flat != 0)]
        if not vals.size:
            return
        mags = np.abs(vals).astype(np.float64)
        lo, hi = mags.min(), mags.max()
        self.int_mode = bool(np.all(vals == np.ceil(vals)))
        self.sci_mode = bool(hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4) \
            if o.sci_mode is None else o.sci_mode
        if self.sci_mode:
            form, extra = f"{{:.{o.precision}e}}", 0
        elif self.int_mode:
            form, extra = "{:.0f}", 1
        else:
            form, extra = f"{{:.{o.precision}f}}", 0
        for v in vals.tolist():
            self.max_width = max(self.max_width, len(form.format(v)) + extra)

    def format(self, value):
        p = PRINT_OPTS.precision
        if self.floating:
            if self.sci_mode:
                ret = f"{{:{self.max_width}.{p}e}}".format(value)
            elif self.int_mode:
                ret = f"{value:.0f}"
                if not (math.isinf(value) or math.isnan(value)):
                    ret += "."
            else:
                ret = f"{{:.{p}f}}".format(value)
        else:
            ret = f"{value}"
        return (self.max_width - len(ret)) * " " + ret


def _summarized(arr):
    """The elements a summary shows (``edgeitems`` at each end of each dim): what the
    formatter sizes its columns by."""
    e = PRINT_OPTS.edgeitems
    if arr.ndim == 0:
        return arr
    if arr.ndim == 1:
        return np.concatenate([arr[:e], arr[-e:]]) if arr.shape[0] > 2 * e else arr
    if not e:
        return arr[(slice(0, 0),) * arr.ndim]
    rows = list(arr[:e]) + list(arr[-e:]) if arr.shape[0] > 2 * e else list(arr)
    return np.stack([_summarized(r) for r in rows])


def _vector_str(arr, indent, summarize, fmt):
    e = PRINT_OPTS.edgeitems
    per_line = max(1, math.floor((PRINT_OPTS.linewidth - indent) / (fmt.max_width + 2)))
    if summarize and not e:
        data = ["..."]
    elif summarize and arr.shape[0] > 2 * e:
        data = ([fmt.format(v) for v in arr[:e].tolist()] + [" ..."]
                + [fmt.format(v) for v in arr[-e:].tolist()])
    else:
        data = [fmt.format(v) for v in arr.tolist()]
    lines = [", ".join(data[i:i + per_line]) for i in range(0, len(data), per_line)]
    return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"


def _tensor_str(arr, indent, summarize, fmt):
    if arr.ndim == 0:
        return fmt.format(arr.item())
    if arr.ndim == 1:
        return _vector_str(arr, indent, summarize, fmt)
    e = PRINT_OPTS.edgeitems
    if summarize and arr.shape[0] > 2 * e:
        slices = ([_tensor_str(arr[i], indent + 1, summarize, fmt) for i in range(e)] + ["..."]
                  + [_tensor_str(arr[i], indent + 1, summarize, fmt)
                     for i in range(arr.shape[0] - e, arr.shape[0])])
    else:
        slices = [_tensor_str(r, indent + 1, summarize, fmt) for r in arr]
    return "[" + ("," + "\n" * (arr.ndim - 1) + " " * (indent + 1)).join(slices) + "]"


def _add_suffixes(text, suffixes, indent):
    out = [text]
    last = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last + len(suffix) + 2 > PRINT_OPTS.linewidth:
            out.append(",\n" + " " * indent + suffix)
            last = indent + len(suffix)
        else:
            out.append(", " + suffix)
            last += len(suffix) + 2
    return "".join(out) + ")"


def tensor_repr(t):
    from .storage import for_device

    arr = np.asarray(for_device(t._device).to_host(t._data))
    if t._dtype.low:  # (PyTorch prints 16-bit floats through float32)
        arr = arr.astype(np.float32)
    prefix = "tensor("
    indent = len(prefix)
    suffixes = []
    if t._device.type != "cpu":
        suffixes.append(f"device='{t._device}'")
    dflt = _dt.get_default_dtype()
    if arr.size == 0:
        if arr.ndim != 1:
            suffixes.append(f"size={tuple(arr.shape)}")
        if t._dtype is not dflt:
            suffixes.append(f"dtype={t._dtype!r}")
        body = "[]"
    else:
        if not PRINT_OPTS.edgeitems:
            suffixes.append(f"size={tuple(arr.shape)}")
        if t._dtype is not dflt and t._dtype.name not in _DEFAULT_SHOWN:
            suffixes.append(f"dtype={t._dtype!r}")
        summarize = arr.size > PRINT_OPTS.threshold
        fmt = _Formatter(_summarized(arr) if summarize else arr)
        body = _tensor_str(arr, indent, summarize, fmt)
    if t._grad_fn is not None:
        suffixes.append(f"grad_fn=<{t._grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t._rg:
        suffixes.append("requires_grad=True")
    return _add_suffixes(prefix + body, suffixes, indent)
