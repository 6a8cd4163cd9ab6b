"""PyTorch's legacy tensor types and constructor: ``nbgrad.Tensor(2, 3)``,
``nbgrad.FloatTensor([1, 2])``, ``nbgrad.cuda.LongTensor(4)`` and ``Tensor.new``.

A legacy type stands for one dtype on one device type. It makes tensors, and
``isinstance(t, nbgrad.FloatTensor)`` asks whether ``t`` has that dtype and device type: as
in PyTorch, no tensor's class is the type itself (every tensor's class is ``Tensor``).
Programs written before ``torch.tensor`` existed use these (``nn.Parameter(torch.Tensor(n,
m))`` then an init function is a common layer idiom), and ``Tensor.type(nbgrad.LongTensor)``
takes them.
"""

from . import dtypes as _dt
from ._warnings import warn_once
from .device import as_device
from .tensor import Size, Tensor

__all__ = ["construct", "typename", "TensorType", "CPU_TYPES", "CUDA_TYPES",
           "set_default_tensor_type",
           "BoolTensor", "ByteTensor", "CharTensor", "ShortTensor", "IntTensor",
           "LongTensor", "HalfTensor", "BFloat16Tensor", "FloatTensor", "DoubleTensor"]


def _options(dtype, device):
    return (f"TensorOptions(dtype={dtype.cpp}, device={device}, "
            "layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), "
            "memory_format=(nullopt))")


def _is_size(a):
    return isinstance(a, int) and not isinstance(a, bool) or (
        type(a).__module__ == "numpy" and getattr(a, "ndim", None) == 0
        and a.dtype.kind in "iu")


