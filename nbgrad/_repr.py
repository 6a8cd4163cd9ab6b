"""``repr`` of tensors in PyTorch's layout."""

import numpy as np

from . import dtypes as _dt

_DEFAULT_SHOWN = {"int64", "bool"}


def _fmt(arr):
    if arr.dtype.kind == "f":
        finite = arr[np.isfinite(arr)]
        nz = np.abs(finite[finite != 0])
        wide = nz.size and nz.max() > 1000 * nz.min()  # PyTorch goes scientific here too
        if finite.size and np.all(finite == np.round(finite)) and np.abs(finite).max() < 1e8 and not wide:
            opts = dict(floatmode="maxprec", precision=0)
        else:
            big = finite.size and (np.abs(finite).max() >= 1e8 or (
                np.abs(finite[finite != 0]).min() < 1e-4 if np.any(finite != 0) else False))
            opts = dict(floatmode="fixed", precision=4)
            if big:
                opts["formatter"] = {"float_kind": lambda v: f"{v:.4e}"}
        return opts
    if arr.dtype.kind == "b" and arr.size and arr.all():
        return {"formatter": {"bool": lambda v: "True"}}  # NumPy pads True to False's width
    return {}


def tensor_repr(t):
    from .storage import for_device

    arr = np.asarray(for_device(t._device).to_host(t._data))
    opts = _fmt(arr)
    shown = arr
    if arr.dtype == np.float32 and opts.get("precision") == 0:
        shown = arr.astype(np.float64)  # (NumPy writes float32 integers from 1e6 as 5.e+06)
    body = np.array2string(
        shown, separator=", ", prefix="tensor(", threshold=1000, edgeitems=3, max_line_width=80,
        **opts,
    )
    if arr.size == 0 and arr.ndim == 1:
        body = "[]"
    extras = []
    if t._device.type != "cpu":
        extras.append(f"device='{t._device}'")
    if arr.size == 0 and arr.ndim != 1:
        extras.append(f"size={tuple(arr.shape)}")
    dflt = _dt.get_default_dtype()
    if t._dtype is not dflt and (t._dtype.name not in _DEFAULT_SHOWN or arr.size == 0):
        extras.append(f"dtype={t._dtype!r}")
    if t._grad_fn is not None:
        extras.append(f"grad_fn=<{t._grad_fn.name().rsplit('::', 1)[-1]}>")
    elif t._rg:
        extras.append("requires_grad=True")
    return "tensor(" + body + "".join(", " + e for e in extras) + ")"
