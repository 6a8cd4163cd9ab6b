"""A tensor's storage as PyTorch shows it: ``Tensor.untyped_storage()`` (its bytes),
``Tensor.storage()`` (its elements; deprecated in PyTorch, as here), and what changes it in
place: ``resize_``, ``resize_as_``; ``is_set_to`` compares two tensors' views of it.

A CPU tensor's storage is the NumPy array its data views (following ``.base`` to the
array that owns the memory): tensors that share memory share it, so ``data_ptr()`` of
their storages is equal, as PyTorch programs check. CUDA tensors have no storage object
here yet.
"""

import warnings

import numpy as np

from .ops.view_inplace import _ptr
from .tensor import Tensor, _wrap

__all__ = ["UntypedStorage", "TypedStorage", "is_storage", "resize_", "resize_as_",
           "is_set_to"]


def _root(t):
    if not isinstance(t._data, np.ndarray):
        raise NotImplementedError(f"the storage of a {t.device.type} tensor is not supported "
                                  "by nbgrad yet")
    a = t._data
    while isinstance(a.base, np.ndarray):
        a = a.base
    return a


class UntypedStorage:
    """The memory under a tensor, as bytes: what ``Tensor.untyped_storage()`` returns, as
    PyTorch's ``torch.UntypedStorage``.

    A tensor's storage is the whole memory of the array that owns its data, so the views of
    one tensor share one storage: their storages' ``data_ptr()`` are equal, which is how
    PyTorch programs test whether tensors share memory. It supports ``data_ptr()``,
    ``nbytes()``, ``size()`` (in bytes), ``element_size()``, ``tolist()``, indexing (a byte)
    and ``len``. Only CPU tensors have one here.

    Args:
        array (numpy.ndarray): the array that owns the memory (a storage is got from a
            tensor, not constructed).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(6.0)
        >>> u = x.untyped_storage()
        >>> u.nbytes(), x[2:].untyped_storage().data_ptr() == u.data_ptr()
        (24, True)
    """

    __slots__ = ("_array",)

    def __init__(self, array):
        self._array = array

    def _bytes(self):
        return np.frombuffer(self._array, np.uint8) if self._array.flags.c_contiguous or \
            self._array.flags.f_contiguous else self._array.view(np.uint8).reshape(-1)

    def data_ptr(self):
        return _ptr(self._array)

    def nbytes(self):
        return self._array.nbytes

    def size(self):
        return self._array.nbytes

    __len__ = size

    def element_size(self):
        return 1

    @property
    def device(self):
        from .device import CPU

        return CPU

    @property
    def is_cuda(self):
        return False

    def is_shared(self):
        return False

    def __getitem__(self, i):
        return int(self._bytes()[i])

    def tolist(self):
        return self._bytes().tolist()

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[nbgrad.UntypedStorage(device=cpu) of size {self.size()}]"


class TypedStorage:
    """The elements under a tensor, of its dtype: what ``Tensor.storage()`` returns, as
    PyTorch's deprecated ``torch.TypedStorage`` (``Tensor.storage()`` warns, as PyTorch's).

    It holds every element of the memory the tensor views (not only the tensor's own), and
    supports ``data_ptr()``, ``size()`` (in elements), ``element_size()``, ``nbytes()``,
    ``tolist()``, indexing, ``len`` and ``untyped()`` (its :class:`UntypedStorage`).

    Args:
        array (numpy.ndarray): the array that owns the memory.
        dtype (nbgrad.dtype): the dtype of the elements.

    Attributes:
        dtype (nbgrad.dtype): the dtype of the elements.

    Example::

        >>> import nbgrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nbgrad.arange(3.0)[1:].storage().tolist()
        [0.0, 1.0, 2.0]
    """

    __slots__ = ("_array", "dtype")

    def __init__(self, array, dtype):
        self._array, self.dtype = array, dtype

    def _values(self):
        return self._array.reshape(-1, order="A") if (
            self._array.flags.c_contiguous or self._array.flags.f_contiguous) else \
            self._array.ravel(order="K")

    def data_ptr(self):
        return _ptr(self._array)

    def size(self):
        return self._array.size

    __len__ = size

    def element_size(self):
        return self.dtype.itemsize

    def nbytes(self):
        return self._array.nbytes

    @property
    def device(self):
        from .device import CPU

        return CPU

    def untyped(self):
        return UntypedStorage(self._array)

    def __getitem__(self, i):
        return self._values()[i].item()

    def tolist(self):
        return self._values().tolist()

    def __repr__(self):
        body = "\n".join(f" {v}" for v in self.tolist())
        return (f"{body}\n[nbgrad.TypedStorage(dtype={self.dtype}, device=cpu) of size "
                f"{self.size()}]")


def is_storage(obj):
    """is_storage(obj) -> bool

    Whether ``obj`` is a storage: an :class:`UntypedStorage` or a :class:`TypedStorage`.

    Args:
        obj (object): the object to test.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.ones(2)
        >>> nbgrad.is_storage(x.untyped_storage()), nbgrad.is_storage(x)
        (True, False)
    """
    return isinstance(obj, (UntypedStorage, TypedStorage))


