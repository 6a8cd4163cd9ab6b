"""Compiled kernels. ``scalar`` holds the per-element math shared by every target;
``cpu`` holds the Numba CPU loops; a CUDA target adds its own folder."""
