"""Shape ops. Views share storage and the version counter with their base; repeat, tile
and flip make copies."""

from weakref import ref as _wr

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import STATE as _STATE
from ..storage.layout import copy_data
from ..tensor import _fresh, _wrap, _wrap_dim
from ._core import Tensor, backend, check_tensor, needs_grad
from .elementwise import sum_to  # noqa: F401  (formulas name it)
from .funcdef import deffunc, same_dtype, same_shape, surface
from .view_inplace import _MULTI
from .view_inplace import Views as _Views
from .view_inplace import made_without_grad as _made_without_grad
from .view_inplace import register as _register_view


def _view(x, arr):
    """A tensor that views ``arr``, a view of ``x``'s storage."""
    t = _wrap(arr, x._dtype, x._device)
    t._vc = x._vc
    x._owner = None  # its memory is now visible through the view (see nbgrad.tensor._fresh)
    b = x._base
    if b is None:
        b = x
    t._base = b
    if x._rg and not _STATE.enabled:
        _made_without_grad(t)
    elif x._rg and b._grad_fn is not None and _STATE.enabled:
        # the view gets history: an in-place op on its base must keep it current
        lst = b._acc
        if lst.__class__ is _Views and len(lst) < lst.cap and not _MULTI:
            lst.append(_wr(t))
        else:
            _register_view(b, t, x)
    return t


def _shape_arg(shape, fname=None, arg="size"):
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    out = tuple(map(int, shape))
    if fname is not None and out and (max(out) >= 2**63 or min(out) < -(2**63)):
        for i, s in enumerate(out):
            if not -(2**63) <= s < 2**63:  # PyTorch's argument parser, before any shape logic
                raise TypeError(
                    f"{fname}(): argument '{arg}' failed to unpack the object at pos {i + 1} "
                    'with error "Overflow when unpacking long long"'
                )
    return out


def _infer(shape, numel):
    """Resolve one ``-1`` in ``shape`` against ``numel``; PyTorch's errors otherwise."""
    neg = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if neg is not None:
                raise RuntimeError("only one dimension can be inferred")
            neg = i
        elif s < -1:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {list(shape)}")
        else:
            known *= s
    if neg is not None:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous"
                )
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        if numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = list(shape)
        shape[neg] = numel // known
        return tuple(shape)
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


# ----- the rows: forwards on storage arrays, derivative formulas in nbgrad ops -------------
def _view_forward(x, odt, dev, size):
    v = backend(dev).reshape_view(x, size)
    if v is None:
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one "
            "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
        )
    return v


def _sized(s, size):
    return tuple(size)


VIEW = deffunc("view", kernels=(), forward=_view_forward, dtype=same_dtype, shape=_sized,
               args=("size",), grads=("reshape(grad, input_shape)",), view=_view, fn=False,
               method=False)
# reshape of a layout no view can express: a copy, recorded as one ViewBackward0 (PyTorch
# records a clone and an _unsafe_view)
RESHAPE_COPY = deffunc("reshape", overload="copy", kernels=("copy",),
                       forward=lambda x, odt, dev, size: copy_data(x, odt, dev).reshape(size),
                       dtype=same_dtype, shape=_sized, args=("size",),
                       grads=("reshape(grad, input_shape)",), node="ViewBackward0", fn=False,
                       method=False)


@surface(VIEW)
def view(input, *shape):
    """view(*shape) -> Tensor

    A view of this tensor's data with another shape: the same elements, in row-major
    order, sharing memory (a change to one is seen in the other).

    The number of elements must stay the same; one size may be ``-1``, inferred from the
    others. A view needs strides that express the new shape: a non-contiguous tensor (a
    transpose) may refuse with an error, where :meth:`~nbgrad.Tensor.reshape` would copy.

    Args:
        *shape (int or tuple of ints): the new shape, as sizes or as one tuple.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(6)
        >>> y = x.view(2, 3)
        >>> y
        tensor([[0, 1, 2],
                [3, 4, 5]])
        >>> x.view(-1, 2).shape
        nbgrad.Size([3, 2])
        >>> y[0, 0] = 100                      # shares memory with x
        >>> x
        tensor([100,   1,   2,   3,   4,   5])

    ``view(dtype)`` reads the same memory as another dtype (PyTorch's bit reinterpretation):
    with another element size the last dimension is rescaled, and must then be contiguous.
    The result shares memory and version counter with this tensor, but no gradient.

        >>> nbgrad.tensor([1.0, -2.0]).view(nbgrad.int32)
        tensor([ 1065353216, -1073741824], dtype=nbgrad.int32)
    """
    if len(shape) == 1 and isinstance(shape[0], _dt.dtype):
        return _view_as_dtype(input, shape[0])
    return VIEW.call(input, _infer(_shape_arg(shape, "view"), input._meta.size))


