"""Parameters as one flat vector and back, as ``torch.nn.utils.convert_parameters``."""

from ...tensor import Tensor


def parameters_to_vector(parameters):
    """The parameters' values, flattened and joined into one vector (a new tensor, part
    of the graph as ``cat`` is).

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import parameters_to_vector
        >>> parameters_to_vector([nbgrad.ones(2, 2), nbgrad.zeros(1)])
        tensor([1., 1., 1., 1., 0.])
    """
    from ... import cat

    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec, parameters):
    """Write consecutive slices of ``vec`` into the parameters' values (``.data``), in
    order.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils import vector_to_parameters
        >>> ps = [nbgrad.zeros(2), nbgrad.zeros(1, 1)]
        >>> vector_to_parameters(nbgrad.tensor([1.0, 2.0, 3.0]), ps)
        >>> ps[1]
        tensor([[3.]])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    at = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[at:at + n].reshape(tuple(p.shape)).data
        at += n
