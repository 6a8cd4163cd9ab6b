"""Process groups on MPI: the default group (every process ``mpiexec`` started), groups
of some of them (``new_group``), and what ``init_process_group`` sets up — among it, that
an exception on one rank ends the whole job instead of leaving the others waiting."""

import os
import sys
import time

from ._mpi import mpi

_DEFAULT = []  # [the default ProcessGroup] while initialized
_HOOK = []  # [the excepthook init_process_group replaced]
_NOT_INIT = ("Default process group has not been initialized, please make sure to call "
             "init_process_group.")


class ProcessGroup:
    """A set of processes that run collectives together: an MPI communicator of its own
    (so that its collectives never mix with another group's), and the global ranks of its
    members in group-rank order."""

    def __init__(self, comm, ranks):
        self.comm = comm
        self.ranks = ranks  # global rank of each member, by group rank

    def rank(self):
        return self.comm.Get_rank()

    def size(self):
        return self.comm.Get_size()

    def group_rank(self, global_rank, what="rank"):
        """The group rank of ``global_rank`` (a ``src``/``dst`` argument), checked."""
        try:
            return self.ranks.index(global_rank)
        except ValueError:
            raise ValueError(f"Group {self!r} does not contain {what} {global_rank}") from None

    def name(self):
        return "mpi"

    def __repr__(self):
        return f"<ProcessGroup mpi ranks={self.ranks}>"


class _World:
    """``group.WORLD``: stands for the default group, whichever it is at the time."""

    def __repr__(self):
        return "group.WORLD"


class group:  # noqa: N801 (PyTorch's name: ``dist.group.WORLD``)
    WORLD = _World()


class GroupMember:
    WORLD = group.WORLD
    NON_GROUP_MEMBER = -100


def default_group():
    if not _DEFAULT:
        raise ValueError(_NOT_INIT)
    return _DEFAULT[0]