def _view_as_dtype(input, dtype):
    """``input``'s memory read as ``dtype``: PyTorch's ``view(dtype)``."""
    check_tensor(input, "view")
    old = input._dtype
    if dtype is old:
        t = input._detached_alias()
        return t
    a, b = np.dtype(old.np).itemsize, np.dtype(dtype.np).itemsize
    what = f"to view {old.scalar_type} as {dtype.scalar_type} (different element sizes)"
    if a != b:
        if input.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if input.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got {input.stride(-1)}")
        if b > a:
            k = b // a
            if input.shape[-1] % k:
                raise RuntimeError(f"self.size(-1) must be divisible by {k} {what}, but got "
                                   f"{input.shape[-1]}")
            if input.storage_offset() % k:
                raise RuntimeError(f"self.storage_offset() must be divisible by {k} {what}, "
                                   f"but got {input.storage_offset()}")
            for d in range(input.ndim - 1):
                if input.stride(d) % k:
                    raise RuntimeError(f"self.stride({d}) must be divisible by {k} {what}, "
                                       f"but got {input.stride(d)}")
    data = backend(input._device).view_dtype(input._data, dtype.np)
    t = _wrap(data, dtype, input._device)
    t._vc = input._vc  # (in-place changes through it count for the original too)
    input._owner = None
    return t


@surface(RESHAPE_COPY)
def reshape(input, *shape):
    """The elements of ``input`` with another shape: a view of ``input`` when its strides
    allow it, else a copy.

    The elements are read in row-major order. The number of elements must stay the same;
    one size may be ``-1``, inferred from the others. Do not rely on the result being a
    view or a copy (:meth:`~nbgrad.Tensor.view` always gives a view, or an error).

    Args:
        input (Tensor): the tensor to reshape.
        *shape (int or tuple of ints): the new shape, as sizes or as one tuple.

    Example::

        >>> import nbgrad
        >>> a = nbgrad.arange(6)
        >>> nbgrad.reshape(a, (2, 3))
        tensor([[0, 1, 2],
                [3, 4, 5]])
        >>> nbgrad.reshape(a, (-1, 2)).shape
        nbgrad.Size([3, 2])
        >>> a.reshape(3, 2).t().reshape(6)     # (a copy: the transpose is not contiguous)
        tensor([0, 2, 4, 1, 3, 5])
    """
    shape = _infer(_shape_arg(shape, "reshape", "shape"), input._data.size)
    d = input._data
    if tuple(d.shape) == shape or backend(input._device).reshape_view(d, shape) is not None:
        return VIEW.call(input, shape)
    return RESHAPE_COPY.call(input, shape)


def flatten(input, start_dim=0, end_dim=-1):
    """Flatten the dimensions ``start_dim`` to ``end_dim`` of ``input`` into one.

    A view of ``input`` when its strides allow it, else a copy (as
    :func:`nbgrad.reshape`). A 0-dim tensor gives a 1-d one.

    Args:
        input (Tensor): the input tensor.
        start_dim (int, optional): the first dimension to flatten. Default: ``0``.
        end_dim (int, optional): the last dimension to flatten. Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 3, 4)
        >>> nbgrad.flatten(x).shape
        nbgrad.Size([24])
        >>> nbgrad.flatten(x, start_dim=1).shape
        nbgrad.Size([2, 12])
        >>> nbgrad.flatten(x, 0, 1).shape
        nbgrad.Size([6, 4])
    """
    n = input.ndim
    if n == 0:
        return reshape(input, (1,))
    s, e = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    shp = tuple(input.shape)
    m = 1
    for d in shp[s : e + 1]:
        m *= d
    return reshape(input, shp[:s] + (m,) + shp[e + 1 :])


