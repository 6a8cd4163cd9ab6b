"""From a constraint to a transform that reaches it from unconstrained reals, as
``torch.distributions.constraint_registry``: ``biject_to(c)`` gives a bijection (for
parameters optimized in unconstrained space and mapped back, with exact log-Jacobians);
``transform_to(c)`` any transform onto the constraint (not always invertible: the simplex
gets softmax). Both are keyed by the constraint's class, so ``positive`` (a
``greater_than(0)``) maps as every ``greater_than`` does, as in PyTorch.

Example::

    >>> import nbgrad
    >>> from nbgrad.distributions import biject_to, constraints
    >>> t = biject_to(constraints.interval(-1.0, 1.0))
    >>> t(nbgrad.tensor([0.0]))
    tensor([0.])
"""

import numbers

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """A table from constraint classes to functions that make a transform for a
    constraint of that class."""

    def __init__(self):
        self._registry = {}

    def register(self, constraint, factory=None):
        """Register ``factory(constraint) -> Transform`` for ``constraint``'s class (a
        constraint class, or an instance of it); usable as a decorator."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint,
                                                              constraints.Constraint):
            raise TypeError("Expected constraint to be either a Constraint subclass or "
                            f"instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(
                f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(constraint, factory):
    biject_to.register(constraint, factory)
    transform_to.register(constraint, factory)


# (registered in PyTorch's order: a later registration of a class replaces an earlier one)
_both(constraints.real, lambda c: transforms.identity_transform)
for _registry in (biject_to, transform_to):
    _registry.register(constraints.independent, lambda c, r=_registry: (
        transforms.IndependentTransform(r(c.base_constraint), c.reinterpreted_batch_ndims)))
_both(constraints.positive, lambda c: transforms.ExpTransform())
_both(constraints.nonnegative, lambda c: transforms.ExpTransform())
_both(constraints.greater_than, lambda c: transforms.ComposeTransform(
    [transforms.ExpTransform(), transforms.AffineTransform(c.lower_bound, 1)]))
_both(constraints.greater_than_eq, lambda c: transforms.ComposeTransform(
    [transforms.ExpTransform(), transforms.AffineTransform(c.lower_bound, 1)]))
_both(constraints.less_than, lambda c: transforms.ComposeTransform(
    [transforms.ExpTransform(), transforms.AffineTransform(c.upper_bound, -1)]))


def _to_interval(c):
    lo, hi = c.lower_bound, c.upper_bound
    if isinstance(lo, numbers.Number) and lo == 0 and isinstance(hi, numbers.Number) and hi == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform([transforms.SigmoidTransform(),
                                        transforms.AffineTransform(lo, hi - lo)])


_both(constraints.interval, _to_interval)
_both(constraints.half_open_interval, _to_interval)
biject_to.register(constraints.simplex, lambda c: transforms.StickBreakingTransform())
transform_to.register(constraints.simplex, lambda c: transforms.SoftmaxTransform())
transform_to.register(constraints.lower_cholesky, lambda c: transforms.LowerCholeskyTransform())
transform_to.register(constraints.positive_definite,
                      lambda c: transforms.PositiveDefiniteTransform())
_both(constraints.corr_cholesky, lambda c: transforms.CorrCholeskyTransform())
for _registry in (biject_to, transform_to):
    _registry.register(constraints.cat, lambda c, r=_registry: transforms.CatTransform(
        [r(part) for part in c.cseq], c.dim, c.lengths))
    _registry.register(constraints.stack, lambda c, r=_registry: transforms.StackTransform(
        [r(part) for part in c.cseq], c.dim))
del _registry
