"""Random number generators, as ``torch.random``: ``Generator``, the default generator and
the functions that seed it and save its state.

A generator is PyTorch's CPU generator bit for bit: a 32-bit Mersenne Twister (mt19937)
seeded as PyTorch seeds it (the seed's low 32 bits), the same cached second normal sample,
and the same 5,056-byte state (a uint8 tensor, as PyTorch's). ``nbgrad._distributions``
turns its bits into samples the way PyTorch's CPU kernels do, so after ``manual_seed(s)`` a
program draws PyTorch's numbers. NumPy's MT19937 holds the state; large draws run compiled
on a copy of it (``Generator._drawing``).
Tensors on a CUDA device draw on the host from the same generator (PyTorch's CUDA
generator, Philox, gives other numbers).
"""

import contextlib
import os

import numpy as np

from .device import as_device

__all__ = ["Generator", "default_generator", "fork_rng", "get_rng_state", "initial_seed",
           "manual_seed", "seed", "set_rng_state"]

_DEFAULT_SEED = 67280421310721  # PyTorch's, so a program that never seeds draws its numbers
_N = 624
# Draws (or samples) from which a compiled loop makes them: below, NumPy's ``random_raw``
# and array expressions, which compile nothing and cost microseconds there.
COMPILED_DRAWS = 1 << 16
_U64 = 2**64
_STATE_BYTES = 5056
# PyTorch's CPUGeneratorImplState, byte for byte (so a saved state means the same in both)
_LAYOUT = np.dtype({
    "names": ["seed", "left", "seeded", "next", "state", "normal_x", "normal_y",
              "normal_rho", "normal_is_valid", "next_float", "float_is_valid"],
    "formats": ["<u8", "<i4", "<i4", "<u8", ("<u8", _N), "<f8", "<f8", "<f8", "<i4", "<f4",
                "?"],
    "offsets": [0, 8, 12, 16, 24, 5016, 5024, 5032, 5040, 5048, 5052],
    "itemsize": _STATE_BYTES,
})


def _seed_int(seed, what="manual_seed"):
    """PyTorch's parsing of a seed: an int in [-2**63, 2**64), negative ones wrapped."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        if hasattr(seed, "__index__") and not isinstance(seed, float):
            seed = seed.__index__()
        else:
            raise RuntimeError(f"{what} expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if not -(2**63) <= seed < _U64:
        raise ValueError("Overflow when unpacking long long")
    return seed % _U64


def _genrand_key(seed32):
    """mt19937's ``init_genrand``: the 624 words a 32-bit seed starts from."""
    key = np.empty(_N, np.uint32)
    x = key[0] = seed32
    for i in range(1, _N):
        x = (1812433253 * (x ^ (x >> 30)) + i) & 0xFFFFFFFF
        key[i] = x
    return key


