"""``nbgrad.nn.utils.rnn``: batches of sequences of different lengths, as
``torch.nn.utils.rnn``. A ``PackedSequence`` holds every sequence's step ``t`` together
(longest sequences first), so a recurrent layer runs each step on the sequences still going;
padding and packing are composed of nbgrad ops, so gradients flow through them."""

from collections import namedtuple

import numpy as np

from ...creation import full, tensor
from ...dtypes import float32, float64, int64
from ...ops.concat import cat, stack
from ...tensor import Tensor

__all__ = ["PackedSequence", "invert_permutation", "pack_padded_sequence",
           "pad_packed_sequence", "pad_sequence", "unpad_sequence", "pack_sequence",
           "unpack_sequence"]


class PackedSequence(namedtuple("PackedSequence_", ["data", "batch_sizes", "sorted_indices",
                                                    "unsorted_indices"])):
    """Sequences packed step by step: ``data`` holds step 0 of every sequence, then step 1 of
    those that have one, ...; ``batch_sizes[t]`` counts the sequences at step ``t`` (int64,
    on the CPU); ``sorted_indices`` orders the batch longest first (None when it already
    was) and ``unsorted_indices`` undoes that. Made by ``pack_padded_sequence`` or
    ``pack_sequence``, taken and returned by ``RNN``, ``LSTM`` and ``GRU``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([nbgrad.tensor([1.0, 2.0, 3.0]), nbgrad.tensor([4.0])])
        >>> p.data, p.batch_sizes
        (tensor([1., 4., 2., 3.]), tensor([2, 1, 1]))
    """

    __slots__ = ()

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        """The same sequences with ``data`` (and the indices) moved or cast by ``Tensor.to``;
        ``batch_sizes`` stays on the CPU."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        move = (lambda t: None if t is None else t.to(data.device))
        return type(self)(data, self.batch_sizes, move(self.sorted_indices),
                          move(self.unsorted_indices))

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else device)

    def double(self):
        return self.to(dtype=float64)

    def float(self):
        return self.to(dtype=float32)

    @property
    def is_cuda(self):
        return self.data.is_cuda

    def is_pinned(self):
        return False


def invert_permutation(permutation):
    """The permutation that undoes ``permutation`` (None stays None)."""
    if permutation is None:
        return None
    p = np.asarray(permutation.cpu().numpy(), np.int64)
    inv = np.empty_like(p)
    inv[p] = np.arange(p.size)
    return tensor(inv, device=permutation.device)


def _lengths(lengths):
    if isinstance(lengths, Tensor):
        if lengths.ndim != 1 or lengths.device.type != "cpu" or lengths.dtype.is_floating_point:
            raise RuntimeError("'lengths' argument should be a 1D CPU int64 tensor, but got "
                               f"{lengths.ndim}D {lengths.device} {lengths.dtype.name} tensor")
        return [int(v) for v in lengths.tolist()]
    return [int(v) for v in lengths]


def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    """Pack a padded batch (``T x B x *``, or ``B x T x *`` with ``batch_first``) of
    sequences of ``lengths``. With ``enforce_sorted`` the lengths must be decreasing;
    otherwise the batch is sorted longest first (``sorted_indices`` records how).

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils.rnn import pack_padded_sequence
        >>> x = nbgrad.tensor([[1.0, 4.0], [2.0, 0.0], [3.0, 0.0]])  # T=3, B=2
        >>> pack_padded_sequence(x, [3, 1]).data
        tensor([1., 4., 2., 3.])
    """
    lens = _lengths(lengths)
    if batch_first:
        input = input.transpose(0, 1)
    if len(lens) != input.shape[1]:
        raise RuntimeError(f"Expected `len(lengths)` to be equal to batch_size, but got "
                           f"{len(lens)} (batch_size={input.shape[1]})")
    if enforce_sorted:
        if any(a < b for a, b in zip(lens, lens[1:])):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability.")
        sorted_indices = None
    else:
        order = sorted(range(len(lens)), key=lambda i: -lens[i])
        lens = [lens[i] for i in order]
        sorted_indices = tensor(order, dtype=int64, device=input.device)
        input = input.index_select(1, sorted_indices)
    if lens and min(lens) <= 0:
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    if lens and lens[0] > input.shape[0]:
        raise RuntimeError(f"a length of {lens[0]} is longer than the input's "
                           f"{input.shape[0]} steps")
    steps = lens[0] if lens else 0
    sizes = [sum(1 for n in lens if n > t) for t in range(steps)]
    data = cat([input[t, :b] for t, b in enumerate(sizes)], 0)
    return PackedSequence(data, tensor(sizes, dtype=int64), sorted_indices, None)


def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    """Undo ``pack_padded_sequence``: ``(padded, lengths)``, the batch in its original
    order, padded with ``padding_value`` to the longest sequence (or ``total_length``
    steps); ``lengths`` an int64 CPU tensor.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils.rnn import pack_sequence, pad_packed_sequence
        >>> p = pack_sequence([nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0])])
        >>> pad_packed_sequence(p, batch_first=True)
        (tensor([[1., 2.],
                [3., 0.]]), tensor([2, 1]))
    """
    data, sizes = sequence.data, [int(b) for b in sequence.batch_sizes.tolist()]
    steps = len(sizes)
    if total_length is not None:
        if total_length < steps:
            raise ValueError("Expected total_length to be at least the length of the longest "
                             f"sequence in input, but got total_length={total_length} and max "
                             f"sequence length being {steps}")
    batch = sizes[0] if sizes else 0
    tail = tuple(data.shape[1:])
    rows, start = [], 0
    for b in sizes:
        step = data[start:start + b]
        if b < batch:
            step = cat([step, full((batch - b,) + tail, padding_value, dtype=data.dtype,
                                   device=data.device)], 0)
        rows.append(step)
        start += b
    for _ in range(steps, total_length or steps):
        rows.append(full((batch,) + tail, padding_value, dtype=data.dtype, device=data.device))
    padded = stack(rows, 0) if rows else full((0, batch) + tail, padding_value,
                                              dtype=data.dtype, device=data.device)
    lengths = np.array([sum(1 for b in sizes if b > i) for i in range(batch)], np.int64)
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = lengths[sequence.unsorted_indices.cpu().numpy()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, tensor(lengths, dtype=int64)


def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    """Stack sequences of different lengths (each ``L_i x *``) into ``T x B x *`` (``B x T
    x *`` with ``batch_first``), padded with ``padding_value`` on ``padding_side``.

    Example::

        >>> import nbgrad
        >>> from nbgrad.nn.utils.rnn import pad_sequence
        >>> pad_sequence([nbgrad.tensor([1.0, 2.0]), nbgrad.tensor([3.0])], batch_first=True)
        tensor([[1., 2.],
                [3., 0.]])
    """
    if padding_side not in ("left", "right"):
        raise RuntimeError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    sequences = list(sequences.unbind(0) if isinstance(sequences, Tensor) else sequences)
    if not sequences:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in sequences)
    dt = sequences[0].dtype  # (the first sequence's dtype for all, as PyTorch's)
    rows = []
    for s in sequences:
        if s.dtype != dt:
            s = s.to(dt)
        short = longest - s.shape[0]
        if short:
            pad = full((short,) + tuple(s.shape[1:]), padding_value, dtype=dt,
                       device=s.device)
            s = cat([s, pad] if padding_side == "right" else [pad, s], 0)
        rows.append(s)
    return stack(rows, 0 if batch_first else 1)


def unpad_sequence(padded_sequences, lengths, batch_first=False):
    """The sequences of a padded batch, each cut to its length."""
    if not batch_first:
        padded_sequences = padded_sequences.transpose(0, 1)
    return [seq[:n] for seq, n in zip(padded_sequences.unbind(0), _lengths(lengths))]


def pack_sequence(sequences, enforce_sorted=True):
    """Pack a list of sequences (each ``L_i x *``): ``pack_padded_sequence`` of their
    ``pad_sequence``."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths,
                                enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences):
    """The list of sequences a ``PackedSequence`` holds, in the original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
