"""``AdaptiveLogSoftmaxWithLoss`` (Grave et al., "Efficient softmax approximation for GPUs"):
a head over the frequent classes and one entry per cluster of rarer ones, each cluster a
small two-layer projection; composed of nbgrad's layers and ops."""

from collections import namedtuple

from ...autograd.grad_mode import no_grad
from .container import ModuleList, Sequential
from .linear import Linear
from .module import Module

__all__ = ["AdaptiveLogSoftmaxWithLoss"]

_ASMoutput = namedtuple("_ASMoutput", ["output", "loss"])


def _F():
    from .. import functional

    return functional


class AdaptiveLogSoftmaxWithLoss(Module):
    r"""Adaptive softmax: classes ``[0, cutoffs[0])`` are scored by the head, each later
    range ``[cutoffs[i], cutoffs[i + 1])`` (the last ending at ``n_classes``) by a cluster
    whose probability the head gives; cluster ``i`` projects to ``in_features //
    div_value ** (i + 1)`` features first. ``forward(input, target)`` gives ``(output,
    loss)``: each target's log-probability and their negated mean; ``log_prob(input)`` all
    classes' log-probabilities, ``predict(input)`` the most likely class.

    Sort the classes by frequency, the most frequent first, so that the head scores the
    frequent ones and the small clusters the rare ones.

    Args:
        in_features (int): the number of features of the input.
        n_classes (int): the number of classes.
        cutoffs (Sequence[int]): increasing class indices, each in
            ``[1, n_classes - 1]``: where the head's classes end and each cluster's begin.
        div_value (float, optional): cluster ``i`` projects to
            ``in_features // div_value ** (i + 1)`` features. Default: ``4.0``.
        head_bias (bool, optional): give the head's linear layer a bias.
            Default: ``False``.
        device (nbgrad.device, optional): the device of the parameters. Default: the
            default device.
        dtype (nbgrad.dtype, optional): the dtype of the parameters. Default: the default
            dtype.

    Shape:
        - input: :math:`(N, \text{in\_features})` or :math:`(\text{in\_features})`.
        - target: :math:`(N)` or :math:`()`, class indices in ``[0, n_classes)``.
        - output: :math:`(N)` or :math:`()`; loss: a scalar.

    Example::

        >>> import nbgrad
        >>> asm = nbgrad.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cutoffs=[4, 7])
        >>> out = asm(nbgrad.randn(3, 8), nbgrad.tensor([1, 5, 9]))
        >>> tuple(out.output.shape), tuple(asm.log_prob(nbgrad.randn(3, 8)).shape)
        ((3,), (3, 10))
    """

    def __init__(self, in_features, n_classes, cutoffs, div_value=4.0, head_bias=False,
                 device=None, dtype=None):
        super().__init__()
        cutoffs = list(cutoffs)
        if (not cutoffs or cutoffs != sorted(cutoffs) or min(cutoffs) <= 0
                or max(cutoffs) > n_classes - 1 or len(set(cutoffs)) != len(cutoffs)
                or any(int(c) != c for c in cutoffs)):
            raise ValueError("cutoffs should be a sequence of unique, positive integers sorted "
                             "in an increasing order, where each value is between 1 and "
                             "n_classes-1")
        self.in_features, self.n_classes = in_features, n_classes
        self.cutoffs = cutoffs + [n_classes]
        self.div_value, self.head_bias = div_value, head_bias
        self.shortlist_size = self.cutoffs[0]
        self.n_clusters = len(self.cutoffs) - 1
        self.head_size = self.shortlist_size + self.n_clusters
        self.head = Linear(in_features, self.head_size, bias=head_bias, device=device,
                           dtype=dtype)
        self.tail = ModuleList()
        for i in range(self.n_clusters):
            hidden = int(in_features // (div_value ** (i + 1)))
            size = self.cutoffs[i + 1] - self.cutoffs[i]
            self.tail.append(Sequential(
                Linear(in_features, hidden, bias=False, device=device, dtype=dtype),
                Linear(hidden, size, bias=False, device=device, dtype=dtype)))

    def reset_parameters(self):
        self.head.reset_parameters()
        for projection in self.tail:
            for layer in projection:
                layer.reset_parameters()

    def forward(self, input_, target_):
        F = _F()
        if target_.ndim == 1:
            if input_.shape[0] != target_.shape[0]:
                raise RuntimeError("Input and target should have the same size in the batch "
                                   "dimension.")
            if input_.ndim != 2:
                raise RuntimeError("1D target tensor expects 2D input tensors, but found "
                                   f"inputs with size {input_.shape}")
        elif target_.ndim == 0:
            if input_.ndim != 1:
                raise RuntimeError("0D target tensor expects 1D input tensors, but found "
                                   f"inputs with size {input_.shape}")
        else:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        batched = target_.ndim > 0
        input = input_ if batched else input_.unsqueeze(0)
        target = target_ if batched else target_.unsqueeze(0)
        n = target.shape[0]
        output = input.new_zeros(n)
        head_index = target.new_empty(n)  # each row's head entry: its class or its cluster
        used = 0
        bounds = [0] + self.cutoffs
        for i, (low, high) in enumerate(zip(bounds, bounds[1:])):
            in_range = (target >= low) & (target < high)
            rows = in_range.nonzero().reshape(-1)
            if rows.numel() == 0:
                continue
            if i == 0:
                head_index.index_copy_(0, rows, target[in_range])
            else:
                logp = F.log_softmax(self.tail[i - 1](input.index_select(0, rows)), dim=1)
                picked = logp.gather(1, (target[in_range] - low).unsqueeze(1)).squeeze(1)
                head_index.index_fill_(0, rows, self.shortlist_size + i - 1)
                output.index_copy_(0, rows, picked)
            used += rows.numel()
        if used != n:
            with no_grad():
                lo, hi = int(target.min().item()), int(target.max().item())
            raise RuntimeError(f"Target values should be in [0, {self.n_classes - 1}], but "
                               f"values in range [{lo}, {hi}] were found. ")
        head_logp = F.log_softmax(self.head(input), dim=1)
        output = output + head_logp.gather(1, head_index.unsqueeze(1)).squeeze(1)
        loss = (-output).mean()
        return _ASMoutput(output if batched else output.squeeze(0), loss)

    def _full_log_prob(self, input, head_output):
        F = _F()
        head_logp = F.log_softmax(head_output, dim=1)
        parts = [head_logp[:, :self.shortlist_size]]
        for i in range(self.n_clusters):
            cluster_logp = F.log_softmax(self.tail[i](input), dim=1)
            parts.append(cluster_logp + head_logp[:, self.shortlist_size + i].unsqueeze(1))
        from ...ops.concat import cat

        return cat(parts, 1)

    def log_prob(self, input):
        """Every class's log-probability: (N, n_classes) for input (N, in_features), or
        (n_classes,) for (in_features,)."""
        batched = input.ndim > 1
        x = input if batched else input.unsqueeze(0)
        out = self._full_log_prob(x, self.head(x))
        return out if batched else out.squeeze(0)

    def predict(self, input):
        """The most likely class of each row of ``input``."""
        return self.log_prob(input).argmax(-1)
