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

__kernel void __attribute__ ((reqd_work_group_size(32, 4, 1))) laplace3d(__global float4 const *__restrict__ u, __global float4 *__restrict__ u_new, float const alpha, int const nz, int const ny, int const nx)
{
  float4 u_col[3];
  float4 u_lane;
  float4 u_lane_0;
  float4 u_vec;
  float4 u_vec_0;
  float4 u_vec_1;

  if (-1 + -4 * gid(1) + -1 * lid(1) + ny >= 0 && -4 + -128 * gid(0) + -4 * lid(0) + nx >= 0)
  {
    u_col[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 8 * gid(2) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (8 * gid(2) + 1) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    for (int k_stream = 0; k_stream <= ((-8 + nz + -8 * gid(2) >= 0) ? 7 : -1 + nz + -8 * gid(2)); ++k_stream)
    {
      u_col[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 8 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
      u_vec_0 = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (1 + k_stream + 8 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
      u_vec_1 = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (1 + k_stream + 8 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
      u_vec = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (1 + k_stream + 8 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
      u_lane = shuffle2(u_vec, u_vec_0, (uint4)(3, 4, 5, 6));
      u_lane_0 = shuffle2(u_vec_0, u_vec_1, (uint4)(1, 2, 3, 4));
      u_new[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (1 + k_stream + 8 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)] = u_col[1] + alpha * (u_lane + u_lane_0 + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (1 + k_stream + 8 * gid(2)) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (1 + k_stream + 8 * gid(2)) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)] + u_col[0] + u_col[2] + -1.0f * 6.0f * u_col[1]);
      u_col[0] = u_col[1];
      u_col[1] = u_col[2];
    }
  }
}