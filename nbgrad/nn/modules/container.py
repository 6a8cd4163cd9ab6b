"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""

from collections import OrderedDict, abc

from ...tensor import Tensor
from ..parameter import Parameter, is_parameter
from .module import Module, _addindent

__all__ = ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"]


class Sequential(Module):
    r"""A container of modules applied in order, each to the output of the one before.

    Its ``forward`` takes one input, gives it to the first module and each module's
    output to the next, and returns the last one's. The modules are registered as
    children named ``"0"``, ``"1"``, ... (or by the keys of an ``OrderedDict``), so their
    parameters are the container's. Indexing gives a module; a slice, a new
    ``Sequential`` of those modules; ``append``, ``extend``, ``insert`` and ``del``
    change it in place.

    Args:
        *args (Module or OrderedDict): the modules, in order, or one ``OrderedDict``
            mapping names to modules.

    Example::

        >>> import nbgrad
        >>> from collections import OrderedDict
        >>> _ = nbgrad.manual_seed(0)
        >>> model = nbgrad.nn.Sequential(
        ...     nbgrad.nn.Linear(4, 8), nbgrad.nn.ReLU(), nbgrad.nn.Linear(8, 2))
        >>> model
        Sequential(
          (0): Linear(in_features=4, out_features=8, bias=True)
          (1): ReLU()
          (2): Linear(in_features=8, out_features=2, bias=True)
        )
        >>> model(nbgrad.randn(3, 4)).shape
        nbgrad.Size([3, 2])
        >>> named = nbgrad.nn.Sequential(OrderedDict([("fc", nbgrad.nn.Linear(4, 2)),
        ...                                           ("act", nbgrad.nn.Tanh())]))
        >>> named.fc, list(named.state_dict())
        (Linear(in_features=4, out_features=2, bias=True), ['fc.weight', 'fc.bias'])
    """

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for key, module in args[0].items():
                self.add_module(key, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _idx(self, idx):
        n = len(self._modules)
        idx = int(idx)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return list(self._modules)[idx % n]

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(OrderedDict(list(self._modules.items())[idx]))
        return self._modules[self._idx(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._idx(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules)[idx]:
                delattr(self, key)
        else:
            delattr(self, self._idx(idx))
        # keep keys numbered
        items = list(self._modules.items())
        self._modules.clear()
        for i, (k, m) in enumerate(items):
            self._modules[str(i) if k.isdigit() else k] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"Index out of range: {index}")
        if index < 0:
            index += n
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)
        return self

    def pop(self, key):
        """Remove and return the module at ``key`` (an index or a slice)."""
        v = self[key]
        del self[key]
        return v

    # + joins two Sequentials, * repeats one (the same module objects), as PyTorch's
    def __add__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        return Sequential(*self, *other)

    def __iadd__(self, other):
        if not isinstance(other, Sequential):
            raise ValueError("add operator supports only objects of Sequential class, but "
                             f"{type(other)} is given.")
        offset = len(self)
        for i, module in enumerate(list(other)):
            self.add_module(str(i + offset), module)
        return self

    def _factor(self, other):
        if not isinstance(other, int):
            raise TypeError(f"unsupported operand type(s) for *: {type(self)} and "
                            f"{type(other)}")
        if other <= 0:
            raise ValueError(f"Non-positive multiplication factor {other} for {type(self)}")
        return other

    def __mul__(self, other):
        return Sequential(*(list(self) * self._factor(other)))

    __rmul__ = __mul__

    def __imul__(self, other):
        mods = list(self) * (self._factor(other) - 1)
        offset = len(self)
        for i, module in enumerate(mods):
            self.add_module(str(i + offset), module)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    r"""A list of modules, registered as children of the module that holds it.

    Index it, iterate over it, ``append``, ``extend``, ``insert`` and ``del`` as a Python
    list; unlike a plain list, its modules (named ``"0"``, ``"1"``, ...) are seen by
    :meth:`Module.parameters`, ``state_dict``, ``to`` and the rest. It has no
    ``forward``: the module holding it decides how its modules are called.

    Args:
        modules (iterable, optional): the modules to add. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> layers = nbgrad.nn.ModuleList([nbgrad.nn.Linear(4, 4) for _ in range(3)])
        >>> layers
        ModuleList(
          (0-2): 3 x Linear(in_features=4, out_features=4, bias=True)
        )
        >>> x = nbgrad.randn(2, 4)
        >>> for layer in layers:
        ...     x = layer(x).relu()
        >>> x.shape, len(list(layers.parameters()))
        (nbgrad.Size([2, 4]), 6)
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __repr__(self):
        # as PyTorch's: a run of children with the same repr shows once, "(0-5): 6 x ..."
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        runs = []  # [first index, last index, repr]
        for i, r in enumerate(reprs):
            if runs and runs[-1][2] == r:
                runs[-1][1] = i
            else:
                runs.append([i, i, r])
        lines = [_addindent(f"({a}): {r}" if a == b else f"({a}-{b}): {b - a + 1} x {r}", 2)
                 for a, b, r in runs]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"

    def _key(self, idx):
        n = len(self._modules)
        idx = int(idx)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._key(idx), module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for k in list(self._modules)[idx]:
                del self._modules[k]
        else:
            del self._modules[self._key(idx)]
        mods = list(self._modules.values())
        self._modules.clear()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def pop(self, key):
        """Remove and return the module at ``key`` (an index or a slice)."""
        v = self[key]
        del self[key]
        return v

    def __add__(self, other):
        return ModuleList(list(self) + list(other))

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if isinstance(modules, Module) and not isinstance(modules, (ModuleList, Sequential)):
            raise TypeError("ModuleList.extend should be called with an iterable, but got " + type(modules).__name__)
        for m in list(modules):
            self.append(m)
        return self

    def insert(self, index, module):
        mods = list(self._modules.values())
        mods.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(mods):
            self.add_module(str(i), m)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("ModuleList is not callable; iterate over its modules instead")


def _pairs(what, items, caller=None):
    """``(key, value)`` pairs of ``items``, a mapping or an iterable of pairs (PyTorch's
    errors for anything else, naming ``what``, and ``caller`` for the update itself)."""
    if isinstance(items, (OrderedDict, ModuleDict, ParameterDict, abc.Mapping)):
        return list(items.items())
    if not isinstance(items, abc.Iterable):
        raise TypeError(f"{caller or what}.update should be called with an iterable of "
                        f"key/value pairs, but got {type(items).__name__}")
    out = []
    for j, m in enumerate(items):
        if not isinstance(m, abc.Iterable):
            raise TypeError(f"{what} update sequence element #{j} should be Iterable; is"
                            f"{type(m).__name__}")
        m = list(m)
        if len(m) != 2:
            raise ValueError(f"{what} update sequence element #{j} has length {len(m)}; 2 is "
                             "required")
        out.append((m[0], m[1]))
    return out


class ModuleDict(Module):
    """A dictionary of modules, registered as children of the module that holds it.

    Use it as a Python ``dict`` (``[]``, ``in``, ``keys``, ``items``, ``values``,
    ``update``, ``pop``, ``clear``), in insertion order; its modules are the holder's
    children, with ``state_dict`` keys ``"<name>.<...>"``.

    Args:
        modules (mapping or iterable, optional): a mapping of names to modules, or an
            iterable of ``(name, module)`` pairs. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn import ModuleDict
        >>> heads = ModuleDict({"a": nbgrad.nn.Linear(2, 1), "b": nbgrad.nn.Identity()})
        >>> list(heads), sorted(dict(heads.named_parameters()))
        (['a', 'b'], ['a.bias', 'a.weight'])
    """

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._modules[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._modules[key]

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules)

    def __contains__(self, key):
        return key in self._modules

    def clear(self):
        self._modules.clear()

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def keys(self):
        return self._modules.keys()

    def items(self):
        return self._modules.items()

    def values(self):
        return self._modules.values()

    def update(self, modules):
        for key, module in _pairs("ModuleDict", modules):
            self[key] = module


def _as_parameter(value):
    # (a plain tensor becomes a Parameter, as PyTorch's containers make it; anything else
    # is kept as a plain attribute)
    if isinstance(value, Tensor) and not is_parameter(value):
        return Parameter(value)
    return value


def _entries(items, kind):
    """PyTorch's lines of a parameter container's repr: one per entry, ``kind(tensor)`` its
    type (the list writes the dtype, the dict the tensor type)."""
    lines = []
    for k, p in items:
        if isinstance(p, Tensor):
            size = "x".join(str(n) for n in p.shape)
            dev = f" ({p.device})" if p.device.type == "cuda" else ""
            what = "Parameter" if is_parameter(p) else "Tensor"
            lines.append(f"  ({k}): {what} containing: [{kind(p)} of size {size}{dev}]")
        else:
            lines.append(f"  ({k}): Object of type: {type(p).__name__}")
    return "\n".join(lines)


class ParameterList(Module):
    """A list of parameters, registered with the module that holds it.

    Index it, iterate over it, ``append`` and ``extend`` as a Python list; its entries
    are registered as parameters named ``"0"``, ``"1"``, ... (a plain tensor added is
    made a :class:`Parameter`), so the holder's ``parameters()`` and ``state_dict`` see
    them.

    Args:
        values (iterable, optional): the tensors to add. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn import ParameterList
        >>> ps = ParameterList([nbgrad.zeros(2), nbgrad.ones(3)])
        >>> len(ps), [n for n, _ in ps.named_parameters()], ps[1].requires_grad
        (2, ['0', '1'], True)
    """

    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self += values

    def _index(self, idx):
        idx = int(idx)
        if not -len(self) <= idx < len(self):
            raise IndexError(f"index {idx} is out of range")
        return idx % len(self)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)([self[i] for i in range(len(self))[idx]])
        return getattr(self, str(self._index(idx)))

    def __setitem__(self, idx, param):
        setattr(self, str(self._index(idx)), _as_parameter(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(len(self)))

    def __iadd__(self, parameters):
        return self.extend(parameters)

    def append(self, value):
        self._size += 1
        setattr(self, str(self._size - 1), _as_parameter(value))
        return self

    def extend(self, values):
        if not isinstance(values, abc.Iterable) or isinstance(values, Tensor):
            raise TypeError("ParameterList.extend should be called with an iterable, but got "
                            + type(values).__name__)
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        return _entries(enumerate(self), lambda p: p.dtype)


class ParameterDict(Module):
    """A dictionary of parameters, registered with the module that holds it.

    Use it as a Python ``dict`` (``[]``, ``in``, ``keys``, ``items``, ``values``,
    ``update``, ``get``, ``pop``, ``setdefault``, ...), in insertion order; a plain tensor
    added is made a :class:`Parameter`, and each is registered under its key.

    Args:
        parameters (mapping or iterable, optional): a mapping of names to tensors, or an
            iterable of ``(name, tensor)`` pairs. Default: ``None``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn import ParameterDict
        >>> pd = ParameterDict({"w": nbgrad.ones(2)})
        >>> pd["b"] = nbgrad.zeros(1)
        >>> list(pd), [n for n, _ in pd.named_parameters()]
        (['w', 'b'], ['w', 'b'])
    """

    def __init__(self, parameters=None):
        super().__init__()
        self._keys = {}
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return getattr(self, key)

    def __setitem__(self, key, value):
        self._keys[key] = None
        setattr(self, key, _as_parameter(value))

    def __delitem__(self, key):
        del self._keys[key]
        delattr(self, key)

    def __len__(self):
        return len(self._keys)

    def __iter__(self):
        return iter(self._keys)

    def __reversed__(self):
        return reversed(list(self._keys))

    def __contains__(self, key):
        return key in self._keys

    def copy(self):
        return ParameterDict(OrderedDict((k, self[k]) for k in self._keys))

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def clear(self):
        for k in list(self._keys):
            del self[k]

    def pop(self, key):
        v = self[key]
        del self[key]
        return v

    def popitem(self):
        k = list(self._keys)[-1]
        return k, self.pop(k)

    def get(self, key, default=None):
        return self[key] if key in self else default

    def fromkeys(self, keys, default=None):
        return ParameterDict((k, default) for k in keys)

    def keys(self):
        return self._keys.keys()

    def items(self):
        return ((k, self[k]) for k in self._keys)

    def values(self):
        return (self[k] for k in self._keys)

    def update(self, parameters):
        # (PyTorch's message names it "ParametersDict" there)
        pairs = _pairs("ParameterDict", parameters, "ParametersDict")
        if isinstance(parameters, abc.Mapping) and not isinstance(
                parameters, (OrderedDict, ParameterDict)):
            pairs = sorted(pairs)  # (a plain mapping's keys in sorted order, as PyTorch's)
        for key, value in pairs:
            self[key] = value

    def extra_repr(self):
        from ...tensor_types import typename

        return _entries(self.items(), typename)
