"""``GradScaler``: PyTorch's dynamic loss scaling (scale the loss, unscale the gradients,
skip a step whose gradients are not finite, grow or back off the scale)."""

import math
import warnings

from ..autograd.grad_mode import no_grad

_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    """``GradScaler(device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
    growth_interval=2000, enabled=True)``, PyTorch's rules: ``scale(loss)`` multiplies by the
    scale; ``step(optimizer)`` divides the gradients by it first (``unscale_``) and skips the
    step when any is inf or NaN; ``update()`` halves the scale after a skipped step and
    doubles it after ``growth_interval`` good ones. For ``device="cuda"`` with no CUDA device
    it is disabled, with PyTorch's warning.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0]))
        >>> opt = nbgrad.optim.SGD([w], lr=0.1)
        >>> scaler = nbgrad.amp.GradScaler("cpu")
        >>> scaler.scale((w * w).sum()).backward()
        >>> scaler.step(opt)
        >>> scaler.update()
        >>> round(w.item(), 6)                  # 1 - 0.1 * 2: the unscaled gradient's step
        0.8
    """

    def __init__(self, device="cuda", init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                 growth_interval=2000, enabled=True):
        self._device = device
        self._enabled = enabled
        if enabled and device == "cuda":
            from .. import cuda

            if not cuda.is_available():
                warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not "
                              "available.  Disabling.", stacklevel=2)
                self._enabled = False
        if self._enabled:
            if growth_factor <= 1.0:
                raise ValueError("The growth factor must be > 1.0.")
            if backoff_factor >= 1.0:
                raise ValueError("The backoff factor must be < 1.0.")
        self._scale = float(init_scale)
        self._growth_factor, self._backoff_factor = growth_factor, backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._states = {}

    def is_enabled(self):
        return self._enabled

    def _state(self, optimizer):
        return self._states.setdefault(id(optimizer), {"stage": _READY, "found_inf": False})

    def scale(self, outputs):
        """``outputs`` (a tensor, or tensors in lists, tuples and dicts) times the scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        if isinstance(outputs, dict):
            return {k: self.scale(v) for k, v in outputs.items()}
        return outputs * self._scale

    def unscale_(self, optimizer):
        """Divide ``optimizer``'s gradients by the scale, noting whether any is not finite."""
        if not self._enabled:
            return
        state = self._state(optimizer)
        if state["stage"] == _UNSCALED:
            raise RuntimeError("unscale_() has already been called on this optimizer since "
                               "the last update().")
        if state["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = False
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    p.grad.mul_(inv)
                    found = found or not bool(p.grad.isfinite().all())
        state["found_inf"] = found
        state["stage"] = _UNSCALED

    def step(self, optimizer, *args, **kwargs):
        """``optimizer.step()`` on unscaled gradients, skipped if any is inf or NaN; returns
        its result (None when skipped)."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is "
                               "enabled.")
        state = self._state(optimizer)
        if state["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if state["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if state["found_inf"] else optimizer.step(*args, **kwargs)
        state["stage"] = _STEPPED
        return result

    def update(self, new_scale=None):
        """Back off the scale if a step was skipped, grow it after ``growth_interval`` good
        steps in a row (or set ``new_scale``)."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale)
        else:
            if not self._states:
                raise AssertionError("No inf checks were recorded prior to update.")
            if any(s["found_inf"] for s in self._states.values()):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    grown = self._scale * self._growth_factor
                    if math.isfinite(grown):
                        self._scale = grown
                    self._growth_tracker = 0
        self._states = {}

    def get_scale(self):
        """The current scale (1.0 when disabled)."""
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self):
        return self._growth_factor

    def get_backoff_factor(self):
        return self._backoff_factor

    def get_growth_interval(self):
        return self._growth_interval

    def state_dict(self):
        """``scale``, ``growth_factor``, ``backoff_factor``, ``growth_interval`` and
        ``_growth_tracker`` (empty when disabled), as PyTorch's."""
        if not self._enabled:
            return {}
        return {"scale": self._scale, "growth_factor": self._growth_factor,
                "backoff_factor": self._backoff_factor,
                "growth_interval": self._growth_interval,
                "_growth_tracker": self._growth_tracker}

    def load_state_dict(self, state_dict):
        if not self._enabled:
            return
        if not state_dict:
            raise RuntimeError("The source state dict is empty, possibly because it was saved "
                               "from a disabled instance of GradScaler.")
        self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = state_dict["_growth_tracker"]


def _deprecated_grad_scaler(device_type):
    """``torch.cpu.amp.GradScaler`` / ``torch.cuda.amp.GradScaler``: the device's scaler (a
    subclass, so ``isinstance`` holds), with PyTorch's FutureWarning."""
    import warnings

    class _GradScaler(GradScaler):
        def __init__(self, init_scale=2.0**16, growth_factor=2.0, backoff_factor=0.5,
                     growth_interval=2000, enabled=True):
            warnings.warn(f"`torch.{device_type}.amp.GradScaler(args...)` is deprecated. Please "
                          f"use `torch.amp.GradScaler('{device_type}', args...)` instead.",
                          FutureWarning, stacklevel=2)
            super().__init__(device_type, init_scale, growth_factor, backoff_factor,
                             growth_interval, enabled)

    _GradScaler.__name__ = _GradScaler.__qualname__ = "GradScaler"
    _GradScaler.__module__ = f"nbgrad.{device_type}.amp"
    return _GradScaler