def resolve(g):
    """The ProcessGroup a collective's ``group`` argument names (None: the default);
    None when this process is not a member of it."""
    if g is None or g is group.WORLD:
        return default_group()
    if g is GroupMember.NON_GROUP_MEMBER:
        return None
    if not isinstance(g, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup or None, not {type(g).__name__}")
    default_group()
    return g


def is_available():
    """``True``: nbgrad.distributed is built in (it needs mpi4py at ``init_process_group``)."""
    return True


def is_mpi_available():
    """Whether mpi4py, nbgrad's transport, is installed."""
    from ._mpi import available

    return available()


def is_gloo_available():
    return False


def is_nccl_available():
    return False


def is_initialized():
    """Whether ``init_process_group`` has run (and ``destroy_process_group`` has not)."""
    return bool(_DEFAULT)


def is_torchelastic_launched():
    return False


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the job's default process group: every process that ``mpiexec`` started.

    MPI tells each process its rank and the number of processes, so nothing has to be
    passed (no address, port or store, as ``torch.distributed`` needs for gloo). After it,
    an uncaught exception in any process prints that process's traceback and aborts the
    whole job (the other processes may be waiting for it in a collective and would wait
    forever).

    Args:
        backend (str, optional): ``"mpi"``, the one transport. PyTorch's other names
            (``"gloo"``, ``"nccl"``, ``"cpu:gloo,cuda:nccl"``) are accepted and mean MPI
            too, so that PyTorch programs run unchanged; ``None`` as well.
        init_method (str, optional): accepted for PyTorch's programs; only ``None`` and
            ``"env://"`` (MPI knows the processes already).
        timeout (datetime.timedelta, optional): accepted and unused: MPI has no timeout
            on collectives.
        world_size (int, optional): if given (not ``-1``), checked against MPI's.
        rank (int, optional): if given (not ``-1``), checked against MPI's.
        store, group_name, pg_options, device_id: accepted for PyTorch's programs, unused.

    Raises:
        ValueError: when called twice, for a backend name PyTorch does not know, or when
            ``rank`` / ``world_size`` disagree with MPI (a job started by ``torchrun``:
            each process then is a world of one).
        RuntimeError: when mpi4py is not installed.

    Example::

        >>> import nbgrad.distributed as dist
        >>> dist.init_process_group("mpi")  # doctest: +SKIP
        >>> dist.get_rank(), dist.get_world_size()  # doctest: +SKIP
        (0, 2)
    """
    if _DEFAULT:
        raise ValueError("trying to initialize the default process group twice!")
    _check_backend(backend)
    if init_method not in (None, "env://"):
        raise ValueError(f"init_method {init_method!r} is not supported: MPI starts the "
                         "processes and tells each its rank (use mpiexec)")
    MPI = mpi()
    comm = MPI.COMM_WORLD.Dup()
    n, r = comm.Get_size(), comm.Get_rank()
    if world_size not in (-1, None) and world_size != n:
        comm.Free()
        raise ValueError(f"world_size={world_size} but MPI started {n} processes")
    if rank not in (-1, None) and rank != r:
        comm.Free()
        raise ValueError(f"rank={rank} but MPI gave this process rank {r}")
    _DEFAULT.append(ProcessGroup(comm, list(range(n))))
    if n > 1:
        _install_abort_hook()
        _share_cores(MPI)


def _share_cores(MPI):
    """Processes on one machine share its cores: each runs its parallel kernels (and
    matrix products, on the same pool) on ``cores // processes here`` threads, unless the
    user chose a count (``NBGRAD_NUM_THREADS``, ``NUMBA_NUM_THREADS``, ``OMP_NUM_THREADS``),
    as torchrun sets ``OMP_NUM_THREADS`` for PyTorch's."""
    if any(os.environ.get(k) for k in ("NBGRAD_NUM_THREADS", "NUMBA_NUM_THREADS",
                                       "OMP_NUM_THREADS")):
        return
    local = MPI.COMM_WORLD.Split_type(MPI.COMM_TYPE_SHARED)
    here = local.Get_size()
    local.Free()
    from .._runtime import set_num_threads

    set_num_threads(max(1, (os.cpu_count() or 1) // here))


_BACKENDS = {"mpi", "gloo", "nccl", "ucc", "xccl", "undefined"}


def _check_backend(backend):
    """PyTorch's backend names all mean MPI here; anything else is a mistake."""
    if backend is None:
        return
    parts = [p.split(":")[-1].strip().lower() for p in str(backend).split(",")]
    if not all(p in _BACKENDS for p in parts):
        raise ValueError(f"Invalid backend: '{backend}' (nbgrad.distributed runs on MPI; "
                         "PyTorch's backend names are accepted and mean MPI)")


def destroy_process_group(group=None):
    """Leave the default group (``group=None``) or free the given group. MPI itself stays
    up until the process ends, so ``init_process_group`` may be called again."""
    if group is None or isinstance(group, _World):
        pg = default_group()
        _DEFAULT.clear()
        if _HOOK:
            sys.excepthook = _HOOK.pop()
        pg.comm.Free()
        return
    pg = resolve(group)
    if pg is not None:
        pg.comm.Free()


def get_rank(group=None):
    """This process's rank in ``group`` (default: the default group), from 0.

    Args:
        group (ProcessGroup, optional): the group. Default: the default group.

    Returns:
        int: the rank; -1 when this process is not a member of ``group``.

    Example::

        >>> import nbgrad.distributed as dist
        >>> dist.get_rank()  # doctest: +SKIP
        0
    """
    pg = resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group=None):
    """The number of processes in ``group`` (default: the default group).

    Args:
        group (ProcessGroup, optional): the group. Default: the default group.

    Example::

        >>> import nbgrad.distributed as dist
        >>> dist.get_world_size()  # doctest: +SKIP
        2
    """
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group=None):
    """The backend of ``group``: always ``"mpi"``."""
    resolve(group)
    return "mpi"


def get_process_group_ranks(group):
    """The global ranks of ``group``'s members, in group-rank order."""
    pg = resolve(group)
    return list(pg.ranks)


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None, device_id=None,
              sort_ranks=True):
    """A group of some of the processes. Every process of the default group must call it,
    with the same ``ranks``, members or not (as in PyTorch).

    Args:
        ranks (list of int, optional): the global ranks of the members. Default: all.
        timeout, backend, pg_options, use_local_synchronization, group_desc, device_id:
            accepted for PyTorch's programs, unused (the backend is MPI's).
        sort_ranks (bool, optional): order the members by global rank. Default: ``True``.

    Returns:
        The new ProcessGroup on its members; ``GroupMember.NON_GROUP_MEMBER`` elsewhere.

    Example::

        >>> import nbgrad.distributed as dist
        >>> evens = dist.new_group([0, 2])  # doctest: +SKIP
    """
    world = default_group()
    n = world.size()
    ranks = list(range(n)) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        ranks = sorted(ranks)
    if len(set(ranks)) != len(ranks) or any(not 0 <= r < n for r in ranks):
        raise ValueError(f"new_group: ranks must be distinct and in [0, {n - 1}], got {ranks}")
    comm = world.comm.Create(world.comm.Get_group().Incl(ranks))  # (collective over all)
    if comm == mpi().COMM_NULL:
        return GroupMember.NON_GROUP_MEMBER
    return ProcessGroup(comm, ranks)


def _install_abort_hook():
    """An uncaught exception prints its traceback (as Python does) and then aborts every
    process of the job: the others may be blocked in a collective this one will never
    join (mpi4py's ``python -m mpi4py`` does the same)."""
    prev = sys.excepthook

    def abort_on_exception(tp, value, tb):
        prev(tp, value, tb)
        try:
            MPI = mpi()
            sys.stderr.write(f"nbgrad.distributed: rank {MPI.COMM_WORLD.Get_rank()} raised "
                             f"{tp.__name__}; aborting the job\n")
            sys.stderr.flush()
            # mpiexec forwards a process's output in chunks and drops what it has not
            # forwarded yet when the abort tears the job down (1 traceback in ~16 lost its
            # end under load): give it a moment
            time.sleep(0.3)
            MPI.COMM_WORLD.Abort(1)
        except Exception:  # (MPI gone: nothing left to abort)
            pass

    _HOOK.append(prev)
    sys.excepthook = abort_on_exception
