"""Collectives with ``torch.distributed``'s names, arguments and defaults, on MPI.

Each runs in place on the tensors' memory (see ``_mpi.Buffer``); ``async_op=True`` starts
MPI's non-blocking form and returns a ``Work`` whose ``wait()`` completes it. Ranks given
as ``src``/``dst`` are global ranks (``group_src``/``group_dst``: ranks within ``group``).
"""

import enum
import pickle

import numpy as np

from ..tensor import Tensor
from ._mpi import Buffer, mpi
from .process_group import resolve


class ReduceOp(enum.Enum):
    """How ``all_reduce`` and ``reduce`` combine the processes' values: ``SUM``, ``AVG``
    (the sum divided by the number of processes; floating dtypes), ``PRODUCT``, ``MIN``,
    ``MAX``, and the bitwise ``BAND``, ``BOR``, ``BXOR`` (integer and bool dtypes).

    Example::

        >>> import nbgrad.distributed as dist
        >>> dist.ReduceOp.SUM
        <ReduceOp.SUM: 0>
    """

    SUM = 0
    AVG = 1
    PRODUCT = 2
    MIN = 3
    MAX = 4
    BAND = 5
    BOR = 6
    BXOR = 7


class Work:
    """A collective started with ``async_op=True``. ``wait()`` blocks until it has
    completed on this process and its results are in the tensors; ``is_completed()`` asks
    without blocking (and completes it when MPI has)."""

    def __init__(self, requests, finish, tensors):
        self._requests = requests
        self._finish = finish
        self._tensors = tensors
        self._done = False

    def _complete(self):
        self._done = True
        self._requests = []
        if self._finish is not None:
            self._finish()
            self._finish = None

    def wait(self, timeout=None):
        """Block until the collective has completed; returns ``True``."""
        if not self._done:
            mpi().Request.Waitall(self._requests)
            self._complete()
        return True

    def is_completed(self):
        if not self._done and mpi().Request.Testall(self._requests):
            self._complete()
        return self._done

    def is_success(self):
        return self.is_completed()

    def exception(self):
        return None

    def result(self):
        """The tensors the collective wrote (after ``wait``)."""
        return list(self._tensors)

    def synchronize(self):
        self.wait()


def _run(request, finish, tensors, async_op):
    work = Work([request] if request is not None else [], finish, tensors)
    if async_op:
        return work
    work.wait()
    return None


def _check_tensor(t, name="tensor"):
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"nbgrad.Tensor\n             but got {type(t)} instead.")


def _check_list(ts, name):
    if not isinstance(ts, (list, tuple)) or not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type "
                        f"List[nbgrad.Tensor]\n             but got {type(ts)} instead.")


def _root(pg, rank, group_rank, fn):
    """The group rank of a ``src``/``dst`` (global) or ``group_src``/``group_dst``."""
    if rank is not None and group_rank is not None:
        raise ValueError("Can not specify both rank and group_rank")
    if group_rank is None:
        r = pg.group_rank(0 if rank is None else int(rank))
    else:
        r = int(group_rank)
    if not 0 <= r < pg.size():
        raise RuntimeError(f"{fn}: invalid root rank: {r}")
    return r


def _mpi_op(op, kind, dtype):
    MPI = mpi()
    if not isinstance(op, ReduceOp):
        raise TypeError(f"op must be a nbgrad.distributed.ReduceOp, not {op!r}")
    if kind == "bool":
        return {ReduceOp.SUM: MPI.LOR, ReduceOp.MAX: MPI.LOR, ReduceOp.BOR: MPI.LOR,
                ReduceOp.MIN: MPI.LAND, ReduceOp.PRODUCT: MPI.LAND, ReduceOp.BAND: MPI.LAND,
                ReduceOp.BXOR: MPI.LXOR}.get(op) or _bad_op(op, dtype)
    if op in (ReduceOp.BAND, ReduceOp.BOR, ReduceOp.BXOR) and dtype.is_floating_point:
        _bad_op(op, dtype)
    if op is ReduceOp.AVG and not dtype.is_floating_point:
        raise RuntimeError(f"result type Float can't be cast to the desired output type "
                           f"{dtype.scalar_type}")
    return {ReduceOp.SUM: MPI.SUM, ReduceOp.AVG: MPI.SUM, ReduceOp.PRODUCT: MPI.PROD,
            ReduceOp.MIN: MPI.MIN, ReduceOp.MAX: MPI.MAX, ReduceOp.BAND: MPI.BAND,
            ReduceOp.BOR: MPI.BOR, ReduceOp.BXOR: MPI.BXOR}[op]


