"""``nn.Module``: parameters, buffers and submodules by attribute name, state dicts, hooks,
train/eval, device and dtype moves."""

import copy
import warnings
from collections import OrderedDict, namedtuple

from ...autograd.grad_mode import no_grad
from ...autograd.graph import RemovableHandle
from ...ops.inplace import zero_grads
from ...tensor import Tensor
from ..parameter import Parameter, buffer_mark, is_parameter

__all__ = ["Module"]


def _typename(v):
    return v._type_name() if isinstance(v, Tensor) else type(v).__name__


def _addindent(s_, n):
    s = s_.split("\n")
    if len(s) == 1:
        return s_
    first = s.pop(0)
    s = [(n * " ") + line if line.strip() else "" for line in s]
    return first + "\n" + "\n".join(s)


class _IncompatibleKeys(namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


_EXTRA_STATE = "_extra_state"  # (the state dict key of get_extra_state's object)

class Module:
    """Base class of every layer and model: holds parameters, buffers and submodules.

    To write a model, subclass it: call ``super().__init__()`` first in ``__init__``,
    then assign its pieces as attributes, and define ``forward``. An attribute holding a
    :class:`~nbgrad.nn.Parameter` is registered as a parameter, one holding a ``Module``
    as a submodule (its parameters become this module's, named ``"<attr>.<name>"``), and
    a tensor given to :meth:`register_buffer` (or wrapped in :class:`~nbgrad.nn.Buffer`)
    as a buffer: state that is saved in :meth:`state_dict` and moved by :meth:`to` but
    not trained. Calling the module runs ``forward`` (and the hooks registered around
    it); call the module rather than ``forward``.

    The module then gives, for itself and all its submodules: :meth:`parameters` and
    :meth:`named_parameters` (for an optimizer), :meth:`state_dict` and
    :meth:`load_state_dict` (to save and restore), :meth:`train` and :meth:`eval` (the
    ``training`` flag that dropout and batch norm read), :meth:`to` (device and dtype),
    :meth:`zero_grad`, :meth:`apply`, :meth:`children` and :meth:`modules`.

    Example::

        >>> import nbgrad
        >>> class TwoLayer(nbgrad.nn.Module):
        ...     def __init__(self, n_in, n_hidden, n_out):
        ...         super().__init__()
        ...         self.fc1 = nbgrad.nn.Linear(n_in, n_hidden)
        ...         self.fc2 = nbgrad.nn.Linear(n_hidden, n_out)
        ...         self.scale = nbgrad.nn.Parameter(nbgrad.ones(1))
        ...         self.register_buffer("steps", nbgrad.zeros((), dtype=nbgrad.int64))
        ...
        ...     def forward(self, x):
        ...         return self.fc2(self.fc1(x).relu()) * self.scale
        >>> _ = nbgrad.manual_seed(0)
        >>> net = TwoLayer(4, 8, 2)
        >>> net
        TwoLayer(
          (fc1): Linear(in_features=4, out_features=8, bias=True)
          (fc2): Linear(in_features=8, out_features=2, bias=True)
        )
        >>> net(nbgrad.randn(3, 4)).shape
        nbgrad.Size([3, 2])
        >>> [name for name, _ in net.named_parameters()]
        ['scale', 'fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
        >>> list(net.state_dict())
        ['scale', 'steps', 'fc1.weight', 'fc1.bias', 'fc2.weight', 'fc2.bias']
        >>> net.eval().training
        False
    """

    # (empty for a module whose __init__ predates these tables; never written: _add_hook
    # gives the instance its own)
    _backward_hooks = _backward_pre_hooks = OrderedDict()
    _forward_hooks_with_kwargs = _forward_pre_hooks_with_kwargs = frozenset()
    _forward_hooks_always_called = frozenset()

    def __init__(self, *args, **kwargs):
        # PyTorch's Module takes and refuses any arguments, naming the layer that got them
        # (a layer without a constructor of its own, ``nn.Tanh(5)``, is refused as its own)
        if kwargs:
            raise TypeError(f"{type(self).__name__}.__init__() got an unexpected keyword "
                            f"argument '{next(iter(kwargs))}'")
        if args:
            raise TypeError(f"{type(self).__name__}.__init__() takes 1 positional argument "
                            f"but {len(args) + 1} were given")
        d = self.__dict__
        d["training"] = True
        d["_parameters"] = OrderedDict()
        d["_buffers"] = OrderedDict()
        d["_non_persistent_buffers_set"] = set()
        d["_modules"] = OrderedDict()
        d["_forward_hooks"] = OrderedDict()
        d["_forward_pre_hooks"] = OrderedDict()
        d["_forward_hooks_with_kwargs"] = set()  # the hooks' ids taking (..., kwargs, ...)
        d["_forward_pre_hooks_with_kwargs"] = set()
        d["_forward_hooks_always_called"] = set()  # run when forward raises too
        d["_backward_hooks"] = OrderedDict()
        d["_backward_pre_hooks"] = OrderedDict()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(
            f'Module [{type(self).__name__}] is missing the required "forward" function'
        )

    def __call__(self, *args, **kwargs):
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks
                or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)
        return self._call_with_hooks(args, kwargs)

    def _call_with_hooks(self, args, kwargs):
        # PyTorch's order: pre-hooks, the inputs' backward hook, forward, forward hooks,
        # the outputs' backward hook
        for hid, hook in list(self._forward_pre_hooks.items()):
            if hid in self._forward_pre_hooks_with_kwargs:
                r = hook(self, args, kwargs)
                if r is not None:
                    if not (isinstance(r, tuple) and len(r) == 2):
                        raise RuntimeError("forward pre-hook must return None or a tuple of "
                                           f"(new_args, new_kwargs), but got {r}.")
                    args, kwargs = r
            else:
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        bw = None
        if self._backward_hooks or self._backward_pre_hooks:
            from ...utils.hooks import BackwardHook

            bw = BackwardHook(self, list(self._backward_hooks.values()),
                              list(self._backward_pre_hooks.values()))
            args = bw.setup_input_hook(args)
        try:
            out = self.forward(*args, **kwargs)
        except Exception:
            for hid, hook in list(self._forward_hooks.items()):
                if hid in self._forward_hooks_always_called:
                    try:
                        if hid in self._forward_hooks_with_kwargs:
                            hook(self, args, kwargs, None)
                        else:
                            hook(self, args, None)
                    except Exception as e:
                        warnings.warn("forward hook with ``always_call=True`` raised an "
                                      "exception that was silenced as another error was "
                                      f"raised in forward: {e}")
            raise
        for hid, hook in list(self._forward_hooks.items()):
            if hid in self._forward_hooks_with_kwargs:
                r = hook(self, args, kwargs, out)
            else:
                r = hook(self, args, out)
            if r is not None:
                out = r
        if bw is not None:
            out = bw.setup_output_hook(out)
        return out

    def compile(self, *args, **kwargs):
        """Compile this module's ``forward`` in place with ``nbgrad.compile`` (same
        arguments): later calls of the module run it (hooks still run around it).

        Example::

            >>> import nbgrad
            >>> m = nbgrad.nn.Tanh()
            >>> m.compile()
            >>> m(nbgrad.zeros(2))
            tensor([0., 0.])
        """
        from ...compiler import compile as _compile

        self.__dict__["forward"] = _compile(self.forward, *args, **kwargs)

    def _add_hook(self, table, hook, prepend, *flags):
        """Register ``hook`` in the ordered dict named ``table`` (first when ``prepend``),
        its id in each of the sets named ``flags``."""
        d = self.__dict__
        if table not in d:
            d[table] = OrderedDict()
        h = RemovableHandle(d[table])
        d[table][h._k] = hook
        if prepend:
            d[table].move_to_end(h._k, last=False)
        for f in flags:
            if f not in d:
                d[f] = set()
            d[f].add(h._k)
        return h

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """Run ``hook(module, args)`` before each ``forward``; it may return the args to use
        instead (a tuple, or one value). With ``with_kwargs``, ``hook(module, args,
        kwargs)`` returns ``None`` or ``(args, kwargs)``. ``prepend`` runs it before the
        hooks already registered. Returns a handle whose ``remove()`` unregisters it.

        Example::

            >>> lin = nbgrad.nn.Linear(2, 1)
            >>> h = lin.register_forward_pre_hook(lambda m, args: (args[0] * 0,))
            >>> bool((lin(nbgrad.ones(1, 2)) == lin.bias).all())
            True
            >>> h.remove()
        """
        return self._add_hook("_forward_pre_hooks", hook, prepend,
                              *(("_forward_pre_hooks_with_kwargs",) if with_kwargs else ()))

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False,
                              always_call=False):
        """Run ``hook(module, args, output)`` after each ``forward``; it may return the
        output to use instead. With ``with_kwargs`` it is ``hook(module, args, kwargs,
        output)``; ``always_call`` runs it also when ``forward`` raises (``output`` None);
        ``prepend`` runs it before the hooks already registered. Returns a handle whose
        ``remove()`` unregisters it.

        Example::

            >>> lin = nbgrad.nn.Linear(2, 1)
            >>> shapes = []
            >>> h = lin.register_forward_hook(lambda m, args, out: shapes.append(out.shape))
            >>> _ = lin(nbgrad.ones(3, 2))
            >>> shapes
            [nbgrad.Size([3, 1])]
        """
        flags = (("_forward_hooks_with_kwargs",) if with_kwargs else ()) + (
            ("_forward_hooks_always_called",) if always_call else ())
        return self._add_hook("_forward_hooks", hook, prepend, *flags)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_output)`` when the gradients of the module's outputs
        are computed in a backward pass; it may return the ``grad_output`` to use instead
        (a tuple, one entry per output, ``None`` for outputs that are not tensors). Returns
        a handle whose ``remove()`` unregisters it.

        Example::

            >>> lin = nbgrad.nn.Linear(2, 1)
            >>> h = lin.register_full_backward_pre_hook(lambda m, g: (g[0] * 10,))
            >>> x = nbgrad.ones(1, 2, requires_grad=True)
            >>> lin(x).sum().backward()
            >>> bool((x.grad == lin.weight * 10).all())
            True
        """
        return self._add_hook("_backward_pre_hooks", hook, prepend)

    def register_full_backward_hook(self, hook, prepend=False):
        """Run ``hook(module, grad_input, grad_output)`` once the gradients of the module's
        inputs are computed in a backward pass: ``grad_input`` one entry per positional
        argument (``None`` where it is no tensor or needs no gradient), ``grad_output``
        one per output. It may return the ``grad_input`` to use instead. The inputs and
        outputs reach ``forward`` and the caller through an identity node, as in PyTorch
        (``BackwardHookFunctionBackward``). Returns a handle whose ``remove()``
        unregisters it.

        Example::

            >>> lin = nbgrad.nn.Linear(2, 1)
            >>> seen = []
            >>> h = lin.register_full_backward_hook(
            ...     lambda m, gi, go: seen.append((gi[0].shape, go[0].shape)))
            >>> lin(nbgrad.ones(3, 2, requires_grad=True)).sum().backward()
            >>> seen
            [(nbgrad.Size([3, 2]), nbgrad.Size([3, 1]))]
        """
        return self._add_hook("_backward_hooks", hook, prepend)

    def register_backward_hook(self, hook):
        """The older name of :meth:`register_full_backward_hook` (PyTorch's deprecated
        non-full hook saw only the last op's gradients; this one sees the module's).

        Example::

            >>> lin = nbgrad.nn.Linear(2, 1)
            >>> h = lin.register_backward_hook(lambda m, gi, go: None)
            >>> h.remove()
        """
        return self.register_full_backward_hook(hook)

    # ----- registration -------------------------------------------------------------------
    def _check_name(self, name, kind):
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:  # (PyTorch names the module's name, not the others')
            raise KeyError(f'{kind} name can\'t contain "."'
                           + (f", got: {name}" if kind == "module" else ""))
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def register_parameter(self, name, param):
        """Add ``param`` (a ``Parameter`` or None) as parameter ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is None:
            self._parameters[name] = None
            return
        if not is_parameter(param):
            raise TypeError(
                f"cannot assign '{_typename(param)}' object to parameter '{name}' "
                "(nbgrad.nn.Parameter or None required)"
            )
        if param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must "
                "be created explicitly. To express '{name}' as a function of another Tensor, "
                "compute the value in the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Add ``tensor`` as buffer ``name`` (in ``state_dict`` unless ``persistent=False``)."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{_typename(tensor)}' object to buffer '{name}' "
                "(nbgrad Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name, module):
        """Add child ``module`` (a ``Module`` or None) as ``name``."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    def get_submodule(self, target):
        """The submodule at dotted path ``target`` ("" is ``self``)."""
        if target == "":
            return self
        mod = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            mod = getattr(mod, item)
            if not isinstance(mod, Module):
                raise AttributeError("`" + item + "` is not an nn.Module")
        return mod

    def get_parameter(self, target):
        """The parameter at dotted path ``target``."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        p = getattr(mod, name)
        if not is_parameter(p):
            raise AttributeError("`" + name + "` is not an nn.Parameter")
        return p

    def get_buffer(self, target):
        """The buffer at dotted path ``target`` (``"bn.running_mean"``).

        Example::

            >>> nbgrad.nn.Sequential(nbgrad.nn.BatchNorm1d(2)).get_buffer("0.running_var")
            tensor([1., 1.])
        """
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if not hasattr(mod, name):
            raise AttributeError(f"{mod._get_name()} has no attribute `{name}`")
        b = getattr(mod, name)
        if name not in mod._buffers:
            raise AttributeError("`" + name + "` is not a buffer")
        return b

    def set_submodule(self, target, module, strict=False):
        """Put ``module`` at dotted path ``target``, replacing the submodule there (with
        ``strict``, only replacing one).

        Example::

            >>> net = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 2), nbgrad.nn.ReLU())
            >>> net.set_submodule("1", nbgrad.nn.Tanh())
            >>> net
            Sequential(
              (0): Linear(in_features=2, out_features=2, bias=True)
              (1): Tanh()
            )
        """
        if target == "":
            raise ValueError("Cannot set the submodule without a target name!")
        parent_path, _, name = target.rpartition(".")
        if not isinstance(module, Module):
            raise ValueError(f"`module` is not an nn.Module, found {type(module)}")
        parent = self.get_submodule(parent_path)
        if strict and not hasattr(parent, name):
            raise AttributeError(f"{parent._get_name()} has no attribute `{name}`")
        if hasattr(parent, name) and not isinstance(getattr(parent, name), Module):
            raise AttributeError("`" + name + "` is not an nn.Module")
        setattr(parent, name, module)

    # ----- attribute routing ----------------------------------------------------------------
    def __getattr__(self, name):
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            s = d.get(store)
            if s is not None and name in s:
                return s[name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__

        def remove_from(*dicts_or_sets):
            for ds in dicts_or_sets:
                if name in ds:
                    if isinstance(ds, dict):
                        del ds[name]
                    else:
                        ds.discard(name)

        params = d.get("_parameters")
        if is_parameter(value):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            remove_from(d, self._buffers, self._modules, self._non_persistent_buffers_set)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' "
                    "(nbgrad.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
        else:
            modules = d.get("_modules")
            if isinstance(value, Module):
                if modules is None:
                    raise AttributeError("cannot assign module before Module.__init__() call")
                remove_from(d, self._parameters, self._buffers, self._non_persistent_buffers_set)
                modules[name] = value
            elif modules is not None and name in modules:
                if value is not None:
                    raise TypeError(
                        f"cannot assign '{_typename(value)}' as child module '{name}' "
                        "(nbgrad.nn.Module or None expected)"
                    )
                modules[name] = value
            else:
                buffers = d.get("_buffers")
                marked, persistent = buffer_mark(value)
                if marked:  # (an nn.Buffer: as register_buffer, which refuses other names)
                    self.register_buffer(name, value, persistent=persistent)
                elif buffers is not None and name in buffers:
                    if value is not None and not isinstance(value, Tensor):
                        raise TypeError(
                            f"cannot assign '{_typename(value)}' as buffer '{name}' "
                            "(nbgrad.Tensor or None expected)"
                        )
                    buffers[name] = value
                else:
                    object.__setattr__(self, name, value)

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            s = self.__dict__.get(store)
            if s is not None and name in s:
                del s[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(dir(type(self))) | set(self.__dict__)
        keys |= set(self._parameters) | set(self._modules) | set(self._buffers)
        return sorted(k for k in keys if not k[:1].isdigit())

    # ----- traversal ------------------------------------------------------------------------
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """``(name, module)`` for this module and every descendant, depth first."""
        if memo is None:
            memo = set()
        if id(self) in memo:
            return
        if remove_duplicate:
            memo.add(id(self))
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, module in self._modules.items():
            if module is not None and id(module) not in seen:
                seen.add(id(module))
                yield name, module

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, get, prefix, recurse, remove_duplicate):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mprefix, m in mods:
            for k, v in get(m):
                if v is None or (remove_duplicate and id(v) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(v))
                yield mprefix + ("." if mprefix else "") + k, v

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """Return an iterator over the module's parameters, each with its dotted name.

        A submodule's parameters are named by the path to them (``"0.weight"``,
        ``"encoder.layer.bias"``). A parameter reachable by several paths (shared
        weights) comes once, under its first name, unless ``remove_duplicate=False``.

        Args:
            prefix (str, optional): a prefix put before every name (with a dot).
                Default: ``""``.
            recurse (bool, optional): include the parameters of every submodule; when
                ``False``, only this module's own. Default: ``True``.
            remove_duplicate (bool, optional): yield a parameter shared by several
                modules once. Default: ``True``.

        Yields:
            tuple of (str, Parameter): the name and the parameter.

        Example::

            >>> net = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 3), nbgrad.nn.ReLU())
            >>> for name, p in net.named_parameters():
            ...     print(name, tuple(p.shape))
            0.weight (3, 2)
            0.bias (3,)
        """
        return self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        """Return an iterator over the module's parameters, typically passed to an optimizer.

        Each parameter comes once, even if it is shared by several submodules.

        Args:
            recurse (bool, optional): include the parameters of every submodule; when
                ``False``, only this module's own. Default: ``True``.

        Yields:
            Parameter: the module's parameters.

        Example::

            >>> net = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 3), nbgrad.nn.Linear(3, 1))
            >>> sum(p.numel() for p in net.parameters())
            13
            >>> list(net.parameters(recurse=False))
            []
        """
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    def apply(self, fn):
        """Call ``fn`` on every submodule (children first), then on ``self``; returns ``self``."""
        for m in self.children():
            m.apply(fn)
        fn(self)
        return self

    # ----- modes and gradients --------------------------------------------------------------
    def train(self, mode=True):
        """Set this module and all its submodules in training mode (or evaluation mode).

        Only modules that behave differently in training matter (:class:`Dropout`,
        :class:`BatchNorm2d`, ...); the mode is the ``training`` attribute.

        Args:
            mode (bool, optional): ``True`` for training mode, ``False`` for evaluation
                mode. Default: ``True``.

        Returns:
            Module: ``self``.

        Example::

            >>> net = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 2), nbgrad.nn.Dropout(0.5))
            >>> net.train(False) is net
            True
            >>> net[1].training
            False
            >>> net.train()[1].training
            True
        """
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for m in self.children():
            m.train(mode)
        return self

    def eval(self):
        """Set this module and all its submodules in evaluation mode.

        The same as ``self.train(False)``. It does not turn off gradient recording: use
        :class:`nbgrad.no_grad` (or :class:`nbgrad.inference_mode`) for that.

        Returns:
            Module: ``self``.

        Example::

            >>> net = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 2), nbgrad.nn.Dropout(0.5))
            >>> net.eval().training, net[1].training
            (False, False)
        """
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of all the module's parameters.

        Args:
            set_to_none (bool, optional): set each ``.grad`` to ``None`` (which frees its
                memory) rather than filling it with zeros in place. Default: ``True``.

        Example::

            >>> lin = nbgrad.nn.Linear(2, 3)
            >>> lin(nbgrad.ones(4, 2)).sum().backward()
            >>> lin.bias.grad
            tensor([4., 4., 4.])
            >>> lin.zero_grad(set_to_none=False)
            >>> lin.bias.grad
            tensor([0., 0., 0.])
            >>> lin.zero_grad()
            >>> lin.bias.grad is None
            True
        """
        zero_grads(self.parameters(), set_to_none)

    # ----- device / dtype -------------------------------------------------------------------
    def _apply_tensors(self, fn):
        """Replace every parameter's data (keeping the Parameter object) and every buffer."""
        with no_grad():
            for m in self.modules():
                for p in m._parameters.values():
                    if p is None:
                        continue
                    new = fn(p)
                    if new is not p:
                        p.data = new
                    g = p._grad
                    if g is not None:
                        ng = fn(g)
                        if ng is not g:
                            g.data = ng
                for k, b in m._buffers.items():
                    if b is not None:
                        m._buffers[k] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Move and/or cast the module's parameters and buffers, in place.

        Called as ``to(device=None, dtype=None, non_blocking=False)``, ``to(dtype)``,
        ``to(tensor)`` (the tensor's device and dtype) or ``to(memory_format=...)``.
        Only floating-point tensors change dtype; integer buffers keep theirs. Parameters
        keep their identity (their storage is swapped, gradients moved with them), so
        optimizers built before ``to`` stay valid.

        Args:
            device (nbgrad.device or str, optional): the device to move to.
            dtype (nbgrad.dtype, optional): the floating-point dtype to cast the
                floating-point parameters and buffers to; a non-floating dtype raises
                ``TypeError``.
            tensor (Tensor, optional): a tensor whose device and dtype are taken.
            memory_format (nbgrad.memory_format, optional): the memory format of the
                4-d and 5-d parameters and buffers.

        Returns:
            Module: ``self``.

        Example::

            >>> lin = nbgrad.nn.Linear(2, 3)
            >>> w = lin.weight
            >>> lin.to(nbgrad.float64) is lin
            True
            >>> lin.weight.dtype, lin.weight is w
            (nbgrad.float64, True)
        """
        from ...memory_formats import preserve_format
        from ...ops.convert import _parse

        dev, dt, _, fmt = _parse(args, dict(kwargs))
        if dt is not None and not dt.is_floating_point:
            raise TypeError(
                f"nn.Module.to only accepts floating point dtypes, but got desired dtype={dt}"
            )

        def fn(t):
            # (a memory format reaches the 4-d and 5-d tensors only, as in PyTorch)
            f = fmt if t.ndim in (4, 5) else preserve_format
            return t.to(device=dev or t._device, memory_format=f,
                        dtype=dt if (dt is not None and t.is_floating_point()) else t._dtype)

        return self._apply_tensors(fn)

    def type(self, dst_type):
        """Cast every parameter and buffer to ``dst_type`` (a dtype or a tensor type name,
        as ``Tensor.type`` takes), in place; returns ``self``.

        Example::

            >>> bn = nbgrad.nn.BatchNorm1d(2).type(nbgrad.float64)
            >>> bn.weight.dtype, bn.num_batches_tracked.dtype
            (nbgrad.float64, nbgrad.float64)
        """
        return self._apply_tensors(lambda t: t.type(dst_type))

    def float(self):
        from ... import dtypes

        return self.to(dtypes.float32)

    def double(self):
        from ... import dtypes

        return self.to(dtypes.float64)

    def half(self):
        """Cast the floating-point parameters and buffers to float16 (in place)."""
        from ... import dtypes

        return self.to(dtypes.float16)

    def bfloat16(self):
        """Cast the floating-point parameters and buffers to bfloat16 (in place)."""
        from ... import dtypes

        return self.to(dtypes.bfloat16)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))

    # ----- state dicts ----------------------------------------------------------------------
    def get_extra_state(self):
        """Return the state beyond parameters and buffers to keep in :meth:`state_dict`.

        A subclass that has such state overrides this and :meth:`set_extra_state`; its
        ``state_dict`` then holds the returned object under ``"<prefix>_extra_state"`` (it
        must be something :func:`nbgrad.save` can write to be saved to a file).

        Returns:
            object: the extra state.

        Example::

            >>> class Counter(nbgrad.nn.Module):
            ...     def __init__(self):
            ...         super().__init__()
            ...         self.calls = 0
            ...     def get_extra_state(self):
            ...         return {"calls": self.calls}
            ...     def set_extra_state(self, state):
            ...         self.calls = state["calls"]
            >>> a, b = Counter(), Counter()
            >>> a.calls = 3
            >>> _ = b.load_state_dict(a.state_dict())
            >>> b.calls
            3
        """
        raise RuntimeError(
            "Reached a code path in Module.get_extra_state() that should never be called.")

    def set_extra_state(self, state):
        """Restore the state that :meth:`get_extra_state` returned (see there).

        Args:
            state (object): the extra state from the state dict.

        Example::

            >>> m = nbgrad.nn.Linear(1, 1)
            >>> type(m).set_extra_state is nbgrad.nn.Module.set_extra_state
            True
        """
        raise RuntimeError(
            "Reached a code path in Module.set_extra_state() that should never be called.")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = b if keep_vars else b.detach()
        if type(self).get_extra_state is not Module.get_extra_state:
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """Return a dictionary of the module's whole state: parameters and persistent buffers.

        The keys are dotted names as in :meth:`named_parameters`; buffers registered with
        ``persistent=False`` are left out. The values share storage with the module's
        tensors (they are not copies), detached unless ``keep_vars``. Save it with
        :func:`nbgrad.save` and load it back with :meth:`load_state_dict`.

        Args:
            destination (dict, optional): a dict to fill and return rather than a new
                ``OrderedDict``. Default: ``None``.
            prefix (str, optional): a prefix put before every key. Default: ``""``.
            keep_vars (bool, optional): store the parameters themselves (which require
                grad) rather than detached tensors. Default: ``False``.

        Positional arguments (``destination, prefix, keep_vars``) are read as PyTorch
        reads them, with its FutureWarning that they are deprecated.

        Returns:
            dict: the module's state, by name.

        Example::

            >>> net = nbgrad.nn.Sequential(nbgrad.nn.Linear(2, 3), nbgrad.nn.BatchNorm1d(3))
            >>> list(net.state_dict())
            ['0.weight', '0.bias', '1.weight', '1.bias', '1.running_mean', '1.running_var',
             '1.num_batches_tracked']
            >>> net.state_dict()["0.bias"].requires_grad
            False
        """
        if args:
            warnings.warn("Positional args are being deprecated, use kwargs instead. Refer to "
                          "https://pytorch.org/docs/main/generated/torch.nn.Module.html"
                          "#torch.nn.Module.state_dict for details.", FutureWarning,
                          stacklevel=2)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, m in self._modules.items():
            if m is not None:
                m.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(self, state_dict, prefix, missing_keys, unexpected_keys,
                              error_msgs, assign):
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        for k, v in self._buffers.items():
            if v is not None and k not in self._non_persistent_buffers_set:
                local_state[k] = v
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                missing_keys.append(key)
                continue
            inp = state_dict[key]
            if not isinstance(inp, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected nbgrad.Tensor or '
                    f"Tensor-like object from checkpoint but received {type(inp)}"
                )
                continue
            if param.ndim == 0 and inp.ndim == 1 and inp.shape[0] == 1:
                inp = inp[0]
            if inp.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {inp.shape} from "
                    f"checkpoint, the shape in current model is {param.shape}."
                )
                continue
            try:
                with no_grad():
                    if assign:
                        if is_parameter(param):
                            new = Parameter(inp, requires_grad=param.requires_grad)
                            setattr(self, name, new)
                        else:
                            setattr(self, name, inp)
                    else:
                        param.copy_(inp)
            except Exception as ex:
                error_msgs.append(
                    f'While copying the parameter named "{key}", whose dimensions in the model '
                    f"are {param.size()} and whose dimensions in the checkpoint are "
                    f"{inp.size()}, an exception occurred : {ex.args}."
                )
        extra = None
        if type(self).set_extra_state is not Module.set_extra_state:
            extra = prefix + _EXTRA_STATE
            if extra in state_dict:
                self.set_extra_state(state_dict[extra])
            else:
                missing_keys.append(extra)
        for key in state_dict:
            if key.startswith(prefix) and key != extra:
                input_name = key[len(prefix):].split(".", 1)
                if len(input_name) > 1:
                    if input_name[0] not in self._modules:
                        unexpected_keys.append(key)
                elif input_name[0] not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copy parameters and buffers from ``state_dict`` into this module and its submodules.

        Each tensor is copied in place into the module's (under :class:`nbgrad.no_grad`),
        so parameters keep their identity, unless ``assign=True``.

        Args:
            state_dict (dict): a dict of parameters and persistent buffers, as returned
                by :meth:`state_dict`.
            strict (bool, optional): require the keys of ``state_dict`` to match the keys
                of this module's :meth:`state_dict` exactly: a missing or unexpected key
                raises ``RuntimeError``. A shape mismatch raises whatever ``strict`` is.
                Default: ``True``.
            assign (bool, optional): replace the module's tensors by those of
                ``state_dict`` (parameters wrapped as new :class:`Parameter` objects that
                keep the old ``requires_grad``) rather than copying into them.
                Default: ``False``.

        Returns:
            NamedTuple: ``missing_keys`` (the keys of the module's state that
            ``state_dict`` lacks) and ``unexpected_keys`` (the keys of ``state_dict`` the
            module does not have), both lists of str.

        Example::

            >>> src, dst = nbgrad.nn.Linear(2, 3), nbgrad.nn.Linear(2, 3)
            >>> dst.load_state_dict(src.state_dict())
            <All keys matched successfully>
            >>> nbgrad.equal(dst.weight, src.weight)
            True
            >>> dst.load_state_dict({"weight": src.weight.detach()}, strict=False)
            _IncompatibleKeys(missing_keys=['bias'], unexpected_keys=[])
        """
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing_keys, unexpected_keys, error_msgs = [], [], []

        def load(module, local, prefix=""):
            module._load_from_state_dict(local, prefix, missing_keys, unexpected_keys,
                                         error_msgs, assign)
            for name, child in module._modules.items():
                if child is not None:
                    cp = prefix + name + "."
                    load(child, {k: v for k, v in local.items() if k.startswith(cp)}, cp)

        load(self, dict(state_dict))
        if strict:
            if unexpected_keys:
                error_msgs.insert(0, "Unexpected key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in unexpected_keys)))
            if missing_keys:
                error_msgs.insert(0, "Missing key(s) in state_dict: {}. ".format(
                    ", ".join(f'"{k}"' for k in missing_keys)))
        if error_msgs:
            raise RuntimeError("Error(s) in loading state_dict for {}:\n\t{}".format(
                type(self).__name__, "\n\t".join(error_msgs)))
        return _IncompatibleKeys(missing_keys, unexpected_keys)

    # ----- copying and printing -------------------------------------------------------------
    def __deepcopy__(self, memo):
        # (tensors copy themselves: Tensor.__deepcopy__, .grad and parameter marks included)
        new = object.__new__(type(self))
        memo[id(self)] = new
        for k, v in self.__dict__.items():
            new.__dict__[k] = copy.deepcopy(v, memo)
        return new

    def _get_name(self):
        return type(self).__name__

    def extra_repr(self):
        """Extra text inside this module's repr (subclasses override)."""
        return ""

    def __repr__(self):
        extra_lines = []
        extra = self.extra_repr()
        if extra:
            extra_lines = extra.split("\n")
        child_lines = []
        for key, module in self._modules.items():
            child_lines.append("(" + key + "): " + _addindent(repr(module), 2))
        lines = extra_lines + child_lines
        main = self._get_name() + "("
        if lines:
            if len(extra_lines) == 1 and not child_lines:
                main += extra_lines[0]
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"
