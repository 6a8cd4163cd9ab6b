"""Learning-rate schedules, as ``torch.optim.lr_scheduler``: each ``step()`` (once per epoch,
or per batch for ``OneCycleLR`` and ``CyclicLR``, after ``optimizer.step()``) writes the
next rate into every parameter group's ``"lr"``.

The rates follow PyTorch's own recurrences (most schedules multiply the group's current
rate rather than recompute it from the epoch), so a schedule gives PyTorch's floats to the
last bit, including when something else changed ``"lr"`` in between; ``state_dict`` /
``load_state_dict`` save and restore it. ``step(epoch)`` (deprecated in PyTorch) jumps to
``epoch`` by the closed form where the schedule has one.

>>> import nbgrad
>>> from nbgrad.optim.lr_scheduler import StepLR
>>> w = nbgrad.zeros(2, requires_grad=True)
>>> opt = nbgrad.optim.SGD([w], lr=0.1)
>>> sched = StepLR(opt, step_size=2, gamma=0.5)
>>> lrs = []
>>> for epoch in range(5):
...     opt.step()
...     sched.step()
...     lrs.append(sched.get_last_lr()[0])
>>> lrs
[0.1, 0.05, 0.05, 0.025, 0.025]
"""

import math
import types
import warnings
import weakref
from bisect import bisect_right
from collections import Counter
from functools import wraps

from .optimizer import Optimizer

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being "
    "deprecated where possible. Please use `scheduler.step()` to step the "
    "scheduler. During the deprecation, if epoch is different from None, the "
    "closed form is used instead of the new chainable form, where available. "
    "Please open an issue if you are unable to replicate your use case: "
    "https://github.com/pytorch/pytorch/issues/new/choose."
)


def _lrs(optimizer, key="lr"):
    return [group[key] for group in optimizer.param_groups]


def _per_group(name, optimizer, value):
    """``value`` for each parameter group: a list of that many, or one for all."""
    n = len(optimizer.param_groups)
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            raise ValueError(f"{name} must have the same length as optimizer.param_groups. "
                             f"{name} has {len(value)} values, param_groups has {n}.")
        return list(value)
    return [value] * n


def _count_steps(optimizer):
    """Wrap ``optimizer.step`` (once) so a schedule can tell whether it ran before its own
    first ``step`` (PyTorch's warning of the reversed order)."""
    if hasattr(optimizer.step, "_counted_by_schedule"):
        return
    ref = weakref.ref(optimizer)
    func = optimizer.step.__func__

    @wraps(func)
    def step(*args, **kwargs):
        opt = ref()
        opt._opt_called = True
        return func(opt, *args, **kwargs)

    step._counted_by_schedule = True
    optimizer.step = step


