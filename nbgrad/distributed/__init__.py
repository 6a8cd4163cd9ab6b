"""``nbgrad.distributed``: processes that train together, as ``torch.distributed``, on MPI.

Start the processes with ``mpiexec -n N python script.py`` (or
``python -m nbgrad.distributed.run -n N script.py``); each calls ``init_process_group()``
and is told its rank by MPI. Collectives (``all_reduce``, ``broadcast``, ``all_gather``,
``reduce``, ``scatter``, ``gather``, ``barrier``) run in place on tensors' memory, with
``async_op=True`` for a ``Work`` to ``wait()`` on. ``nbgrad.nn.parallel.
DistributedDataParallel`` builds data-parallel training on them. Needs the ``mpi`` extra
(mpi4py and the mpich wheel).
"""

from .collectives import (
    ReduceOp,
    Work,
    all_gather,
    all_gather_into_tensor,
    all_gather_object,
    all_reduce,
    barrier,
    broadcast,
    broadcast_object_list,
    gather,
    reduce,
    scatter,
)
from .process_group import (
    GroupMember,
    ProcessGroup,
    destroy_process_group,
    get_backend,
    get_process_group_ranks,
    get_rank,
    get_world_size,
    group,
    init_process_group,
    is_available,
    is_gloo_available,
    is_initialized,
    is_mpi_available,
    is_nccl_available,
    is_torchelastic_launched,
    new_group,
)

__all__ = [
    "GroupMember", "ProcessGroup", "ReduceOp", "Work", "all_gather", "all_gather_into_tensor",
    "all_gather_object", "all_reduce", "barrier", "broadcast", "broadcast_object_list",
    "destroy_process_group", "gather", "get_backend", "get_process_group_ranks", "get_rank",
    "get_world_size", "group", "init_process_group", "is_available", "is_gloo_available",
    "is_initialized", "is_mpi_available", "is_nccl_available", "is_torchelastic_launched",
    "new_group", "reduce", "scatter",
]
