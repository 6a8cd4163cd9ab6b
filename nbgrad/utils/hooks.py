"""``nbgrad.utils.hooks``: as ``torch.utils.hooks``: the :class:`RemovableHandle` hooks
return, and :class:`BackwardHook`, which runs a module's full backward hooks.

A module with backward hooks passes its tensor inputs, and then its tensor outputs,
through an identity autograd function. The pre-hook of the outputs' node sees the
gradients of the outputs (``grad_output``) first; the post-hook of the inputs' node then
sees the gradients of the inputs (``grad_input``), and calls the module's hooks with both,
as PyTorch does.
"""

import warnings

from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..autograd.graph import RemovableHandle
from ..tensor import Tensor

__all__ = ["RemovableHandle", "BackwardHook"]


class BackwardHookFunction(Function):
    """Identity on its tensors: its node is where a module's backward hooks attach."""

    @staticmethod
    def forward(ctx, *args):
        ctx.mark_non_differentiable(*[a for a in args if not a.requires_grad])
        return args

    @staticmethod
    def backward(ctx, *grads):
        return grads


def _pack(index, values, size):
    """The ``size`` positional slots, ``values`` at ``index`` and ``None`` elsewhere."""
    out = [None] * size
    for i, v in zip(index, values):
        out[i] = v
    return tuple(out)


class BackwardHook:
    """The full backward hooks and pre-hooks of one call of ``module``: made by the call,
    which passes its inputs through :meth:`setup_input_hook` and its outputs through
    :meth:`setup_output_hook`."""

    def __init__(self, module, user_hooks, user_pre_hooks):
        self.module = module
        self.user_hooks = user_hooks
        self.user_pre_hooks = user_pre_hooks
        self.grad_outputs = None
        self.n_inputs = self.n_outputs = -1
        self.input_tensors_index = self.output_tensors_index = None

    def _apply_on_tensors(self, hook_node, args):
        index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        tensors = [args[i] for i in index]
        if not (is_grad_enabled() and any(t.requires_grad for t in tensors)):
            return args, None
        new = BackwardHookFunction.apply(*tensors)
        if not isinstance(new, tuple):
            new = (new,)
        hook_node(next(t.grad_fn for t in new if t.grad_fn is not None))
        out = list(args)
        for i, t in zip(index, new):
            out[i] = t
        return tuple(out), index

    def _run_user_hooks(self, grad_input):
        for hook in self.user_hooks:
            out = hook(self.module, grad_input, self.grad_outputs)
            if out is None:
                continue
            if len(out) != len(grad_input):
                raise RuntimeError(f"Backward hook returned an invalid number of grad_input, "
                                   f"got {len(out)}, but expected {len(grad_input)}")
            grad_input = out
        return grad_input

    def setup_input_hook(self, args):
        def hook_node(node):
            def post(grad_inputs, _grad_outputs):
                if self.grad_outputs is None:  # (the outputs' hook has not run: no call)
                    return None
                res = self._run_user_hooks(_pack(self.input_tensors_index, grad_inputs,
                                                 self.n_inputs))
                self.grad_outputs = None
                return tuple(res[i] for i in self.input_tensors_index)

            node.register_hook(post)

        res, self.input_tensors_index = self._apply_on_tensors(hook_node, args)
        self.n_inputs = len(args)
        return res

    def setup_output_hook(self, args):
        def hook_node(node):
            def pre(grad_outputs):
                self.grad_outputs = _pack(self.output_tensors_index, grad_outputs,
                                          self.n_outputs)
                for hook in self.user_pre_hooks:
                    out = hook(self.module, self.grad_outputs)
                    if out is None:
                        continue
                    if len(out) != len(self.grad_outputs):
                        raise RuntimeError(
                            f"Backward pre hook returned an invalid number of grad_output, "
                            f"got {len(out)}, but expected {len(self.grad_outputs)}")
                    self.grad_outputs = out
                local = self.grad_outputs
                if self.input_tensors_index is None:  # no input needs a gradient: call now
                    warnings.warn("Full backward hook is firing when gradients are computed "
                                  "with respect to module outputs since no inputs require "
                                  "gradients.", UserWarning, stacklevel=2)
                    grad_inputs = (None,) * self.n_inputs
                    for hook in self.user_hooks:
                        r = hook(self.module, grad_inputs, self.grad_outputs)
                        if r is not None and not (isinstance(r, tuple)
                                                  and all(v is None for v in r)):
                            raise RuntimeError(
                                "Backward hook for Modules where no input requires gradient "
                                "should always return None or None for all gradients.")
                    self.grad_outputs = None
                return tuple(local[i] for i in self.output_tensors_index)

            node.register_prehook(pre)

        is_tuple = isinstance(args, tuple)
        res, self.output_tensors_index = self._apply_on_tensors(
            hook_node, args if is_tuple else (args,))
        self.n_outputs = len(args) if is_tuple else 1
        return res if is_tuple else res[0]