def inverse_permutation(dims):
    """The permutation that undoes ``dims``."""
    inv = [0] * len(dims)
    for i, d in enumerate(dims):
        inv[d] = i
    return tuple(inv)


def _transposed(n, d0, d1):
    d0, d1 = _wrap_dim(d0, n), _wrap_dim(d1, n)
    perm = list(range(n))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return tuple(perm)


PERMUTE = deffunc("permute", forward=lambda x, odt, dev, dims: backend(dev).permute(x, dims),
                  dtype=same_dtype, shape=lambda s, dims: tuple(s[d] for d in dims), args=("dims",),
                  grads=("permute(grad, inverse_permutation(dims))",), view=_view, fn=False,
                  method=False)
TRANSPOSE = deffunc(
    "transpose", overload="int",
    forward=lambda x, odt, dev, d0, d1: backend(dev).permute(x, _transposed(x.ndim, d0, d1)),
    dtype=same_dtype, shape=lambda s, d0, d1: tuple(s[d] for d in _transposed(len(s), d0, d1)),
    args=("dim0", "dim1"), grads=("transpose(grad, dim0, dim1)",), view=_view, fn=False,
    method=False)


@surface(PERMUTE)
def permute(input, *dims):
    """A view of ``input`` with its dimensions in the order ``dims``.

    Dimension ``i`` of the result is dimension ``dims[i]`` of ``input``; no data is
    copied.

    Args:
        input (Tensor): the input tensor.
        *dims (int or tuple of ints): a permutation of ``0, ..., input.ndim - 1``
            (negative dims count from the end), as ints or as one tuple.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 3, 5)
        >>> nbgrad.permute(x, (2, 0, 1)).shape
        nbgrad.Size([5, 2, 3])
        >>> x.permute(1, 0, 2).shape
        nbgrad.Size([3, 2, 5])
    """
    dims = _shape_arg(dims)
    n = input.ndim
    if len(dims) != n:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the "
            f"length of the desired ordering of dimensions i.e. input.dim() = {n} is not equal "
            f"to len(dims) = {len(dims)}"
        )
    dims = tuple(_wrap_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return PERMUTE.call(input, dims)


@surface(TRANSPOSE)
def transpose(input, dim0, dim1):
    """A view of ``input`` with dimensions ``dim0`` and ``dim1`` swapped.

    No data is copied: the result shares ``input``'s memory.

    Args:
        input (Tensor): the input tensor.
        dim0 (int): the first dimension to swap.
        dim1 (int): the second dimension to swap.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2, 3], [4, 5, 6]])
        >>> nbgrad.transpose(x, 0, 1)
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
        >>> nbgrad.transpose(nbgrad.zeros(2, 3, 4), 0, -1).shape
        nbgrad.Size([4, 3, 2])
    """
    n = input._meta.ndim
    _wrap_dim(dim0, n), _wrap_dim(dim1, n)  # (PyTorch's error for a dim out of range)
    return TRANSPOSE.call(input, dim0, dim1)


def t(input):
    """The transpose of a matrix: ``transpose(input, 0, 1)`` for a 2-d tensor.

    A tensor of 0 or 1 dimensions is returned as it is. More dimensions are an error (use
    :func:`nbgrad.transpose` or ``input.mT``).

    Args:
        input (Tensor): a tensor of at most 2 dimensions.

    Example::

        >>> import nbgrad
        >>> nbgrad.t(nbgrad.tensor([[1, 2, 3], [4, 5, 6]]))
        tensor([[1, 4],
                [2, 5],
                [3, 6]])
        >>> nbgrad.t(nbgrad.tensor([1, 2]))
        tensor([1, 2])
    """
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input.ndim}D")
    if input.ndim < 2:
        return input if not needs_grad(input) else reshape(input, tuple(input.shape))
    return transpose(input, 0, 1)


