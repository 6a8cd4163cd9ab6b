"""Constraints on distribution parameters and samples, as ``torch.distributions.constraints``:
each ``check(value)`` gives a bool tensor of which values (events, for constraints on
whole events) satisfy it."""

from ..ops.comparison import isclose

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent",
           "dependent_property", "greater_than", "greater_than_eq", "half_open_interval",
           "independent", "integer_interval", "interval", "less_than", "lower_cholesky",
           "multinomial", "nonnegative", "nonnegative_integer", "one_hot", "positive",
           "positive_definite", "positive_integer", "real", "real_vector", "simplex",
           "stack", "unit_interval"]


class Constraint:
    """A region of values; ``is_discrete`` and ``event_dim`` (the dims one check covers)."""

    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """A placeholder for a support that depends on other parameters (not checked)."""

    def __init__(self, *, is_discrete=False, event_dim=0):
        self.is_discrete, self.event_dim = is_discrete, event_dim

    def __call__(self, *, is_discrete=False, event_dim=0):
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property that is a dependent constraint on its class (a support computed from the
    instance's parameters)."""

    def __init__(self, fn=None, *, is_discrete=False, event_dim=0):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self.is_discrete, event_dim=self.event_dim)


class _IndependentConstraint(Constraint):
    """``base`` applied to the last ``reinterpreted_batch_ndims`` dims as one event."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.ndim < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.ndim}")
        for _ in range(self.reinterpreted_batch_ndims):
            result = result.all(-1)
        return result

    def __repr__(self):
        return f"IndependentConstraint({self.base_constraint!r}, " \
               f"{self.reinterpreted_batch_ndims})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, " \
               f"upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"IntegerGreaterThan(lower_bound={self.lower_bound})"


class _Real(Constraint):
    def check(self, value):
        return value == value  # (NaN is not real; infinities are)


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"LessThan(upper_bound={self.upper_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return f"Interval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _HalfOpenInterval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)

    def __repr__(self):
        return (f"HalfOpenInterval(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _Multinomial(Constraint):
    """Nonnegative counts whose sum over the last dim is at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        return ((value == 0) | (value == 1)).all(-1) & (value.sum(-1) == 1)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).flatten(-2).all(-1)
        positive = (value.diagonal(dim1=-2, dim2=-1) > 0).all(-1)
        return lower & positive


class _CorrCholesky(Constraint):
    """Cholesky factors of correlation matrices: lower triangular with a positive diagonal,
    each row of unit length (within ten times the dtype's eps per column)."""

    event_dim = 2

    def check(self, value):
        from .. import dtypes, linalg

        tol = dtypes.finfo(value.dtype).eps * value.size(-1) * 10
        row_norm = linalg.norm(value.detach(), dim=-1)
        unit_rows = ((row_norm - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit_rows


class _PositiveDefinite(Constraint):
    event_dim = 2

    def check(self, value):
        from .. import linalg

        sym = isclose(value, value.mT, atol=1e-6).flatten(-2).all(-1)
        return sym & (linalg.eigvalsh(value) > 0).all(-1)


class _Cat(Constraint):
    """``cseq[i]`` on the ``i``-th block (``lengths[i]`` long, one each by default) of the
    dim ``dim``, the checks joined as ``cat`` joins the blocks."""

    def __init__(self, cseq, dim=0, lengths=None):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(
                f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        from ..ops.concat import cat

        _check_dim(self.dim, value)
        checks, start = [], 0
        for constraint, length in zip(self.cseq, self.lengths):
            checks.append(constraint.check(value.narrow(self.dim, start, length)))
            start += length
        return cat(checks, self.dim)


class _Stack(Constraint):
    """``cseq[i]`` on the ``i``-th index of the dim ``dim``, the checks joined as ``stack``
    joins the slices."""

    def __init__(self, cseq, dim=0):
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        event_dim = max(c.event_dim for c in self.cseq)
        # (a dim counted from the right that lands inside the events makes the stacked
        # dim part of the event too)
        return event_dim + 1 if self.dim + event_dim < 0 else event_dim

    def check(self, value):
        from ..ops.concat import stack

        _check_dim(self.dim, value)
        slices = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return stack([c.check(v) for v, c in zip(slices, self.cseq)], self.dim)


def _check_dim(dim, value):
    if not -value.dim() <= dim < value.dim():
        raise AssertionError(f"dim {dim} out of range for value with {value.dim()} dimensions")


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
multinomial = _Multinomial
simplex = _Simplex()
one_hot = _OneHot()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
