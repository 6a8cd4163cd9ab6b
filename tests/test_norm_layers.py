"""group_norm, instance_norm, rms_norm (ops/group_norm.py) and GroupNorm, RMSNorm,
InstanceNorm1d / 2d: values, gradients, running statistics, parameter and buffer names and
reprs against PyTorch (train and eval), finite differences in float64."""

import doctest

import numpy as np
import pytest

import nbgrad
import nbgrad.nn.functional as F
from nbgrad.autograd import gradcheck, gradgradcheck
from tests._errors import error_of

torch = pytest.importorskip("torch")

LAYERS = [
    (lambda m: m.nn.GroupNorm(2, 4), (3, 4, 5)),
    (lambda m: m.nn.GroupNorm(1, 4, affine=False), (2, 4, 3, 3)),
    (lambda m: m.nn.GroupNorm(4, 4, bias=False), (2, 4, 3)),
    (lambda m: m.nn.RMSNorm(5), (3, 4, 5)),
    (lambda m: m.nn.RMSNorm((4, 5), eps=1e-3), (3, 4, 5)),
    (lambda m: m.nn.InstanceNorm2d(3), (2, 3, 4, 4)),
    (lambda m: m.nn.InstanceNorm1d(3, affine=True), (2, 3, 6)),
    (lambda m: m.nn.InstanceNorm2d(3, track_running_stats=True, affine=True), (2, 3, 4, 4)),
    (lambda m: m.nn.InstanceNorm1d(3), (3, 6)),
    (lambda m: m.nn.BatchNorm1d(3, bias=False), (4, 3)),
    (lambda m: m.nn.SyncBatchNorm(3), (4, 3, 2, 2)),
    (lambda m: m.nn.SyncBatchNorm(3, momentum=None, affine=False), (4, 3)),
    (lambda m: m.nn.SyncBatchNorm.convert_sync_batchnorm(  # (seeded: the same Linear)
        m.nn.Sequential(m.manual_seed(0) and m.nn.Linear(3, 3), m.nn.BatchNorm1d(3, eps=1e-3))),
     (4, 3)),
]


@pytest.mark.parametrize("make, shape", LAYERS)
def test_layers_match_pytorch(make, shape):
    x = np.random.default_rng(0).standard_normal(shape)
    res = []
    for m in (nbgrad, torch):
        layer = make(m).double()
        t = m.tensor(x, requires_grad=True)
        y, y2 = layer(t), layer(t * 2)  # (twice: running statistics move twice)
        ((y * y2) ** 2).sum().backward()
        layer.eval()
        y3 = layer(t)
        res.append((repr(layer), [n for n, _ in layer.named_parameters()],
                    [n for n, _ in layer.named_buffers()],
                    [y, y3, t.grad] + [p.grad for p in layer.parameters()]
                    + list(layer.buffers())))
    assert res[0][:3] == res[1][:3]
    for a, b in zip(res[0][3], res[1][3]):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)


def test_functions_by_finite_differences():
    rng = np.random.default_rng(1)

    def t(*shape):
        return nbgrad.tensor(rng.standard_normal(shape), requires_grad=True)

    x, w, b = t(2, 4, 3), t(4), t(4)
    for f in (lambda a, c, d: F.group_norm(a, 2, c, d),
              lambda a, c, d: F.instance_norm(a, weight=c, bias=d),
              lambda a, c, d: F.rms_norm(a, (3,), c[:3]) + d.sum()):
        assert gradcheck(f, (x, w, b)) and gradgradcheck(f, (x, w, b))


def test_errors_match_pytorch():
    for call in [lambda m: m.nn.GroupNorm(3, 4), lambda m: m.nn.functional.group_norm(
                     m.ones(2, 4, 3), 3), lambda m: m.nn.functional.rms_norm(m.ones(2, 3), (4,)),
                 lambda m: m.nn.functional.instance_norm(m.ones(2, 3, 1))]:
        ours = error_of(lambda: call(nbgrad))
        theirs = error_of(lambda: call(torch))
        assert ours is not None and ours[0] is theirs[0], (ours, theirs)


def test_sync_batch_norm_conversion_keeps_the_tensors_and_checks_inputs():
    for m in (nbgrad, torch):
        bn = m.nn.BatchNorm2d(2)
        net = m.nn.SyncBatchNorm.convert_sync_batchnorm(m.nn.Sequential(bn).eval())
        sync = net[0]
        assert type(sync).__name__ == "SyncBatchNorm" and not sync.training
        assert sync.weight is bn.weight and sync.running_mean is bn.running_mean
        assert sync.process_group is None
    for call in [lambda m: m.nn.SyncBatchNorm(2)(m.ones(2)),
                 lambda m: m.nn.SyncBatchNorm(0)(m.ones(2, 0))]:
        ours, theirs = error_of(lambda: call(nbgrad)), error_of(lambda: call(torch))
        assert ours == theirs, (ours, theirs)


def test_data_parallel_without_a_gpu_calls_the_module():
    res = []
    for m in (nbgrad, torch):
        m.manual_seed(0)
        net = m.nn.DataParallel(m.nn.Linear(3, 2).double())
        x = m.tensor(np.arange(6.0).reshape(2, 3))
        y = net(x)
        y.sum().backward()
        assert net.device_ids == [] and isinstance(net.module, m.nn.Linear)
        res.append((repr(net), list(net.state_dict()), y.detach().numpy(),
                    net.module.weight.grad.numpy()))
    assert res[0][:2] == res[1][:2]
    for a, b in zip(res[0][2:], res[1][2:]):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_docstring_examples_run():
    from nbgrad.ops import group_norm

    res = doctest.testmod(group_norm,
                          optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert res.attempted and not res.failed


@pytest.mark.parametrize("name", ["InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
                                  "LazyInstanceNorm2d", "LazyBatchNorm1d", "LazyBatchNorm3d"])
def test_norm_layers_take_bias_keyword_as_pytorchs(name):
    """``bias=False`` (keyword only, with affine): a weight and no bias, as PyTorch's."""
    torch = pytest.importorskip("torch")
    lazy = name.startswith("Lazy")
    args = () if lazy else (3,)
    ours = getattr(nbgrad.nn, name)(*args, affine=True, bias=False)
    theirs = getattr(torch.nn, name)(*args, affine=True, bias=False)
    if lazy:
        dims = 3 if "1d" in name else 5 if "3d" in name else 4
        shape = (2, 3) + (2,) * (dims - 2)
        ours(nbgrad.ones(*shape))
        theirs(torch.ones(*shape))
    assert ours.bias is None and theirs.bias is None
    assert tuple(ours.weight.shape) == tuple(theirs.weight.shape) == (3,)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == ["weight"]
    with pytest.raises(TypeError):
        getattr(nbgrad.nn, name)(*args, 1e-5, 0.1, True, True, None, None, False)
