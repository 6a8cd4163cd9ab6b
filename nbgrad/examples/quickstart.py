"""A short tour of nbgrad's autograd: backward vs grad, retain_graph, create_graph.

Run: ``python -m nbgrad.examples.quickstart``
"""

import nbgrad
from nbgrad import autograd


def main():
    nbgrad.manual_seed(0)
    x = nbgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = nbgrad.tensor([0.5, -1.0, 2.0], requires_grad=True)

    print("1. backward() accumulates into the leaves' .grad")
    y = (nbgrad.tanh(x * w) + x**2).sum()
    y.backward()
    print("   dy/dx =", x.grad)
    print("   dy/dw =", w.grad)

    print("2. autograd.grad() returns gradients and leaves .grad alone")
    y = (x * w).sum()
    (gx,) = autograd.grad(y, x)
    print("   dy/dx =", gx, "  x.grad still", x.grad)

    print("3. retain_graph=True lets the same graph run backward twice")
    x.grad = None
    y = (x.exp() * w).sum()
    y.backward(retain_graph=True)
    y.backward()
    print("   twice-accumulated dy/dx =", x.grad)
    try:
        y.backward()
    except RuntimeError as e:
        print("   a third time without retain_graph:", str(e).split(".")[0] + ".")

    print("4. create_graph=True makes gradients differentiable (x**3: 3x^2, then 6x)")
    t = nbgrad.tensor(2.0, requires_grad=True)
    (g1,) = autograd.grad(t**3, t, create_graph=True)
    (g2,) = autograd.grad(g1, t, create_graph=True)
    (g3,) = autograd.grad(g2, t)
    print(f"   first {g1.item():.1f}, second {g2.item():.1f}, third {g3.item():.1f}")

    print("5. non-scalar outputs need grad_tensors (a vector-Jacobian product)")
    x.grad = None
    z = x * 2
    z.backward(nbgrad.tensor([1.0, 0.1, 0.01]))
    print("   x.grad =", x.grad)

    print("6. no_grad() builds no graph")
    with nbgrad.no_grad():
        q = x * 2
    print("   requires_grad inside no_grad:", q.requires_grad)


if __name__ == "__main__":
    main()
