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

__kernel void __attribute__ ((reqd_work_group_size(32, 4, 1))) star3d_r4(__global float2 const *__restrict__ u, __global float2 *__restrict__ u_new, __global float const *__restrict__ c, int const nz, int const ny, int const nx)
{
  float2 u_col[9];
  float2 u_lane;
  float2 u_lane_0;
  float2 u_lane_1;
  float2 u_lane_2;
  float2 u_vec;
  float2 u_vec_0;
  float2 u_vec_1;
  float2 u_vec_2;
  float2 u_vec_3;

  if (-1 + -4 * gid(1) + -1 * lid(1) + ny >= 0 && -2 + -64 * gid(0) + -2 * lid(0) + nx >= 0)
  {
    u_col[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * 16 * gid(2) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
    u_col[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (16 * gid(2) + 1) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
    u_col[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (16 * gid(2) + 2) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
    u_col[3] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (16 * gid(2) + 3) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
    u_col[4] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (16 * gid(2) + 4) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
    u_col[5] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (16 * gid(2) + 5) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
    u_col[6] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (16 * gid(2) + 6) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
    u_col[7] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (16 * gid(2) + 7) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
    for (int k_stream = 0; k_stream <= ((-16 + nz + -16 * gid(2) >= 0) ? 15 : -1 + nz + -16 * gid(2)); ++k_stream)
    {
      u_col[8] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (8 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
      u_vec_0 = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)];
      u_vec_1 = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 9 + 32 * gid(0) + lid(0)];
      u_vec_2 = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 6 + 32 * gid(0) + lid(0)];
      u_vec_3 = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 10 + 32 * gid(0) + lid(0)];
      u_vec = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 7 + 32 * gid(0) + lid(0)];
      u_lane = shuffle2(u_vec, u_vec_0, (uint2)(1, 2));
      u_lane_0 = shuffle2(u_vec_0, u_vec_1, (uint2)(1, 2));
      u_lane_1 = shuffle2(u_vec_2, u_vec, (uint2)(1, 2));
      u_lane_2 = shuffle2(u_vec_1, u_vec_3, (uint2)(1, 2));
      u_new[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] = c[0] * u_col[4] + c[1] * (u_lane + u_lane_0 + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (3 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (5 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] + u_col[3] + u_col[5]) + c[2] * (u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 7 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 9 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (2 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (6 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] + u_col[2] + u_col[6]) + c[3] * (u_lane_1 + u_lane_2 + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (1 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (7 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] + u_col[1] + u_col[7]) + c[4] * (u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 6 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 + 4 * gid(1) + lid(1)) + 10 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] + u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 8), 2) * (4 + k_stream + 16 * gid(2)) + ((nx + 32) / 2) * (8 + 4 * gid(1) + lid(1)) + 8 + 32 * gid(0) + lid(0)] + u_col[0] + u_col[8]);
      u_col[0] = u_col[1];
      u_col[1] = u_col[2];
      u_col[2] = u_col[3];
      u_col[3] = u_col[4];
      u_col[4] = u_col[5];
      u_col[5] = u_col[6];
      u_col[6] = u_col[7];
      u_col[7] = u_col[8];
    }
  }
}