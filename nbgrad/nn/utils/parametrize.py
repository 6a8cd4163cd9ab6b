"""Parametrizations, as ``torch.nn.utils.parametrize``: a module's parameter or buffer
replaced by a property that computes ``parametrization(original)`` on every access.

The first registration on a module swaps its class for a generated subclass
``Parametrized<Class>`` (which holds the properties) and adds a ``ModuleDict``
``module.parametrizations``; ``module.parametrizations.<name>`` is a
``ParametrizationList`` holding the unconstrained tensor(s) as ``original`` (or
``original0``, ``original1``, ... when ``right_inverse`` returns a sequence), so
``state_dict`` keys read ``parametrizations.<name>.original``.
"""

import collections.abc
from contextlib import contextmanager

from ...autograd.grad_mode import no_grad
from ...tensor import Tensor
from ..modules.container import ModuleDict, ModuleList
from ..parameter import Parameter, is_parameter

__all__ = ["cached", "ParametrizationList", "register_parametrization", "is_parametrized",
           "remove_parametrizations", "type_before_parametrizations",
           "transfer_parametrizations_and_params"]

_cache_enabled = 0
_cache = {}  # (id(module), tensor name) -> the value computed in the current cached() block


@contextmanager
def cached():
    """Context manager: inside it, each parametrized tensor is computed once, at its first
    access, and that value is reused until the outermost ``cached()`` block exits.

    Useful when a parametrized tensor is read several times in one forward pass (an RNN's
    recurrent kernel, shared weights).

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.utils.parametrize as P
        >>> class Double(nbgrad.nn.Module):
        ...     def forward(self, X):
        ...         return 2 * X
        >>> m = P.register_parametrization(nbgrad.nn.Linear(2, 2), "weight", Double())
        >>> m.weight is m.weight
        False
        >>> with P.cached():
        ...     m.weight is m.weight
        True
    """
    global _cache, _cache_enabled
    _cache_enabled += 1
    try:
        yield
    finally:
        _cache_enabled -= 1
        if not _cache_enabled:
            _cache = {}


def _register_parameter_or_buffer(module, name, X):
    if is_parameter(X):
        module.register_parameter(name, X)
    else:
        module.register_buffer(name, X)


def _maybe_set(dest, src):
    # PyTorch's ``dest.set_(src)``: ``dest`` (which an optimizer may hold) keeps its identity
    # and takes ``src``'s storage; the version bump lets autograd see the change.
    if src is dest:
        return
    dest.data = src
    if dest._vc.__class__ is list:
        dest._vc[0] += 1


def _right_inverses(modules, value, missing_ok):
    # The parametrizations' right_inverse, last registered first. A missing one is the
    # identity at registration, an error when a value is assigned.
    for module in reversed(list(modules)):
        if hasattr(module, "right_inverse"):
            if missing_ok:
                try:
                    value = module.right_inverse(value)
                except NotImplementedError:
                    pass
            else:
                value = module.right_inverse(value)
        elif not missing_ok:
            raise RuntimeError(f"parametrization {type(module).__name__} does not implement "
                               "right_inverse.")
    return value


