"""PETSc's answer to benches/solve.rs's 3D Poisson problem, for the same sitting: CG preconditioned
by geometric multigrid (PCMG on a DMDA, Galerkin coarse operators, PETSc's default level
smoothers: two Chebyshev iterations with SOR), stopping on the unpreconditioned residual at
rtol 1e-8, on the 7-point Laplacian with zero walls: n^3 unknowns inside a DMDA of (n + 2)^3
vertices whose boundary rows are the identity (decoupled, so the operator stays symmetric). The
right-hand side is benches/solve.rs's. Prints the median solve time of 5 (setup excluded, as the
cnda bench builds its hierarchy once) and the iterations.

    python3 benches/petsc_poisson.py --n 127 [--smoother jacobi]

Needs petsc4py (Debian: python3-petsc4py; it brings PETSc with OpenMPI). On P processes:
`mpirun -n P python3 benches/petsc_poisson.py ...`, the DMDA split as PETSc splits it and each
process assembling its own rows.
"""

import argparse
import sys
import time

import numpy as np


def local_laplacian(da, h):
    """This process's rows of the 7-point operator on the DMDA's m^3 vertex grid, boundary rows
    the identity, in PETSc's ordering (each process's box of the grid, x fastest): the local CSR
    (global column indices) and the owned points' (z, y, x) coordinates in row order."""
    m = da.getSizes()[0]
    (xs, xe), (ys, ye), (zs, ze) = da.getRanges()
    z, y, x = (a.ravel() for a in np.meshgrid(np.arange(zs, ze), np.arange(ys, ye), np.arange(xs, xe), indexing="ij"))
    ao = da.getAO()
    natural = lambda z, y, x: ((z * m + y) * m + x).astype(PETSc.IntType)
    rows = np.arange(z.size)
    if not np.array_equal(ao.app2petsc(natural(z, y, x)), rows + rstart(da)):
        raise SystemExit("the DMDA's ordering is not its boxes, x fastest")
    inner = (z > 0) & (z < m - 1) & (y > 0) & (y < m - 1) & (x > 0) & (x < m - 1)
    r, c, v = [rows], [natural(z, y, x)], [np.where(inner, 6.0 / h**2, 1.0)]
    for dz, dy, dx in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
        nz, ny, nx = z + dz, y + dy, x + dx
        # Neighbours on the boundary are dropped: they hold zero, and the matrix stays symmetric.
        keep = inner & (nz > 0) & (nz < m - 1) & (ny > 0) & (ny < m - 1) & (nx > 0) & (nx < m - 1)
        r.append(rows[keep])
        c.append(natural(nz[keep], ny[keep], nx[keep]))
        v.append(np.full(keep.sum(), -1.0 / h**2))
    r, v = np.concatenate(r), np.concatenate(v)
    c = ao.app2petsc(np.concatenate(c))
    order = np.lexsort((c, r))
    r, c, v = r[order], c[order], v[order]
    indptr = np.concatenate([[0], np.cumsum(np.bincount(r, minlength=z.size))])
    return (indptr.astype(PETSc.IntType), c.astype(PETSc.IntType), v), (z, y, x)


def rstart(da):
    """The first global (PETSc-ordered) index this process owns."""
    v = da.createGlobalVec()
    return v.getOwnershipRange()[0]


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

    da = PETSc.DMDA().create(
        [m, m, m], stencil_width=1, stencil_type=PETSc.DMDA.StencilType.STAR, comm=PETSc.COMM_WORLD
    )
    csr, (z, y, x) = local_laplacian(da, h)
    local = z.size
    a = PETSc.Mat().createAIJ([(local, m**3), (local, m**3)], csr=csr, comm=PETSc.COMM_WORLD)
    a.assemble()
    b = a.createVecLeft()
    rhs = ((z - 1) * 7 + (y - 1) * 3 + (x - 1) * 5) % 11 - 5.0
    interior = (z > 0) & (z < m - 1) & (y > 0) & (y < m - 1) & (x > 0) & (x < m - 1)
    b.setArray(np.where(interior, rhs, 0.0))
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
    ksp = PETSc.KSP().create(comm=PETSc.COMM_WORLD)
    ksp.setDM(da)
    ksp.setDMActive(False)
    ksp.setOperators(a)
    ksp.setFromOptions()
    ksp.setUp()
    times = []
    for _ in range(args.runs):
        u.set(0.0)
        PETSc.COMM_WORLD.barrier()
        t = time.perf_counter()
        ksp.solve(b, u)
        times.append(time.perf_counter() - t)
    r = b.duplicate()
    a.mult(u, r)
    r.aypx(-1.0, b)
    PETSc.Sys.Print(
        f"petsc {PETSc.Sys.getVersion()} n={n} levels={levels} smoother={args.smoother}: "
        f"{PETSc.COMM_WORLD.getSize()} processes, {ksp.getIterationNumber()} iterations, reason {ksp.getConvergedReason()}, "
        f"relative residual {r.norm() / b.norm():.2e}, median solve {np.median(times) * 1e3:.1f} ms "
        f"(runs {', '.join(f'{t * 1e3:.0f}' for t in times)})"
    )


if __name__ == "__main__":
    import petsc4py

    petsc4py.init(sys.argv[:1])
    from petsc4py import PETSc

    main()
