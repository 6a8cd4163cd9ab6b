"""Nested containers of tensors (tuples, lists, dicts: PyTorch's "pytrees") flattened into
their leaves and rebuilt, for the function transforms' inputs, outputs and dims."""


def flatten(tree):
    """``(leaves, spec)``: the leaves of ``tree`` in order and what rebuilds it."""
    leaves = []
    return leaves, _flatten(tree, leaves)


def _flatten(tree, leaves):
    if isinstance(tree, (tuple, list)):
        kind = type(tree) if not hasattr(tree, "_fields") else ("namedtuple", type(tree))
        return (kind, None, [_flatten(t, leaves) for t in tree])
    if isinstance(tree, dict):
        keys = list(tree)
        return (dict, keys, [_flatten(tree[k], leaves) for k in keys])
    leaves.append(tree)
    return None


def unflatten(leaves, spec):
    """The container ``spec`` describes, rebuilt around ``leaves``."""
    it = iter(leaves)
    return _build(it, spec)


def _build(it, spec):
    if spec is None:
        return next(it)
    kind, keys, children = spec
    parts = [_build(it, c) for c in children]
    if kind is dict:
        return dict(zip(keys, parts))
    if isinstance(kind, tuple):  # a namedtuple
        return kind[1](*parts)
    return kind(parts)


def describe(spec):
    """``spec`` written as PyTorch's messages show a structure."""
    if spec is None:
        return "*"
    kind, keys, children = spec
    name = kind[1].__name__ if isinstance(kind, tuple) else kind.__name__
    return f"{name}({', '.join(describe(c) for c in children)})"


def broadcast_prefix(prefix, tree, spec=None):
    """One value per leaf of ``tree``: ``prefix`` is a value for every leaf below it, or a
    container of the same structure as (a prefix of) ``tree``. Raises ``ValueError`` when
    the structures differ."""
    out = []
    _broadcast(prefix, tree, out)
    return out


def _broadcast(prefix, tree, out):
    if isinstance(prefix, (tuple, list, dict)):
        if isinstance(prefix, dict):
            if not isinstance(tree, dict) or set(prefix) != set(tree):
                raise ValueError("structure mismatch")
            for k in tree:
                _broadcast(prefix[k], tree[k], out)
            return
        if not isinstance(tree, (tuple, list)) or len(prefix) != len(tree):
            raise ValueError("structure mismatch")
        for p, t in zip(prefix, tree):
            _broadcast(p, t, out)
        return
    leaves, _ = flatten(tree)
    out.extend([prefix] * len(leaves))
