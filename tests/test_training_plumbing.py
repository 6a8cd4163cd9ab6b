"""What training scripts touch besides the model (issue #16): amp's autocast and GradScaler,
accelerator queries, torch.onnx, torch.cuda's seeds, f"{loss:.4f}", Tensor.type."""

import warnings

import numpy as np
import pytest

import nbgrad

try:
    import torch
except ImportError:
    torch = None


def test_a_zero_dim_tensor_formats_as_its_number():
    assert f"{nbgrad.tensor(1.23456):.3f}" == "1.235"
    assert f"{nbgrad.tensor(7):>4}" == "   7"
    assert format(nbgrad.tensor([1.5]), "") == str(nbgrad.tensor([1.5]))
    with pytest.raises(TypeError, match="unsupported format string"):
        f"{nbgrad.tensor([1.5]):.3f}"


def test_tensor_type():
    x = nbgrad.ones(2)
    assert x.type() == "nbgrad.FloatTensor" and x.long().type() == "nbgrad.LongTensor"
    assert x.type(nbgrad.float64).dtype is nbgrad.float64
    assert x.type("torch.IntTensor").dtype is nbgrad.int32
    assert x.type("nbgrad.BoolTensor").dtype is nbgrad.bool
    assert x.type("torch.HalfTensor").dtype is nbgrad.float16
    assert x.type("torch.BFloat16Tensor").type() == "nbgrad.BFloat16Tensor"
    with pytest.raises(ValueError, match="invalid type"):
        x.type("torch.ComplexFloatTensor")


def _scaled_training(m, scaler, steps):
    """A parameter trained by SGD through ``scaler``; step 2's loss is inf (skipped)."""
    w = m.nn.Parameter(m.tensor([1.0, -2.0]))
    opt = m.optim.SGD([w], lr=0.1)
    scales, values = [], []
    for k in range(steps):
        opt.zero_grad()
        loss = (w * w).sum() * (float("inf") if k == 2 else 1.0)
        scaler.scale(loss).backward()
        scaler.step(opt)
        scaler.update()
        scales.append(scaler.get_scale())
        values.append(w.detach().numpy().copy())
    return scales, values, scaler.state_dict()


def test_grad_scaler_scales_skips_and_grows():
    scaler = nbgrad.amp.GradScaler("cpu", init_scale=8.0, growth_interval=2)
    scales, values, state = _scaled_training(nbgrad, scaler, 6)
    # two good steps double it; the inf step halves it and resets the count
    assert scales == [8.0, 16.0, 8.0, 8.0, 16.0, 16.0]
    np.testing.assert_array_equal(values[2], values[1])  # the skipped step changed nothing
    np.testing.assert_allclose(values[0], [0.8, -1.6])
    assert state == {"scale": 16.0, "growth_factor": 2.0, "backoff_factor": 0.5,
                     "growth_interval": 2, "_growth_tracker": 1}
    if torch is not None:
        want = _scaled_training(torch, torch.amp.GradScaler("cpu", init_scale=8.0,
                                                            growth_interval=2), 6)
        assert scales == want[0] and state == want[2]
        for a, b in zip(values, want[1]):
            np.testing.assert_array_equal(a, b)


def test_grad_scaler_unscale_and_its_errors():
    w = nbgrad.nn.Parameter(nbgrad.tensor([3.0]))
    opt = nbgrad.optim.SGD([w], lr=0.1)
    scaler = nbgrad.amp.GradScaler("cpu", init_scale=4.0)
    assert scaler.scale(nbgrad.tensor(2.0)).item() == 8.0
    assert [t.item() for t in scaler.scale([nbgrad.tensor(1.0), nbgrad.tensor(2.0)])] == [4, 8]
    scaler.scale((w * w).sum()).backward()
    assert w.grad.item() == 24.0
    scaler.unscale_(opt)
    assert w.grad.item() == 6.0  # clip_grad_norm_ would see the true gradient here
    with pytest.raises(RuntimeError, match="unscale_\\(\\) has already been called"):
        scaler.unscale_(opt)
    scaler.step(opt)
    with pytest.raises(RuntimeError, match="step\\(\\) has already been called"):
        scaler.step(opt)
    scaler.update()
    with pytest.raises(RuntimeError, match="Closure use is not currently supported"):
        scaler.step(opt, closure=lambda: None)
    other = nbgrad.amp.GradScaler("cpu")
    other.load_state_dict(scaler.state_dict())
    assert other.get_scale() == scaler.get_scale() == 4.0
    with pytest.raises(ValueError, match="growth factor"):
        nbgrad.amp.GradScaler("cpu", growth_factor=0.5)


def test_disabled_scaler_and_cuda_spellings():
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        scaler = nbgrad.amp.GradScaler("cuda", enabled=not nbgrad.cuda.is_available())
    if not nbgrad.cuda.is_available():
        assert not scaler.is_enabled() and any("Disabling" in str(w.message) for w in seen)
    off = nbgrad.amp.GradScaler("cpu", enabled=False)
    loss = nbgrad.tensor(2.0)
    assert off.scale(loss) is loss and off.get_scale() == 1.0 and off.state_dict() == {}
    assert nbgrad.cuda.amp.GradScaler(enabled=False).get_scale() == 1.0
    with nbgrad.cuda.amp.autocast(enabled=False):
        pass


def test_autocast_accepts_pytorchs_arguments():
    with nbgrad.autocast("cpu", enabled=False):
        y = nbgrad.ones(2, 2) @ nbgrad.ones(2, 2)
    assert y.dtype is nbgrad.float32  # (disabled: no cast, as in PyTorch)

    @nbgrad.amp.autocast("cpu", dtype=nbgrad.float32)
    def f(x):
        return x * 2

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert f(nbgrad.ones(1)).tolist() == [2.0]
    with pytest.raises(RuntimeError, match="unsupported autocast device_type 'tpu'"):
        nbgrad.autocast("tpu")
    assert nbgrad.amp.is_autocast_available("cpu")


def test_accelerator_onnx_and_cuda_seeds():
    has = nbgrad.cuda.is_available()
    assert nbgrad.accelerator.is_available() is has
    assert nbgrad.accelerator.device_count() == nbgrad.cuda.device_count()
    acc = nbgrad.accelerator.current_accelerator()
    assert (acc == nbgrad.device("cuda")) if has else acc is None
    with pytest.raises(NotImplementedError, match="torch.onnx.export is not supported"):
        nbgrad.onnx.export(None, None, "model.onnx")
    assert nbgrad.onnx.is_in_onnx_export() is False
    nbgrad.manual_seed(1)
    a = nbgrad.rand(3)
    nbgrad.manual_seed(1)
    nbgrad.cuda.manual_seed(5)  # (nbgrad's one generator is seeded by manual_seed only)
    nbgrad.cuda.manual_seed_all(5)
    assert nbgrad.rand(3).tolist() == a.tolist()
