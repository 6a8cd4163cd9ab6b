"""The ``Optimizer`` base: parameter groups, per-parameter state, state dicts.

Subclasses implement ``step``. Their updates write parameters and state buffers in place
through one fused kernel each (the kernel table's ``optim_update`` running a step body of
``kernels/updates.py``), one pass over each parameter, and bump each parameter's version
counter.
"""

import warnings
from collections import defaultdict

import numpy as np

from .. import dtypes as _dt
from ..autograd.grad_mode import enable_grad
from ..kernels.table import kernel
from ..memory_formats import contiguous_format
from ..ops.inplace import assert_writable, zero_grads
from ..storage.layout import _LOW_CHARS, copy_data, is_c
from ..tensor import Tensor

_F32 = _dt.float32


def _update_in_float32(body, p, flat, g, state, hp):
    """The update kernel on float32 copies of a 16-bit parameter's flat data and 16-bit
    state arrays (no kernel takes 16-bit floats), each written back rounded; the gradient
    ``g`` is float32 already (``_flat_grad``)."""
    dev = p._device

    def wide(a):
        return copy_data(a, _F32, dev) if a.dtype.char in _LOW_CHARS else a

    wflat, wstate = wide(flat), tuple(wide(s) for s in state)
    kernel("optim_update", dev)(body, wflat, g, wstate, hp)
    for src, dst in zip((wflat,) + wstate, (flat,) + tuple(state)):
        if src is not dst:
            copy_data(src, _dt.from_numpy_dtype(dst.dtype), dev, out=dst)


class _RequiredParameter:
    """Marks a hyperparameter that every parameter group must give."""

    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