class ParametrizationList(ModuleList):
    """The parametrizations registered on one tensor of a module, in order, and the
    unconstrained tensor(s) they are applied to: ``module.parametrizations[tensor_name]``.

    The original tensor is held as ``original`` when the first parametrization has no
    ``right_inverse`` or one returning a tensor, else as ``original0``, ``original1``, ...
    (one per tensor of the sequence it returns). Made by ``register_parametrization``; not
    meant to be built directly.

    Args:
        modules (sequence): the parametrizations (one or more modules).
        original (Tensor): the parameter or buffer being parametrized.
        unsafe (bool): skip the checks that the parametrization keeps the dtype and shape.
    """

    def __init__(self, modules, original, unsafe=False):
        if len(modules) == 0:
            raise ValueError("ParametrizationList requires one or more modules.")
        super().__init__(modules)
        self.unsafe = unsafe
        original_shape, original_dtype = original.shape, original.dtype

        with no_grad():
            new = _right_inverses(self, original, missing_ok=True)
        if not isinstance(new, (Tensor, collections.abc.Sequence)):
            raise ValueError("'right_inverse' must return a Tensor or a Sequence of tensors "
                             f"(list, tuple...). Got {type(new).__name__}")

        self.is_tensor = isinstance(new, Tensor)
        self.ntensors = 1 if self.is_tensor else len(new)

        if self.is_tensor:
            if original.dtype != new.dtype:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the dtype.\n"
                    f"original.dtype: {original.dtype}\n"
                    f"right_inverse(original).dtype: {new.dtype}")
            if original.device != new.device:
                raise ValueError(
                    "When `right_inverse` outputs one tensor, it may not change the device.\n"
                    f"original.device: {original.device}\n"
                    f"right_inverse(original).device: {new.device}")
            # the same object stays registered, so an optimizer built before still updates it
            with no_grad():
                _maybe_set(original, new)
            _register_parameter_or_buffer(self, "original", original)
        else:
            for i, t in enumerate(new):
                if not isinstance(t, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a Tensor or a Sequence of tensors "
                        "(list, tuple...). "
                        f"Got element {i} of the sequence with type {type(t).__name__}.")
                # new tensors: the caller adds them to an optimizer made before (as PyTorch)
                if is_parameter(original):
                    t = Parameter(t, original.requires_grad)
                t.requires_grad_(original.requires_grad)
                _register_parameter_or_buffer(self, f"original{i}", t)

        if not self.unsafe:
            Z = self()
            if not isinstance(Z, Tensor):
                raise ValueError(f"A parametrization must return a tensor. Got {type(Z).__name__}.")
            if Z.dtype != original_dtype:
                raise ValueError(
                    "Registering a parametrization may not change the dtype of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized dtype: {original_dtype}\n"
                    f"parametrized dtype: {Z.dtype}")
            if Z.shape != original_shape:
                raise ValueError(
                    "Registering a parametrization may not change the shape of the tensor, "
                    "unless `unsafe` flag is enabled.\n"
                    f"unparametrized shape: {original_shape}\n"
                    f"parametrized shape: {Z.shape}")

    def right_inverse(self, value):
        """Run the parametrizations' ``right_inverse`` on ``value`` (last registered first)
        and store the result in ``original`` (or ``original0``, ``original1``, ...)."""
        with no_grad():
            value = _right_inverses(self, value, missing_ok=False)
            if self.is_tensor:
                if not isinstance(value, Tensor):
                    raise ValueError(
                        f"`right_inverse` should return a tensor. Got {type(value).__name__}")
                if value.dtype != self.original.dtype:
                    raise ValueError(
                        f"The tensor returned by `right_inverse` has dtype {value.dtype} "
                        f"while `original` has dtype {self.original.dtype}")
                _maybe_set(self.original, value)
                return
            if not isinstance(value, collections.abc.Sequence):
                raise ValueError("'right_inverse' must return a sequence of tensors. "
                                 f"Got {type(value).__name__}.")
            if len(value) != self.ntensors:
                raise ValueError("'right_inverse' must return a sequence of tensors of length "
                                 f"{self.ntensors}. Got a sequence of length {len(value)}.")
            for i, t in enumerate(value):
                original_i = getattr(self, f"original{i}")
                if not isinstance(t, Tensor):
                    raise ValueError(
                        "'right_inverse' must return a sequence of tensors or reference-type "
                        f"opaques. Got element {i} of type {type(t).__name__}.")
                if original_i.dtype != t.dtype:
                    raise ValueError(
                        f"Tensor {i} returned by `right_inverse` has dtype {t.dtype} "
                        f"while `original{i}` has dtype {original_i.dtype}")
                _maybe_set(original_i, t)

    def forward(self):
        if self.is_tensor:
            x = self[0](self.original)
        else:
            x = self[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        # the children are "0", "1", ...; other attributes (original...) are not applied
        i = 1
        while str(i) in self._modules:
            x = self._modules[str(i)](x)
            i += 1
        return x


def _parametrized_getstate(self):
    raise RuntimeError(
        "Serialization of parametrized modules is only supported through state_dict(). See:\n"
        "https://pytorch.org/tutorials/beginner/saving_loading_models.html"
        "#saving-loading-a-general-checkpoint-for-inference-and-or-resuming-training")


def _register_load_hook(module, hook):
    """``hook(state_dict, prefix)`` runs before ``module`` (parametrized) loads a state
    dict."""
    module.__dict__.setdefault("_parametrize_load_hooks", []).append(hook)


def _inject_new_class(module):
    # a class of its own for this module, so that the properties added to it reach no
    # other instance of the original class
    cls = module.__class__

    def load_from_state_dict(self, state_dict, prefix, *args, **kwargs):
        # stands in for PyTorch's load_state_dict pre-hooks (nbgrad's Module has none):
        # each may rename the keys of an older layout before this module reads its own
        for hook in self.__dict__.get("_parametrize_load_hooks", ()):
            hook(state_dict, prefix)
        return cls._load_from_state_dict(self, state_dict, prefix, *args, **kwargs)

    namespace = {"__getstate__": _parametrized_getstate,
                 "_load_from_state_dict": load_from_state_dict}
    module.__class__ = type(f"Parametrized{cls.__name__}", (cls,), namespace)


def _inject_property(module, tensor_name):
    if hasattr(module, tensor_name):
        raise AssertionError(f"Module already has an attribute named '{tensor_name}'")

    def get_parametrized(self):
        parametrization = self.parametrizations[tensor_name]
        if not _cache_enabled:
            return parametrization()
        key = (id(self), tensor_name)
        t = _cache.get(key)
        if t is None:
            t = _cache[key] = parametrization()
        return t

    def set_original(self, value):
        self.parametrizations[tensor_name].right_inverse(value)

    setattr(module.__class__, tensor_name, property(get_parametrized, set_original))


def _check_consistent(module, tensor_name, parametrization):
    # a parametrization added to an already parametrized tensor must map the tensor's
    # space (its dtype and shape) to itself, both ways
    Y = getattr(module, tensor_name)
    X = parametrization(Y)
    if not isinstance(X, Tensor):
        raise ValueError(f"A parametrization must return a tensor. Got {type(X).__name__}.")
    if X.dtype != Y.dtype:
        raise ValueError(
            "Registering a parametrization may not change the dtype of the tensor, unless the "
            "`unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {Y.dtype}\n"
            f"parametrization(module.{tensor_name}).dtype: {X.dtype}")
    if X.shape != Y.shape:
        raise ValueError(
            "Registering a parametrization may not change the shape of the tensor, unless the "
            "`unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {Y.shape}\n"
            f"parametrization(module.{tensor_name}).shape: {X.shape}")
    if not hasattr(parametrization, "right_inverse"):
        return
    try:
        Z = parametrization.right_inverse(X)
    except NotImplementedError:
        return
    if not isinstance(Z, Tensor):
        raise ValueError(
            f"parametrization.right_inverse must return a tensor. Got: {type(Z).__name__}")
    if Z.dtype != Y.dtype:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same dtype "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.dtype: {Y.dtype}\n"
            f"returned dtype: {Z.dtype}")
    if Z.shape != Y.shape:
        raise ValueError(
            "The tensor returned by parametrization.right_inverse must have the same shape "
            f"as module.{tensor_name}, unless the `unsafe` flag is enabled.\n"
            f"module.{tensor_name}.shape: {Y.shape}\n"
            f"returned shape: {Z.shape}")


