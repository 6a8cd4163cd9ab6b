"""``nbgrad.optim``: optimizers with PyTorch's update rules, run as fused Numba kernels.

>>> opt = nbgrad.optim.Adam(model.parameters(), lr=1e-3)
>>> opt.zero_grad(); loss.backward(); opt.step()
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .optimizer import Optimizer
from .rmsprop import RMSprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "RMSprop", "lr_scheduler"]
