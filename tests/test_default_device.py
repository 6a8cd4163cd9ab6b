"""The default device: ``set_default_device`` / ``get_default_device`` and ``with
nbgrad.device(...)`` blocks (nested, undone on exit and on errors), as PyTorch's; which
factories follow it (on a CUDA device: test_cuda.py, under the simulator)."""

import numpy as np
import pytest

import nbgrad
from tests._errors import assert_same_error

torch = pytest.importorskip("torch")


def test_the_cpu_by_default_and_after_a_reset():
    for m in (nbgrad, torch):
        assert repr(m.get_default_device()).endswith("device(type='cpu')")
        m.set_default_device("cpu")
        assert m.get_default_device() == m.device("cpu") and m.zeros(2).device.type == "cpu"
        m.set_default_device(None)
        assert m.get_default_device() == m.device("cpu")


def test_with_device_sets_and_restores_the_default_even_on_errors():
    cuda = nbgrad.device("cuda:1")
    with nbgrad.device("cpu") as d:
        assert d == nbgrad.device("cpu") and nbgrad.get_default_device() == nbgrad.device("cpu")
    with pytest.raises(ValueError):
        with cuda:
            assert nbgrad.get_default_device() == cuda
            with nbgrad.device("cpu"):
                assert nbgrad.get_default_device() == nbgrad.device("cpu")
            assert nbgrad.get_default_device() == cuda
            raise ValueError("inside")
    assert nbgrad.get_default_device() == nbgrad.device("cpu")
    nbgrad.set_default_device("cuda")
    try:
        assert nbgrad.get_default_device() == nbgrad.device("cuda", 0)
        # what does not make a new tensor from nothing keeps its input's device
        a = np.arange(3.0)
        assert nbgrad.from_numpy(a).device.type == "cpu"
        assert nbgrad.asarray(a).device.type == "cpu"
    finally:
        nbgrad.set_default_device(None)
    assert nbgrad.zeros(1).device.type == "cpu"


@pytest.mark.parametrize("call", [lambda m: m.set_default_device("tpu"),
                                  lambda m: m.set_default_device("cuda:-1")])
def test_bad_devices_are_refused_as_pytorch(call):
    assert_same_error(call, torch, nbgrad)
    assert nbgrad.get_default_device() == nbgrad.device("cpu")