class Optimizer:
    """Base class of the optimizers: parameter groups, per-parameter state, state dicts.

    The tensors to optimize are kept in ``param_groups``, a list of dicts each holding
    ``"params"`` (a list of tensors) and the group's hyperparameters (``"lr"``, ...),
    which a learning-rate scheduler or your code may change between steps; ``state``
    maps each parameter to its own state (momentum buffers, step counts). A subclass
    passes its hyperparameters' defaults to ``__init__`` and implements :meth:`step`;
    the base class gives :meth:`zero_grad`, :meth:`add_param_group`, :meth:`state_dict`
    and :meth:`load_state_dict`.

    Args:
        params (iterable): the tensors to optimize, or dicts defining parameter groups
            (each with ``"params"`` and any hyperparameters, which override
            ``defaults`` for that group); ``(name, tensor)`` pairs name the parameters.
        defaults (dict): the default value of each hyperparameter, for the groups that
            do not set it.

    Example::

        >>> import nbgrad
        >>> class SignSGD(nbgrad.optim.Optimizer):
        ...     def __init__(self, params, lr=0.01):
        ...         super().__init__(params, dict(lr=lr))
        ...
        ...     @nbgrad.no_grad()
        ...     def step(self, closure=None):
        ...         for group in self.param_groups:
        ...             for p in group["params"]:
        ...                 if p.grad is not None:
        ...                     p.sub_(group["lr"] * p.grad.sign())
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> b = nbgrad.nn.Parameter(nbgrad.zeros(1))
        >>> opt = SignSGD([{"params": [w]}, {"params": [b], "lr": 0.5}], lr=0.1)
        >>> [group["lr"] for group in opt.param_groups]
        [0.1, 0.5]
        >>> (w ** 2).sum().backward()
        >>> opt.step()
        >>> w
        Parameter containing:
        tensor([ 0.9000, -1.9000], requires_grad=True)
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or "
                "dicts, but got " + params._type_name()
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for group in param_groups:
            self.add_param_group(group)

    def add_param_group(self, param_group):
        """Add a group of parameters (a dict with ``"params"`` and hyperparameters).

        Useful to fine-tune a pre-trained network: layers that were frozen are added to
        the optimizer, with their own hyperparameters, as training goes on.

        Args:
            param_group (dict): ``"params"`` (a tensor or an iterable of tensors) and any
                hyperparameters for the group; those missing take the optimizer's
                defaults. A parameter may not be in two groups.

        Example::

            >>> import nbgrad
            >>> w = nbgrad.zeros(2, requires_grad=True)
            >>> b = nbgrad.zeros(1, requires_grad=True)
            >>> opt = nbgrad.optim.SGD([w], lr=0.1)
            >>> opt.add_param_group({"params": [b], "lr": 0.01})
            >>> [(len(g["params"]), g["lr"], g["momentum"]) for g in opt.param_groups]
            [(1, 0.1, 0), (1, 0.01, 0)]
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the "
                "ordering of tensors in sets will change between runs. Please use a list instead."
            )
        else:
            params = list(params)
        names = [p[0] for p in params if isinstance(p, tuple)]
        params = [p[1] if isinstance(p, tuple) else p for p in params]
        if names:
            if len(names) != len(params):
                raise ValueError(
                    "all optimizer params should be with/without names. Some param names are missing"
                )
            param_group["param_names"] = names
        param_group["params"] = params
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(
                    "optimizer can only optimize Tensors, but one of the params is "
                    + type(p).__name__
                )
            if not (p.is_leaf or p.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")
        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(
                    "parameter group didn't specify a value of required optimization "
                    f"parameter {name}"
                )
            param_group.setdefault(name, default)
        ids = [id(p) for p in params]
        if len(ids) != len(set(ids)):
            warnings.warn(
                "optimizer contains a parameter group with duplicate parameters; in future, "
                "this will cause an error; see github.com/pytorch/pytorch/issues/40967 for more "
                "information",
                stacklevel=3,
            )
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if seen.intersection(ids):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(param_group)

    def zero_grad(self, set_to_none=True):
        """Reset the gradients of every optimized tensor.

        Call it before each backward pass: gradients accumulate into ``.grad``.

        Args:
            set_to_none (bool, optional): set each ``.grad`` to ``None`` (which frees its
                memory and lets :meth:`step` skip the tensor) rather than filling it with
                zeros in place. Default: ``True``.

        Example::

            >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
            >>> opt = nbgrad.optim.SGD([w], lr=0.1)
            >>> (w ** 2).sum().backward()
            >>> opt.zero_grad(set_to_none=False)
            >>> w.grad
            tensor([0., 0.])
            >>> opt.zero_grad()
            >>> w.grad is None
            True
        """
        zero_grads((p for group in self.param_groups for p in group["params"]), set_to_none)

    def step(self, closure=None):
        """Perform a single optimization step: update the parameters from their ``.grad``.

        Parameters whose ``.grad`` is ``None`` are skipped. Subclasses implement the
        update rule.

        Args:
            closure (Callable, optional): a function that clears the gradients,
                re-evaluates the model, calls ``backward`` and returns the loss; it is
                called (with gradients enabled) before the update. Some optimizers
                (:class:`LBFGS`) need it. Default: ``None``.

        Returns:
            the loss returned by ``closure``, or ``None`` without one.

        Example::

            >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
            >>> opt = nbgrad.optim.SGD([w], lr=0.1)
            >>> (w ** 2).sum().backward()
            >>> opt.step()                       # w -= 0.1 * 2 w
            >>> w
            Parameter containing:
            tensor([ 0.8000, -1.6000], requires_grad=True)
            >>> def closure():
            ...     opt.zero_grad()
            ...     loss = (w ** 2).sum()
            ...     loss.backward()
            ...     return loss
            >>> opt.step(closure)
            tensor(3.2000, grad_fn=<SumBackward0>)
        """
        raise NotImplementedError

    def _closure(self, closure):
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # ----- state dicts ----------------------------------------------------------------------
    def state_dict(self):
        """Return the state of the optimizer as a :class:`dict`.

        It has two entries:

        * ``"state"``: a dict from each parameter's index to its per-parameter state
          (momentum buffers, running averages, step counts), for the parameters that
          have one;
        * ``"param_groups"``: a list of dicts, one per parameter group, with the group's
          hyperparameters and ``"params"``, the list of its parameters' indices.

        Parameters are numbered in group order, as PyTorch does, so the dict holds no
        tensor identity and can be saved with :func:`nbgrad.save`. State tensors are
        shared with the optimizer, not copied.

        Returns:
            dict: the optimizer's state.

        Example::

            >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
            >>> opt = nbgrad.optim.SGD([w], lr=0.1, momentum=0.9)
            >>> (w ** 2).sum().backward()
            >>> opt.step()
            >>> sd = opt.state_dict()
            >>> sd["state"]
            {0: {'momentum_buffer': tensor([ 2., -4.])}}
            >>> sd["param_groups"][0]["lr"], sd["param_groups"][0]["params"]
            (0.1, [0])
        """
        mapping = {}
        start = 0

        def pack(group):
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                mapping.setdefault(id(p), i)
            packed["params"] = [mapping[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        groups = [pack(g) for g in self.param_groups]
        state = {
            (mapping[id(k)] if isinstance(k, Tensor) else k): dict(v)
            for k, v in self.state.items()
        }
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Load the optimizer state: hyperparameters and per-parameter state.

        The optimizer must have been built over parameters matching those that
        ``state_dict`` was saved from (same groups, same sizes). State tensors are
        copied, cast to their parameter's dtype and device (``step`` stays as saved).

        Args:
            state_dict (dict): optimizer state, as returned by :meth:`state_dict`.

        Example::

            >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
            >>> opt = nbgrad.optim.SGD([w], lr=0.1, momentum=0.9)
            >>> (w ** 2).sum().backward()
            >>> opt.step()
            >>> new = nbgrad.optim.SGD([w], lr=0.5, momentum=0.9)
            >>> new.load_state_dict(opt.state_dict())
            >>> new.param_groups[0]["lr"], new.state[w]["momentum_buffer"]
            (0.1, tensor([ 2., -4.]))
        """
        groups = self.param_groups
        saved_groups = [dict(g) for g in state_dict["param_groups"]]
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        if any(len(g["params"]) != len(s["params"]) for g, s in zip(groups, saved_groups)):
            raise ValueError(
                "loaded state dict contains a parameter group that doesn't match the size of "
                "optimizer's group"
            )
        id_map = {}
        for g, s in zip(groups, saved_groups):
            for sid, p in zip(s["params"], g["params"]):
                id_map[sid] = p

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                v = value.detach()
                if key != "step":
                    dt = param._dtype if param.is_floating_point() else v._dtype
                    v = v.to(device=param._device, dtype=dt)
                if v._data is value._data or not v.is_contiguous():
                    v = v.clone(memory_format=contiguous_format)  # own, C-contiguous storage
                return v
            if isinstance(value, dict):
                return {k: cast(param, x, k) for k, x in value.items()}
            if isinstance(value, (list, tuple)):
                return type(value)(cast(param, x) for x in value)
            return value

        state = defaultdict(dict)
        for k, v in state_dict["state"].items():
            if k in id_map:
                p = id_map[k]
                state[p] = cast(p, v)
            else:
                state[k] = v
        new_groups = []
        for g, s in zip(groups, saved_groups):
            s["params"] = g["params"]
            if "param_names" in g and "param_names" not in s:
                s["param_names"] = g["param_names"]
            new_groups.append(s)
        self.__setstate__({"state": state, "param_groups": new_groups})

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)
        for group in self.param_groups:
            for k, v in self.defaults.items():
                if v is not required:
                    group.setdefault(k, v)

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}\n"
            for key in sorted(group.keys()):
                if key != "params":
                    s += f"    {key}: {group[key]}\n"
        return s + ")"

    # ----- helpers for subclasses -----------------------------------------------------------
    def _params_with_grad(self, group):
        """``(p, its flat gradient, its state)`` for each parameter of ``group`` that has a
        ``.grad`` (the others are skipped, as PyTorch does)."""
        for p in group["params"]:
            if p._grad is not None:
                yield p, self._flat_grad(p), self.state[p]

    @staticmethod
    def _update(body, p, g, state, hp):
        """Run step body ``body`` (``kernels/updates.py``) over ``p`` (its flat data, or a
        contiguous copy written back) with flat gradient ``g``, the tuple of flat state
        arrays ``state`` and hyperparameters ``hp``, and bump ``p``'s version."""
        flat, back = Optimizer._flat_param(p)
        if p._dtype.low:  # float16 / bfloat16: the step in float32, rounded back once
            _update_in_float32(body, p, flat, g, state, hp)
        else:
            kernel("optim_update", p._device)(body, flat, g, state, hp)
        Optimizer._write_back(p, back)

    @staticmethod
    def _flat_param(p):
        """``(flat contiguous array to update, array to copy back into or None)``."""
        d = p._data
        if is_c(d):
            if d.__class__ is np.ndarray and not d.flags.writeable:
                assert_writable(p)  # raises PyTorch's error rather than Numba's
            return d.reshape(-1), None
        assert_writable(p)  # an expanded parameter: PyTorch's error
        c = copy_data(d, p._dtype, p._device)
        return c.reshape(-1), c

    @staticmethod
    def _write_back(p, copy):
        if copy is not None:
            copy_data(copy, p._dtype, p._device, out=p._data)
        p._vc[0] += 1

    @staticmethod
    def _flat_grad(p):
        g = p._grad
        d = g._data
        if g._device != p._device:
            raise RuntimeError(
                f"gradient on {g._device} does not match its parameter's device {p._device}"
            )
        # (a 16-bit parameter's step runs in float32: its gradient, and so the step's
        # scalars, which the optimizers make in the gradient's dtype, are float32)
        want = _F32 if p._dtype.low else p._dtype
        if g._dtype is not want or not is_c(d):
            d = copy_data(d, want, p._device)
        if tuple(d.shape) != tuple(p._data.shape):
            raise RuntimeError(
                f"gradient of shape {list(d.shape)} does not match its parameter's shape "
                f"{list(p._data.shape)}"
            )
        return d.reshape(-1)

    @staticmethod
    def _state_buffer(state, key, p):
        """State tensor ``state[key]`` as a flat contiguous array of ``p``'s dtype and device
        (created as zeros when missing; replaced by a converted copy when it differs)."""
        from ..creation import zeros

        t = state.get(key)
        if t is None:
            t = zeros(tuple(p.shape), dtype=p._dtype, device=p._device)
            state[key] = t
        elif (t._dtype is not p._dtype or t._device != p._device
              or not is_c(t._data)):
            if tuple(t.shape) != tuple(p.shape):
                raise RuntimeError(
                    f"optimizer state '{key}' has shape {list(t.shape)}, but its parameter "
                    f"has shape {list(p.shape)}"
                )
            t = t.detach().to(device=p._device, dtype=p._dtype).clone()
            state[key] = t
        if tuple(t.shape) != tuple(p.shape):
            raise RuntimeError(
                f"optimizer state '{key}' has shape {list(t.shape)}, but its parameter has "
                f"shape {list(p.shape)}"
            )
        t._vc[0] += 1
        return t._data.reshape(-1)


def _check_lr(lr):
    from ..tensor import Tensor

    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")


def _check_adam_args(lr, betas, eps, weight_decay):
    """The checks (and messages) PyTorch's Adam family shares."""
    _check_lr(lr)
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


def _check_unsupported(differentiable=False, capturable=False):
    if differentiable:
        raise NotImplementedError("nbgrad optimizers do not support differentiable=True")
    if capturable:
        raise NotImplementedError("nbgrad optimizers do not support capturable=True")
