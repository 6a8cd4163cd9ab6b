"""``nbgrad.optim``: optimizers with PyTorch's update rules, run as fused Numba kernels.

>>> model = nbgrad.nn.Linear(3, 1)
>>> opt = nbgrad.optim.Adam(model.parameters(), lr=1e-3)
>>> loss = model(nbgrad.randn(4, 3)).pow(2).mean()
>>> opt.zero_grad(); loss.backward(); opt.step()
"""

from . import lr_scheduler
from .adadelta import Adadelta
from .adagrad import Adagrad
from .adam import Adam, AdamW
from .adamax import Adamax
from .asgd import ASGD
from .lbfgs import LBFGS
from .nadam import NAdam
from .optimizer import Optimizer
from .radam import RAdam
from .rmsprop import RMSprop
from .rprop import Rprop
from .sgd import SGD

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adadelta", "Adagrad", "RMSprop", "Adamax",
           "NAdam", "RAdam", "ASGD", "Rprop", "LBFGS", "lr_scheduler"]