def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    """Register ``parametrization`` on the parameter or buffer ``tensor_name`` of
    ``module``: ``module.<tensor_name>`` then returns ``parametrization(original)``,
    computed on each access (or once per ``cached()`` block), and gradients flow to the
    original tensor, ``module.parametrizations.<tensor_name>.original``.

    Registering again on the same name chains the parametrizations (applied in
    registration order). The parametrization takes the module's training mode.

    If the parametrization has ``right_inverse(X)``, it is applied to the current tensor to
    give the original's first value (identity otherwise); when it returns a sequence of
    tensors, they are kept as ``original0``, ``original1``, ... (new parameters: add them to
    an optimizer made before). Assigning to ``module.<tensor_name>`` runs the
    ``right_inverse`` of every parametrization, last first, and stores the result.

    Args:
        module (nn.Module): the module holding the tensor.
        tensor_name (str): name of the parameter or buffer.
        parametrization (nn.Module): the parametrization.

    Keyword args:
        unsafe (bool): allow a parametrization that changes the tensor's dtype or shape;
            the consistency checks (which call ``forward`` and ``right_inverse`` once) are
            skipped. Default: ``False``.

    Raises:
        ValueError: if ``module`` has no parameter, buffer or parametrized tensor
            ``tensor_name``.

    Example::

        >>> import nbgrad
        >>> import nbgrad.nn.utils.parametrize as P
        >>> class Symmetric(nbgrad.nn.Module):
        ...     def forward(self, X):
        ...         return X.triu() + X.triu(1).T
        ...     def right_inverse(self, A):
        ...         return A.triu()
        >>> m = P.register_parametrization(nbgrad.nn.Linear(3, 3), "weight", Symmetric())
        >>> type(m).__name__, nbgrad.allclose(m.weight, m.weight.T)
        ('ParametrizedLinear', True)
        >>> list(m.state_dict())
        ['bias', 'parametrizations.weight.original']
        >>> A = nbgrad.rand(3, 3)
        >>> m.weight = A + A.T
        >>> nbgrad.allclose(m.weight, A + A.T)
        True
    """
    parametrization.train(module.training)
    if is_parametrized(module, tensor_name):
        if not unsafe:
            _check_consistent(module, tensor_name, parametrization)
        plist = module.parametrizations[tensor_name]
        plist.append(parametrization)
        plist.unsafe |= unsafe  # once unsafe, the chain stays unsafe
    elif tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        # built first, so that a failing check leaves the module untouched
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        delattr(module, tensor_name)
        if not is_parametrized(module):
            _inject_new_class(module)
            module.parametrizations = ModuleDict()
        _inject_property(module, tensor_name)
        module.parametrizations[tensor_name] = plist
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    return module