class LRScheduler:
    """Base class of the learning-rate schedulers.

    A scheduler sets the ``"lr"`` of each of an optimizer's parameter groups at each
    :meth:`step`, usually once per epoch after ``optimizer.step()``. A subclass gives
    ``get_lr()``: the rates of the epoch ``last_epoch`` just reached, one per group, from
    ``base_lrs`` (each group's ``"initial_lr"``) or the groups' current rates. Making a
    scheduler records each group's ``"initial_lr"`` (when ``last_epoch=-1``) and takes the
    first step, to epoch 0. :meth:`get_last_lr` reads the rates the last step set;
    :meth:`state_dict` and :meth:`load_state_dict` save and restore the schedule.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule
            (the groups must then hold ``"initial_lr"``); ``-1`` starts afresh.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import LRScheduler
        >>> class Halving(LRScheduler):
        ...     def __init__(self, optimizer, every, last_epoch=-1):
        ...         self.every = every
        ...         super().__init__(optimizer, last_epoch)
        ...
        ...     def get_lr(self):
        ...         return [base * 0.5 ** (self.last_epoch // self.every)
        ...                 for base in self.base_lrs]
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = Halving(opt, every=2)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for epoch in range(4):
        ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25]
    """

    _get_lr_called_within_step = False
    _is_initial = False

    def __init__(self, optimizer, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                group.setdefault("initial_lr", group["lr"])
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when "
                        "resuming scheduler with last_epoch >= 0.\n"
                        "This typically happens when:\n"
                        "1. You're trying to resume training from a checkpoint but haven't "
                        "properly loaded the optimizer state\n"
                        "2. You're using last_epoch >= 0 for a fresh training run (not "
                        "recommended)")
        self.base_lrs = _lrs(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        _count_steps(optimizer)
        self._initial_step()

    def _initial_step(self):
        """Zero the step count and take the first step (``SequentialLR`` calls it again for
        the schedule that starts at epoch 0)."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self):
        """The schedule's state: everything but the optimizer."""
        return {k: v for k, v in self.__dict__.items() if k != "optimizer"}

    def load_state_dict(self, state_dict):
        """Restore a ``state_dict()``."""
        self.__dict__.update(state_dict)

    def get_last_lr(self):
        """The rates the last ``step`` set, one per parameter group."""
        return self._last_lr

    def get_lr(self):
        raise NotImplementedError

    def _warn_if_outside_step(self):
        if not self._get_lr_called_within_step:
            warnings.warn("To get the last learning rate computed by the scheduler, please "
                          "use `get_last_lr()`.", UserWarning, stacklevel=3)

    def step(self, epoch=None):
        """Move to the next epoch (or, deprecated, to ``epoch``) and set its rates. Call it
        after ``optimizer.step()``."""
        if self._step_count == 1:
            if not hasattr(self.optimizer.step, "_counted_by_schedule"):
                warnings.warn(
                    "Seems like `optimizer.step()` has been overridden after learning rate "
                    "scheduler initialization. Please, make sure to call `optimizer.step()` "
                    "before `lr_scheduler.step()`. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
            elif not getattr(self.optimizer, "_opt_called", False):
                warnings.warn(
                    "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In "
                    "PyTorch 1.1.0 and later, you should call them in the opposite order: "
                    "`optimizer.step()` before `lr_scheduler.step()`.  Failure to do this "
                    "will result in PyTorch skipping the first value of the learning rate "
                    "schedule. See more details at "
                    "https://pytorch.org/docs/stable/optim.html#how-to-adjust-learning-rate",
                    UserWarning, stacklevel=2)
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._update_lr(epoch)

    def _update_lr(self, epoch=None):
        """Set the rates of the next epoch, or of ``epoch`` (by the closed form where there
        is one), without ``step``'s warnings and count: ``SequentialLR`` restarts a schedule
        at a milestone with ``_update_lr(0)``."""
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed = getattr(self, "_get_closed_form_lr", None)
                values = closed() if closed is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


_LRScheduler = LRScheduler  # (PyTorch's old name)


class LambdaLR(LRScheduler):
    """Set each group's rate to its initial rate times a function of the epoch.

    At epoch ``e`` the rate is ``initial_lr * lr_lambda(e)``.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        lr_lambda (callable or list): a function of the epoch (an int) giving a factor,
            or a list of such functions, one per parameter group.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import LambdaLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = LambdaLR(opt, lambda epoch: 0.5 ** epoch)
        >>> opt.step(); sched.step(); sched.get_last_lr()
        [0.5]
    """

    def __init__(self, optimizer, lr_lambda, last_epoch=-1):
        self.optimizer = optimizer
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got "
                                 f"{len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self):
        """The state; a lambda that is a plain function is saved as None, a callable
        object as its ``__dict__``."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [None if isinstance(fn, types.FunctionType) else fn.__dict__.copy()
                               for fn in self.lr_lambdas]
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self):
        self._warn_if_outside_step()
        return [base * fn(self.last_epoch) for fn, base in zip(self.lr_lambdas, self.base_lrs)]


class MultiplicativeLR(LambdaLR):
    """Multiply each group's rate by a function of the epoch at each step.

    At epoch ``e > 0`` the rate becomes ``lr * lr_lambda(e)``; the factors compound.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        lr_lambda (callable or list): a function of the epoch (an int) giving a factor,
            or a list of such functions, one per parameter group.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import MultiplicativeLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = MultiplicativeLR(opt, lr_lambda=lambda epoch: 0.9)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs
        [1.0, 0.9, 0.81, 0.729]
    """

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch > 0:
            return [group["lr"] * fn(self.last_epoch)
                    for fn, group in zip(self.lr_lambdas, self.optimizer.param_groups)]
        return _lrs(self.optimizer)


class StepLR(LRScheduler):
    """Decay each group's rate by ``gamma`` every ``step_size`` epochs.

    At epoch ``e`` the rate is ``initial_lr * gamma ** (e // step_size)`` (unless
    something else changed it in between: the decay multiplies the current rate).

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        step_size (int): the number of epochs between decays.
        gamma (float, optional): the factor of each decay. Default: ``0.1``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import StepLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = StepLR(opt, step_size=2, gamma=0.5)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for epoch in range(5):
        ...     opt.step()                               # (one epoch of training)
        ...     sched.step()
        ...     lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]
    """

    def __init__(self, optimizer, step_size, gamma=0.1, last_epoch=-1):
        self.step_size, self.gamma = step_size, gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** (self.last_epoch // self.step_size)
                for base in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Decay each group's rate by ``gamma`` at each of the epochs ``milestones``.

    A milestone listed twice decays the rate twice.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        milestones (iterable of int): the epochs at which to decay.
        gamma (float, optional): the factor of each decay. Default: ``0.1``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import MultiStepLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = MultiStepLR(opt, milestones=[2, 4], gamma=0.1)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(5):
        ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs
        [1.0, 1.0, 0.1, 0.1, 0.01, 0.01]
    """

    def __init__(self, optimizer, milestones, gamma=0.1, last_epoch=-1):
        self.milestones, self.gamma = Counter(milestones), gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch not in self.milestones:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch]
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        marks = sorted(self.milestones.elements())
        return [base * self.gamma ** bisect_right(marks, self.last_epoch)
                for base in self.base_lrs]


