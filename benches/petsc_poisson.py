"""PETSc's answer to benches/solve.rs's 3D Poisson problem, for the same sitting: CG preconditioned
by geometric multigrid (PCMG on a DMDA, Galerkin coarse operators, PETSc's default level
smoothers: two Chebyshev iterations with SOR), stopping on the unpreconditioned residual at
rtol 1e-8, on the 7-point Laplacian with zero walls: n^3 unknowns inside a DMDA of (n + 2)^3
vertices whose boundary rows are the identity (decoupled, so the operator stays symmetric). The
right-hand side is benches/solve.rs's. Prints the median solve time of 5 (setup excluded, as the
cnda bench builds its hierarchy once) and the iterations.

    python3 benches/petsc_poisson.py --n 127 [--smoother jacobi]

Needs petsc4py (Debian: python3-petsc4py; it brings PETSc with OpenMPI). One process.
"""

import argparse
import sys
import time

import numpy as np


def laplacian_csr(m, h):
    """The 7-point operator on an m^3 vertex grid (x fastest), boundary rows the identity."""
    idx = np.arange(m**3).reshape(m, m, m)  # [z, y, x]
    inner = np.zeros((m, m, m), bool)
    inner[1:-1, 1:-1, 1:-1] = True
    rows, cols, vals = [idx[~inner].ravel()], [idx[~inner].ravel()], [np.ones((~inner).sum())]
    centre = idx[inner]
    rows.append(centre)
    cols.append(centre)
    vals.append(np.full(centre.size, 6.0 / h**2))
    for axis in range(3):
        for d in (-1, 1):
            nb = np.roll(idx, -d, axis=axis)[inner]
            # Neighbours on the boundary are dropped: they hold zero, and the matrix stays symmetric.
            zz, yy, xx = np.unravel_index(nb, (m, m, m))
            keep = (zz > 0) & (zz < m - 1) & (yy > 0) & (yy < m - 1) & (xx > 0) & (xx < m - 1)
            rows.append(centre[keep])
            cols.append(nb[keep])
            vals.append(np.full(keep.sum(), -1.0 / h**2))
    r, c, v = (np.concatenate(a) for a in (rows, cols, vals))
    order = np.lexsort((c, r))
    r, c, v = r[order], c[order], v[order]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=m**3))])
    return indptr.astype(PETSc.IntType), c.astype(PETSc.IntType), v


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--n", type=int, default=127, help="unknowns per axis (2^k - 1)")
    p.add_argument("--smoother", choices=["default", "jacobi"], default="default")
    p.add_argument("--runs", type=int, default=5)
    args = p.parse_args()
    n, m = args.n, args.n + 2
    h = 1.0 / (n + 1)
    levels = 1
    while (m - 1) % (1 << levels) == 0 and (m - 1) >> levels >= 4:
        levels += 1

    da = PETSc.DMDA().create([m, m, m], stencil_width=1, stencil_type=PETSc.DMDA.StencilType.STAR)
    indptr, indices, values = laplacian_csr(m, h)
    a = PETSc.Mat().createAIJ([m**3, m**3], csr=(indptr, indices, values))
    a.assemble()
    b = a.createVecLeft()
    z, y, x = np.meshgrid(np.arange(m), np.arange(m), np.arange(m), indexing="ij")
    rhs = ((z - 1) * 7 + (y - 1) * 3 + (x - 1) * 5) % 11 - 5.0
    interior = (z > 0) & (z < m - 1) & (y > 0) & (y < m - 1) & (x > 0) & (x < m - 1)
    b.setArray(np.where(interior, rhs, 0.0).ravel())
    u = a.createVecRight()

    opts = PETSc.Options()
    opts["ksp_type"] = "cg"
    opts["ksp_norm_type"] = "unpreconditioned"
    opts["ksp_rtol"] = 1e-8
    opts["pc_type"] = "mg"
    opts["pc_mg_levels"] = levels
    opts["pc_mg_galerkin"] = "both"
    if args.smoother == "jacobi":
        opts["mg_levels_ksp_type"] = "richardson"
        opts["mg_levels_ksp_richardson_scale"] = 6.0 / 7.0
        opts["mg_levels_pc_type"] = "jacobi"
    ksp = PETSc.KSP().create()
    ksp.setDM(da)
    ksp.setDMActive(False)
    ksp.setOperators(a)
    ksp.setFromOptions()
    ksp.setUp()
    times = []
    for _ in range(args.runs):
        u.set(0.0)
        t = time.perf_counter()
        ksp.solve(b, u)
        times.append(time.perf_counter() - t)
    r = b.duplicate()
    a.mult(u, r)
    r.aypx(-1.0, b)
    print(
        f"petsc {PETSc.Sys.getVersion()} n={n} levels={levels} smoother={args.smoother}: "
        f"{ksp.getIterationNumber()} iterations, reason {ksp.getConvergedReason()}, "
        f"relative residual {r.norm() / b.norm():.2e}, median solve {np.median(times) * 1e3:.1f} ms "
        f"(runs {', '.join(f'{t * 1e3:.0f}' for t in times)})"
    )


if __name__ == "__main__":
    import petsc4py

    petsc4py.init(sys.argv[:1])
    from petsc4py import PETSc

    main()
