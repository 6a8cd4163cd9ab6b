"""L-BFGS (Nocedal, 1980; after minFunc): a quasi-Newton method that keeps the last
``history_size`` steps and gradient changes, with an optional strong-Wolfe line search.

It works on the parameters' gradients flattened into one vector, with nbgrad's tensor ops,
as PyTorch's does: the direction's two-loop recursion is a handful of dot products and
axpys per stored pair, and the closure is re-evaluated between them, so there is no
per-element kernel to fuse. The 0-d tensors PyTorch keeps (``t``, ``H_diag``, ``ro``,
``al``) are 0-d tensors here too, so a state dict holds what PyTorch's holds.
"""

from ..autograd.grad_mode import enable_grad, no_grad
from ..creation import zeros
from ..memory_formats import contiguous_format
from ..ops.concat import cat
from ..tensor import Tensor
from .optimizer import Optimizer, _check_lr


def _cubic_interpolate(x1, f1, g1, x2, f2, g2, bounds=None):
    """The minimizer of the cubic through ``(x1, f1)``, ``(x2, f2)`` with slopes ``g1``,
    ``g2``, clamped to ``bounds`` (default: between the points); the bounds' midpoint when
    the cubic has no minimum (after Torch7's ``polyinterp.lua``)."""
    if bounds is not None:
        lo, hi = bounds
    else:
        lo, hi = (x1, x2) if x1 <= x2 else (x2, x1)
    d1 = g1 + g2 - 3 * (f1 - f2) / (x1 - x2)
    d2_square = d1**2 - g1 * g2
    if not d2_square >= 0:
        return (lo + hi) / 2.0
    d2 = d2_square.sqrt()
    if x1 <= x2:
        at = x2 - (x2 - x1) * ((g2 + d2 - d1) / (g2 - g1 + 2 * d2))
    else:
        at = x1 - (x1 - x2) * ((g1 + d2 - d1) / (g1 - g2 + 2 * d2))
    return min(max(at, lo), hi)


