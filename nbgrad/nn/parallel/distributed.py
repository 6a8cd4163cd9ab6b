"""``DistributedDataParallel``: data-parallel training over the processes of a group.

Each process holds a replica of the module and trains on its own part of the data; after
each backward every replica holds the gradients averaged over all of them, so the same
optimizer step keeps the replicas equal. The averaging overlaps backward: gradients are
grouped into buckets (reverse parameter order, the order backward produces them; a small
first bucket so that communication starts early), and a bucket's non-blocking allreduce
starts from a post-accumulate-grad hook as soon as all of its parameters' gradients are
in; the backward pass waits for all of them before it returns (an engine callback).
Buckets start in the same order on every process, as MPI's collectives require: bucket
``i`` starts only after bucket ``i - 1`` has.
"""

import contextlib
import time

import numpy as np

from ...autograd.engine import queue_callback
from ...autograd.grad_mode import is_grad_enabled, no_grad
from ...distributed import _mpi
from ...distributed.process_group import resolve
from ...func import _tree
from ...tensor import Tensor
from ..modules.module import Module

_MIB = 1024 * 1024
_FIRST_BUCKET_BYTES = _MIB  # (PyTorch's dist._DEFAULT_FIRST_BUCKET_BYTES)


class _Bucket:
    """Parameters reduced together: their gradients packed into one flat host array."""

    __slots__ = ("index", "params", "offsets", "flat", "pending", "request", "staged")

    def __init__(self, index, params, np_dtype):
        self.index = index
        self.params = params  # indices into DistributedDataParallel._params
        self.offsets = []
        self.flat = None
        self.pending = 0
        self.request = None
        self.staged = np_dtype  # the dtype MPI reduces in