def _expand_forward(x, odt, dev, size):
    """``x`` broadcast to ``size`` (checked by the front): a view, stride 0 in new and
    broadcast dims."""
    if not x.ndim and size:  # a 0-d gradient of a whole-tensor reduction (the usual loss)
        st = (0,) * len(size)
    elif tuple(x.shape) == size:
        return x
    else:
        lead = len(size) - x.ndim
        st = tuple(0 if i < lead or x.shape[i - lead] != s else x.strides[i - lead]
                   for i, s in enumerate(size))
    try:
        return backend(dev).expand(x, size, st)
    except ValueError:
        # NumPy caps even a stride-0 view at int64 bytes; PyTorch does not
        raise RuntimeError(
            f"expand: nbgrad cannot represent a view of shape {list(size)}: its size in "
            "bytes exceeds the int64 range (a limit of its NumPy storage)"
        ) from None


EXPAND = deffunc("expand", forward=_expand_forward, dtype=same_dtype, shape=_sized, args=("size",),
                 grads=("sum_to(grad, input_shape)",), view=_view, fn=False, method=False)


@surface(EXPAND)
def expand(input, *sizes):
    """A view of ``input`` broadcast to a larger shape, without copying memory.

    A dimension of size 1 can be expanded to any size (its stride becomes 0: every element
    of it is the same memory); new dimensions can be added in front. A size of ``-1`` keeps
    the dimension's size. Write to an expanded tensor only after a ``clone()``.

    Args:
        input (Tensor): the input tensor.
        *sizes (int or tuple of ints): the new shape, as sizes or as one tuple.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1], [2]])
        >>> nbgrad.expand(x, (2, 3))
        tensor([[1, 1, 1],
                [2, 2, 2]])
        >>> x.expand(4, -1, 2).shape
        nbgrad.Size([4, 2, 2])
    """
    sizes = _shape_arg(sizes, "expand")
    n = input.ndim
    if len(sizes) < n:
        raise RuntimeError(
            f"expand({input._type_name()}{{{list(input.shape)}}}, size={list(sizes)}): "
            "the number of sizes provided "
            f"({len(sizes)}) must be greater or equal to the number of dimensions in the tensor ({n})"
        )
    lead = len(sizes) - n
    shp = input._data.shape
    new_shape = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s == -1:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) isn't allowed in a leading, "
                    f"non-existing dimension {i}"
                )
            new_shape.append(s)
            continue
        d = shp[i - lead]
        if s == -1:
            s = d
        if d == s or d == 1:
            new_shape.append(s)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({d}) at "
                f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  "
                f"Tensor sizes: {list(shp)}"
            )
    new_shape = tuple(new_shape)
    numel = 1
    if any(s < 0 for s in new_shape) and 0 in new_shape:
        # PyTorch makes a tensor with a negative size here; refuse it
        raise RuntimeError(
            f"Trying to create tensor with negative dimension {min(new_shape)}: {list(new_shape)}"
        )
    for s in new_shape:
        # PyTorch multiplies the sizes as unsigned: any size below -1 overflows
        numel *= s if s >= 0 else 2**64 + s
    if numel >= 2**63:
        raise RuntimeError("numel: integer multiplication overflow")
    return EXPAND.call(input, new_shape)


def expand_as(input, other):
    """expand_as(other) -> Tensor

    This tensor expanded to ``other``'s shape: ``self.expand(other.size())`` (see
    :meth:`~nbgrad.Tensor.expand`).

    Args:
        other (Tensor): the tensor whose shape to expand to.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([[1], [2]]).expand_as(nbgrad.zeros(2, 3))
        tensor([[1, 1, 1],
                [2, 2, 2]])
    """
    return expand(input, tuple(other.shape))


def _squeezed(s, dims=None):
    """Shape ``s`` without its size-1 dims (those among ``dims`` when given)."""
    return tuple(n for i, n in enumerate(s) if n != 1 or (dims is not None and i not in dims))


def _unsqueezed(s, dim):
    return tuple(s[:dim]) + (1,) + tuple(s[dim:])