def _bad_op(op, dtype):
    raise RuntimeError(f"ReduceOp.{op.name} is not supported for {dtype}")


def _finisher(buffers, after=None):
    def finish():
        if after is not None:
            after()
        for b in buffers:
            b.finish()
    return finish


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Combine ``tensor`` across the processes with ``op``; every process gets the result
    in ``tensor`` (in place).

    Args:
        tensor (Tensor): this process's values; overwritten with the result.
        op (ReduceOp, optional): how to combine them. Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the processes. Default: the default group.
        async_op (bool, optional): return a ``Work`` at once instead of waiting.
            Default: ``False``.

    Returns:
        A ``Work`` if ``async_op``, else ``None``.

    Example::

        >>> import nbgrad, nbgrad.distributed as dist
        >>> t = nbgrad.tensor([1.0, 2.0]) * (dist.get_rank() + 1)  # doctest: +SKIP
        >>> dist.all_reduce(t)  # on 2 processes  # doctest: +SKIP
        >>> t  # doctest: +SKIP
        tensor([3., 6.])
    """
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    buf = Buffer(tensor, reduce=True)
    mop = _mpi_op(op, buf.kind, tensor.dtype)
    MPI = mpi()
    req = pg.comm.Iallreduce(MPI.IN_PLACE, buf.array, op=mop)
    after = None
    if op is ReduceOp.AVG:
        n = pg.size()

        def after():
            np.divide(buf.array, n, out=buf.array, casting="unsafe")
    return _run(req, _finisher([buf], after), [tensor], async_op)


def broadcast(tensor, src=None, group=None, async_op=False, group_src=None):
    """Copy ``tensor`` of process ``src`` into ``tensor`` of every other process.

    Args:
        tensor (Tensor): the data on ``src``; overwritten elsewhere (same shape and dtype
            on every process).
        src (int): the global rank that sends. Default: 0.
        group (ProcessGroup, optional): the processes. Default: the default group.
        async_op (bool, optional): return a ``Work`` instead of waiting. Default: ``False``.
        group_src (int, optional): ``src`` as a rank within ``group``.

    Example::

        >>> import nbgrad, nbgrad.distributed as dist
        >>> t = nbgrad.full((2,), float(dist.get_rank()))  # doctest: +SKIP
        >>> dist.broadcast(t, src=1)  # doctest: +SKIP
        >>> t  # doctest: +SKIP
        tensor([1., 1.])
    """
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "broadcast")
    buf = Buffer(tensor, read=pg.rank() == root)
    req = pg.comm.Ibcast(buf.array, root=root)
    return _run(req, _finisher([buf]), [tensor], async_op)


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False, group_dst=None):
    """Combine ``tensor`` across the processes with ``op`` into ``tensor`` of process
    ``dst`` (the others' ``tensor`` is left as it was).

    Args:
        tensor (Tensor): this process's values (the result, on ``dst``).
        dst (int): the global rank that gets the result. Default: 0.
        op (ReduceOp, optional): how to combine. Default: ``ReduceOp.SUM``.
        group (ProcessGroup, optional): the processes. Default: the default group.
        async_op (bool, optional): return a ``Work`` instead of waiting. Default: ``False``.
        group_dst (int, optional): ``dst`` as a rank within ``group``.

    Example::

        >>> import nbgrad, nbgrad.distributed as dist
        >>> t = nbgrad.ones(2)  # doctest: +SKIP
        >>> dist.reduce(t, dst=0)  # on 2 processes; rank 0 then holds tensor([2., 2.])  # doctest: +SKIP
    """
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "reduce")
    MPI = mpi()
    buf = Buffer(tensor, reduce=True)
    mop = _mpi_op(op, buf.kind, tensor.dtype)
    mine = pg.rank() == root
    if mine:
        req = pg.comm.Ireduce(MPI.IN_PLACE, buf.array, op=mop, root=root)
    else:
        req = pg.comm.Ireduce(buf.array, None, op=mop, root=root)
    after = None
    if op is ReduceOp.AVG and mine:
        n = pg.size()

        def after():
            np.divide(buf.array, n, out=buf.array, casting="unsafe")
    return _run(req, _finisher([buf] if mine else [], after), [tensor], async_op)


def _one_per_process(tensors, like, pg, fn, arg):
    """Check ``tensors`` (argument ``arg`` of ``fn``): a list of one tensor per process of
    ``pg``, each with ``like``'s shape and dtype (PyTorch's messages)."""
    _check_list(tensors, arg)
    if len(tensors) != pg.size():
        raise ValueError(f"{fn}: {arg} has {len(tensors)} tensors, but the group has "
                         f"{pg.size()} processes")
    for i, t in enumerate(tensors):
        if t.shape != like.shape:
            raise RuntimeError(f"{fn}: invalid tensor size at index {i} (expected "
                               f"{tuple(like.shape)}, got {tuple(t.shape)})")
        if t.dtype is not like.dtype:
            raise RuntimeError(f"{fn}: invalid tensor type at index {i} (expected "
                               f"{like.dtype}, got {t.dtype})")


def _stage(n, like):
    b = Buffer(like, read=False)
    return np.empty((n,) + b.array.shape, b.array.dtype)


def _unstack(host, tensors):
    def finish():
        for i, t in enumerate(tensors):
            b = Buffer(t, read=False)
            b.array[...] = host[i]
            if not b.back:
                continue
            b.finish()
    return finish


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Every process's ``tensor``, on every process: ``tensor_list[i]`` gets rank ``i``'s.

    Args:
        tensor_list (list of Tensor): one tensor per process, shaped like ``tensor``
            (overwritten).
        tensor (Tensor): this process's contribution.
        group (ProcessGroup, optional): the processes. Default: the default group.
        async_op (bool, optional): return a ``Work`` instead of waiting. Default: ``False``.

    Example::

        >>> import nbgrad, nbgrad.distributed as dist
        >>> out = [nbgrad.zeros(2) for _ in range(dist.get_world_size())]  # doctest: +SKIP
        >>> dist.all_gather(out, nbgrad.full((2,), float(dist.get_rank())))  # doctest: +SKIP
        >>> out  # on 2 processes  # doctest: +SKIP
        [tensor([0., 0.]), tensor([1., 1.])]
    """
    _check_list(tensor_list, "tensor_list")
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    _one_per_process(tensor_list, tensor, pg, "all_gather", "tensor_list")
    src = Buffer(tensor)
    host = _stage(pg.size(), tensor)
    req = pg.comm.Iallgather(src.array, host)
    return _run(req, _unstack(host, tensor_list), list(tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Every process's ``input_tensor``, concatenated along the first dimension (or
    stacked, when ``output_tensor`` has one more dimension) into ``output_tensor``.

    Args:
        output_tensor (Tensor): ``world_size`` times as many elements as
            ``input_tensor`` (overwritten).
        input_tensor (Tensor): this process's contribution.
        group (ProcessGroup, optional): the processes. Default: the default group.
        async_op (bool, optional): return a ``Work`` instead of waiting. Default: ``False``.
    """
    _check_tensor(output_tensor, "output_tensor")
    _check_tensor(input_tensor, "input_tensor")
    pg = resolve(group)
    if pg is None:
        return None
    if output_tensor.numel() != input_tensor.numel() * pg.size():
        raise ValueError("output tensor size must be equal to world_size times input "
                         "tensor size")
    if output_tensor.dtype is not input_tensor.dtype:
        raise ValueError("output tensor must have the same type as input tensor")
    src = Buffer(input_tensor)
    out = Buffer(output_tensor, read=False)
    req = pg.comm.Iallgather(src.array, out.array)
    return _run(req, _finisher([out]), [output_tensor], async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False, group_dst=None):
    """Every process's ``tensor`` into ``gather_list`` of process ``dst``.

    Args:
        tensor (Tensor): this process's contribution.
        gather_list (list of Tensor, optional): on ``dst``, one tensor per process shaped
            like ``tensor`` (overwritten); ``None`` elsewhere.
        dst (int): the global rank that gathers. Default: 0.
        group (ProcessGroup, optional): the processes. Default: the default group.
        async_op (bool, optional): return a ``Work`` instead of waiting. Default: ``False``.
        group_dst (int, optional): ``dst`` as a rank within ``group``.
    """
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, dst, group_dst, "gather")
    src = Buffer(tensor)
    if pg.rank() != root:
        if gather_list:
            raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination "
                             "ranks.")
        return _run(pg.comm.Igather(src.array, None, root=root), None, [], async_op)
    if gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    _one_per_process(gather_list, tensor, pg, "gather", "gather_list")
    host = _stage(pg.size(), tensor)
    req = pg.comm.Igather(src.array, host, root=root)
    return _run(req, _unstack(host, gather_list), list(gather_list), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False, group_src=None):
    """``scatter_list[i]`` of process ``src`` into ``tensor`` of process ``i``.

    Args:
        tensor (Tensor): where this process receives its part (overwritten).
        scatter_list (list of Tensor, optional): on ``src``, one tensor per process shaped
            like ``tensor``; ``None`` elsewhere.
        src (int): the global rank that scatters. Default: 0.
        group (ProcessGroup, optional): the processes. Default: the default group.
        async_op (bool, optional): return a ``Work`` instead of waiting. Default: ``False``.
        group_src (int, optional): ``src`` as a rank within ``group``.
    """
    _check_tensor(tensor)
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "scatter")
    out = Buffer(tensor, read=False)
    host = None
    if pg.rank() == root:
        if scatter_list is None:
            raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
        _one_per_process(scatter_list, tensor, pg, "scatter", "scatter_list")
        host = np.stack([Buffer(t).array for t in scatter_list])
    elif scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    req = pg.comm.Iscatter(host, out.array, root=root)
    return _run(req, _finisher([out]), [tensor], async_op)


def barrier(group=None, async_op=False, device_ids=None, timeout=None):
    """Wait until every process of ``group`` has reached this call.

    Args:
        group (ProcessGroup, optional): the processes. Default: the default group.
        async_op (bool, optional): return a ``Work`` instead of waiting. Default: ``False``.
        device_ids, timeout: accepted for PyTorch's programs, unused.
    """
    pg = resolve(group)
    if pg is None:
        return None
    return _run(pg.comm.Ibarrier(), None, [], async_op)


def all_gather_object(object_list, obj, group=None):
    """Every process's picklable ``obj``, on every process: ``object_list[i]`` is set to
    rank ``i``'s (objects are pickled, unlike tensors).

    Args:
        object_list (list): as long as the group; overwritten.
        obj: this process's object.
        group (ProcessGroup, optional): the processes. Default: the default group.
    """
    pg = resolve(group)
    if pg is None:
        return None
    if len(object_list) != pg.size():
        raise ValueError(f"all_gather_object: object_list has {len(object_list)} entries, but "
                         f"the group has {pg.size()} processes")
    got = pg.comm.allgather(pickle.dumps(obj))
    object_list[:] = [pickle.loads(b) for b in got]


def broadcast_object_list(object_list, src=None, group=None, device=None, group_src=None):
    """Replace ``object_list``'s entries with those of process ``src`` (pickled).

    Args:
        object_list (list): the objects on ``src``; as many placeholders elsewhere.
        src (int): the global rank that sends. Default: 0.
        group (ProcessGroup, optional): the processes. Default: the default group.
        device: accepted for PyTorch's programs, unused.
        group_src (int, optional): ``src`` as a rank within ``group``.
    """
    pg = resolve(group)
    if pg is None:
        return None
    root = _root(pg, src, group_src, "broadcast_object_list")
    got = pg.comm.bcast(list(object_list) if pg.rank() == root else None, root=root)
    object_list[:] = got
