#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))
#define LOOPY_CALL_WITH_INTEGER_TYPES(MACRO_NAME) \
    MACRO_NAME(int8, char) \
    MACRO_NAME(int16, short) \
    MACRO_NAME(int32, int) \
    MACRO_NAME(int64, long)
#define LOOPY_DEFINE_FLOOR_DIV_POS_B(SUFFIX, TYPE) \
    static inline TYPE loopy_floor_div_pos_b_##SUFFIX(TYPE a, TYPE b) \
    { \
        if (a<0) \
            a = a - (b-1); \
        return a/b; \
    }
LOOPY_CALL_WITH_INTEGER_TYPES(LOOPY_DEFINE_FLOOR_DIV_POS_B)
#undef LOOPY_DEFINE_FLOOR_DIV_POS_B
#undef LOOPY_CALL_WITH_INTEGER_TYPES

__kernel void __attribute__ ((reqd_work_group_size(128, 8, 1))) jacobi(__global float4 const *__restrict__ u, __global float4 const *__restrict__ f, __global float4 *__restrict__ u_new, float const omega, float const h2, int const n)
{
  float4 e;
  float4 w;

  if (-1 + -8 * gid(1) + -1 * lid(1) + n >= 0 && -4 + -512 * gid(0) + -4 * lid(0) + n >= 0)
  {
    w.s0 = u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1, 4)].s3;
    w.s1 = u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 1, 4)].s0;
    w.s2 = u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 2, 4)].s1;
    w.s3 = u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 3, 4)].s2;
    e.s0 = u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0) + 1 / 4].s1;
    e.s1 = u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0) + (1 + 1) / 4].s2;
    e.s2 = u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0) + (1 + 2) / 4].s3;
    e.s3 = u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0) + (1 + 3) / 4].s0;
    u_new[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0)] = (1.0f + -1.0f * omega) * u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0)] + omega * 0.25f * (w + e + u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0)] + u[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (2 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0)] + h2 * f[((4 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 4)) / 4) * (1 + 8 * gid(1) + lid(1)) + 4 + 128 * gid(0) + lid(0)]);
  }
}