def is_parametrized(module, tensor_name=None):
    """Whether ``module`` has a parametrization on ``tensor_name`` (on any tensor when
    ``tensor_name`` is None).

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import parametrizations, parametrize
        >>> m = parametrizations.weight_norm(nbgrad.nn.Linear(2, 2))
        >>> parametrize.is_parametrized(m), parametrize.is_parametrized(m, "bias")
        (True, False)
    """
    parametrizations = getattr(module, "parametrizations", None)
    if parametrizations is None or not isinstance(parametrizations, ModuleDict):
        return False
    if tensor_name is None:
        return len(parametrizations) > 0
    return tensor_name in parametrizations


def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    """Remove the parametrizations on ``module.<tensor_name>``, which becomes a parameter
    (or buffer) again: with ``leave_parametrized=True`` its current parametrized value, else
    the unconstrained ``original`` (possible only when there is a single original tensor).

    With one original tensor, that same object is kept (its data replaced by the value when
    ``leave_parametrized``), so an optimizer holding it stays valid. When no parametrized
    tensor is left, the module gets its original class back.

    Raises:
        ValueError: if ``module.<tensor_name>`` is not parametrized, or if
            ``leave_parametrized=False`` and it depends on several tensors.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import parametrizations, parametrize
        >>> m = parametrizations.weight_norm(nbgrad.nn.Linear(2, 2))
        >>> m = parametrize.remove_parametrizations(m, "weight")
        >>> type(m).__name__, sorted(m.state_dict())
        ('Linear', ['bias', 'weight'])
    """
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if plist.is_tensor:
        original = plist.original
        if leave_parametrized:
            with no_grad():
                t = getattr(module, tensor_name)
                _maybe_set(original, t)
    elif leave_parametrized:
        # outside no_grad: whether the value requires grad says whether it is a parameter
        t = getattr(module, tensor_name)
        original = Parameter(t) if t.requires_grad else t
    else:
        raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                         "that is parametrized in terms of a sequence of tensors.")

    delattr(module.__class__, tensor_name)
    del module.parametrizations[tensor_name]
    _register_parameter_or_buffer(module, tensor_name, original)

    if not is_parametrized(module):
        delattr(module, "parametrizations")
        module.__dict__.pop("_parametrize_load_hooks", None)
        module.__class__ = module.__class__.__bases__[0]
    return module


def type_before_parametrizations(module):
    """The class ``module`` had before it was parametrized (its class if it is not).

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import parametrizations, parametrize
        >>> m = parametrizations.weight_norm(nbgrad.nn.Linear(2, 2))
        >>> type(m).__name__, parametrize.type_before_parametrizations(m).__name__
        ('ParametrizedLinear', 'Linear')
    """
    if is_parametrized(module):
        return module.__class__.__bases__[0]
    return type(module)


def transfer_parametrizations_and_params(from_module, to_module, tensor_name=None):
    """Register on ``to_module`` the parametrizations of ``from_module`` (those of
    ``tensor_name`` only, if given) and make it share their original tensors; a tensor
    ``to_module`` lacks is created first. Does nothing if ``from_module`` is not
    parametrized. Returns ``to_module``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import parametrizations, parametrize
        >>> a = parametrizations.weight_norm(nbgrad.nn.Linear(2, 2))
        >>> b = parametrize.transfer_parametrizations_and_params(a, nbgrad.nn.Linear(2, 2))
        >>> b.parametrizations.weight.original1 is a.parametrizations.weight.original1
        True
    """
    if not is_parametrized(from_module):
        return to_module
    names = list(from_module.parametrizations) if tensor_name is None else [tensor_name]
    for name in names:
        if not hasattr(to_module, name):
            setattr(to_module, name, Parameter(getattr(from_module, name)))
        source = from_module.parametrizations[name]
        for param_func in source:
            register_parametrization(to_module, name, param_func)
        target = to_module.parametrizations[name]
        if hasattr(source, "original"):
            target.original = source.original
        else:
            i = 0
            while hasattr(source, f"original{i}"):
                setattr(target, f"original{i}", getattr(source, f"original{i}"))
                i += 1
    return to_module
