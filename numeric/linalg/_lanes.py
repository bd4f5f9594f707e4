"""Eight-lane float64 values for numba kernels, behind a switch: the LLVM vector instructions of `_simd`, or plain
numba code with the same names and lane semantics.

`_simd` builds its instructions with ``numba.core.cgutils``, an internal numba module that a numba release may
change or remove (numba is pinned to the tested range in pyproject.toml for that reason).  ``CRAWLMATH_SIMD=0``
in the environment (read once, when this module is first imported) selects the plain kernels below instead:
they use only ``numba.njit`` on tuples of eight floats, and `_simd` is then never imported.  Any other value, or
none, selects `_simd`.

The plain operations are the same lane-wise IEEE double operations except ``fma8``, which rounds twice
(``u * v``, then ``+ w``) where `_simd` rounds once (``llvm.fma``): results of the two paths agree to a few
units in the last place, not bit for bit (tests/test_simd.py compares the structured solver both ways).

`CACHE` is what the kernels that call these operations pass to numba's ``cache=``: numba's on-disk cache
is keyed by the kernel's own source file, not by the modules of the functions it calls, so a kernel cached
with one implementation would be loaded under the other.  The `_simd` path caches (the default, and the only
one that writes the cache); the plain path compiles in each process.

>>> import numpy as np
>>> from numba import njit
>>> @njit
... def demo(a, out):
...     v = load8(a, 0)
...     store8(out, 0, add8(swap8(v, 1), splat8(1.0)))
...     store8(out, 8, pick8(v, load8(a, 8), (0, 2, 4, 6, 8, 10, 12, 14)))
>>> out = np.zeros(16)
>>> demo(np.arange(16.0), out)
>>> out.tolist()
[2.0, 1.0, 4.0, 3.0, 6.0, 5.0, 8.0, 7.0, 0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]
"""
from __future__ import annotations

import os

import numpy as np
from numba import njit

SIMD = os.environ.get("CRAWLMATH_SIMD", "1") != "0"  # the switch (see the module docstring)
CACHE = SIMD  # numba's cache= for kernels calling these operations (see the module docstring)


@njit
def load8_plain(a, i):
    """``a[i : i + 8]`` as a tuple of eight floats."""
    return (a[i], a[i + 1], a[i + 2], a[i + 3], a[i + 4], a[i + 5], a[i + 6], a[i + 7])


@njit
def store8_plain(a, i, v):
    """``a[i : i + 8] = v``."""
    a[i], a[i + 1], a[i + 2], a[i + 3] = v[0], v[1], v[2], v[3]
    a[i + 4], a[i + 5], a[i + 6], a[i + 7] = v[4], v[5], v[6], v[7]


@njit
def splat8_plain(f):
    """Eight copies of the scalar ``f`` (as float64)."""
    x = np.float64(f)
    return (x, x, x, x, x, x, x, x)


@njit
def add8_plain(u, v):
    """Lane-wise ``u + v``."""
    return (u[0] + v[0], u[1] + v[1], u[2] + v[2], u[3] + v[3], u[4] + v[4], u[5] + v[5], u[6] + v[6], u[7] + v[7])


@njit
def mul8_plain(u, v):
    """Lane-wise ``u * v``."""
    return (u[0] * v[0], u[1] * v[1], u[2] * v[2], u[3] * v[3], u[4] * v[4], u[5] * v[5], u[6] * v[6], u[7] * v[7])


@njit
def fma8_plain(u, v, w):
    """Lane-wise ``u * v + w``, rounded twice (the product, then the sum)."""
    return (u[0] * v[0] + w[0], u[1] * v[1] + w[1], u[2] * v[2] + w[2], u[3] * v[3] + w[3],
            u[4] * v[4] + w[4], u[5] * v[5] + w[5], u[6] * v[6] + w[6], u[7] * v[7] + w[7])


@njit
def swap8_plain(v, k):
    """Lane ``l`` takes lane ``l XOR k`` (k = 1, 2 or 4)."""
    if k == 1:  # constant indices: a computed index into a tuple compiles to a branch per lane
        return (v[1], v[0], v[3], v[2], v[5], v[4], v[7], v[6])
    if k == 2:
        return (v[2], v[3], v[0], v[1], v[6], v[7], v[4], v[5])
    return (v[4], v[5], v[6], v[7], v[0], v[1], v[2], v[3])


@njit
def _lane16(u, v, m):
    return u[m] if m < 8 else v[m - 8]


@njit
def pick8_plain(u, v, mask):
    """Lane ``l`` takes lane ``mask[l]`` of the 16 lanes ``u`` then ``v``."""
    return (_lane16(u, v, mask[0]), _lane16(u, v, mask[1]), _lane16(u, v, mask[2]), _lane16(u, v, mask[3]),
            _lane16(u, v, mask[4]), _lane16(u, v, mask[5]), _lane16(u, v, mask[6]), _lane16(u, v, mask[7]))


if SIMD:  # only then: `_simd` imports numba.core.cgutils
    from ._simd import add8, fma8, load8, mul8, pick8, splat8, store8, swap8
else:
    add8, fma8, load8, mul8 = add8_plain, fma8_plain, load8_plain, mul8_plain
    pick8, splat8, store8, swap8 = pick8_plain, splat8_plain, store8_plain, swap8_plain