class DistributedDataParallel(Module):
    """Train ``module`` on several processes at once, as ``torch.nn.parallel.
    DistributedDataParallel``: each process runs its own part of every batch, and after
    ``backward()`` each parameter's ``.grad`` is the average over the processes (the
    gradient of the loss averaged over the whole batch, when every process's loss is a
    mean over its equal part).

    At construction the parameters are checked to have the same names, shapes and dtypes
    on every process and then copied from rank 0 (with the buffers), so every replica
    starts equal. During backward the gradients are averaged in buckets, each started as
    soon as its gradients are ready, so communication overlaps the rest of backward;
    ``backward()`` returns once all are done.

    Args:
        module (Module): the model; every process builds the same one.
        device_ids (list, optional): accepted for PyTorch's programs; the module's
            parameters stay on their devices. Default: ``None``.
        output_device: accepted for PyTorch's programs, unused.
        dim (int, optional): accepted for PyTorch's programs (the batch dimension).
        broadcast_buffers (bool, optional): copy rank 0's buffers (batch-norm statistics)
            to every process at each forward. Default: ``True``.
        init_sync (bool, optional): check and copy the parameters at construction.
            Default: ``True``.
        process_group (ProcessGroup, optional): the processes. Default: the default group.
        bucket_cap_mb (float, optional): the size of a bucket in MiB. Default: 25 (the
            first bucket: 1 MiB).
        find_unused_parameters (bool, optional): after each forward, find the parameters
            the output does not depend on, so that backward need not wait for them (their
            gradient counts as zero). Default: ``False``: every parameter that requires
            grad must get a gradient in every backward.
        check_reduction, static_graph: accepted for PyTorch's programs, unused.
        gradient_as_bucket_view (bool, optional): after backward, each ``.grad`` is a view
            into its bucket's memory instead of a tensor of its own (saves the memory of
            one copy of the gradients). Default: ``False``.

    Example::

        >>> import nbgrad, nbgrad.distributed as dist
        >>> from nbgrad.nn.parallel import DistributedDataParallel as DDP
        >>> dist.init_process_group("mpi")  # doctest: +SKIP
        >>> model = DDP(nbgrad.nn.Linear(4, 2))  # doctest: +SKIP
        >>> opt = nbgrad.optim.SGD(model.parameters(), lr=0.1)  # doctest: +SKIP
        >>> x = nbgrad.randn(8, 4)  # this process's part of the batch  # doctest: +SKIP
        >>> model(x).square().mean().backward()  # .grad: averaged  # doctest: +SKIP
        >>> opt.step()  # doctest: +SKIP
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0,
                 broadcast_buffers=None, init_sync=True, process_group=None,
                 bucket_cap_mb=None, find_unused_parameters=False, check_reduction=False,
                 gradient_as_bucket_view=False, static_graph=False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None,
                 mixed_precision=None, device_mesh=None, skip_all_reduce_unused_params=False,
                 bucket_cap_mb_list=None, batched_grad_copy=False, forward_sync_buffers=None):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel wraps an nn.Module, got "
                            f"{type(module).__name__}")
        self.module = module
        self.process_group = resolve(process_group)
        self.device_ids = device_ids
        self.output_device = output_device
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = bool(find_unused_parameters)
        self.gradient_as_bucket_view = bool(gradient_as_bucket_view)
        self.static_graph = bool(static_graph)
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * _MIB)
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't "
                               "have any parameter that requires a gradient.")
        self._names = [n for n, _ in named]
        self._params = [p for _, p in named]
        self._world = self.process_group.size()
        if init_sync:
            self._check_same_model()
            self._sync_from_rank0([p for _, p in module.named_parameters()])
            self._sync_from_rank0(list(module.buffers()))
        self._buckets = self._make_buckets()
        self._bucket_of = {}
        for b in self._buckets:
            for i in b.params:
                self._bucket_of[i] = b
        self._unused = []  # (found by the last forward, with find_unused_parameters)
        self._progress = None  # (a thread that moves started allreduces on: _mpi.Progress)
        # (event, index, time) of the last backward: "grad" (parameter i's gradient is in),
        # "start" (bucket i's allreduce started), "wait" (backward's work is done; waiting
        # for the allreduces), "done" (all have completed)
        self._comm_log = []
        self._reset()
        self._hooks = [p.register_post_accumulate_grad_hook(self._grad_hook(i))
                       for i, p in enumerate(self._params)]

    # ----- construction --------------------------------------------------------------
    def _check_same_model(self):
        """Every process has the same parameters (names, shapes, dtypes): fail on all of
        them, naming the first difference, rather than hang in a mismatched allreduce."""
        mine = [(n, tuple(p.shape), str(p.dtype)) for n, p in zip(self._names, self._params)]
        everyone = self.process_group.comm.allgather(mine)
        ref = everyone[0]
        for rank, theirs in enumerate(everyone):
            if len(theirs) != len(ref):
                raise RuntimeError(
                    f"DDP expects same model across all ranks, but Rank {rank} has "
                    f"{len(theirs)} params, while rank 0 has inconsistent {len(ref)} params.")
            for (n0, s0, d0), (n, s, d) in zip(ref, theirs):
                if (n0, s0, d0) != (n, s, d):
                    raise RuntimeError(
                        f"DDP expects same model across all ranks, but parameter {n!r} of "
                        f"rank {rank} (shape {list(s)}, {d}) differs from rank 0's {n0!r} "
                        f"(shape {list(s0)}, {d0}).")

    def _sync_from_rank0(self, tensors):
        """Copy rank 0's values of ``tensors`` into every process's, one broadcast per
        dtype (packed)."""
        if self._world == 1 or not tensors:
            return
        root = self.process_group.group_rank(self.process_group.ranks[0])
        by_dtype = {}
        for t in tensors:
            by_dtype.setdefault(t.dtype, []).append(t)
        for group in by_dtype.values():
            bufs = [_mpi.Buffer(t) for t in group]
            flat = np.concatenate([b.array.reshape(-1) for b in bufs])
            self.process_group.comm.Bcast(flat, root=root)
            at = 0
            for b in bufs:
                n = b.array.size
                b.array.reshape(-1)[...] = flat[at:at + n]
                at += n
                b.finish()

    def _make_buckets(self):
        """Reverse parameter order, a new bucket at each cap (1 MiB for the first) or
        change of dtype or device; the same on every process (the parameters are)."""
        buckets = []
        cur, cur_bytes, key = [], 0, None
        cap = min(_FIRST_BUCKET_BYTES, self.bucket_bytes_cap)
        for i in reversed(range(len(self._params))):
            p = self._params[i]
            k = (p.dtype, p.device)
            nbytes = p.numel() * p.element_size()
            if cur and (k != key or cur_bytes + nbytes > cap):
                buckets.append(cur)
                cur, cur_bytes = [], 0
                cap = self.bucket_bytes_cap
            cur.append(i)
            cur_bytes += nbytes
            key = k
        if cur:
            buckets.append(cur)
        out = []
        for bi, idx in enumerate(buckets):
            p = self._params[idx[0]]
            np_dtype = np.float32 if p.dtype.name == "bfloat16" else p.dtype.np
            b = _Bucket(bi, idx, np_dtype)
            at = 0
            for i in idx:
                b.offsets.append(at)
                at += self._params[i].numel()
            b.flat = np.zeros(at, np_dtype)
            out.append(b)
        return out

    # ----- forward -----------------------------------------------------------------
    def forward(self, *inputs, **kwargs):
        if self.broadcast_buffers and self.require_forward_param_sync:
            self._sync_from_rank0(list(self.module.buffers()))
        out = self.module(*inputs, **kwargs)
        if is_grad_enabled() and self.require_backward_grad_sync:
            self._prepare_for_backward(out)
        return out

    def _reset(self):
        """Ready for the next backward: no parameter ready, bucket 0 next."""
        self._ready = [False] * len(self._params)
        self._next_bucket = 0
        self._started = False
        for b in self._buckets:
            b.pending = len(b.params)
            b.request = None

    def _prepare_for_backward(self, out):
        self._reset()
        self._unused = []
        if self.find_unused_parameters:
            used = _reachable_leaves(out)
            self._unused = [i for i, p in enumerate(self._params) if id(p) not in used]

    # ----- backward ----------------------------------------------------------------
    def _grad_hook(self, i):
        def hook(param):
            if not self.require_backward_grad_sync:
                return
            if not self._started:
                self._started = True
                self._comm_log = []
                queue_callback(self._finish)
                for j in self._unused:  # (PyTorch marks them with the first hook, too)
                    self._mark_ready(j)
            self._comm_log.append(("grad", i, time.perf_counter()))
            self._mark_ready(i)
        return hook

    def _mark_ready(self, i):
        if self._ready[i]:
            raise RuntimeError(
                f"Expected to mark a variable ready only once. Parameter {self._names[i]!r} "
                "got its gradient twice in one backward pass (a parameter used in a "
                "reentrant backward, or find_unused_parameters=True with a parameter the "
                "output does use).")
        self._ready[i] = True
        b = self._bucket_of[i]
        b.pending -= 1
        if b.pending == 0:
            buckets = self._buckets
            while self._next_bucket < len(buckets) and buckets[self._next_bucket].pending == 0:
                self._start(buckets[self._next_bucket])
                self._next_bucket += 1

    def _start(self, b):
        flat = b.flat
        for i, at in zip(b.params, b.offsets):
            p = self._params[i]
            n = p.numel()
            g = p.grad
            if g is None:  # (an unused parameter: it contributes zeros)
                flat[at:at + n] = 0
            else:
                _copy_into(flat[at:at + n], g)
        b.request = self.process_group.comm.Iallreduce(_mpi.mpi().IN_PLACE, flat,
                                                       op=_mpi.mpi().SUM)
        if self._world > 1 and _mpi.threads_allowed():
            if self._progress is None:
                self._progress = _mpi.Progress()
            self._progress.add(b.request)
        self._comm_log.append(("start", b.index, time.perf_counter()))

    def _finish(self):
        """At the end of backward: every bucket must have started; wait for them all, then
        put the averages into the gradients."""
        missing = [self._names[i] for i, r in enumerate(self._ready) if not r]
        if missing:
            if self._progress is not None:
                self._progress.stop()
            self._reset()
            raise RuntimeError(
                "DistributedDataParallel: these parameters got no gradient in this backward "
                f"pass: {missing}. Their gradients cannot be averaged (the other processes "
                "wait for them). If your model has parameters that do not contribute to the "
                "loss, pass find_unused_parameters=True to DistributedDataParallel.")
        MPI = _mpi.mpi()
        self._comm_log.append(("wait", len(self._buckets), time.perf_counter()))
        if self._progress is not None:
            self._progress.stop()
        MPI.Request.Waitall([b.request for b in self._buckets])
        self._comm_log.append(("done", len(self._buckets), time.perf_counter()))
        unused_everywhere = self._unused_everywhere()
        n = self._world
        with no_grad():
            for b in self._buckets:
                b.request = None
                if n != 1:
                    np.divide(b.flat, n, out=b.flat, casting="unsafe")
                for i, at in zip(b.params, b.offsets):
                    if i in unused_everywhere:
                        continue
                    self._set_grad(self._params[i], b.flat[at:at + self._params[i].numel()])
        self._reset()

    def _unused_everywhere(self):
        if not self.find_unused_parameters:
            return ()
        local = np.zeros(len(self._params), np.int32)
        local[self._unused] = 1
        self.process_group.comm.Allreduce(_mpi.mpi().IN_PLACE, local, op=_mpi.mpi().MIN)
        return {i for i in range(len(self._params)) if local[i]}

    def _set_grad(self, p, values):
        from ...creation import from_numpy

        view = values.reshape(tuple(p.shape))
        if p.dtype.name == "bfloat16":
            view = view.astype(p._data.dtype)
        elif not self.gradient_as_bucket_view:
            view = view.copy()
        g = from_numpy(view)
        if p.device.type != "cpu":
            g = g.to(p.device)
        p.grad = g

    # ----- the rest of PyTorch's interface ---------------------------------------------
    @contextlib.contextmanager
    def no_sync(self):
        """Inside it, backward accumulates gradients locally and averages nothing; the
        first backward after it averages everything accumulated (gradient accumulation
        over several batches with one communication).

        Example::

            >>> with ddp.no_sync():  # doctest: +SKIP
            ...     ddp(x1).sum().backward()  # local only
            >>> ddp(x2).sum().backward()  # averages the sum of both  # doctest: +SKIP
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def extra_repr(self):
        return ""

    def __getstate__(self):
        raise TypeError("DistributedDataParallel cannot be pickled: save .module or its "
                        "state_dict")


def _copy_into(dst, g):
    """``g``'s values into the flat host slice ``dst``."""
    d = g._data
    if g.device.type == "cpu":
        if g.dtype.name == "bfloat16":
            d = d.astype(np.float32)
        np.copyto(dst, np.asarray(d).reshape(-1), casting="unsafe")
    else:
        h = d.copy_to_host()
        np.copyto(dst, h.astype(dst.dtype).reshape(-1), casting="unsafe")


def _reachable_leaves(out):
    """ids of the leaf tensors whose gradients a backward from ``out`` reaches."""
    leaves, _ = _tree.flatten(out)
    seen, found = set(), set()
    stack = [t.grad_fn for t in leaves if isinstance(t, Tensor) and t.grad_fn is not None]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None)
        if var is not None:
            found.add(id(var))
        for nxt, _ in node.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return found
