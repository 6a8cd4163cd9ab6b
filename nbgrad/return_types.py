"""The named result tuples of ops that return several tensors (PyTorch's
``torch.return_types``): ``max(dim)``, ``sort``, ``linalg.qr``, ... give a tuple whose
items are also attributes, shown as ``nbgrad.return_types.max(values=..., indices=...)``.
Each is a class of this module, found (and pickled) by its name.

Example::

    >>> import nbgrad
    >>> r = nbgrad.tensor([[1.0, 5.0], [4.0, 2.0]]).max(dim=1)
    >>> r
    nbgrad.return_types.max(
    values=tensor([5., 4.]),
    indices=tensor([1, 0]))
    >>> values, indices = r
    >>> r.indices is indices, isinstance(r, nbgrad.return_types.max)
    (True, True)
"""

from collections import namedtuple

_VALUES_INDICES = ("values", "indices")
_FIELDS = {
    "max": _VALUES_INDICES, "min": _VALUES_INDICES, "sort": _VALUES_INDICES,
    "topk": _VALUES_INDICES, "kthvalue": _VALUES_INDICES, "median": _VALUES_INDICES,
    "nanmedian": _VALUES_INDICES, "mode": _VALUES_INDICES, "cummax": _VALUES_INDICES,
    "cummin": _VALUES_INDICES, "aminmax": ("min", "max"), "frexp": ("mantissa", "exponent"),
    "histogram": ("hist", "bin_edges"), "geqrf": ("a", "tau"), "qr": ("Q", "R"),
    "svd": ("U", "S", "V"), "slogdet": ("sign", "logabsdet"),
    "triangular_solve": ("solution", "cloned_coefficient"),
    "lu_unpack": ("P", "L", "U"),
    "linalg_qr": ("Q", "R"), "linalg_svd": ("U", "S", "Vh"),
    "linalg_eigh": ("eigenvalues", "eigenvectors"), "linalg_slogdet": ("sign", "logabsdet"),
    "linalg_cholesky_ex": ("L", "info"), "linalg_inv_ex": ("inverse", "info"),
    "linalg_solve_ex": ("result", "info"), "linalg_lu": ("P", "L", "U"),
    "linalg_lu_factor": ("LU", "pivots"), "linalg_lu_factor_ex": ("LU", "pivots", "info"),
    "linalg_lstsq": ("solution", "residuals", "rank", "singular_values"),
}


def _repr(self):
    fields = ",\n".join(f"{f}={v!r}" for f, v in zip(self._fields, self))
    return f"nbgrad.return_types.{type(self).__name__}(\n{fields})"


def _structseq(name, fields):
    cls = namedtuple(name, fields, module=__name__)
    cls.__repr__ = _repr
    return cls


for _name, _fields in _FIELDS.items():
    globals()[_name] = _structseq(_name, _fields)
del _name, _fields

__all__ = list(_FIELDS)
