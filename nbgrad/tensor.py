"""The Tensor: storage on a device, dtype, and its place in the autograd graph."""

import warnings
import weakref

import numpy as np

from . import _recording
from . import dtypes as _dt
from ._warnings import warn_once
from .autograd import graph as _graph
from .autograd.grad_mode import ACTIVE as _INFER
from .autograd.grad_mode import STATE as _GRAD_STATE
from .autograd.grad_mode import version_counter as _version_counter
from .device import CPU
from .storage import for_device

_TYPE_NAMES = {d.name: d.scalar_type + "Tensor" for d in _dt.ALL}
_LEGACY = {d.name: d.legacy for d in _dt.ALL}


class Size(tuple):
    """A tensor's shape: a tuple of ints that prints as ``nbgrad.Size([2, 3])``.

    ``Tensor.shape`` and ``Tensor.size()`` return one. It is a tuple in every other way
    (indexing, unpacking, comparison with tuples), with :meth:`numel`, the product of the
    sizes. Functions that take a shape take a ``Size`` as they take a tuple.

    Args:
        sizes (iterable of ints, optional): the sizes. Default: empty, the shape of a 0-dim
            tensor.

    Example::

        >>> import nbgrad
        >>> s = nbgrad.zeros(2, 3).shape
        >>> s, s[1], s == (2, 3), s.numel()
        (nbgrad.Size([2, 3]), 3, True, 6)
        >>> nbgrad.Size([4, 5])
        nbgrad.Size([4, 5])
    """

    __slots__ = ()

    def __repr__(self):
        return f"nbgrad.Size({list(self)})"

    def numel(self):
        """The number of elements of a tensor of this shape: the product of the sizes."""
        n = 1
        for s in self:
            n *= s
        return n

    # slices, concatenations and repeats stay Sizes, as PyTorch's
    def __getitem__(self, key):
        r = tuple.__getitem__(self, key)
        return Size(r) if key.__class__ is slice else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to "
                            "nbgrad.Size")
        return Size(tuple.__add__(self, other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple.__add__(other, self))

    def __mul__(self, n):
        return Size(tuple.__mul__(self, n))

    __rmul__ = __mul__


class Tensor:
    """An n-dimensional array of one dtype on one device, which can record the operations
    applied to it for autograd.

    Tensors are made by :func:`nbgrad.tensor` and the creation functions
    (:func:`nbgrad.zeros`, :func:`nbgrad.randn`, ...), or by operations on other tensors.
    A tensor that ``requires_grad`` records the operations that use it, and
    :meth:`backward` computes gradients through them into the ``.grad`` of the leaves.

    Calling ``nbgrad.Tensor(...)`` itself is PyTorch's legacy constructor, in the default
    dtype: ``Tensor(2, 3)`` is an uninitialized 2 x 3 tensor, ``Tensor([1, 2])`` a copy of
    the data, ``Tensor()`` an empty one.

    Args:
        *args (int or sequence): the sizes of an uninitialized tensor, or its data.
        device (nbgrad.device or str, optional): the device of the tensor. Default:
            ``None``, the CPU.

    Example::

        >>> import nbgrad
        >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
        >>> (x * x).sum().backward(); x.grad
        tensor([2., 4.])
        >>> nbgrad.Tensor([1, 2])
        tensor([1., 2.])
    """

    __slots__ = (
        "_data", "_dtype", "_device", "_rg", "_grad", "_grad_fn", "_output_nr", "_vc",
        "_base", "_hooks", "_acc", "_retains_grad", "_sk", "_owner", "__weakref__",
    )
    __array_priority__ = 1000  # so ndarray <op> Tensor defers to Tensor's reflected op

    def __new__(cls, *args, device=None):
        """PyTorch's legacy constructor, in the default dtype: ``Tensor(2, 3)`` an
        uninitialised 2x3 tensor, ``Tensor([1, 2])`` a copy of the data, ``Tensor()`` an
        empty one. ``nbgrad.tensor`` and the creation functions are the modern forms."""
        from . import tensor_types
        from .device import as_device

        dev = as_device("cpu" if device is None else device)
        return tensor_types.construct(_dt.get_default_dtype(), dev, args, strict=False)

    # ----- attributes ---------------------------------------------------------------
    @property
    def shape(self):
        return Size(self._data.shape)

    def size(self, dim=None):
        """size(dim=None) -> Size or int

        The shape of this tensor, as a :class:`nbgrad.Size`, or the size of dimension
        ``dim``.

        Args:
            dim (int, optional): the dimension whose size to return (negative: from the
                end). Default: ``None``, the whole shape.

        Example::

            >>> import nbgrad
            >>> x = nbgrad.zeros(2, 3)
            >>> x.size(), x.size(1), x.size(-2)
            (nbgrad.Size([2, 3]), 3, 2)
        """
        if dim is None:
            return Size(self._data.shape)
        return self._data.shape[_wrap_dim(dim, self._data.ndim)]

    @property
    def _meta(self):
        # the storage, for its shape, ndim and size only: a front reads these here (the
        # compiler's pending tensors know them before their values: compiler/lazy.py)
        return self._data

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._device

    @property
    def ndim(self):
        return self._data.ndim

    def dim(self):
        """dim() -> int

        The number of dimensions of this tensor (``ndim``; ``ndimension()`` is another name).

        Example::

            >>> import nbgrad
            >>> nbgrad.zeros(2, 3).dim(), nbgrad.tensor(5.0).dim()
            (2, 0)
        """
        return self._data.ndim

    def numel(self):
        """numel() -> int

        The number of elements of this tensor: the product of its sizes.
        ``nelement()`` is another name, and :func:`nbgrad.numel` the function form.

        Example::

            >>> import nbgrad
            >>> nbgrad.zeros(2, 3).numel(), nbgrad.tensor(5.0).numel()
            (6, 1)
        """
        return self._data.size

    def nelement(self):
        """nelement() -> int

        The number of elements of this tensor: another name for :meth:`numel`.

        Example::

            >>> import nbgrad
            >>> nbgrad.zeros(4, 5).nelement()
            20
        """
        return self._data.size

    def element_size(self):
        """element_size() -> int

        The size in bytes of one element of this tensor's dtype.

        Example::

            >>> import nbgrad
            >>> nbgrad.zeros(2).element_size()
            4
            >>> nbgrad.zeros(2, dtype=nbgrad.int8).element_size()
            1
        """
        return self._dtype.itemsize

    def is_floating_point(self):
        """is_floating_point() -> bool

        Whether this tensor's dtype is a floating-point one (float16, bfloat16, float32,
        float64); :func:`nbgrad.is_floating_point` is the function form.

        Example::

            >>> import nbgrad
            >>> nbgrad.zeros(2).is_floating_point(), nbgrad.tensor([1]).is_floating_point()
            (True, False)
        """
        return self._dtype.is_floating_point

    def stride(self, dim=None):
        """stride(dim=None) -> tuple or int

        The strides of this tensor: for each dimension, how many elements apart in memory
        two neighbours along it are (or the stride of dimension ``dim``).

        Args:
            dim (int, optional): the dimension whose stride to return. Default: ``None``,
                all of them.

        Example::

            >>> import nbgrad
            >>> x = nbgrad.zeros(2, 3)
            >>> x.stride(), x.stride(0), x.t().stride()
            ((3, 1), 3, (1, 3))
        """
        s = tuple(x // self._dtype.itemsize for x in self._data.strides)
        return s if dim is None else s[_wrap_dim(dim, self.ndim)]

    def is_contiguous(self, memory_format=None):
        """is_contiguous(memory_format=None) -> bool

        Whether this tensor is dense in memory in row-major order (the last dimension's
        elements next to each other), or in the order ``memory_format`` names.

        A transpose or a slice with a step is not contiguous; :meth:`contiguous` makes a
        contiguous copy.

        Args:
            memory_format (nbgrad.memory_format, optional): the order to test
                (``nbgrad.channels_last`` for a 4-d tensor, ...). Default: ``None``,
                row-major.

        Example::

            >>> import nbgrad
            >>> x = nbgrad.zeros(2, 3)
            >>> x.is_contiguous(), x.t().is_contiguous(), x[:, ::2].is_contiguous()
            (True, False, False)
        """
        d = self._data
        if memory_format is not None:
            from .memory_formats import is_contiguous_as

            return is_contiguous_as(d.shape, self.stride(), memory_format)
        if d.__class__ is np.ndarray:
            return d.flags.c_contiguous
        return for_device(self._device).is_contiguous(d)

    @property
    def is_cuda(self):
        return self._device.type == "cuda"

    @property
    def is_leaf(self):
        return self._grad_fn is None

    @property
    def grad_fn(self):
        return self._grad_fn

    @property
    def requires_grad(self):
        rg = self._rg
        return rg if rg.__class__ is bool else bool(rg)  # bool() raises for a stale view

    @requires_grad.setter
    def requires_grad(self, v):
        if self._grad_fn is not None:  # (the setter refuses a non-leaf either way)
            raise RuntimeError("you can only change requires_grad flags of leaf variables.")
        if v and not self._dtype.is_floating_point:  # (PyTorch's words here differ)
            raise RuntimeError("only Tensors of floating point and complex dtype can require "
                               "gradients")
        self.requires_grad_(v)

    @property
    def retains_grad(self):
        return self._retains_grad

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def _version(self):
        if self._vc.__class__ is not list:
            raise RuntimeError("Inference tensors do not track version counter.")
        return self._vc[0]

    def is_inference(self):
        """is_inference() -> bool

        Whether this tensor was made in :class:`nbgrad.inference_mode` (or is a view of one
        that was): such a tensor has no version counter and cannot be used in a graph.

        Example::

            >>> import nbgrad
            >>> with nbgrad.inference_mode():
            ...     x = nbgrad.ones(2)
            >>> x.is_inference(), nbgrad.ones(2).is_inference()
            (True, False)
        """
        return self._vc.__class__ is not list

    @property
    def grad(self):
        if self._grad_fn is not None and not self._retains_grad and self._grad is None:
            warnings.warn(
                "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. "
                "Its .grad attribute won't be populated during autograd.backward(). If you "
                "indeed want the .grad field to be populated for a non-leaf Tensor, use "
                ".retain_grad() on the non-leaf Tensor.",
                UserWarning,
                stacklevel=2,
            )
        return self._grad

    @grad.setter
    def grad(self, g):
        if g is not None:
            if not isinstance(g, Tensor):
                raise TypeError(
                    f"assigned grad expected to be a Tensor or None but got grad of type {type(g).__name__}"
                )
            if g._dtype is not self._dtype:
                raise RuntimeError(
                    f"attempting to assign a gradient with dtype '{_LEGACY[g._dtype.name]}' to a "
                    f"tensor with grad_dtype '{_LEGACY[self._dtype.name].capitalize()}'. The "
                    "gradient must match the tensor's dtype."
                )
            if g._device != self._device:
                raise RuntimeError("assigned grad has data located on a different device")
            if g.shape != self.shape:
                raise RuntimeError(
                    f"attempting to assign a gradient of size '{list(g.shape)}' to a tensor of "
                    f"size '{list(self.shape)}'. Please ensure that the gradient and the tensor "
                    "are the same size"
                )
        self._grad = g

    @grad.deleter
    def grad(self):
        self._grad = None

    @property
    def data(self):
        # the same memory with a version counter of its own, as PyTorch's: a write through
        # ``.data`` (the legacy way to update weights) is hidden from autograd's checks
        self._owner = None
        return _wrap(self._data, self._dtype, self._device)

    @data.setter
    def data(self, other):
        if not isinstance(other, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(other).__name__}")
        if self._rg and not other._dtype.is_floating_point:
            raise RuntimeError("data set to a tensor that requires gradients must be floating "
                               "point or complex dtype")
        self._data = other._data
        self._dtype = other._dtype
        self._device = other._device
        self._sk = None
        self._owner = other._owner = None  # two tensors now share the memory

    # ----- autograd ---------------------------------------------------------------
    def requires_grad_(self, requires_grad=True):
        """Set, in place, whether autograd records the operations on this tensor.

        The usual way to mark a tensor as a parameter to learn, or to freeze one (stop
        computing its gradient, e.g. when fine-tuning part of a model).

        Args:
            requires_grad (bool, optional): whether ops on this tensor are recorded for
                differentiation. Default: ``True``.

        Returns:
            Tensor: ``self``.

        Raises:
            RuntimeError: ``requires_grad=False`` on a non-leaf tensor (one with a
                ``grad_fn``: use ``detach()``), ``requires_grad=True`` on a tensor whose
                dtype is not floating point, or on an inference tensor outside
                ``inference_mode``.

        Example::

            >>> w = nbgrad.ones(2).requires_grad_()
            >>> w
            tensor([1., 1.], requires_grad=True)
            >>> (w * 2).requires_grad_(True).is_leaf  # no-op on a non-leaf that requires grad
            False
            >>> w.requires_grad_(False).requires_grad
            False
        """
        if self._grad_fn is not None:
            if not requires_grad:
                raise RuntimeError(
                    "you can only change requires_grad flags of leaf variables. If you want to "
                    "use a computed variable in a subgraph that doesn't require differentiation "
                    "use var_no_grad = var.detach()."
                )
            return self
        if requires_grad and self._vc.__class__ is not list:
            if not _GRAD_STATE.inference:
                raise RuntimeError("Setting requires_grad=True on inference tensor outside "
                                   "InferenceMode is not allowed.")
        if requires_grad and not self._dtype.is_floating_point:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._rg = bool(requires_grad)
        return self

    def detach(self):
        """Return a new tensor that shares this one's data but is cut from the graph.

        The result is a leaf with ``requires_grad=False`` and no ``grad_fn``: gradients do
        not flow through it. It is the same memory, not a copy: an in-place change of one
        is seen in the other, and counts in both tensors' ``_version`` (so autograd still
        notices a saved tensor modified through its detached alias).

        Returns:
            Tensor: a view of the same data, of the same shape, dtype and device.

        Example::

            >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
            >>> y = (x * 2).detach()
            >>> y.requires_grad, y.grad_fn
            (False, None)
            >>> d = x.detach()
            >>> _ = d.zero_()                       # shares memory with x
            >>> x
            tensor([0., 0.], requires_grad=True)
        """
        return self._detached_alias()

    def detach_(self):
        """Cut this tensor from the graph, in place.

        The in-place form of :meth:`detach`: this tensor loses its ``grad_fn`` and stops
        requiring grad, becoming a leaf.

        Returns:
            Tensor: ``self``.

        Raises:
            RuntimeError: the tensor is a view of a tensor that requires grad ("Can't detach
                views in-place"); use ``detach()`` there.

        Example::

            >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
            >>> y = x * 2
            >>> y.detach_() is y
            True
            >>> y.grad_fn is None, y.requires_grad, y.is_leaf
            (True, False, True)
        """
        if self._base is not None:  # (any view, as PyTorch's)
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is "
                "set as True, gradients are views of DDP buckets, and hence detach_() cannot "
                "be called on these gradients. To fix this error, please refer to the "
                "Optimizer.zero_grad() function in nbgrad/optim/optimizer.py as the solution."
            )
        self._grad_fn = None
        self._rg = False
        self._output_nr = 0
        return self

    def retain_grad(self):
        """Make backward fill this tensor's ``.grad`` even though it is not a leaf.

        By default only leaves accumulate ``.grad``; an intermediate result's gradient is
        passed on and dropped. After ``retain_grad()`` it is accumulated in its ``.grad``
        too (and ``retains_grad`` is ``True``). On a leaf this does nothing.

        Returns:
            None

        Raises:
            RuntimeError: the tensor does not require grad.

        Example::

            >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
            >>> h = x * 3
            >>> h.retain_grad()
            >>> (h * h).sum().backward()
            >>> h.grad                               # d(h^2)/dh = 2 h
            tensor([ 6., 12.])
        """
        if not self._rg:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self._grad_fn is None or self._retains_grad:
            return
        if _recording.RECORDER[0] is not None:
            _recording.end("Tensor.retain_grad on a tensor the function made")
        fn = self._grad_fn
        fn._hooked = True
        if fn._retain is None:
            fn._retain = {}
        fn._retain[self._output_nr] = weakref.ref(self)
        self._retains_grad = True

    def register_hook(self, hook):
        """Register a function to run each time the gradient of this tensor is computed.

        ``hook(grad) -> Tensor or None`` receives the gradient with respect to this tensor
        (summed over all its uses). It must not modify ``grad`` in place; it may return a
        new tensor of the same shape, which then replaces the gradient (what flows on to
        the rest of the graph, and what a leaf accumulates into ``.grad``). Several hooks
        run in the order they were registered, each getting the previous one's result.
        Hooks run in :func:`nbgrad.autograd.grad` too.

        Args:
            hook (callable): ``hook(grad)``, returning a replacement gradient or ``None``.

        Returns:
            A handle whose ``remove()`` unregisters the hook (also a context manager
            that removes it on exit).

        Raises:
            RuntimeError: the tensor does not require grad.

        Example::

            >>> x = nbgrad.tensor([1.0, 2.0], requires_grad=True)
            >>> h = x.register_hook(lambda g: g * 10)
            >>> (x * x).sum().backward()
            >>> x.grad                               # 2 x, times 10
            tensor([20., 40.])
            >>> h.remove()
        """
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if _recording.RECORDER[0] is not None and self._grad_fn is not None:
            _recording.end("Tensor.register_hook on a tensor the function made")
        if self._grad_fn is not None:
            return self._grad_fn._add_tensor_hook(self._output_nr, hook)
        if self._hooks is None:
            self._hooks = _graph._HookDict()
        h = _graph.RemovableHandle(self._hooks)
        self._hooks[h._k] = hook
        return h

    def register_post_accumulate_grad_hook(self, hook):
        """Call ``hook(self)`` each time backward has accumulated a gradient into this
        leaf's ``.grad`` (it may read and change the leaf and its ``.grad``; it returns
        None). ``autograd.grad`` accumulates nothing and so runs none. Returns a handle
        whose ``remove()`` unregisters it.

        Args:
            hook (callable): a function ``hook(tensor) -> None``, called with this leaf.

        Returns:
            RemovableHandle: a handle whose ``remove()`` unregisters the hook.

        Example::

            >>> import nbgrad
            >>> v = nbgrad.zeros(3, requires_grad=True)
            >>> def step(p):                        # an SGD step as soon as .grad is ready
            ...     p.data.sub_(p.grad)             # (returns None, as a hook must)
            >>> h = v.register_post_accumulate_grad_hook(step)
            >>> (2 * v).sum().backward()
            >>> v
            tensor([-2., -2., -2.], requires_grad=True)
        """
        if not self._rg:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self._grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf "
                               "tensors")
        hooks = _graph.post_accumulate_hooks(self, create=True)
        h = _graph.RemovableHandle(hooks)
        hooks[h._k] = hook
        return h

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Compute the gradient of this tensor with respect to the graph's leaves.

        Runs the chain rule from this tensor back through the recorded graph and
        **accumulates** (adds) the gradients into the ``.grad`` of each leaf that requires
        grad; zero them between steps. The same as
        ``nbgrad.autograd.backward(self, gradient, retain_graph, create_graph, inputs)``.

        If this tensor has more than one element, ``gradient`` must be given: it is the
        vector ``v`` of the vector-Jacobian product ``v^T J`` that is computed (the
        gradient of some scalar with respect to this tensor). For a one-element tensor it
        defaults to ``1``.

        Args:
            gradient (Tensor, optional): the vector of the product, with this tensor's
                shape. Default: ``None`` (only for one-element floating-point tensors).
            retain_graph (bool, optional): keep the graph's saved tensors so that backward
                can run through it again; otherwise they are freed during this pass.
                Default: the value of ``create_graph``.
            create_graph (bool, optional): record the backward pass, making the
                accumulated gradients differentiable (for higher-order derivatives).
                Default: ``False``.
            inputs (Tensor or sequence of Tensor, optional): accumulate only into these
                tensors (a non-leaf one gets ``.grad`` as after ``retain_grad()``); all
                other ``.grad`` stay as they are. Default: ``None`` (every leaf).

        Returns:
            None

        Raises:
            RuntimeError: this tensor does not require grad ("does not require grad and
                does not have a grad_fn"); ``gradient`` omitted for a tensor of more than
                one element ("grad can be implicitly created only for scalar outputs"); a
                second pass through a freed graph.

        Example::

            >>> x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
            >>> loss = (x ** 2).sum()
            >>> loss.backward()
            >>> x.grad
            tensor([2., 4., 6.])
            >>> y = x * 2                              # not a scalar: pass the vector
            >>> y.backward(nbgrad.tensor([1.0, 0.0, 0.0]))
            >>> x.grad                                 # accumulated onto the first result
            tensor([4., 4., 6.])
        """
        backward = _API[0]
        if backward is None:  # (autograd.api imports this module)
            from .autograd.api import backward

            _API[0] = backward
        if inputs is not None and isinstance(inputs, Tensor):
            inputs = (inputs,)
        backward((self,), None if gradient is None else (gradient,), retain_graph,
                 create_graph, inputs=inputs)

    # ----- conversion -------------------------------------------------------------
    def numpy(self, *, force=False):
        """numpy(*, force=False) -> numpy.ndarray

        This tensor's data as a NumPy array that shares its memory: a change to one is seen
        in the other.

        Only a CPU tensor that does not require grad can be shared; otherwise this raises,
        unless ``force`` is given, which returns a copy (of a CUDA tensor's data) or the
        data of a tensor that requires grad. bfloat16 has no NumPy dtype.

        Args:
            force (bool, optional): return the data anyway (detached, or copied to the
                host), rather than raise. Default: ``False``.

        Example::

            >>> import nbgrad
            >>> x = nbgrad.tensor([1.0, 2.0])
            >>> a = x.numpy()
            >>> a[0] = 5.0
            >>> a, x
            (array([5., 2.], dtype=float32), tensor([5., 2.]))
            >>> nbgrad.ones(2, requires_grad=True).numpy(force=True)
            array([1., 1.], dtype=float32)
        """
        if _recording.RECORDER[0] is not None:
            _recording.end("Tensor.numpy reads tensor values into Python")
        if self._rg and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead."
            )
        if self._dtype is _dt.bfloat16:  # (NumPy has no bfloat16; ml_dtypes' is ours)
            raise TypeError("Got unsupported ScalarType BFloat16")
        if self._device.type != "cpu":
            if not force:
                raise TypeError(
                    f"can't convert {self._device.type}:{self._device.index} device type tensor "
                    "to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
                )
            return for_device(self._device).to_host(self._data)
        # a view: reshaping the returned array in place must not reshape the tensor (as in
        # PyTorch; the small-op fast paths also cache each tensor's shape)
        return self._data.view()

    def item(self):
        """item() -> number

        The value of a one-element tensor, as a Python number (``float``, ``int`` or
        ``bool``, by the dtype). A tensor of any other number of elements is an error.

        Example::

            >>> import nbgrad
            >>> nbgrad.tensor([[2.5]]).item(), nbgrad.tensor(3).item()
            (2.5, 3)
        """
        if _recording.RECORDER[0] is not None:
            _recording.end("Tensor.item reads tensor values into Python")
        if self._data.size != 1:
            raise RuntimeError(
                f"a Tensor with {self._data.size} elements cannot be converted to Scalar"
            )
        return for_device(self._device).scalar_of(self._data)

    def tolist(self):
        """tolist() -> list or number

        This tensor's data as (nested) Python lists of Python numbers; a 0-dim tensor gives
        a number.

        Example::

            >>> import nbgrad
            >>> nbgrad.tensor([[1, 2], [3, 4]]).tolist()
            [[1, 2], [3, 4]]
            >>> nbgrad.tensor(1.5).tolist()
            1.5
        """
        if _recording.RECORDER[0] is not None:
            _recording.end("Tensor.tolist reads tensor values into Python")
        return for_device(self._device).to_host(self._data).tolist()

    def __array__(self, dtype=None, copy=None):
        a = self.numpy(force=self._device.type == "cpu" and not self._rg)
        return a if dtype is None else a.astype(dtype)

    def __array_wrap__(self, array, context=None, return_scalar=False):
        # a NumPy ufunc's result on this tensor (``np.exp(t)``, ``t + ndarray`` through
        # NumPy's reflected operator) comes back as a tensor sharing the array, as
        # PyTorch's: a bool result as uint8, as PyTorch still does
        from .creation import from_numpy

        if array.dtype == np.bool_:
            array = array.astype(np.uint8)
        return from_numpy(array)

    # ----- helpers ------------------------------------------------------------------
    def _detached_alias(self):
        self._owner = None  # its memory is now visible through the alias
        t = _wrap(self._data, self._dtype, self._device)
        t._vc = self._vc  # in-place changes through a detached alias still count
        return t

    def _type_name(self):
        prefix = "nbgrad." if self._device.type == "cpu" else "nbgrad.cuda."
        return prefix + _TYPE_NAMES[self._dtype.name]

    def __repr__(self):
        from ._repr import tensor_repr

        if _recording.RECORDER[0] is not None:
            _recording.end("Tensor.__repr__ reads tensor values into Python")

        text = tensor_repr(self)
        return "Parameter containing:\n" + text if is_parameter(self) else text

    def __format__(self, format_spec):
        # as PyTorch: a 0-dim tensor formats as its number (f"{loss:.4f}"), others as objects
        if self._data.ndim == 0:
            return self.item().__format__(format_spec)
        return object.__format__(self, format_spec)

    def __len__(self):
        if self._data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._data.shape[0]

    def __iter__(self):
        if self._data.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._data.shape[0]))

    def __bool__(self):
        n = self._meta.size
        if n != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if n > 1 else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(self.item())

    def __float__(self):
        if self._rg and _GRAD_STATE.enabled:
            warn_once("float", "Converting a tensor with requires_grad=True to a scalar may "
                      "lead to unexpected behavior.\nConsider using tensor.detach() first.")
        self._check_one()
        return float(self.item())

    def __int__(self):
        self._check_one()
        return int(self.item())

    def _check_one(self):
        # (PyTorch's float() / int() raise ValueError where item() raises RuntimeError)
        if self._meta.size != 1:
            raise ValueError("only one element tensors can be converted to Python scalars")

    def __index__(self):
        if self._dtype._cat == 2 or self._meta.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    def __getattr__(self, name):
        # (runs only where the normal lookup failed: no cost to what exists)
        if name in _TORCH_ONLY:
            raise AttributeError(f"torch.Tensor.{name} is not supported by nbgrad yet")
        raise AttributeError(f"'Tensor' object has no attribute '{name}'")

    def __reduce_ex__(self, proto):
        """Pickling (``pickle``, ``multiprocessing``, ``copy.copy`` of objects holding
        tensors), as PyTorch's: the values (on the host, in the tensor's dtype), device,
        ``requires_grad`` and the parameter mark; not ``.grad`` nor the history (a tensor
        made by ops loads as a leaf). ``nbgrad.save`` writes a file that loading cannot
        run code from; a pickle can, so unpickle only what you trust."""
        data = for_device(self._device).to_host(self._data)
        return (_unpickled, (data, self._dtype.name, str(self._device), self._rg,
                             is_parameter(self)))

    def __deepcopy__(self, memo):
        """``copy.deepcopy``: a leaf with memory of its own (tensors that viewed one array
        view one copy of it), the same requires_grad, and a deep copy of ``.grad``; a
        parameter's copy is a parameter, with no ``.grad`` (as PyTorch's). Only leaves: a
        copy could not carry the graph."""
        if self._grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the "
                "deepcopy protocol at the moment.  If you were attempting to deepcopy a "
                "module, this may be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001")
        param = is_parameter(self)
        if isinstance(self._data, np.ndarray) and not param:
            t = _wrap(_copied_view(self._data, memo), self._dtype, self._device)
        else:
            t = self.detach().clone()
        t._rg = self._rg
        memo[id(self)] = t
        if param:
            return mark_parameter(t)
        if self._grad is not None:
            t._grad = self._grad.__deepcopy__(memo)
        return t

    def __copy__(self):
        """``copy.copy``: a leaf sharing this tensor's memory, with its requires_grad and
        parameter mark (PyTorch's shallow copy)."""
        t = _wrap(self._data, self._dtype, self._device)
        t._rg = self._rg
        self._owner = None  # (its memory is visible through the copy)
        return mark_parameter(t) if is_parameter(self) else t


_API = [None]  # autograd.api.backward, bound on first use

# PyTorch's Tensor attributes (2.13) that nbgrad's lacks: asking for one says so
_TORCH_ONLY = frozenset((
    "as_strided_scatter as_subclass ccol_indices cdouble cfloat chalf coalesce "
    "col_indices conj_physical_ crow_indices dense_dim dequantize eig grad_dtype hash_tensor "
    "index indices int_repr ipu is_coalesced istft lstsq module_load mtia "
    "name q_per_channel_axis q_per_channel_scales q_per_channel_zero_points "
    "q_scale q_zero_point qscheme record_stream reinforce resize resize_as resize_as_sparse_ "
    "row_indices set_ share_memory_ slice_inverse smm solve sparse_dim sparse_mask "
    "sparse_resize_ sparse_resize_and_clear_ sspaddmm stft storage_type symeig to_dense "
    "to_mkldnn to_padded_tensor to_sparse to_sparse_bsc to_sparse_bsr to_sparse_coo "
    "to_sparse_csc to_sparse_csr values volatile xpu").split())


def is_inference(input):
    """Whether ``input`` was made in :class:`nbgrad.inference_mode` (or is a view of a
    tensor that was).

    Args:
        input (Tensor): the tensor to test.

    Example::

        >>> import nbgrad
        >>> with nbgrad.inference_mode():
        ...     x = nbgrad.ones(2)
        >>> nbgrad.is_inference(x), nbgrad.is_inference(nbgrad.ones(2))
        (True, False)
    """
    return input._vc.__class__ is not list


def _wrap(data, dtype, device):
    """A new leaf Tensor around ``data`` (no copy)."""
    t = object.__new__(Tensor)
    t._data = data
    t._dtype = dtype
    t._device = device
    t._rg = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = [0] if not _INFER[0] else _version_counter()
    t._base = None
    t._hooks = None
    t._acc = None
    t._retains_grad = False
    t._sk = None  # the small-op key (ops._core.small_key), worked out on first use
    t._owner = None
    return t


def _fresh(data, dtype, device):
    """A new tensor around ``data``, memory an op has just allocated for this result (no
    other tensor or array refers to it). Made while a backward run is active, it carries
    that run's token (``autograd.graph.OWNER``): nobody but the engine has seen it, so the
    engine may write into it or keep it as ``.grad`` (see autograd/engine.py)."""
    t = object.__new__(Tensor)  # (_wrap's body: this runs for every op's result)
    t._data = data
    t._dtype = dtype
    t._device = device
    t._rg = False
    t._grad = None
    t._grad_fn = None
    t._output_nr = 0
    t._vc = [0] if not _INFER[0] else _version_counter()
    t._base = None
    t._hooks = None
    t._acc = None
    t._retains_grad = False
    t._sk = None
    t._owner = _graph.OWNER
    return t


_graph.WRAP = _wrap


# ----- parameter marks: nn.Parameter is a Tensor with a mark (nn/parameter.py) ----------
_MARKED = {}  # id(tensor) -> weakref to it, for every live parameter


def _forget(key):
    def callback(ref):
        if _MARKED.get(key) is ref:
            del _MARKED[key]

    return callback


def _unpickled(data, dtype, device, requires_grad, parameter):
    """A tensor from ``Tensor.__reduce_ex__``'s fields."""
    from .device import as_device

    dev = as_device(device)
    t = _wrap(data, _dt._by_name(dtype), CPU)
    if dev.type != "cpu":
        t = t.to(dev)
    t._rg = requires_grad
    return mark_parameter(t) if parameter else t


def _copied_view(a, memo):
    """``a`` in a copy of the array it views (one copy per array, kept in ``memo``, so
    views that shared memory share it again)."""
    root = a
    while isinstance(root.base, np.ndarray):
        root = root.base
    if not (root.flags.c_contiguous or root.flags.f_contiguous):
        return a.copy()
    key = ("nbgrad.storage", id(root))
    if key not in memo:
        memo[key] = (root, root.copy(order="A"))  # (root kept: its id stays its own)
    _, new = memo[key]
    offset = a.__array_interface__["data"][0] - root.__array_interface__["data"][0]
    return np.ndarray(a.shape, a.dtype, buffer=new, offset=offset, strides=a.strides)


def mark_parameter(t):
    """Mark tensor ``t`` as a parameter (in place) and return it."""
    k = id(t)
    r = _MARKED.get(k)
    if r is None or r() is not t:
        _MARKED[k] = weakref.ref(t, _forget(k))
    return t


def is_parameter(obj):
    """True when ``obj`` is a tensor marked as a parameter."""
    r = _MARKED.get(id(obj))
    return r is not None and r() is obj


def _wrap_dim(dim, ndim):
    n = ndim if ndim > 0 else 1
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


CPU_DEVICE = CPU


def is_tensor(obj):
    """Whether ``obj`` is an nbgrad tensor (an ``nn.Parameter`` is one too).

    Args:
        obj (object): the object to test.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_tensor(nbgrad.zeros(1)), nbgrad.is_tensor([1.0])
        (True, False)
    """
    return isinstance(obj, Tensor)


def is_floating_point(input):
    """Whether ``input``'s dtype is a floating-point one (float16, bfloat16, float32,
    float64).

    Args:
        input (Tensor): the tensor to test.

    Example::

        >>> import nbgrad
        >>> nbgrad.is_floating_point(nbgrad.zeros(1))
        True
        >>> nbgrad.is_floating_point(nbgrad.tensor([1]))
        False
    """
    return input.is_floating_point()


def numel(input):
    """The number of elements of ``input``: the product of its sizes.

    Args:
        input (Tensor): the tensor.

    Example::

        >>> import nbgrad
        >>> nbgrad.numel(nbgrad.zeros(2, 3, 4))
        24
    """
    return input.numel()