_SQUEEZE_GRAD = ("reshape(grad, input_shape)",)
SQUEEZE = deffunc("squeeze", forward=lambda x, odt, dev: backend(dev).reshape_view(
                      x, _squeezed(x.shape)),
                  dtype=same_dtype, shape=_squeezed, grads=_SQUEEZE_GRAD, view=_view, fn=False,
                  method=False)
# squeeze(x, d) and squeeze(x, (d0, d1)): PyTorch's squeeze.dim and squeeze.dims
SQUEEZE_DIM, SQUEEZE_DIMS = (
    deffunc("squeeze", overload=o, forward=lambda x, odt, dev, dim: backend(dev).reshape_view(
                x, _squeezed(x.shape, dim)),
            dtype=same_dtype, shape=_squeezed, args=("dim",), grads=_SQUEEZE_GRAD, view=_view,
            node=node, fn=False, method=False)
    for o, node in (("dim", "SqueezeBackward1"), ("dims", "SqueezeBackward2")))
UNSQUEEZE = deffunc("unsqueeze", forward=lambda x, odt, dev, dim: backend(dev).reshape_view(
                        x, _unsqueezed(x.shape, dim)),
                    dtype=same_dtype, shape=_unsqueezed, args=("dim",),
                    grads=("squeeze(grad, dim)",), view=_view, fn=False, method=False)


@surface(SQUEEZE, SQUEEZE_DIM, SQUEEZE_DIMS)
def squeeze(input, dim=None):
    """A view of ``input`` without its dimensions of size 1 (all of them, or those of
    ``dim``).

    A dimension of ``dim`` whose size is not 1 is left as it is.

    Args:
        input (Tensor): the input tensor.
        dim (int or tuple of ints, optional): the dimensions to remove if their size is 1.
            Default: ``None``, every dimension of size 1.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.zeros(2, 1, 3, 1)
        >>> nbgrad.squeeze(x).shape
        nbgrad.Size([2, 3])
        >>> nbgrad.squeeze(x, 1).shape, nbgrad.squeeze(x, 0).shape
        (nbgrad.Size([2, 3, 1]), nbgrad.Size([2, 1, 3, 1]))
        >>> nbgrad.squeeze(x, (1, 3)).shape
        nbgrad.Size([2, 3])
    """
    if dim is None:
        return SQUEEZE.call(input)
    n = input._data.ndim
    if isinstance(dim, (tuple, list)):
        return SQUEEZE_DIMS.call(input, tuple(sorted({_wrap_dim(d, n) for d in dim})))
    return SQUEEZE_DIM.call(input, (_wrap_dim(dim, n),))


@surface(UNSQUEEZE)
def unsqueeze(input, dim):
    """A view of ``input`` with a dimension of size 1 inserted at position ``dim``.

    ``dim`` may be from ``-input.ndim - 1`` to ``input.ndim``; a negative one counts from
    the end of the result (``-1`` adds the last dimension).

    Args:
        input (Tensor): the input tensor.
        dim (int): where the new dimension is, in the result.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1, 2, 3])
        >>> nbgrad.unsqueeze(x, 0)
        tensor([[1, 2, 3]])
        >>> nbgrad.unsqueeze(x, -1)
        tensor([[1],
                [2],
                [3]])
    """
    return UNSQUEEZE.call(input, _wrap_dim(dim, input._data.ndim + 1))


# ----- basic indexing ----------------------------------------------------------------
def _adv_key(key):
    """True for keys that need advanced indexing: index tensors, lists, masks, bools."""
    for k in key if key.__class__ is tuple else (key,):
        if isinstance(k, Tensor):
            if k.ndim != 0 or k._dtype._cat != 1:
                return True
        elif isinstance(k, (list, tuple, np.ndarray, bool, np.bool_)):
            return True
    return False