class LinearLR(LRScheduler):
    """Scale each group's rate by a factor that changes linearly over ``total_iters`` epochs.

    The factor goes from ``start_factor`` at epoch 0 to ``end_factor`` at epoch
    ``total_iters``, and stays there: a linear warm-up with the defaults.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        start_factor (float, optional): the factor at epoch 0, in (0, 1].
            Default: ``1 / 3``.
        end_factor (float, optional): the factor from epoch ``total_iters`` on, in
            [0, 1]. Default: ``1.0``.
        total_iters (int, optional): the number of epochs the change takes.
            Default: ``5``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import LinearLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = LinearLR(opt, start_factor=0.25, total_iters=3)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(4):
        ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs
        [0.25, 0.5, 0.75, 1.0, 1.0]
    """

    def __init__(self, optimizer, start_factor=1.0 / 3, end_factor=1.0, total_iters=5,
                 last_epoch=-1):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError("Starting multiplicative factor expected to be greater than 0 "
                             "and less or equal to 1.")
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError("Ending multiplicative factor expected to be between 0 and 1.")
        self.start_factor, self.end_factor = start_factor, end_factor
        self.total_iters = total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.start_factor for group in self.optimizer.param_groups]
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        d = self.end_factor - self.start_factor
        return [group["lr"] * (1.0 + d / (self.total_iters * self.start_factor
                                          + (self.last_epoch - 1) * d))
                for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * (self.start_factor + (self.end_factor - self.start_factor)
                        * min(self.total_iters, self.last_epoch) / self.total_iters)
                for base in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Decay each group's rate by ``gamma`` every epoch.

    At epoch ``e`` the rate is ``initial_lr * gamma ** e``.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        gamma (float): the factor of each decay.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import ExponentialLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ExponentialLR(opt, gamma=0.5)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [1.0, 0.5, 0.25, 0.125]
    """

    def __init__(self, optimizer, gamma, last_epoch=-1):
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self._is_initial:
            return _lrs(self.optimizer)
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [base * self.gamma ** self.last_epoch for base in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Anneal each group's rate along half a cosine, from its initial rate down to
    ``eta_min`` over ``T_max`` epochs.

    From Loshchilov and Hutter, "SGDR: Stochastic Gradient Descent with Warm Restarts"
    (without the restarts, which :class:`CosineAnnealingWarmRestarts` adds):

    .. math::
        \eta_t = \eta_{min} + \frac{1}{2}(\eta_{max} - \eta_{min})
        \left(1 + \cos\left(\frac{t}{T_{max}} \pi\right)\right)

    with :math:`\eta_{max}` the initial rate. Past ``T_max`` the rate rises back along
    the cosine over the next ``T_max`` epochs, as PyTorch's recurrence does. The rate is
    computed from the current one (a recurrence), so other changes to it carry on.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        T_max (int): the number of epochs of the descent (half a period).
        eta_min (float, optional): the lowest rate. Default: ``0.0``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import CosineAnnealingLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = CosineAnnealingLR(opt, T_max=4)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(5):
        ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs
        [1.0, 0.8536, 0.5, 0.1464, 0.0, 0.1464]
    """

    def __init__(self, optimizer, T_max, eta_min=0.0, last_epoch=-1):  # noqa: N803
        self.T_max, self.eta_min = T_max, eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        e, t, lo = self.last_epoch, self.T_max, self.eta_min
        if self._is_initial:
            return _lrs(self.optimizer)
        if self._step_count == 1 and e > 0:
            return [lo + (base - lo) * (1 + math.cos(e * math.pi / t)) / 2
                    for base in self.base_lrs]
        if (e - 1 - t) % (2 * t) == 0:
            return [group["lr"] + (base - lo) * (1 - math.cos(math.pi / t)) / 2
                    for base, group in zip(self.base_lrs, self.optimizer.param_groups)]
        return [(1 + math.cos(math.pi * e / t)) / (1 + math.cos(math.pi * (e - 1) / t))
                * (group["lr"] - lo) + lo for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        return [self.eta_min + (base - self.eta_min)
                * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
                for base in self.base_lrs]


class OneCycleLR(LRScheduler):
    """The one-cycle policy, stepped once per batch: the rate rises from ``max_lr /
    div_factor`` to ``max_lr`` over the first ``pct_start`` of ``total_steps`` (or
    ``epochs * steps_per_epoch``), then falls to ``initial / final_div_factor`` (by
    ``anneal_strategy`` ``"cos"`` or ``"linear"``; ``three_phase`` adds a symmetric fall
    first); momentum (or Adam's first beta) cycles the other way between
    ``max_momentum`` and ``base_momentum`` when ``cycle_momentum``.

    From Smith and Topin, "Super-Convergence: Very Fast Training of Neural Networks
    Using Large Learning Rates". Call :meth:`step` after each batch, ``total_steps``
    times in all; the ``lr`` the optimizer was made with is replaced.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        max_lr (float or list): the peak rate, one for all groups or one per group.
        total_steps (int, optional): the number of steps of the cycle. Default: ``None``,
            ``epochs * steps_per_epoch``.
        epochs (int, optional): the number of epochs, with ``steps_per_epoch`` (when
            ``total_steps`` is not given). Default: ``None``.
        steps_per_epoch (int, optional): the number of steps per epoch. Default: ``None``.
        pct_start (float, optional): the fraction of the cycle spent rising.
            Default: ``0.3``.
        anneal_strategy (str, optional): ``"cos"`` or ``"linear"`` annealing.
            Default: ``"cos"``.
        cycle_momentum (bool, optional): cycle the momentum (or Adam's ``beta1``) inversely
            to the rate. Default: ``True``.
        base_momentum (float or list, optional): the momentum at the rate's peak.
            Default: ``0.85``.
        max_momentum (float or list, optional): the momentum at the cycle's ends.
            Default: ``0.95``.
        div_factor (float, optional): the initial rate is ``max_lr / div_factor``.
            Default: ``25.0``.
        final_div_factor (float, optional): the last rate is the initial one divided by
            this. Default: ``1e4``.
        three_phase (bool, optional): fall back to the initial rate symmetrically before
            annealing to the last one, instead of annealing straight there.
            Default: ``False``.
        last_epoch (int, optional): the index of the last step, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import OneCycleLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=0.1,
        ...                        momentum=0.9)
        >>> sched = OneCycleLR(opt, max_lr=1.0, total_steps=10)
        >>> lrs = [round(sched.get_last_lr()[0], 4)]
        >>> for batch in range(9):
        ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs
        [0.04, 0.52, 1.0, 0.9505, 0.8117, 0.6113, 0.3887, 0.1883, 0.0495, 0.0]
        >>> opt.param_groups[0]["momentum"]
        0.95
    """

    def __init__(self, optimizer, max_lr, total_steps=None, epochs=None, steps_per_epoch=None,
                 pct_start=0.3, anneal_strategy="cos", cycle_momentum=True, base_momentum=0.85,
                 max_momentum=0.95, div_factor=25.0, final_div_factor=1e4, three_phase=False,
                 last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if total_steps is not None:
            if total_steps <= 0 or not isinstance(total_steps, int):
                raise ValueError(f"Expected positive integer total_steps, but got {total_steps}")
            self.total_steps = total_steps
        elif epochs is not None and steps_per_epoch is not None:
            if not isinstance(epochs, int) or epochs <= 0:
                raise ValueError(f"Expected positive integer epochs, but got {epochs}")
            if not isinstance(steps_per_epoch, int) or steps_per_epoch <= 0:
                raise ValueError("Expected positive integer steps_per_epoch, but got "
                                 f"{steps_per_epoch}")
            self.total_steps = epochs * steps_per_epoch
        else:
            raise ValueError("You must define either total_steps OR (epochs AND steps_per_epoch)")
        n = self.total_steps
        up = float(pct_start * n) - 1
        if three_phase:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(float(2 * pct_start * n) - 2, "max_lr", "initial_lr", "base_momentum",
                       "max_momentum"),
                _phase(n - 1, "initial_lr", "min_lr", "max_momentum", "max_momentum")]
        else:
            self._schedule_phases = [
                _phase(up, "initial_lr", "max_lr", "max_momentum", "base_momentum"),
                _phase(n - 1, "max_lr", "min_lr", "base_momentum", "max_momentum")]
        if pct_start < 0 or pct_start > 1 or not isinstance(pct_start, float):
            raise ValueError(f"Expected float between 0 and 1 pct_start, but got {pct_start}")
        if anneal_strategy not in ("cos", "linear"):
            raise ValueError("anneal_strategy must be one of 'cos' or 'linear', instead got "
                             f"{anneal_strategy}")
        self._anneal_func_type = anneal_strategy
        max_lrs = _per_group("max_lr", optimizer, max_lr)
        if last_epoch == -1:
            for m, group in zip(max_lrs, optimizer.param_groups):
                group["initial_lr"] = m / div_factor
                group["max_lr"] = m
                group["min_lr"] = group["initial_lr"] / final_div_factor
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            highs = _per_group("max_momentum", optimizer, max_momentum)
            lows = _per_group("base_momentum", optimizer, base_momentum)
            if last_epoch == -1:
                for hi, lo, group in zip(highs, lows, optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (hi, *group["betas"][1:])
                    else:
                        group["momentum"] = hi
                    group["max_momentum"], group["base_momentum"] = hi, lo
        super().__init__(optimizer, last_epoch)

    def _anneal(self, start, end, pct):
        if self._anneal_func_type == "cos":
            return end + (start - end) / 2.0 * (math.cos(math.pi * pct) + 1)
        return (end - start) * pct + start

    def get_lr(self):
        self._warn_if_outside_step()
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError(f"Tried to step {step} times. The specified number of total "
                             f"steps is {self.total_steps}")
        lrs = []
        last = len(self._schedule_phases) - 1
        for group in self.optimizer.param_groups:
            start = 0.0
            for i, phase in enumerate(self._schedule_phases):
                end = phase["end_step"]
                if step <= end or i == last:
                    pct = (step - start) / (end - start)
                    lr = self._anneal(group[phase["start_lr"]], group[phase["end_lr"]], pct)
                    if self.cycle_momentum:
                        mom = self._anneal(group[phase["start_momentum"]],
                                           group[phase["end_momentum"]], pct)
                    break
                start = end
            lrs.append(lr)
            if self.cycle_momentum:
                if self.use_beta1:
                    group["betas"] = (mom, *group["betas"][1:])
                else:
                    group["momentum"] = mom
        return lrs


def _phase(end_step, start_lr, end_lr, start_momentum, end_momentum):
    return {"end_step": end_step, "start_lr": start_lr, "end_lr": end_lr,
            "start_momentum": start_momentum, "end_momentum": end_momentum}


class ReduceLROnPlateau(LRScheduler):
    """Reduce each group's rate when a metric has stopped improving.

    Give the metric (a validation loss, say) to ``step(metrics)`` each epoch. Once it has
    not improved on its best value (by ``threshold``, relative or absolute) for more than
    ``patience`` epochs, each rate is multiplied by ``factor`` (not below ``min_lr``);
    then ``cooldown`` epochs pass before bad epochs are counted again.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        mode (str, optional): ``"min"``: the metric should decrease; ``"max"``: increase.
            Default: ``"min"``.
        factor (float, optional): the factor of each reduction, less than 1.
            Default: ``0.1``.
        patience (int, optional): the number of epochs without improvement that are
            tolerated; the rate is reduced at the next one. Default: ``10``.
        threshold (float, optional): how much better than the best a value must be to
            count as an improvement. Default: ``1e-4``.
        threshold_mode (str, optional): ``"rel"``: better than ``best * (1 - threshold)``
            (``best * (1 + threshold)`` in ``"max"`` mode); ``"abs"``: better than
            ``best - threshold`` (``best + threshold``). Default: ``"rel"``.
        cooldown (int, optional): the number of epochs to wait after a reduction before
            counting bad epochs again. Default: ``0``.
        min_lr (float or list, optional): the lowest rate, for all groups or per group.
            Default: ``0``.
        eps (float, optional): a reduction smaller than this is not applied.
            Default: ``1e-8``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import ReduceLROnPlateau
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = ReduceLROnPlateau(opt, patience=1, factor=0.5)
        >>> lrs = []
        >>> for val_loss in [1.0, 0.9, 0.9, 0.9, 0.9, 0.9]:
        ...     opt.step(); sched.step(val_loss); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [1.0, 1.0, 1.0, 0.5, 0.5, 0.25]
    """

    def __init__(self, optimizer, mode="min", factor=0.1, patience=10, threshold=1e-4,
                 threshold_mode="rel", cooldown=0, min_lr=0, eps=1e-8):
        if factor >= 1.0:
            raise ValueError("Factor should be < 1.0.")
        self.factor = factor
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if isinstance(min_lr, (list, tuple)):
            if len(min_lr) != len(optimizer.param_groups):
                raise ValueError(f"expected {len(optimizer.param_groups)} min_lrs, got "
                                 f"{len(min_lr)}")
            self.default_min_lr, self.min_lrs = None, list(min_lr)
        else:
            self.default_min_lr = min_lr
            self.min_lrs = [min_lr] * len(optimizer.param_groups)
        self.patience, self.cooldown, self.eps = patience, cooldown, eps
        self.last_epoch = 0
        self._last_lr = _lrs(optimizer)
        if mode not in ("min", "max"):
            raise ValueError("mode " + mode + " is unknown!")
        if threshold_mode not in ("rel", "abs"):
            raise ValueError("threshold mode " + threshold_mode + " is unknown!")
        self.mode_worse = math.inf if mode == "min" else -math.inf
        self.mode, self.threshold, self.threshold_mode = mode, threshold, threshold_mode
        self._reset()

    def _reset(self):
        self.best = self.mode_worse
        self.cooldown_counter = 0
        self.num_bad_epochs = 0

    @property
    def in_cooldown(self):
        return self.cooldown_counter > 0

    def _is_better(self, a, best):
        if self.mode == "min":
            return (a < best * (1.0 - self.threshold) if self.threshold_mode == "rel"
                    else a < best - self.threshold)
        return (a > best * (self.threshold + 1.0) if self.threshold_mode == "rel"
                else a > best + self.threshold)

    def step(self, metrics, epoch=None):
        """Record this epoch's ``metrics`` (a number or a one-element tensor)."""
        current = float(metrics)
        if epoch is None:
            epoch = self.last_epoch + 1
        else:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self.last_epoch = epoch
        if self._is_better(current, self.best):
            self.best, self.num_bad_epochs = current, 0
        else:
            self.num_bad_epochs += 1
        if self.in_cooldown:
            self.cooldown_counter -= 1
            self.num_bad_epochs = 0
        if self.num_bad_epochs > self.patience:
            self._reduce_lr()
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
        self._last_lr = _lrs(self.optimizer)

    def _reduce_lr(self):
        groups = self.optimizer.param_groups
        if len(groups) != len(self.min_lrs):
            if self.default_min_lr is None:
                raise RuntimeError(
                    f"The number of param groups in the `optimizer` ({len(groups)}) differs "
                    f"from when `ReduceLROnPlateau` was initialized ({len(self.min_lrs)}), "
                    "usually due to a new param group being added to the optimizer. Please "
                    "modify the `min_lrs` field to match the length of the `optimizer` param "
                    "groups.")
            self.min_lrs = [self.default_min_lr] * len(groups)
        for group, low in zip(groups, self.min_lrs):
            old = float(group["lr"])
            new = max(old * self.factor, low)
            if old - new > self.eps:
                group["lr"] = new


class ConstantLR(LRScheduler):
    """Rate ``factor`` times the initial one for the first ``total_iters`` epochs, then the
    initial one again (the change is a multiplication, so it composes with other schedules).

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        factor (float, optional): the factor, in [0, 1]. Default: ``1 / 3``.
        total_iters (int, optional): the number of epochs it applies for. Default: ``5``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import ConstantLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=0.05)
        >>> sched = ConstantLR(opt, factor=0.5, total_iters=2)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [0.025, 0.025, 0.05, 0.05]
    """

    def __init__(self, optimizer, factor=1.0 / 3, total_iters=5, last_epoch=-1):
        if factor > 1.0 or factor < 0:
            raise ValueError("Constant multiplicative factor expected to be between 0 and 1.")
        self.factor, self.total_iters = factor, total_iters
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self.last_epoch == 0:
            return [group["lr"] * self.factor for group in self.optimizer.param_groups]
        if self.last_epoch != self.total_iters:
            return _lrs(self.optimizer)
        return [group["lr"] * (1.0 / self.factor) for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        done = self.last_epoch >= self.total_iters
        return [base * (self.factor + done * (1 - self.factor)) for base in self.base_lrs]


class PolynomialLR(LRScheduler):
    """Rate ``initial * (1 - epoch / total_iters) ** power``, reaching 0 at ``total_iters``
    and kept there.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        total_iters (int, optional): the number of epochs of the decay. Default: ``5``.
        power (float, optional): the polynomial's power. Default: ``1.0``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import PolynomialLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = PolynomialLR(opt, total_iters=4, power=2.0)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(5):
        ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [1.0, 0.5625, 0.25, 0.0625, 0.0, 0.0]
    """

    def __init__(self, optimizer, total_iters=5, power=1.0, last_epoch=-1):
        self.total_iters, self.power = total_iters, power
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        if self._is_initial or self.last_epoch > self.total_iters:
            return _lrs(self.optimizer)
        # (the ratio of this epoch's factor to the last one's, as PyTorch chains it)
        e, n = self.last_epoch, self.total_iters
        decay = ((1.0 - e / n) / (1.0 - (e - 1) / n)) ** self.power
        return [group["lr"] * decay for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self):
        left = 1.0 - min(self.total_iters, self.last_epoch) / self.total_iters
        return [base * left ** self.power for base in self.base_lrs]


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: rate along half a cosine from the initial one down to ``eta_min`` over ``T_0``
    epochs, then back to the initial one (a warm restart) for a period ``T_mult`` times
    longer, and so on. ``step(epoch)`` takes a fractional epoch too (``epoch + i / iters``
    for batch ``i`` of ``iters``), without a deprecation warning.

    From Loshchilov and Hutter, "SGDR: Stochastic Gradient Descent with Warm Restarts".

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        T_0 (int): the number of epochs before the first restart.
        T_mult (int, optional): the factor by which each period is longer than the one
            before (an int, at least 1). Default: ``1``.
        eta_min (float, optional): the lowest rate. Default: ``0.0``.
        last_epoch (int, optional): the index of the last epoch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import CosineAnnealingWarmRestarts
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> sched = CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(6):
        ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs
        [1.0, 0.5, 1.0, 0.8536, 0.5, 0.1464, 1.0]
        >>> sched.step(2.5); round(sched.get_last_lr()[0], 4)
        0.9619
    """

    def __init__(self, optimizer, T_0, T_mult=1, eta_min=0.0, last_epoch=-1):  # noqa: N803
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError(f"Expected positive integer T_0, but got {T_0}")
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError(f"Expected integer T_mult >= 1, but got {T_mult}")
        if not isinstance(eta_min, (float, int)):
            raise ValueError(f"Expected float or int eta_min, but got {eta_min} of type "
                             f"{type(eta_min)}")
        self.T_0 = self.T_i = T_0
        self.T_mult, self.eta_min = T_mult, eta_min
        self.T_cur = last_epoch
        super().__init__(optimizer, last_epoch)

    def get_lr(self):
        self._warn_if_outside_step()
        lo = self.eta_min
        return [lo + (base - lo) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2
                for base in self.base_lrs]

    def step(self, epoch=None):
        """The next epoch, or ``epoch`` (a float for a point inside one); it is not
        counted nor checked for order as other schedules' steps are, as in PyTorch."""
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur += 1
            if self.T_cur >= self.T_i:
                self.T_cur %= self.T_i
                self.T_i *= self.T_mult
        elif epoch < 0:
            raise ValueError(f"Expected non-negative epoch, but got {epoch}")
        elif epoch < self.T_0:
            self.T_i, self.T_cur = self.T_0, epoch
        elif self.T_mult == 1:
            self.T_cur = epoch % self.T_0
        else:
            # restarts so far: the n with T_0 * (m**n - 1) / (m - 1) <= epoch
            m = self.T_mult
            n = int(math.log(epoch / self.T_0 * (m - 1) + 1, m))
            self.T_cur = epoch - self.T_0 * (m ** n - 1) / (m - 1)
            self.T_i = self.T_0 * m ** n
        self.last_epoch = math.floor(epoch)
        self._get_lr_called_within_step = True
        try:
            values = self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            group["lr"] = lr
        self._last_lr = _lrs(self.optimizer)


class CyclicLR(LRScheduler):
    """Cyclical rates, stepped once per batch: up from ``base_lr`` to ``max_lr`` over
    ``step_size_up`` batches and back down over ``step_size_down`` (default the same), the
    height scaled by ``mode``: ``"triangular"`` (not), ``"triangular2"`` (halved each
    cycle), ``"exp_range"`` (``gamma ** batch``), or by your ``scale_fn`` of the cycle
    number or of the batch (``scale_mode`` ``"cycle"`` or ``"iterations"``). With
    ``cycle_momentum`` the momentum (or Adam's first beta) cycles the other way, between
    ``max_momentum`` and ``base_momentum``.

    From Smith, "Cyclical Learning Rates for Training Neural Networks". Call
    :meth:`step` after each batch.

    Args:
        optimizer (Optimizer): the optimizer whose rates are scheduled.
        base_lr (float or list): the cycle's lowest rate, for all groups or per group;
            it replaces the optimizer's ``lr``.
        max_lr (float or list): the cycle's highest rate (before scaling), for all
            groups or per group.
        step_size_up (int, optional): the number of batches of the rise.
            Default: ``2000``.
        step_size_down (int, optional): the number of batches of the fall.
            Default: ``None``, ``step_size_up``.
        mode (str, optional): ``"triangular"``, ``"triangular2"`` or ``"exp_range"``
            (ignored when ``scale_fn`` is given). Default: ``"triangular"``.
        gamma (float, optional): ``"exp_range"``'s base. Default: ``1.0``.
        scale_fn (callable, optional): your own scaling, a function of one number to
            a factor in [0, 1]. Default: ``None``.
        scale_mode (str, optional): what ``scale_fn`` is a function of: ``"cycle"``
            (the cycle number) or ``"iterations"`` (the batch number).
            Default: ``"cycle"``.
        cycle_momentum (bool, optional): cycle the momentum (or Adam's ``beta1``)
            inversely to the rate. Default: ``True``.
        base_momentum (float or list, optional): the momentum at the rate's peak.
            Default: ``0.8``.
        max_momentum (float or list, optional): the momentum at the rate's lowest.
            Default: ``0.9``.
        last_epoch (int, optional): the index of the last batch, to resume a schedule.
            Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import CyclicLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
        >>> sched = CyclicLR(opt, base_lr=0.1, max_lr=0.5, step_size_up=2)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(4):
        ...     opt.step(); sched.step(); lrs.append(round(sched.get_last_lr()[0], 4))
        >>> lrs, round(opt.param_groups[0]["momentum"], 4)
        ([0.1, 0.3, 0.5, 0.3, 0.1], 0.9)
    """

    def __init__(self, optimizer, base_lr, max_lr, step_size_up=2000, step_size_down=None,
                 mode="triangular", gamma=1.0, scale_fn=None, scale_mode="cycle",
                 cycle_momentum=True, base_momentum=0.8, max_momentum=0.9, last_epoch=-1):
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        base_lrs = _per_group("base_lr", optimizer, base_lr)
        if last_epoch == -1:
            for lr, group in zip(base_lrs, optimizer.param_groups):
                group["lr"] = lr
        self.max_lrs = _per_group("max_lr", optimizer, max_lr)
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.total_size = up + down
        self.step_ratio = up / self.total_size
        if mode not in ("triangular", "triangular2", "exp_range") and scale_fn is None:
            raise ValueError("mode is invalid and scale_fn is None")
        self.mode, self.gamma = mode, gamma
        self._scale_fn_custom = scale_fn
        self.scale_mode = scale_mode
        self._init_scale_fn()
        self.cycle_momentum = cycle_momentum
        if cycle_momentum:
            if "momentum" not in optimizer.defaults and "betas" not in optimizer.defaults:
                raise ValueError("optimizer must support momentum or beta1 with "
                                 "`cycle_momentum` option enabled")
            self.use_beta1 = "betas" in optimizer.defaults
            self.base_momentums = _per_group("base_momentum", optimizer, base_momentum)
            self.max_momentums = _per_group("max_momentum", optimizer, max_momentum)
            if last_epoch == -1:
                for hi, lo, group in zip(self.max_momentums, self.base_momentums,
                                         optimizer.param_groups):
                    if self.use_beta1:
                        group["betas"] = (hi, *group["betas"][1:])
                    else:
                        group["momentum"] = hi
                    group["max_momentum"], group["base_momentum"] = hi, lo
        # (the first step reads the groups' "initial_lr", as PyTorch's does; the cycle's
        # floor is base_lr from then on)
        super().__init__(optimizer, last_epoch)
        self.base_lrs = base_lrs

    def _init_scale_fn(self):
        # a built-in mode fixes what its scale is a function of
        if self._scale_fn_custom is None:
            self.scale_mode = "iterations" if self.mode == "exp_range" else "cycle"

    def scale_fn(self, x):
        """The height's scale at cycle ``x`` (or batch ``x``, per ``scale_mode``)."""
        if self._scale_fn_custom is not None:
            return self._scale_fn_custom(x)
        if self.mode == "triangular":
            return 1.0
        if self.mode == "triangular2":
            return 1 / (2.0 ** (x - 1))
        return self.gamma ** x

    def get_lr(self):
        self._warn_if_outside_step()
        cycle = math.floor(1 + self.last_epoch / self.total_size)
        x = 1.0 + self.last_epoch / self.total_size - cycle
        if x <= self.step_ratio:
            frac = x / self.step_ratio
        else:
            frac = (x - 1) / (self.step_ratio - 1)
        at = cycle if self.scale_mode == "cycle" else self.last_epoch
        # (scale_fn called once per value, as PyTorch does, for a callable that keeps count)
        lrs = [base + (top - base) * frac * self.scale_fn(at)
               for base, top in zip(self.base_lrs, self.max_lrs)]
        if self.cycle_momentum:
            for group, lo, hi in zip(self.optimizer.param_groups, self.base_momentums,
                                     self.max_momentums):
                momentum = hi - (hi - lo) * frac * self.scale_fn(at)
                if self.use_beta1:
                    group["betas"] = (momentum, *group["betas"][1:])
                else:
                    group["momentum"] = momentum
        return lrs

    def state_dict(self):
        """The state; ``scale_fn`` is saved as None if a plain function, as its
        ``__dict__`` if a callable object."""
        state = super().state_dict()
        fn = state.pop("_scale_fn_custom")
        state["_scale_fn_custom"] = (None if fn is None or isinstance(fn, types.FunctionType)
                                     else fn.__dict__.copy())
        return state

    def load_state_dict(self, state_dict):
        state = dict(state_dict)
        saved = state.pop("_scale_fn_custom")
        super().load_state_dict(state)
        if saved is not None:
            self._scale_fn_custom.__dict__.update(saved)
        self._init_scale_fn()


def _check_schedulers(owner, optimizer, schedulers):
    for i, sched in enumerate(schedulers):
        if not hasattr(sched, "optimizer"):
            raise TypeError(f"{owner} at index {i} should have `optimizer` as its attribute.")
        if isinstance(sched, ReduceLROnPlateau):
            raise ValueError(
                f"{owner} does not support `ReduceLROnPlateau` scheduler as it requires "
                "additional kwargs to be specified when calling `step`, but got one at index "
                f"{i} in the given schedulers sequence.")
        if optimizer != sched.optimizer:
            raise ValueError(
                f"{owner} expects all schedulers to belong to the same optimizer, but got "
                f"scheduler {type(sched).__name__} at index {i} has {sched.optimizer}, which "
                f"is different from {type(optimizer).__name__}.")


def _states_with_schedulers(sched):
    state = {k: v for k, v in sched.__dict__.items() if k not in ("optimizer", "_schedulers")}
    state["_schedulers"] = [s.state_dict() for s in sched._schedulers]
    return state


def _load_with_schedulers(sched, state_dict):
    state = dict(state_dict)
    inner = state.pop("_schedulers")
    sched.__dict__.update(state)
    for s, saved in zip(sched._schedulers, inner):
        s.load_state_dict(saved)


class SequentialLR(LRScheduler):
    """One schedule after another: ``schedulers[i]`` runs from ``milestones[i - 1]`` (where
    it restarts from epoch 0) until ``milestones[i]``.

    Args:
        optimizer (Optimizer): the optimizer the schedules belong to.
        schedulers (list): the schedules, in order (no :class:`ReduceLROnPlateau`).
        milestones (list of int): the epochs at which each next schedule takes over,
            one fewer than ``schedulers``.
        last_epoch (int, optional): the index of the last epoch. Default: ``-1``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import ConstantLR, ExponentialLR, SequentialLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> warm = ConstantLR(opt, factor=0.1, total_iters=2)
        >>> decay = ExponentialLR(opt, gamma=0.5)
        >>> sched = SequentialLR(opt, schedulers=[warm, decay], milestones=[2])
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(4):
        ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [0.1, 0.1, 1.0, 0.5, 0.25]
    """

    def __init__(self, optimizer, schedulers, milestones, last_epoch=-1):
        owner = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler, but got no scheduler.")
        _check_schedulers(owner, optimizer, schedulers)
        if len(milestones) != len(schedulers) - 1:
            raise ValueError(
                "Sequential Schedulers expects number of schedulers provided to be one more "
                "than the number of milestone points, but got number of schedulers "
                f"{len(schedulers)} and the number of milestones to be equal to "
                f"{len(milestones)}")
        self._schedulers = schedulers
        self._milestones = milestones
        self.last_epoch = last_epoch + 1
        self.optimizer = optimizer
        # the schedules each took a first step when made: start again from the initial
        # rates, and only the one that owns epoch 0 takes it
        for group in optimizer.param_groups:
            group["lr"] = group["initial_lr"]
        self.recursive_undo()
        first = self._schedulers[bisect_right(self._milestones, 0)]
        first._initial_step()
        self._last_lr = first.get_last_lr()

    def recursive_undo(self, sched=None):
        """Take back one epoch from each schedule (inside nested ones too)."""
        sched = self if sched is None else sched
        if hasattr(sched, "_schedulers"):
            for s in sched._schedulers:
                self.recursive_undo(s)
        elif hasattr(sched, "last_epoch"):
            sched.last_epoch -= 1

    def step(self):
        """Step the schedule of the new epoch (restarting it at epoch 0 on its milestone)."""
        self.last_epoch += 1
        i = bisect_right(self._milestones, self.last_epoch)
        sched = self._schedulers[i]
        if i > 0 and self._milestones[i - 1] == self.last_epoch:
            sched._update_lr(0)
        else:
            sched.step()
        self._last_lr = sched.get_last_lr()

    def state_dict(self):
        """The state, with each schedule's own ``state_dict()``."""
        return _states_with_schedulers(self)

    def load_state_dict(self, state_dict):
        _load_with_schedulers(self, state_dict)


class ChainedScheduler(LRScheduler):
    """Several schedules stepped together: each ``step()`` steps every one of
    ``schedulers`` in turn, their changes to the rate compounding. ``optimizer`` defaults
    to the first schedule's.

    Args:
        schedulers (sequence): the schedules, all of one optimizer (no
            :class:`ReduceLROnPlateau`).
        optimizer (Optimizer, optional): their optimizer. Default: ``None``, the first
            schedule's.

    Example::

        >>> import nbgrad
        >>> from nbgrad.optim.lr_scheduler import ChainedScheduler, ConstantLR, ExponentialLR
        >>> opt = nbgrad.optim.SGD([nbgrad.zeros(1, requires_grad=True)], lr=1.0)
        >>> warm = ConstantLR(opt, factor=0.1, total_iters=2)
        >>> decay = ExponentialLR(opt, gamma=0.5)
        >>> sched = ChainedScheduler([warm, decay], optimizer=opt)
        >>> lrs = [sched.get_last_lr()[0]]
        >>> for _ in range(3):
        ...     opt.step(); sched.step(); lrs.append(sched.get_last_lr()[0])
        >>> lrs
        [0.1, 0.05, 0.25, 0.125]
    """

    def __init__(self, schedulers, optimizer=None):
        owner = type(self).__name__
        if len(schedulers) < 1:
            raise ValueError(f"{owner} expects at least one scheduler to be chained, but got "
                             "no scheduler.")
        optimizer = optimizer or schedulers[0].optimizer
        _check_schedulers(owner, optimizer, schedulers)
        self._schedulers = schedulers
        self.optimizer = optimizer
        self._last_lr = _lrs(schedulers[-1].optimizer)

    def step(self):
        """Step each schedule, in order."""
        for sched in self._schedulers:
            sched.step()
        self._last_lr = _lrs(self._schedulers[-1].optimizer)

    def state_dict(self):
        """The state, with each schedule's own ``state_dict()``."""
        return _states_with_schedulers(self)

    def load_state_dict(self, state_dict):
        _load_with_schedulers(self, state_dict)
