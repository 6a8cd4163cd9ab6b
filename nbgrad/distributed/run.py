"""``python -m nbgrad.distributed.run -n N script.py [args]``: start a script on N processes.

A wrapper of ``mpiexec`` for those who do not know it: it finds the ``mpiexec`` that the
``mpi`` extra installed beside this Python (the mpich wheel's), and runs the script in
each process through mpi4py's runner (``python -m mpi4py``), so that an exception in any
process, even before ``init_process_group``, aborts the whole job with its traceback
instead of leaving the others waiting. ``--hostfile`` spreads the processes over machines
(mpich's hydra format: one ``host[:slots]`` per line; nbgrad and the script must be at the
same paths there).
"""

import argparse
import os
import shutil
import subprocess
import sys


def find_mpiexec():
    """The ``mpiexec`` beside this Python (a venv's, from the mpich wheel), else on PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.exists(here):
        return here
    found = shutil.which("mpiexec")
    if found is None:
        raise SystemExit("nbgrad.distributed.run: no mpiexec found; install the mpi extra: "
                         "pip install 'nbgrad[mpi]' (mpi4py and the mpich wheel)")
    return found


def command(nproc, target, args, hostfile=None, mpiexec=None, module=False):
    """The mpiexec command line that runs ``target`` (a script, or a module with
    ``module``) with ``args`` on ``nproc`` processes."""
    cmd = [mpiexec or find_mpiexec(), "-n", str(nproc)]
    if hostfile:
        cmd += ["-f", hostfile]
    cmd += [sys.executable, "-m", "mpi4py"]
    cmd += ["-m", target] if module else [target]
    return cmd + list(args)


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="python -m nbgrad.distributed.run",
        description="Run a script on N processes with mpiexec (nbgrad.distributed's launcher).")
    p.add_argument("-n", "--nproc", "--nproc-per-node", dest="nproc", type=int, default=2,
                   help="number of processes (default: 2)")
    p.add_argument("--hostfile", help="mpich hostfile: one host[:slots] per line")
    p.add_argument("--mpiexec", help="the mpiexec to use (default: the one beside this Python)")
    p.add_argument("-m", dest="module", action="store_true",
                   help="run the target as a module (python -m target)")
    p.add_argument("target", help="the script (or, with -m, the module)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    a = p.parse_args(argv)
    if a.nproc < 1:
        p.error("-n must be at least 1")
    cmd = command(a.nproc, a.target, a.args, a.hostfile, a.mpiexec, a.module)
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
