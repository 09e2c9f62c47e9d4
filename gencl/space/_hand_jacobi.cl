// The ω-Jacobi sweep as a user writes it by hand: one work item per interior point of an
// (n+2)² grid, boundary untouched. `real` is defined by the host (float or double).
__kernel void jacobi(__global const real *u, __global const real *f, __global real *u_new,
                     const real omega, const real h2, const int n)
{
    const int j = get_global_id(0) + 1, i = get_global_id(1) + 1, p = n + 2;
    u_new[i * p + j] = (1 - omega) * u[i * p + j] + omega * (real)0.25 * (
        u[i * p + j - 1] + u[i * p + j + 1] + u[(i - 1) * p + j] + u[(i + 1) * p + j]
        + h2 * f[i * p + j]);
}
