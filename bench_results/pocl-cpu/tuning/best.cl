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

__kernel void __attribute__ ((reqd_work_group_size(64, 8, 1))) jacobi(__global float16 const *__restrict__ u, __global float16 const *__restrict__ f, __global float16 *__restrict__ u_new, float const omega, float const h2, int const n)
{
  float16 e;
  float16 w;

  if (-16 + -1024 * gid(0) + -16 * lid(0) + n >= 0)
  {
    w.s0 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1, 16)].sf;
    w.s1 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 1, 16)].s0;
    w.s2 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 2, 16)].s1;
    w.s3 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 3, 16)].s2;
    w.s4 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 4, 16)].s3;
    w.s5 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 5, 16)].s4;
    w.s6 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 6, 16)].s5;
    w.s7 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 7, 16)].s6;
    w.s8 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 8, 16)].s7;
    w.s9 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 9, 16)].s8;
    w.sa = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 10, 16)].s9;
    w.sb = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 11, 16)].sa;
    w.sc = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 12, 16)].sb;
    w.sd = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 13, 16)].sc;
    w.se = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 14, 16)].sd;
    w.sf = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + loopy_floor_div_pos_b_int32(-1 + 15, 16)].se;
    e.s0 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + 1 / 16].s1;
    e.s1 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 1) / 16].s2;
    e.s2 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 2) / 16].s3;
    e.s3 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 3) / 16].s4;
    e.s4 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 4) / 16].s5;
    e.s5 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 5) / 16].s6;
    e.s6 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 6) / 16].s7;
    e.s7 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 7) / 16].s8;
    e.s8 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 8) / 16].s9;
    e.s9 = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 9) / 16].sa;
    e.sa = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 10) / 16].sb;
    e.sb = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 11) / 16].sc;
    e.sc = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 12) / 16].sd;
    e.sd = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 13) / 16].se;
    e.se = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 14) / 16].sf;
    e.sf = u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0) + (1 + 15) / 16].s0;
    u_new[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0)] = (1.0f + -1.0f * omega) * u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0)] + omega * 0.25f * (w + e + u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0)] + u[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (2 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0)] + h2 * f[((16 * -1 * loopy_floor_div_pos_b_int32(-1 * (n + 32), 16)) / 16) * (1 + 8 * gid(1) + lid(1)) + 1 + 64 * gid(0) + lid(0)]);
  }
}