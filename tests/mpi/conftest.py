"""Every process of the mpiexec job runs every test of this folder, in the same order, so
the collectives of one test meet: ``dist`` joins the default group once per process."""

import pytest

import nbgrad.distributed as dist


@pytest.fixture(scope="session")
def world():
    if not dist.is_initialized():
        dist.init_process_group("mpi")
    return dist.get_rank(), dist.get_world_size()
