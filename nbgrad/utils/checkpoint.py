"""``nbgrad.utils.checkpoint``: as ``torch.utils.checkpoint``, trading compute for memory.

A checkpointed function runs without recording its graph (so none of its intermediate
results are kept); in backward it runs again, from its saved inputs, with grad on and the
random state it first saw, and its gradients flow on from there.

nbgrad runs both of PyTorch's variants by recomputation in the node's backward (PyTorch's
reentrant one): the gradients reach the inputs and, through a backward inside the
backward, the ``.grad`` of the tensors the function uses (a module's parameters), so
``loss.backward()`` gives what PyTorch gives with either variant; ``autograd.grad`` with
respect to such tensors or ``backward(inputs=...)``, which PyTorch's non-reentrant
variant allows, is refused with PyTorch's reentrant error.
"""

import warnings

from .. import random as _random
from ..autograd import grad_mode
from ..autograd.api import backward as _backward
from ..autograd.function import Function
from ..tensor import Tensor

__all__ = ["checkpoint", "checkpoint_sequential"]


class CheckpointFunction(Function):
    """The node of a checkpointed call: ``forward`` keeps only the inputs, ``backward``
    recomputes and back-propagates through the recomputed graph."""

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, reentrant, *args):
        ctx.run_function = run_function
        ctx.reentrant = reentrant
        ctx.rng_state = _random.get_rng_state() if preserve_rng_state else None
        ctx.args = [None if isinstance(a, Tensor) else a for a in args]
        ctx.tensor_index = [i for i, a in enumerate(args) if isinstance(a, Tensor)]
        ctx.save_for_backward(*[a for a in args if isinstance(a, Tensor)])
        return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        from ..autograd.engine import checkpoint_valid

        if not checkpoint_valid():  # (the recomputation's backward fills .grad of leaves)
            if ctx.reentrant:  # PyTorch's words
                raise RuntimeError(
                    "When use_reentrant=True, torch.utils.checkpoint is incompatible with "
                    ".grad() or passing an `inputs` parameter to .backward(). To resolve this "
                    "error, you can either set use_reentrant=False, or call .backward() "
                    "without passing the `inputs` argument.")
            raise RuntimeError(
                "nbgrad.utils.checkpoint recomputes in backward, with either use_reentrant: it "
                "is incompatible with autograd.grad() or passing an `inputs` parameter to "
                ".backward() (PyTorch's use_reentrant=False allows them); call .backward() "
                "without passing the `inputs` argument.")
        args = list(ctx.args)
        for i, t in zip(ctx.tensor_index, ctx.saved_tensors):
            args[i] = t.detach().requires_grad_(t.requires_grad)
        with _random.fork_rng(enabled=ctx.rng_state is not None):
            if ctx.rng_state is not None:
                _random.set_rng_state(ctx.rng_state)
            with grad_mode.enable_grad():
                outputs = ctx.run_function(*args)
        if not isinstance(outputs, tuple):
            outputs = (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None, None) + tuple(a.grad if isinstance(a, Tensor) else None
                                          for a in args)


def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, preserve_rng_state=True, **kwargs):
    """Run ``function(*args, **kwargs)`` without keeping its intermediate results, and run it
    again in backward to get its gradients: less memory, one more forward.

    Args:
        function (callable): what to run; it must compute the same thing when run again.
        *args: its arguments (the tensors among them are kept for the second run).
        use_reentrant (bool, optional): PyTorch's choice of variant; nbgrad runs both by
            recomputation (see the module's note). ``None`` warns, as PyTorch does, and
            means ``True``. Default: ``None``.
        context_fn, determinism_check, debug: accepted for PyTorch's signature; only their
            defaults are supported.
        preserve_rng_state (bool, optional): the second run sees the random state of the
            first (the same dropout masks). Default: ``True``.
        **kwargs: keyword arguments of ``function``.

    Returns:
        what ``function`` returns.

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.checkpoint import checkpoint
        >>> x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        >>> y = checkpoint(lambda a: a.sin() * a, x, use_reentrant=False)
        >>> y.sum().backward()
        >>> x.grad
        tensor([ 1.3818,  0.0770, -2.8289])
    """
    if use_reentrant is None:
        warnings.warn("nbgrad.utils.checkpoint: the use_reentrant parameter should be passed "
                      "explicitly. use_reentrant=False is recommended; nbgrad runs both "
                      "variants by recomputation.", UserWarning, stacklevel=2)
    if context_fn is not None or determinism_check != "default" or debug:
        raise NotImplementedError("nbgrad.utils.checkpoint supports context_fn, "
                                  "determinism_check and debug at their defaults only")
    if kwargs:
        def run(*a, _f=function, _kw=kwargs):
            return _f(*a, **_kw)
    else:
        run = function
    if not grad_mode.is_grad_enabled():
        return run(*args)
    if not any(isinstance(a, Tensor) and a.requires_grad for a in args):
        if use_reentrant is not False:  # (PyTorch's reentrant variant: no node, no gradient)
            warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                          UserWarning, stacklevel=2)
        else:  # the non-reentrant one still reaches the parameters: a node is needed, so an
            # input that requires grad (and gets none) is added
            from ..creation import zeros

            inner = run

            def run(_anchor, *a):
                return inner(*a)

            args = (zeros((), requires_grad=True),) + args
    return CheckpointFunction.apply(run, preserve_rng_state, use_reentrant is not False, *args)


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run ``functions`` (a list of modules or callables, or an ``nn.Sequential``) one after
    another on ``input``, in ``segments`` parts of equal length, each checkpointed but the
    last (see :func:`checkpoint`).

    Args:
        functions (nn.Sequential or list of callables): the layers, applied in order.
        segments (int): the number of parts.
        input (Tensor): the input of the first.
        use_reentrant (bool, optional): as :func:`checkpoint`'s. Default: ``None``.
        **kwargs: ``preserve_rng_state`` (as :func:`checkpoint`'s).

    Returns:
        Tensor: the output of the last.

    Example::

        >>> import nbgrad
        >>> from nbgrad.utils.checkpoint import checkpoint_sequential
        >>> net = nbgrad.nn.Sequential(nbgrad.nn.Linear(3, 3), nbgrad.nn.ReLU(),
        ...                            nbgrad.nn.Linear(3, 1))
        >>> y = checkpoint_sequential(net, 2, nbgrad.ones(2, 3), use_reentrant=False)
        >>> y.shape
        nbgrad.Size([2, 1])
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    from ..nn import Sequential

    if isinstance(functions, Sequential):
        functions = list(functions.children())

    def run_function(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x

        return forward

    size = len(functions) // segments
    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run_function(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run_function(end + 1, len(functions) - 1)(input)