class Generator:
    """A random number generator, as ``torch.Generator``: pass it as ``generator=`` to
    sampling functions and methods to draw from it instead of the default generator.

    Args:
        device: the device of the tensors it serves (``"cpu"`` by default; a ``"cuda"``
            generator serves CUDA tensors, drawing on the host).

    Example::

        >>> import nbgrad
        >>> g = nbgrad.Generator().manual_seed(42)
        >>> nbgrad.rand(2, generator=g)
        tensor([0.8823, 0.9150])
    """

    def __init__(self, device="cpu"):
        kind = device.split(":")[0] if isinstance(device, str) else None
        if kind is not None and kind not in ("cpu", "cuda"):
            raise RuntimeError(f"{kind.upper()} device type not an accelerator.")
        dev = as_device(device)
        self.device = dev
        self._bits = np.random.MT19937()
        self._reseed(_DEFAULT_SEED)

    def _reseed(self, seed):
        self._seed = seed
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": _genrand_key(seed & 0xFFFFFFFF), "pos": _N}}
        self._fresh = True  # PyTorch's engine says next=0 (not 624) until the first draw
        self._normal = None  # the cached second sample of a Box-Muller pair (float64)
        self._normal_f = None

    def manual_seed(self, seed):
        """Seed the generator (an int in [-2**63, 2**64)); returns the generator."""
        self._reseed(_seed_int(seed))
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the seed."""
        s = int.from_bytes(os.urandom(8), "little")
        self._reseed(s)
        return s

    def initial_seed(self):
        """The seed the generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The generator's state: PyTorch's 5,056 bytes (a uint8 tensor)."""
        from .creation import from_numpy

        st = self._bits.state["state"]
        pos = int(st["pos"])
        rec = np.zeros((), _LAYOUT)
        rec["seed"], rec["seeded"], rec["state"] = self._seed, 1, st["key"]
        rec["next"] = 0 if self._fresh else pos
        rec["left"] = 1 if pos == _N else _N + 1 - pos
        if self._normal is not None:
            rec["normal_y"], rec["normal_is_valid"] = self._normal, 1
        if self._normal_f is not None:
            rec["next_float"], rec["float_is_valid"] = self._normal_f, True
        return from_numpy(np.frombuffer(rec.tobytes(), np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state from ``get_state``; returns the generator."""
        from .tensor import Tensor

        if not isinstance(new_state, Tensor):
            kind = type(new_state)
            name = kind.__name__ if kind.__module__ == "builtins" else (
                f"{kind.__module__.split('.')[0]}.{kind.__name__}")
            raise TypeError(f"expected a torch.ByteTensor, but got {name}")
        # (int64: the 632 words in which nbgrad held the bytes before it had uint8)
        if new_state.dtype.name not in ("uint8", "int64"):
            raise TypeError("RNG state must be a torch.ByteTensor")
        raw = np.ascontiguousarray(new_state.detach().cpu().numpy()).reshape(-1).view(np.uint8)
        if raw.size != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {raw.size}")
        rec = np.frombuffer(raw.tobytes(), _LAYOUT)[0]
        left, nxt = int(rec["left"]), int(rec["next"])
        if not 1 <= left <= _N or nxt > _N:
            raise RuntimeError("The input RNG state has an invalid position (left or next)")
        self._seed = int(rec["seed"])
        pos = _N if left == 1 else nxt
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": rec["state"].astype(np.uint32), "pos": pos}}
        self._fresh = left == 1 and nxt == 0
        self._normal = float(rec["normal_y"]) if rec["normal_is_valid"] else None
        self._normal_f = float(rec["next_float"]) if rec["float_is_valid"] else None
        return self

    # ---- raw bits, in PyTorch's order (its random() and random64())
    def _random(self, n):
        """``n`` 32-bit draws (uint64 array)."""
        if n < COMPILED_DRAWS:
            self._fresh = False
            return self._bits.random_raw(n)
        out = np.empty(n, np.uint64)
        with self._drawing() as (kernels, key, st):
            kernels.draws(key, st, out)
        return out

    @contextlib.contextmanager
    def _drawing(self):
        """For a compiled sampler: ``(kernels, key, st)``, the sampling kernels
        (``nbgrad/kernels/cpu/random.py``) and a copy of the state they draw from and move
        on (the 624-word key, ``st = [position]``), put back when the block ends. Copying
        the state in and out takes ~60 us; a compiled draw is half NumPy's time, and the
        samplers turn draws into samples in the same pass (COMPILED_DRAWS: where from)."""
        from .kernels.cpu import random as kernels

        with self._bits.lock:  # (the lock NumPy's own draws take: one thread at a time)
            state = self._bits.state["state"]
            key, st = state["key"], np.array([state["pos"]], np.int64)
            yield kernels, key, st
            self._bits.state = {"bit_generator": "MT19937",
                                "state": {"key": key, "pos": int(st[0])}}
            self._fresh = False

    def _random64(self, n):
        """``n`` 64-bit draws, each two 32-bit ones, the first the high half."""
        r = self._random(2 * n)
        return (r[0::2] << 32) | r[1::2]