def _check_key(x, key):
    """Validate a basic-indexing key (ints, slices, None, Ellipsis) and normalise it."""
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    n_dims = 0
    for k in key:
        if isinstance(k, Tensor):
            if k.ndim == 0 and not k._dtype.is_floating_point and k._dtype.name != "bool":
                k = int(k.item())
            else:
                raise NotImplementedError(
                    "indexing with tensors (advanced indexing) is not supported by nbgrad yet; "
                    "use ints, slices, None and ..."
                )
        if isinstance(k, (bool, np.bool_)):
            raise NotImplementedError("indexing with a bool is not supported by nbgrad yet")
        if isinstance(k, (int, np.integer)):
            out.append(int(k))
            n_dims += 1
        elif isinstance(k, slice):
            if k.step is not None and int(k.step) <= 0:
                raise ValueError("step must be greater than zero")
            out.append(k)
            n_dims += 1
        elif k is None or k is Ellipsis:
            out.append(k)
        elif isinstance(k, str):  # (PyTorch reads it as data for a new index tensor)
            raise TypeError("new(): invalid data type 'str'")
        elif isinstance(k, (float, complex)):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or "
                             f"byte Variables are valid indices (got {type(k).__name__})")
        else:
            raise NotImplementedError(
                f"indexing with {type(k).__name__} (advanced indexing) is not supported by "
                "nbgrad yet; use ints, slices, None and ..."
            )
    if sum(1 for k in out if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if n_dims > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    # bounds check ints in PyTorch's words
    dim = 0
    for i, k in enumerate(out):
        if k is Ellipsis:
            dim += x.ndim - n_dims
            continue
        if k is None:
            continue
        if isinstance(k, int):
            size = x._data.shape[dim]
            if not -size <= k < size:
                raise IndexError(
                    f"index {k} is out of bounds for dimension {dim} with size {size}"
                )
        dim += 1
    return tuple(out)


def _broadcast_view(shape):
    # an array of ``shape`` without its memory: what a key makes of it, for the shape rule
    return np.lib.stride_tricks.as_strided(np.empty(1, np.bool_), tuple(shape),
                                           (0,) * len(shape))


# basic indexing: one row by whether the key selects (drops a dim) or only slices, as
# PyTorch's select and slice (which record a node per indexed dim; here one per key)
SELECT, SLICE = (
    deffunc("getitem", overload=name.lower(), node=name + "Backward0", forward=lambda x, odt, dev, key: backend(dev).getitem(x, key), dtype=same_dtype,
            shape=lambda s, key: _broadcast_view(s)[key].shape, args=("key",),
            grads=("index_backward(grad, input_shape, key)",), view=_view, fn=False,
            method=False)
    for name in ("Select", "Slice"))


@surface(SELECT, SLICE)
def getitem(input, key):
    """Basic indexing (ints, slices, None, ...) as a view; advanced keys (index tensors,
    lists, bool masks) go to ``ops/advanced_index.py`` and give a copy."""
    if _adv_key(key):
        from .advanced_index import advanced_getitem

        return advanced_getitem(input, key)
    key = _check_key(input, key)
    for k in key:
        if k.__class__ is int:
            return SELECT.call(input, key)
    return SLICE.call(input, key)


def _split_sizes(n, split_size):
    # split's chunk sizes: ``split_size`` each, the last one shorter
    return [min(split_size, n - i) for i in range(0, n, split_size)] if n else [0]


def _split_forward(x, odt, dev, sizes, dim):
    be = backend(dev)
    lead = (slice(None),) * dim
    out = []
    start = 0
    for n in sizes:
        out.append(be.getitem(x, lead + (slice(start, start + n),)))
        start += n
    return out


def split_backward(grads, sizes, dim, shape, dtype, device):
    """The gradient of ``split``'s input: each output's gradient in its region along
    ``dim`` (zeros where an output got none); ``cat`` of them when a graph is recorded."""
    if any(g is not None and needs_grad(g) for g in grads):
        from .concat import cat

        return cat([g if g is not None else _zeros_of(shape, dim, n, dtype, device)
                    for g, n in zip(grads, sizes)], dim)
    be = backend(device)
    data = be.empty(shape, dtype.np) if all(g is not None for g in grads) \
        else be.zeros(shape, dtype.np)
    lead = (slice(None),) * dim
    start = 0
    for g, n in zip(grads, sizes):
        if g is not None and n:
            copy_data(g._data, dtype, device, out=be.getitem(data, lead + (slice(start, start + n),)))
        start += n
    return _fresh(data, dtype, device)


def _zeros_of(shape, d, n, dt, dev):
    from ..creation import zeros

    s = list(shape)
    s[d] = n
    return zeros(tuple(s), dtype=dt, device=dev)


# one node for all the views (PyTorch's split.Tensor and split_with_sizes), the sizes
# normalized by the front (the node keeps them rather than recomputing from split_size)
SPLIT, SPLIT_WITH_SIZES = (
    deffunc("split", overload=o, forward=_split_forward, dtype=same_dtype,
            shape=lambda s, sizes, dim: tuple(
                tuple(s[:dim]) + (n,) + tuple(s[dim + 1:]) for n in sizes),
            args=("sizes", "dim"), multi=True, view=_view, node=node,
            grads=("split_backward(grads, sizes, dim, input_shape, input_dtype, "
                   "input_device)",), fn=False, method=False)
    for o, node in (("Tensor", "SplitBackward0"), ("sizes", "SplitWithSizesBackward0")))


def split_views(input, d, sizes, with_sizes):
    """The views of ``input`` split along dim ``d`` into ``sizes``, recorded as PyTorch does:
    one ``SplitBackward0`` (``SplitWithSizesBackward0`` for explicit sizes) for all of them,
    outputs that may not be modified in place."""
    from .view_inplace import mark_multi

    outs = (SPLIT_WITH_SIZES if with_sizes else SPLIT).call(input, tuple(sizes), d)
    if outs and outs[0]._grad_fn is not None:
        mark_multi(outs, "SplitWithSizes" if with_sizes else "Split")
    return outs


def _index_backward_forward(g, odt, dev, shape, key):
    be = backend(dev)
    data = be.zeros(shape, odt.np)
    copy_data(g, odt, dev, out=be.getitem(data, key))
    return data


INDEX_BACKWARD = deffunc("index_backward", params=("grad_output",), kernels=("copy",),
                         forward=_index_backward_forward, dtype=same_dtype,
                         shape=lambda s, shape, key: tuple(shape), args=("shape", "key"),
                         grads=("getitem(grad, key)",), node="IndexBackwardBackward0",
                         torch_names={}, fn=False, method=False)


@surface(INDEX_BACKWARD)
def index_backward(grad, shape, key):
    """A zero tensor of ``shape`` with ``grad`` written at ``key`` (getitem's backward)."""
    return INDEX_BACKWARD.call(grad, tuple(shape), key)


# ----- repeat / tile / flip ---------------------------------------------------------------
def _repeat_layout(shape, repeats):
    """``(tiles, tiled)``: ``shape`` padded to ``repeats``' length with a size-1 dim before
    each dim, and the same with each such dim ``repeats`` long (repeat's result, before
    merging each pair)."""
    xs = (1,) * (len(repeats) - len(shape)) + tuple(shape)
    ones, tiled = [], []
    for r, s in zip(repeats, xs):
        ones += [1, s]
        tiled += [r, s]
    return tuple(ones), tuple(tiled)


def _repeat_shape(s, repeats):
    xs = (1,) * (len(repeats) - len(s)) + tuple(s)
    return tuple(r * n for r, n in zip(repeats, xs))


def _repeat_forward(x, odt, dev, repeats):
    ones, tiled = _repeat_layout(x.shape, repeats)
    src = _expand_forward(x.reshape(ones), odt, dev, tiled)
    return copy_data(src, odt, dev).reshape(_repeat_shape(x.shape, repeats))


def repeat_backward(grad, repeats, input_shape):
    """The sum over the tiles of ``grad``: repeat's gradient."""
    from .reduce import sum as _sum  # (reduce imports this module)

    _, tiled = _repeat_layout(input_shape, repeats)
    return reshape(_sum(reshape(grad, tiled), tuple(range(0, 2 * len(repeats), 2))),
                   tuple(input_shape))


REPEAT = deffunc("repeat", kernels=("copy",), forward=_repeat_forward, dtype=same_dtype,
                 shape=_repeat_shape, args=("repeats",),
                 grads=("repeat_backward(grad, repeats, input_shape)",), fn=False,
                 method=False)


@surface(REPEAT)
def repeat(input, *sizes):
    """repeat(*sizes) -> Tensor

    This tensor repeated ``sizes[i]`` times along dimension ``i``: a new tensor (unlike
    :meth:`~nbgrad.Tensor.expand`, the data is copied).

    ``sizes`` may be longer than the tensor's number of dimensions: new dimensions are
    added in front. It is NumPy's ``tile`` (see also :func:`nbgrad.tile`);
    :func:`nbgrad.repeat_interleave` repeats each element in place instead.

    Args:
        *sizes (int or tuple of ints): the number of repetitions along each dimension, as
            ints or as one tuple.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1, 2, 3])
        >>> x.repeat(2, 2)
        tensor([[1, 2, 3, 1, 2, 3],
                [1, 2, 3, 1, 2, 3]])
        >>> x.repeat(4, 2, 1).shape
        nbgrad.Size([4, 2, 3])
    """
    sizes = _shape_arg(sizes)
    n = input.ndim
    if len(sizes) < n:
        raise RuntimeError(
            "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
        )
    for s in sizes:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(_repeat_shape(input.shape, sizes))}")
    return REPEAT.call(input, sizes)