def _strong_wolfe(obj_func, x, t, d, f, g, gtd, c1=1e-4, c2=0.9, tolerance_change=1e-9,
                  max_ls=25):
    """A step ``t`` along ``d`` that meets the strong Wolfe conditions (after Torch7's
    ``lswolfe.lua``): bracket one, then zoom in by cubic interpolation. Returns ``(loss,
    flat gradient, t, evaluations)``; ``obj_func(x, t, d)`` gives the loss and gradient at
    ``x + t d``."""
    d_norm = d.abs().max()
    g = g.clone(memory_format=contiguous_format)
    f_new, g_new = obj_func(x, t, d)
    evals = 1
    gtd_new = g_new.dot(d)

    # bracketing: grow t until the interval [t_prev, t] holds an acceptable point
    t_prev, f_prev, g_prev, gtd_prev = 0, f, g, gtd
    done = False
    ls_iter = 0
    while ls_iter < max_ls:
        if f_new > (f + c1 * t * gtd) or (ls_iter > 1 and f_new >= f_prev):
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g = [g_prev, g_new.clone(memory_format=contiguous_format)]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        if abs(gtd_new) <= -c2 * gtd:
            bracket, bracket_f, bracket_g = [t], [f_new], [g_new]
            done = True
            break
        if gtd_new >= 0:
            bracket, bracket_f = [t_prev, t], [f_prev, f_new]
            bracket_g = [g_prev, g_new.clone(memory_format=contiguous_format)]
            bracket_gtd = [gtd_prev, gtd_new]
            break
        t_next = _cubic_interpolate(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                                    bounds=(t + 0.01 * (t - t_prev), t * 10))
        t_prev, f_prev, gtd_prev = t, f_new, gtd_new
        g_prev = g_new.clone(memory_format=contiguous_format)
        t = t_next
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
    if ls_iter == max_ls:  # out of evaluations: between the start and the last trial
        bracket, bracket_f, bracket_g = [0, t], [f, f_new], [g, g_new]

    # zoom: shrink the bracket around a point meeting the conditions
    insuf_progress = False
    low, high = (0, 1) if bracket_f[0] <= bracket_f[-1] else (1, 0)
    while not done and ls_iter < max_ls:
        if abs(bracket[1] - bracket[0]) * d_norm < tolerance_change:
            break
        t = _cubic_interpolate(bracket[0], bracket_f[0], bracket_gtd[0],
                               bracket[1], bracket_f[1], bracket_gtd[1])
        # a trial too near an end twice running (or outside) moves a tenth of the way in
        b_hi, b_lo = max(bracket), min(bracket)
        eps = 0.1 * (b_hi - b_lo)
        if min(b_hi - t, t - b_lo) < eps:
            if insuf_progress or t >= b_hi or t <= b_lo:
                t = b_hi - eps if abs(t - b_hi) < abs(t - b_lo) else b_lo + eps
                insuf_progress = False
            else:
                insuf_progress = True
        else:
            insuf_progress = False
        f_new, g_new = obj_func(x, t, d)
        evals += 1
        gtd_new = g_new.dot(d)
        ls_iter += 1
        if f_new > (f + c1 * t * gtd) or f_new >= bracket_f[low]:
            # no sufficient decrease, or not below the low end: t becomes the high end
            bracket[high], bracket_f[high], bracket_gtd[high] = t, f_new, gtd_new
            bracket_g[high] = g_new.clone(memory_format=contiguous_format)
            low, high = (0, 1) if bracket_f[0] <= bracket_f[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (bracket[high] - bracket[low]) >= 0:
                bracket[high], bracket_f[high] = bracket[low], bracket_f[low]
                bracket_g[high], bracket_gtd[high] = bracket_g[low], bracket_gtd[low]
            bracket[low], bracket_f[low], bracket_gtd[low] = t, f_new, gtd_new
            bracket_g[low] = g_new.clone(memory_format=contiguous_format)
    return bracket_f[low], bracket_g[low], bracket[low], evals


class LBFGS(Optimizer):
    """The L-BFGS algorithm, a limited-memory quasi-Newton method (after minFunc).

    PyTorch's algorithm: ``step(closure)`` runs up to ``max_iter`` iterations
    (``max_eval`` bounds the closure's evaluations): the direction from the two-loop
    recursion over the last ``history_size`` pairs, a fixed step ``lr`` (the first one
    scaled by ``min(1, 1 / |g|_1)``) or, with ``line_search_fn="strong_wolfe"``, a strong
    Wolfe line search; it stops early when the largest gradient entry is at most
    ``tolerance_grad``, or the step or the loss changes by less than ``tolerance_change``.
    ``closure`` must zero the gradients, compute the loss, call ``backward`` and return the
    loss; ``step`` returns its first loss. One parameter group only; the state lives under
    the first parameter, as in PyTorch. It keeps all the parameters' gradients flattened
    into one vector and ``history_size`` pairs of such vectors: it suits full-batch
    problems with few parameters.

    Args:
        params (iterable): the tensors to optimize (one group only).
        lr (float, optional): learning rate (the step along the direction, or the line
            search's first trial). Default: ``1``.
        max_iter (int, optional): the most iterations per ``step``. Default: ``20``.
        max_eval (int, optional): the most evaluations of the closure per ``step``.
            Default: ``None``, ``max_iter * 5 // 4``.
        tolerance_grad (float, optional): stop once the gradient's largest absolute
            entry is at most this. Default: ``1e-7``.
        tolerance_change (float, optional): stop once the step or the change of the loss
            is smaller than this. Default: ``1e-9``.
        history_size (int, optional): the number of past updates kept. Default: ``100``.
        line_search_fn (str, optional): ``"strong_wolfe"``, or ``None`` for fixed steps.
            Default: ``None``.

    Example::

        >>> import nbgrad
        >>> w = nbgrad.nn.Parameter(nbgrad.tensor([1.0, -2.0]))
        >>> opt = nbgrad.optim.LBFGS([w], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = ((w - nbgrad.tensor([3.0, 4.0])) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> opt.step(closure).item()
        40.0
        >>> [round(v, 4) for v in w.tolist()]
        [3.0, 4.0]
    """

    def __init__(self, params, lr=1, max_iter=20, max_eval=None, tolerance_grad=1e-7,
                 tolerance_change=1e-9, history_size=100, line_search_fn=None):
        _check_lr(lr)
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        defaults = dict(lr=lr, max_iter=max_iter, max_eval=max_eval,
                        tolerance_grad=tolerance_grad, tolerance_change=tolerance_change,
                        history_size=history_size, line_search_fn=line_search_fn)
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._numel_cache = None

    @property
    def _params(self):
        # the group's list itself: load_state_dict keeps it, add_param_group is refused at
        # step, as PyTorch's does
        return self.param_groups[0]["params"]

    def _numel(self):
        if self._numel_cache is None:
            self._numel_cache = sum(p.numel() for p in self._params)
        return self._numel_cache

    def _gather_flat_grad(self):
        """Every parameter's gradient, flattened and concatenated (zeros where none)."""
        views = [zeros(p.numel(), dtype=p.dtype, device=p.device) if p.grad is None
                 else p.grad.reshape(-1) for p in self._params]
        return cat(views, 0)

    def _add_grad(self, step_size, update):
        """``p += step_size * update``, ``update`` cut into the parameters' shapes."""
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(update[offset:offset + n].view_as(p), alpha=step_size)
            offset += n
        if offset != self._numel():
            raise AssertionError(f"Expected offset {offset} to equal {self._numel()}")

    def _clone_param(self):
        return [p.clone(memory_format=contiguous_format) for p in self._params]

    def _set_param(self, params_data):
        for p, data in zip(self._params, params_data, strict=True):
            p.copy_(data)

    def _directional_evaluate(self, closure, x, t, d):
        """Loss and flat gradient at ``x + t d``; the parameters are put back to ``x``."""
        self._add_grad(t, d)
        loss = float(closure())
        flat_grad = self._gather_flat_grad()
        self._set_param(x)
        return loss, flat_grad

    @staticmethod
    def _direction(state, flat_grad, prev_flat_grad, d, t, history, H_diag, history_size):
        """The L-BFGS direction ``-H g``: the new pair ``(y, s)`` enters ``history``
        (``(old_dirs, old_stps, ro)``, updated in place) when its curvature ``y.s`` is
        positive enough; returns ``(d, H_diag)``."""
        old_dirs, old_stps, ro = history
        y = flat_grad.sub(prev_flat_grad)
        s = d.mul(t)
        ys = y.dot(s)
        if ys > 1e-10:
            if len(old_dirs) == history_size:  # drop the oldest pair
                old_dirs.pop(0)
                old_stps.pop(0)
                ro.pop(0)
            old_dirs.append(y)
            old_stps.append(s)
            ro.append(1.0 / ys)
            H_diag = ys / y.dot(y)  # the initial inverse Hessian's scale
        n = len(old_dirs)
        if "al" not in state:
            state["al"] = [None] * history_size
        al = state["al"]
        q = flat_grad.neg()
        for i in range(n - 1, -1, -1):
            al[i] = old_stps[i].dot(q) * ro[i]
            q.add_(old_dirs[i], alpha=-al[i])
        r = q.mul(H_diag)  # q * H_diag, in r's buffer from here on
        for i in range(n):
            be_i = old_dirs[i].dot(r) * ro[i]
            r.add_(old_stps[i], alpha=al[i] - be_i)
        return r, H_diag

    def step(self, closure):
        """Up to ``max_iter`` L-BFGS iterations, calling ``closure`` (under grad mode) for the
        loss and gradients; returns the loss of its first call."""
        with no_grad():
            return self._step(enable_grad()(closure))

    def _step(self, closure):
        if len(self.param_groups) != 1:
            raise AssertionError(
                f"Expected exactly one param_group, but got {len(self.param_groups)}")
        group = self.param_groups[0]
        lr = group["lr"]
        if isinstance(lr, Tensor):
            lr = lr.item()
        max_iter, max_eval = group["max_iter"], group["max_eval"]
        tolerance_grad, tolerance_change = group["tolerance_grad"], group["tolerance_change"]
        line_search_fn, history_size = group["line_search_fn"], group["history_size"]

        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        orig_loss = closure()
        loss = float(orig_loss)
        current_evals = 1
        state["func_evals"] += 1
        flat_grad = self._gather_flat_grad()
        opt_cond = flat_grad.abs().max() <= tolerance_grad
        if opt_cond:  # already optimal
            return orig_loss

        d, t = state.get("d"), state.get("t")
        history = state.get("old_dirs"), state.get("old_stps"), state.get("ro")
        H_diag = state.get("H_diag")
        prev_flat_grad, prev_loss = state.get("prev_flat_grad"), state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:  # steepest descent; the history starts empty
                d = flat_grad.neg()
                history, H_diag = ([], [], []), 1
            else:
                d, H_diag = self._direction(state, flat_grad, prev_flat_grad, d, t, history,
                                            H_diag, history_size)
            if prev_flat_grad is None:
                prev_flat_grad = flat_grad.clone(memory_format=contiguous_format)
            else:
                prev_flat_grad.copy_(flat_grad)
            prev_loss = loss

            # the first step is scaled down by the gradient's size; later ones are lr
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / flat_grad.abs().sum()) * lr
            else:
                t = lr
            gtd = flat_grad.dot(d)
            if gtd > -tolerance_change:  # not a descent direction (to tolerance)
                break

            ls_func_evals = 0
            if line_search_fn is not None:
                if line_search_fn != "strong_wolfe":
                    raise RuntimeError("only 'strong_wolfe' is supported")
                x_init = self._clone_param()

                def obj_func(x, t, d):
                    return self._directional_evaluate(closure, x, t, d)

                loss, flat_grad, t, ls_func_evals = _strong_wolfe(
                    obj_func, x_init, t, d, loss, flat_grad, gtd,
                    max_ls=max_eval - current_evals)
                self._add_grad(t, d)
                opt_cond = flat_grad.abs().max() <= tolerance_grad
            else:
                self._add_grad(t, d)
                if n_iter != max_iter:
                    # the last iteration's loss would go unused (and, stochastic, stale)
                    loss = float(closure())
                    flat_grad = self._gather_flat_grad()
                    opt_cond = flat_grad.abs().max() <= tolerance_grad
                    ls_func_evals = 1
            current_evals += ls_func_evals
            state["func_evals"] += ls_func_evals

            if n_iter == max_iter or current_evals >= max_eval or opt_cond:
                break
            if d.mul(t).abs().max() <= tolerance_change:  # the step is too small
                break
            if abs(loss - prev_loss) < tolerance_change:  # the loss has stopped changing
                break

        # (in PyTorch's key order: a state dict lists them as PyTorch's does)
        state["d"], state["t"] = d, t
        state["old_dirs"], state["old_stps"], state["ro"] = history
        state["H_diag"] = H_diag
        state["prev_flat_grad"], state["prev_loss"] = prev_flat_grad, prev_loss
        return orig_loss
