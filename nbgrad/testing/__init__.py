"""Testing helpers: ``python -m nbgrad.testing.gpu_check`` runs the CUDA checks on a GPU."""
