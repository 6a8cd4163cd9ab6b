"""asv benchmarks of nbgrad: the PERF.md workloads, per-op overhead and compile cost.

``workloads`` holds the workload code shared with ``asv_bench/compare.py``, which times the
same code against PyTorch.
"""
