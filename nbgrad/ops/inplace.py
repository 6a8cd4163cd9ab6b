"""In-place updates of storage. Each bumps the version counter that views share."""

from ._core import backend, kernel, layout3, to_dtype_data


def _is_c(a):
    return a.flags.c_contiguous if hasattr(a, "flags") else a.is_c_contiguous()


def add_into(dst, src):
    """``dst += src`` on storage, outside autograd (used to accumulate ``.grad``)."""
    dev = dst._device
    d = dst._data
    s = to_dtype_data(src, dst._dtype, dev)
    k = kernel("add", dev)
    if d.shape == s.shape and _is_c(d) and _is_c(s):
        k(d.reshape(-1), s.reshape(-1), d.reshape(-1))
    else:
        views = layout3(backend(dev), d.shape, [d, s, d])
        if views is None:
            raise NotImplementedError("add_into: more than 3 non-mergeable dims")
        k(*views)
    dst._vc[0] += 1
    return dst