def untyped_storage(t):
    """untyped_storage() -> nbgrad.UntypedStorage

    The memory under this tensor, as bytes: the storage of the array that owns its data,
    shared by all the tensors that view it (see :class:`nbgrad.UntypedStorage`). CPU tensors
    only.

    Args:
        t (Tensor): the tensor (``self``: the method takes no argument).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(4.0)
        >>> x.untyped_storage().nbytes(), x[1:].untyped_storage().nbytes()
        (16, 16)
    """
    return UntypedStorage(_root(t))


def typed_storage(t):
    """storage() -> nbgrad.TypedStorage

    The elements under this tensor, of its dtype (see :class:`nbgrad.TypedStorage`).
    Deprecated, as PyTorch's: it warns; use :meth:`untyped_storage`.

    Args:
        t (Tensor): the tensor (``self``: the method takes no argument).

    Example::

        >>> import nbgrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     s = nbgrad.arange(4.0)[2:].storage()
        >>> s.size(), s.dtype
        (4, nbgrad.float32)
    """
    warnings.warn("TypedStorage is deprecated. It will be removed in the future and "
                  "UntypedStorage will be the only storage class. This should only matter to "
                  "you if you are using storages directly.  To access UntypedStorage "
                  "directly, use tensor.untyped_storage() instead of tensor.storage()",
                  UserWarning, stacklevel=2)
    return TypedStorage(_root(t), t._dtype)


def resize_(t, *sizes):
    """resize_(*sizes) -> Tensor

    Give this tensor the shape ``sizes`` in place, and return it. The elements are taken in
    row-major order from the tensor's first element: the values already in memory stay
    (a prefix of them when it shrinks); new elements, when the storage is too short, are
    zeros here (uninitialised in PyTorch). A tensor that requires grad cannot be resized.

    When the memory grows, nbgrad gives this tensor new memory: it then no longer shares it
    with the tensors that viewed its storage (PyTorch grows the storage they share).

    Args:
        sizes (int... or tuple of int): the new shape, as separate ints or one sequence.

    Example::

        >>> import nbgrad
        >>> nbgrad.arange(6.0).resize_(2, 2)
        tensor([[0., 1.],
                [2., 3.]])
        >>> nbgrad.arange(2.0).resize_(3)
        tensor([0., 1., 0.])
    """
    if len(sizes) == 1 and isinstance(sizes[0], (tuple, list)):
        sizes = tuple(sizes[0])
    sizes = tuple(int(s) for s in sizes)
    if any(s < 0 for s in sizes):
        if 0 in sizes:  # (PyTorch makes a tensor of a negative size here; refuse it)
            raise RuntimeError(f"Trying to create tensor with negative dimension "
                               f"{min(sizes)}: {list(sizes)}")
        # (PyTorch multiplies the sizes as unsigned)
        raise RuntimeError("numel: integer multiplication overflow")
    if t.requires_grad:
        raise RuntimeError("cannot resize variables that require grad")
    if sizes == tuple(t.shape):
        return t
    root = _root(t)
    isz = t._dtype.itemsize
    offset = (_ptr(t._data) - _ptr(root)) // isz if root.size else 0
    n = int(np.prod(sizes, dtype=np.int64))
    flat = root.reshape(-1, order="A") if (root.flags.c_contiguous or root.flags.f_contiguous) \
        else None
    if flat is not None and offset + n <= flat.size and np.shares_memory(flat, root):
        data = flat[offset:offset + n].reshape(sizes)
    else:
        grown = np.zeros(offset + n, root.dtype)
        old = root.reshape(-1, order="A") if flat is not None else root.ravel(order="K")
        grown[:min(old.size, grown.size)] = old[:grown.size]
        data = grown[offset:].reshape(sizes)
        if t._base is not None:  # (still a view, of the grown storage)
            t._base = _wrap(grown, t._dtype, t._device)
    t._data = data
    t._sk = None  # (its layout key: worked out again on next use)
    t._vc[0] += 1
    return t


def resize_as_(t, other, memory_format=None):
    """resize_as_(other, memory_format=None) -> Tensor

    :meth:`resize_` this tensor to ``other``'s shape, in place.

    Args:
        other (Tensor): the tensor whose shape to take.
        memory_format (nbgrad.memory_format, optional): accepted for PyTorch's signature; the
            result is row-major. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> nbgrad.arange(6.0).resize_as_(nbgrad.ones(3))
        tensor([0., 1., 2.])
    """
    return resize_(t, tuple(other.shape))


def is_set_to(t, other):
    """is_set_to(other) -> bool

    Whether this tensor and ``other`` are the same view of the same memory: the same
    storage, dtype, device, first element, shape and strides.

    Args:
        other (Tensor): the tensor to compare with (PyTorch names the argument ``tensor``).

    Example::

        >>> import nbgrad
        >>> x = nbgrad.arange(4.0)
        >>> x[1:].is_set_to(x[1:]), x.is_set_to(x.clone())
        (True, False)
    """
    if not isinstance(other, Tensor):
        raise TypeError(f"is_set_to(): argument 'tensor' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    a, b = t._data, other._data
    return (t.device == other.device and t._dtype is other._dtype
            and _ptr(a) == _ptr(b) and a.shape == b.shape and a.strides == b.strides
            and _root(t) is _root(other))
