"""Eight-lane float64 vectors for numba kernels: a value type held in one SIMD register (or two, or four, as the
machine has them) and a handful of operations on it, each lowered to one LLVM vector instruction.

Why: numba runs LLVM's loop vectoriser but not its SLP vectoriser, so a kernel that accumulates several
contiguous outputs in registers across a loop (the `bmap._structured_pull` matvec "pulls" every partner of a run
of outputs before storing it once) compiles to scalar code.  Written with `F64x8` values it is vector code on any
target LLVM supports: ``<8 x double>`` is split into what the machine has (one AVX-512 register, two AVX ones,
four SSE ones); nothing here depends on the instruction set.  The instructions are built with llvmlite, numba's
own code generator (installed with numba, at the version numba requires), through numba's documented extension
API (`numba.extending.intrinsic`, `register_model`) and ``numba.core.cgutils``, an internal module (numba is pinned
to the tested release in pyproject.toml).

Kernels do not import this module directly: they import `crawlmath.numeric.linalg._lanes`, which imports it
only when the environment variable ``CRAWLMATH_SIMD`` is not ``0``; with ``CRAWLMATH_SIMD=0`` they run plain
numba code with the same names and lane semantics, and no solver imports this module.

The operations, all lane-wise and exactly rounded as IEEE double operations (``fma8`` rounds once, as
``math.fma``):

- ``load8(a, i)`` / ``store8(a, i, v)``: entries ``a[i : i + 8]`` of a contiguous float64 array (no bounds
  check: the caller's indices are in range by construction, as in the rest of the kernels);
- ``splat8(f)``: eight copies of a scalar;
- ``add8(u, v)``, ``mul8(u, v)``, ``fma8(u, v, w) = u * v + w`` (``llvm.fma``: one rounding on every target,
  in software where the processor has no fused multiply-add, which is slower but gives the same bits);
- ``swap8(v, k)``: lane ``l`` takes lane ``l XOR k`` (k = 1, 2 or 4, a literal): the partner of each lane
  along one of the three axes inside a vector;
- ``pick8(u, v, mask)``: a lane-wise choice from the 16 lanes of ``u`` then ``v`` (mask: a literal tuple of
  eight indices in 0..15).

    >>> import numpy as np
    >>> from numba import njit
    >>> @njit
    ... def demo(a, out):
    ...     v = load8(a, 0)
    ...     store8(out, 0, fma8(splat8(2.0), swap8(v, 1), v))
    ...     store8(out, 8, pick8(v, load8(a, 8), (0, 2, 4, 6, 8, 10, 12, 14)))
    >>> out = np.zeros(16)
    >>> demo(np.arange(16.0), out)
    >>> out.tolist()
    [2.0, 1.0, 8.0, 7.0, 14.0, 13.0, 20.0, 19.0, 0.0, 2.0, 4.0, 6.0, 8.0, 10.0, 12.0, 14.0]
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic, models, register_model

__all__ = ["F64x8", "add8", "fma8", "load8", "mul8", "pick8", "splat8", "store8", "swap8"]

_LANES = 8
_VEC = ir.VectorType(ir.DoubleType(), _LANES)
_I32 = ir.IntType(32)


class F64x8Type(types.Type):
    """The numba type of an eight-lane float64 vector."""

    def __init__(self):
        super().__init__(name="F64x8")


F64x8 = F64x8Type()


@register_model(F64x8Type)
class _F64x8Model(models.PrimitiveModel):
    def __init__(self, dmm, fe_type):
        super().__init__(dmm, fe_type, _VEC)


def _is_float_array(a) -> bool:
    return isinstance(a, types.Array) and a.dtype == types.float64 and a.layout == "C" and a.ndim == 1


def _address(context, builder, aty, arr, i):
    data = context.make_array(aty)(context, builder, arr).data
    return builder.bitcast(builder.gep(data, [i]), _VEC.as_pointer())


@intrinsic
def load8(typingctx, a, i):
    """``a[i : i + 8]`` as a vector."""
    if not (_is_float_array(a) and isinstance(i, types.Integer)):
        return None

    def codegen(context, builder, sig, args):
        return builder.load(_address(context, builder, sig.args[0], args[0], args[1]), align=8)

    return F64x8(a, i), codegen


@intrinsic
def store8(typingctx, a, i, v):
    """``a[i : i + 8] = v``."""
    if not (_is_float_array(a) and isinstance(i, types.Integer) and v == F64x8):
        return None

    def codegen(context, builder, sig, args):
        builder.store(args[2], _address(context, builder, sig.args[0], args[0], args[1]), align=8)
        return context.get_dummy_value()

    return types.none(a, i, v), codegen


@intrinsic
def splat8(typingctx, f):
    """Eight copies of the scalar ``f``."""
    if not isinstance(f, types.Float):
        return None

    def codegen(context, builder, sig, args):
        f = context.cast(builder, args[0], sig.args[0], types.float64)
        one = builder.insert_element(ir.Constant(_VEC, ir.Undefined), f, ir.Constant(_I32, 0))
        return builder.shuffle_vector(one, ir.Constant(_VEC, ir.Undefined), ir.Constant(ir.VectorType(_I32, _LANES), [0] * _LANES))

    return F64x8(f), codegen


def _binary(name: str):
    @intrinsic
    def op(typingctx, u, v):
        if not (u == F64x8 and v == F64x8):
            return None

        def codegen(context, builder, sig, args):
            return getattr(builder, name)(args[0], args[1])

        return F64x8(u, v), codegen

    return op


add8 = _binary("fadd")
add8.__doc__ = "Lane-wise ``u + v``."
mul8 = _binary("fmul")
mul8.__doc__ = "Lane-wise ``u * v``."


@intrinsic
def fma8(typingctx, u, v, w):
    """Lane-wise ``u * v + w``, rounded once (``llvm.fma``)."""
    if not (u == F64x8 and v == F64x8 and w == F64x8):
        return None

    def codegen(context, builder, sig, args):
        fma = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_VEC, [_VEC] * 3), "llvm.fma.v8f64")
        return builder.call(fma, args)

    return F64x8(u, v, w), codegen


def _literal_int(k):
    return k.literal_value if isinstance(k, types.IntegerLiteral) else None


@intrinsic
def swap8(typingctx, v, k):
    """Lane ``l`` takes lane ``l XOR k`` (k a literal 1, 2 or 4)."""
    kv = _literal_int(k)
    if not (v == F64x8 and kv in (1, 2, 4)):
        return None

    def codegen(context, builder, sig, args):
        mask = ir.Constant(ir.VectorType(_I32, _LANES), [lane ^ kv for lane in range(_LANES)])
        return builder.shuffle_vector(args[0], ir.Constant(_VEC, ir.Undefined), mask)

    return F64x8(v, k), codegen


@intrinsic
def pick8(typingctx, u, v, mask):
    """Lane ``l`` takes lane ``mask[l]`` of the 16 lanes ``u`` then ``v`` (mask a literal tuple of 8 ints)."""
    if not (u == F64x8 and v == F64x8 and isinstance(mask, types.BaseTuple) and len(mask) == _LANES):
        return None
    if not all(isinstance(m, types.IntegerLiteral) and 0 <= m.literal_value < 2 * _LANES for m in mask):
        return None
    lanes = [m.literal_value for m in mask]

    def codegen(context, builder, sig, args):
        return builder.shuffle_vector(args[0], args[1], ir.Constant(ir.VectorType(_I32, _LANES), lanes))

    return F64x8(u, v, mask), codegen