default_generator = Generator()


def manual_seed(seed):
    """Seed the default random number generator, for reproducible random numbers.

    Seeds the generator behind every random function that is not given one of its own:
    ``rand``, ``randn``, ``randint``, ``randperm``, the in-place samplers (``uniform_``,
    ``normal_``, ...), ``nn.init``, dropout and shuffling data loaders. It also drives the
    random draws of CUDA tensors, which nbgrad makes on the host.

    Args:
        seed (int): the seed; any integer from ``-2**63`` to ``2**64 - 1`` (a negative
            one is taken modulo ``2**64``, as PyTorch does).

    Returns:
        Generator: the default generator (``nbgrad.default_generator``).

    .. note::
        nbgrad's CPU generator is PyTorch's (a Mersenne Twister drawing in the same
        order): after the same seed, the functions above give the same numbers as
        PyTorch's on the CPU, to float precision.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> nbgrad.rand(3)
        tensor([0.4963, 0.7682, 0.0885])
    """
    return default_generator.manual_seed(int(seed))  # (as PyTorch's: a float is truncated)


def seed():
    """seed() -> int

    Seed the default random number generator with a non-deterministic seed (64 random bits
    from the operating system), and return that seed.

    Example::

        >>> import nbgrad
        >>> s = nbgrad.seed()
        >>> nbgrad.initial_seed() == s
        True
    """
    return default_generator.seed()


def initial_seed():
    """initial_seed() -> int

    The seed the default random number generator was last seeded with (by
    :func:`nbgrad.manual_seed` or :func:`nbgrad.seed`); ``67280421310721`` if it never was,
    as PyTorch's.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(42)
        >>> nbgrad.initial_seed()
        42
    """
    return default_generator.initial_seed()


def get_rng_state():
    """get_rng_state() -> Tensor

    The state of the default random number generator, as a ``uint8`` tensor of PyTorch's
    layout (5056 bytes): give it to :func:`set_rng_state` to draw the same numbers again.

    Example::

        >>> import nbgrad
        >>> state = nbgrad.get_rng_state()
        >>> state.dtype, state.shape
        (nbgrad.uint8, nbgrad.Size([5056]))
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """set_rng_state(new_state) -> None

    Restore the state of the default random number generator from a tensor returned by
    :func:`get_rng_state`: the random functions then draw the numbers they drew after it
    was taken.

    Args:
        new_state (Tensor): a state from :func:`get_rng_state` (``uint8``, 5056 bytes).

    Example::

        >>> import nbgrad
        >>> state = nbgrad.get_rng_state()
        >>> a = nbgrad.rand(2)
        >>> nbgrad.set_rng_state(state)
        >>> nbgrad.equal(nbgrad.rand(2), a)
        True
    """
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    """Within the block draw freely; afterwards the default generator is where it was.

    Example::

        >>> import nbgrad
        >>> _ = nbgrad.manual_seed(0)
        >>> with nbgrad.random.fork_rng():
        ...     _ = nbgrad.rand(5)
        >>> nbgrad.rand(1)
        tensor([0.4963])
    """
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


_VMAP_RANDOMNESS = None  # inside ``func.vmap``: its randomness mode


def _no_random_in_vmap():
    if _VMAP_RANDOMNESS == "error":
        raise RuntimeError("vmap: called random operation while in randomness error mode. "
                           "Please either use the 'same' or 'different' randomness flags on "
                           "vmap or perform the randomness operation out of vmap")


def _check(generator, device, fname):
    """The generator a sampling function draws from: ``generator``, checked, or the
    default one."""
    _no_random_in_vmap()
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{fname}(): argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}")
    if generator.device.type != device.type:
        raise RuntimeError(f"Expected a '{device.type}' device type for generator but found "
                           f"'{generator.device.type}'")
    return generator