def construct(dtype, device, args, *, strict=True):
    """PyTorch's legacy constructor for ``dtype`` on ``device`` (a device): no arguments
    make an empty tensor; sizes (ints, or one ``Size``) an uninitialised one; a sequence or
    array a copy of its values in ``dtype``; a tensor that tensor's data (an alias; of
    ``dtype`` when ``strict``, else any dtype, as ``torch.Tensor(t)`` allows)."""
    from . import creation as Cr

    if not args:
        return Cr.empty(0, dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Tensor):
        t = args[0]
        if strict and (t._dtype is not dtype or t._device.type != device.type):
            raise TypeError(f"expected {_options(dtype, device)} (got "
                            f"{_options(t._dtype, t._device)})")
        return t.detach()
    if all(_is_size(a) for a in args):
        return Cr.empty(tuple(int(a) for a in args), dtype=dtype, device=device)
    if len(args) == 1 and isinstance(args[0], Size):
        return Cr.empty(tuple(args[0]), dtype=dtype, device=device)
    if len(args) == 1:
        data = args[0]
        if isinstance(data, (bool, int, float, complex)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        return Cr.tensor(data, dtype=dtype, device=device)
    got = ", ".join(type(a).__name__ for a in args)
    raise TypeError(f"new() received an invalid combination of arguments - got ({got}), but "
                    "expected one of: (*, device), (tuple of ints size, *, device), "
                    "(object data, *, device), (Tensor other)")


def _device_of(device_type, device):
    if device is None:
        return as_device(device_type)
    dev = as_device(device)
    if dev.type != device_type:
        raise RuntimeError(f"legacy constructor expects device type: {device_type} but "
                           f"device type: {dev.type} was passed")
    return dev


class TensorType(type):
    """The class of the legacy types: calling one constructs, ``isinstance`` compares the
    dtype and device type."""

    def __instancecheck__(cls, obj):
        return (isinstance(obj, Tensor) and obj._dtype is cls.dtype
                and obj._device.type == cls._device_type)

    def __subclasscheck__(cls, sub):
        return sub is cls

    def __call__(cls, *args, device=None):
        return construct(cls.dtype, _device_of(cls._device_type, device), args)

    @property
    def is_cuda(cls):
        return cls._device_type == "cuda"

    @property
    def is_sparse(cls):
        return False


def _doc(module, name, d, device_type):
    """The docstring of the legacy type ``name`` (of dtype ``d``) on ``device_type``."""
    where = "CPU" if device_type == "cpu" else "CUDA device"
    make = f"""
        >>> x = {module}.{name}(2, 3)
        >>> x.shape, isinstance(x, {module}.{name})
        (nbgrad.Size([2, 3]), True)""" if device_type == "cpu" else ""
    return f"""{name}(*args, device=None) -> Tensor

    PyTorch's legacy constructor of tensors of dtype ``{d!r}`` on the {where}, and their
    type for ``isinstance`` and :meth:`Tensor.type`. The forms of the call:
    ``{name}(*sizes)`` or ``{name}(size)`` an uninitialised tensor of that shape;
    ``{name}(data)`` a tensor of the values of a sequence or array; ``{name}(tensor)``
    that tensor's data, shared (it must have this dtype and device type); ``{name}()`` an
    empty tensor.

    ``isinstance(t, {module}.{name})`` is whether ``t`` is a tensor of this dtype on this
    device type: no tensor's class is the type itself (every tensor's class is
    :class:`Tensor`).

    Args:
        *args: the sizes (ints, or one ``Size``), the data, or a tensor, as above.
        device (nbgrad.device or str, optional): the device, of type ``"{device_type}"``.
            Default: ``None``, the {where}{"" if device_type == "cpu" else " in use"}.

    Example::

        >>> import nbgrad
        >>> {module}.{name}.dtype, {module}.{name}.is_cuda
        ({d!r}, {device_type == "cuda"}){make}
    """


def _types(module, device_type):
    out = {}
    for d in _dt.ALL:
        name = d.scalar_type + "Tensor"
        out[name] = TensorType(name, (), {"dtype": d, "_device_type": device_type,
                                           "__module__": module, "__slots__": (),
                                           "__doc__": _doc(module, name, d, device_type)})
    return out


CPU_TYPES = _types("nbgrad", "cpu")
CUDA_TYPES = _types("nbgrad.cuda", "cuda")
BoolTensor = CPU_TYPES["BoolTensor"]
ByteTensor = CPU_TYPES["ByteTensor"]
CharTensor = CPU_TYPES["CharTensor"]
ShortTensor = CPU_TYPES["ShortTensor"]
IntTensor = CPU_TYPES["IntTensor"]
LongTensor = CPU_TYPES["LongTensor"]
HalfTensor = CPU_TYPES["HalfTensor"]
BFloat16Tensor = CPU_TYPES["BFloat16Tensor"]
FloatTensor = CPU_TYPES["FloatTensor"]
DoubleTensor = CPU_TYPES["DoubleTensor"]


def typename(obj):
    """typename(obj) -> str

    PyTorch's name of ``obj``'s type: for a tensor its legacy type (``"nbgrad.FloatTensor"``,
    as :meth:`Tensor.type`), else the qualified name of its class.

    Args:
        obj (object): a tensor or any object.

    Example::

        >>> import nbgrad
        >>> nbgrad.typename(nbgrad.ones(2, dtype=nbgrad.int64))
        'nbgrad.LongTensor'
    """
    if isinstance(obj, Tensor):
        return obj.type()
    module = getattr(type(obj), "__module__", "") or ""
    name = getattr(type(obj), "__qualname__", type(obj).__name__)
    return name if module in ("", "builtins") else f"{module}.{name}"




def set_default_tensor_type(t, /):
    """set_default_tensor_type(t) -> None

    PyTorch's older way to set the default floating-point dtype and device at once, from a
    legacy type (``nbgrad.DoubleTensor``, ``nbgrad.cuda.FloatTensor``) or its dotted name
    (``"torch.DoubleTensor"``); deprecated, as in PyTorch (it warns once): use
    :func:`nbgrad.set_default_dtype` and :func:`nbgrad.set_default_device`.

    Args:
        t (type or str): a floating-point legacy type, or its name.

    Example::

        >>> import nbgrad, warnings
        >>> with warnings.catch_warnings():
        ...     warnings.simplefilter("ignore")
        ...     nbgrad.set_default_tensor_type(nbgrad.DoubleTensor)
        >>> nbgrad.ones(1).dtype
        nbgrad.float64
        >>> nbgrad.set_default_tensor_type("torch.FloatTensor")
        >>> nbgrad.ones(1).dtype
        nbgrad.float32
    """
    import importlib

    from .device import set_default_device

    warn_once("set_default_tensor_type", "torch.set_default_tensor_type() is deprecated as "
              "of PyTorch 2.1, please use torch.set_default_dtype() and "
              "torch.set_default_device() as alternatives.")
    if isinstance(t, str):  # (PyTorch imports the dotted name; torch's names are nbgrad's)
        first, *rest = t.split(".")
        t = importlib.import_module("nbgrad" if first == "torch" else first)
        for part in rest:
            t = getattr(t, part)
    if not isinstance(t, TensorType):
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if not t.dtype.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    if t._device_type == "cuda":
        from . import cuda

        if not cuda.is_available():
            raise TypeError(f"type nbgrad.cuda.{t.__name__} not available: no CUDA device "
                            "(nbgrad's CUDA tensors need an NVIDIA GPU, or the simulator)")
    _dt.set_default_dtype(t.dtype)
    set_default_device(None if t._device_type == "cpu" else t._device_type)