def tile(input, dims):
    """``input`` repeated ``dims[i]`` times along dimension ``i``, as NumPy's ``tile``.

    When ``dims`` has fewer entries than ``input`` has dimensions, ones are put in front
    of it (``tile(x, (2,))`` of a matrix repeats its columns); when it has more, new
    dimensions are added in front of ``input``'s. It is ``Tensor.repeat`` with that rule.

    Args:
        input (Tensor): the tensor to repeat.
        dims (int or tuple of ints): the number of repetitions along each dimension.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2], [3, 4]])
        >>> nbgrad.tile(x, (2,))
        tensor([[1, 2, 1, 2],
                [3, 4, 3, 4]])
        >>> nbgrad.tile(x, (2, 1))
        tensor([[1, 2],
                [3, 4],
                [1, 2],
                [3, 4]])
    """
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(dims) < input.ndim:
        dims = (1,) * (input.ndim - len(dims)) + dims
    return repeat(input, dims)


def _tile_method(self, *dims):
    """tile(*dims) -> Tensor

    See :func:`nbgrad.tile` (the repetitions may be given as ints or as one tuple).

    Args:
        *dims (int or tuple of ints): the number of repetitions along each dimension.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([1, 2]).tile(2)
        tensor([1, 2, 1, 2])
    """
    return tile(self, _shape_arg(dims))


