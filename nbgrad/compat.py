"""Running PyTorch programs on nbgrad.

``install()`` makes ``import torch`` in this process load nbgrad: ``torch`` and every
``torch.<path>`` that nbgrad has as ``nbgrad.<path>`` (``torch.nn``, ``torch.nn.functional``,
``torch.nn.init``, ``torch.optim``, ``torch.autograd``, ``torch.backends``, ``torch.cuda``,
``torch.nn.modules.linear``, ...) is a module whose names are nbgrad's, so ``from torch
import nn`` and ``import torch.nn.functional as F`` both reach nbgrad. A name or module
nbgrad lacks raises an error that says so (``torch.X is not supported by nbgrad yet``), an
``AttributeError`` or ``ModuleNotFoundError`` as Python would raise, so a program's
``hasattr(torch, ...)`` and ``try: import ...`` checks still work. ``python -m nbgrad.run
script.py [args]`` installs and runs the script as ``__main__``.

Why not ``import nbgrad as torch``: that binds one name; the program's ``from torch import
nn`` then loads the real PyTorch (or fails), and its tensors meet nbgrad's (``argument
'input' must be Tensor, not Tensor``).

>>> import nbgrad.compat
>>> nbgrad.compat.install()
>>> import torch
>>> from torch import nn
>>> torch.ones(2).requires_grad_().sum().backward()
>>> isinstance(nn.Linear(2, 3).weight, torch.Tensor)
True
>>> nbgrad.compat.uninstall()
"""

import importlib
import importlib.abc
import importlib.util
import sys
import types

_ROOT = "torch"


def _nbgrad_name(name):
    """The nbgrad module for torch module ``name``."""
    return "nbgrad" + name[len(_ROOT):]


def _has_module(name):
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:  # (a parent that is not a package)
        return False


class _TorchModule(types.ModuleType):
    """``torch.<path>``: nbgrad's module ``nbgrad.<path>`` under PyTorch's name. Its
    submodules are modules of this kind too; a name nbgrad lacks raises saying so."""

    def __init__(self, name, target):
        super().__init__(name, target.__doc__)
        self.__path__ = []  # (a package: ``import torch.nn.functional`` goes on)
        self._nbgrad = target

    def __getattr__(self, attr):
        if attr.startswith("__") and attr.endswith("__"):
            # nbgrad's (__version__, __file__), or a plain miss: Python's own probes
            # (__wrapped__, __all__) are no calls of an API
            return getattr(self._nbgrad, attr)
        full = f"{self.__name__}.{attr}"
        try:
            value = getattr(self._nbgrad, attr)
        except AttributeError:
            if not _has_module(_nbgrad_name(full)):
                raise AttributeError(f"{full} is not supported by nbgrad yet") from None
            value = None
        if value is None or isinstance(value, types.ModuleType):
            if value is None or value.__name__ == _nbgrad_name(full):
                return importlib.import_module(full)  # (nbgrad's submodule, as torch's)
        return value

    def __dir__(self):
        return sorted(set(dir(self._nbgrad)) | set(self.__dict__))


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``torch`` and ``torch.<path>`` as nbgrad's modules."""

    def find_spec(self, name, path=None, target=None):
        if name != _ROOT and not name.startswith(_ROOT + "."):
            return None
        if not _has_module(_nbgrad_name(name)):
            # (no ``name=``: ``from torch.x import y`` would swallow the error and say only
            # "cannot import name")
            raise ModuleNotFoundError(f"{name} is not supported by nbgrad yet")
        return importlib.util.spec_from_loader(name, self, is_package=True)

    def create_module(self, spec):
        return _TorchModule(spec.name, importlib.import_module(_nbgrad_name(spec.name)))

    def exec_module(self, module):
        pass


_FINDER = _Finder()


def install():
    """Serve ``import torch`` (and its submodules) from nbgrad in this process.

    Call it before anything imports PyTorch; ``python -m nbgrad.run script.py`` does. A
    second call changes nothing.

    Raises:
        RuntimeError: the real PyTorch is already imported in this process (its tensors
            and nbgrad's cannot meet).

    Example::

        >>> import nbgrad.compat
        >>> nbgrad.compat.install()
        >>> import torch
        >>> import torch.nn.functional as F
        >>> F.relu(torch.tensor([-1.0, 2.0]))
        tensor([0., 2.])
        >>> nbgrad.compat.uninstall()
    """
    if _FINDER in sys.meta_path:
        return
    real = sys.modules.get(_ROOT)
    if real is not None and not isinstance(real, _TorchModule):
        raise RuntimeError(
            "nbgrad.compat.install(): PyTorch is already imported in this process (from "
            f"{getattr(real, '__file__', '?')}); install nbgrad before anything imports "
            "torch, or run the program with python -m nbgrad.run")
    sys.meta_path.insert(0, _FINDER)


def uninstall():
    """Undo ``install()``: ``torch`` and its submodules are forgotten (a later ``import
    torch`` finds the real PyTorch, if installed). Modules that already hold nbgrad's
    ``torch`` keep it."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n, m in sys.modules.items() if isinstance(m, _TorchModule)]:
        del sys.modules[name]