def _flip_forward(x, odt, dev, dims):
    key = tuple(slice(None, None, -1) if i in dims else slice(None) for i in range(x.ndim))
    return copy_data(backend(dev).getitem(x, key) if dims else x, odt, dev)


FLIP = deffunc("flip", kernels=("copy",), forward=_flip_forward, dtype=same_dtype,
               shape=same_shape, args=("dims",), grads=("flip(grad, dims)",),
               fn=False, method=False)


@surface(FLIP)
def flip(input, dims):
    """A copy of ``input`` with the order of its elements reversed along ``dims``.

    NumPy's ``flip`` would give a view; here the data is copied.

    Args:
        input (Tensor): the input tensor.
        dims (int or tuple of ints): the dimensions to reverse.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([[1, 2], [3, 4]])
        >>> nbgrad.flip(x, (0,))
        tensor([[3, 4],
                [1, 2]])
        >>> nbgrad.flip(x, (0, 1))
        tensor([[4, 3],
                [2, 1]])
    """
    check_tensor(input, "flip")
    ds = dims if isinstance(dims, (tuple, list)) else (dims,)
    n = input.ndim
    seen = []
    for d in ds:
        d = _wrap_dim(int(d), n)
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.append(d)
    return FLIP.call(input, tuple(seen))


def _flip_method(self, *dims):
    """flip(*dims) -> Tensor

    See :func:`nbgrad.flip` (the dimensions may be given as ints or as one tuple).

    Args:
        *dims (int or tuple of ints): the dimensions to reverse.

    Example::

        >>> import nbgrad
        >>> nbgrad.tensor([[1, 2], [3, 4]]).flip(1)
        tensor([[2, 1],
                [4, 3]])
    """
    return flip(self, _shape_arg(dims))
