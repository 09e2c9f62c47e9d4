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

__kernel void __attribute__ ((reqd_work_group_size(32, 4, 1))) box3d27(__global float4 const *__restrict__ u, __global float4 *__restrict__ u_new, float const c0, float const c1, float const c2, float const c3, int const nz, int const ny, int const nx)
{
  float4 u_col[3];
  float4 u_col_0[3];
  float4 u_col_1[3];
  float4 u_col_10[3];
  float4 u_col_2[3];
  float4 u_col_3[3];
  float4 u_col_4[3];
  float4 u_col_5[3];
  float4 u_col_6[3];
  float4 u_col_7[3];
  float4 u_col_8[3];
  float4 u_col_9[3];
  float4 u_lane;
  float4 u_lane_0;
  float4 u_lane_1;
  float4 u_lane_10;
  float4 u_lane_11;
  float4 u_lane_12;
  float4 u_lane_13;
  float4 u_lane_14;
  float4 u_lane_15;
  float4 u_lane_16;
  float4 u_lane_2;
  float4 u_lane_3;
  float4 u_lane_4;
  float4 u_lane_5;
  float4 u_lane_6;
  float4 u_lane_7;
  float4 u_lane_8;
  float4 u_lane_9;
  float4 u_vec;
  float4 u_vec_0;
  float4 u_vec_1;
  float4 u_vec_10;
  float4 u_vec_11;
  float4 u_vec_12;
  float4 u_vec_13;
  float4 u_vec_14;
  float4 u_vec_15;
  float4 u_vec_16;
  float4 u_vec_17;
  float4 u_vec_18;
  float4 u_vec_19;
  float4 u_vec_2;
  float4 u_vec_20;
  float4 u_vec_21;
  float4 u_vec_22;
  float4 u_vec_23;
  float4 u_vec_24;
  float4 u_vec_25;
  float4 u_vec_3;
  float4 u_vec_4;
  float4 u_vec_5;
  float4 u_vec_6;
  float4 u_vec_7;
  float4 u_vec_8;
  float4 u_vec_9;

  if (-1 + -4 * gid(1) + -1 * lid(1) + ny >= 0 && -4 + -128 * gid(0) + -4 * lid(0) + nx >= 0)
  {
    u_col[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_9[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_9[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_8[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
    u_col_8[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
    u_col_7[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
    u_col_7[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
    u_col_6[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_6[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_5[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
    u_col_5[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
    u_col_4[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
    u_col_4[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
    u_col_3[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_3[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_2[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
    u_col_2[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
    u_col_1[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_1[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_10[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
    u_col_10[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
    u_col_0[0] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * 32 * gid(2) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    u_col_0[1] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (32 * gid(2) + 1) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
    for (int k_stream = 0; k_stream <= ((-32 + nz + -32 * gid(2) >= 0) ? 31 : -1 + nz + -32 * gid(2)); ++k_stream)
    {
      u_col[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
      u_col_0[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
      u_col_1[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
      u_col_2[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
      u_col_3[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
      u_col_4[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
      u_col_5[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
      u_col_6[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
      u_col_7[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
      u_col_8[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 3 + 32 * gid(0) + lid(0)];
      u_col_9[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)];
      u_col_10[2] = u[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (2 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (2 + 4 * gid(1) + lid(1)) + 5 + 32 * gid(0) + lid(0)];
      u_vec_0 = u_col_3[1];
      u_vec_10 = u_col_10[1];
      u_vec_11 = u_col_2[2];
      u_vec_12 = u_col_3[2];
      u_vec_13 = u_col_4[2];
      u_vec_14 = u_col_5[0];
      u_vec_15 = u_col_6[0];
      u_vec_16 = u_col_7[0];
      u_vec_17 = u_col_8[0];
      u_vec_18 = u_col_9[0];
      u_vec_19 = u_col_10[0];
      u_vec_1 = u_col_4[1];
      u_vec_20 = u_col_5[2];
      u_vec_21 = u_col_6[2];
      u_vec_22 = u_col_7[2];
      u_vec_23 = u_col_8[2];
      u_vec_24 = u_col_9[2];
      u_vec_25 = u_col_10[2];
      u_vec_2 = u_col_2[0];
      u_vec_3 = u_col_3[0];
      u_vec_4 = u_col_4[0];
      u_vec_5 = u_col_5[1];
      u_vec_6 = u_col_6[1];
      u_vec_7 = u_col_7[1];
      u_vec_8 = u_col_8[1];
      u_vec_9 = u_col_9[1];
      u_vec = u_col_2[1];
      u_lane = shuffle2(u_vec, u_vec_0, (uint4)(3, 4, 5, 6));
      u_lane_0 = shuffle2(u_vec_0, u_vec_1, (uint4)(1, 2, 3, 4));
      u_lane_10 = shuffle2(u_vec_15, u_vec_16, (uint4)(1, 2, 3, 4));
      u_lane_11 = shuffle2(u_vec_17, u_vec_18, (uint4)(3, 4, 5, 6));
      u_lane_12 = shuffle2(u_vec_18, u_vec_19, (uint4)(1, 2, 3, 4));
      u_lane_13 = shuffle2(u_vec_20, u_vec_21, (uint4)(3, 4, 5, 6));
      u_lane_14 = shuffle2(u_vec_21, u_vec_22, (uint4)(1, 2, 3, 4));
      u_lane_15 = shuffle2(u_vec_23, u_vec_24, (uint4)(3, 4, 5, 6));
      u_lane_16 = shuffle2(u_vec_24, u_vec_25, (uint4)(1, 2, 3, 4));
      u_lane_1 = shuffle2(u_vec_2, u_vec_3, (uint4)(3, 4, 5, 6));
      u_lane_2 = shuffle2(u_vec_3, u_vec_4, (uint4)(1, 2, 3, 4));
      u_lane_3 = shuffle2(u_vec_5, u_vec_6, (uint4)(3, 4, 5, 6));
      u_lane_4 = shuffle2(u_vec_6, u_vec_7, (uint4)(1, 2, 3, 4));
      u_lane_5 = shuffle2(u_vec_8, u_vec_9, (uint4)(3, 4, 5, 6));
      u_lane_6 = shuffle2(u_vec_9, u_vec_10, (uint4)(1, 2, 3, 4));
      u_lane_7 = shuffle2(u_vec_11, u_vec_12, (uint4)(3, 4, 5, 6));
      u_lane_8 = shuffle2(u_vec_12, u_vec_13, (uint4)(1, 2, 3, 4));
      u_lane_9 = shuffle2(u_vec_14, u_vec_15, (uint4)(3, 4, 5, 6));
      u_new[loopy_floor_div_pos_b_int32((nx + 32) * (ny + 2), 4) * (1 + k_stream + 32 * gid(2)) + ((nx + 32) / 4) * (1 + 4 * gid(1) + lid(1)) + 4 + 32 * gid(0) + lid(0)] = c0 * u_col[1] + c1 * (u_col[0] + u_col_0[1] + u_lane + u_lane_0 + u_col_1[1] + u_col[2]) + c2 * (u_col_0[0] + u_lane_1 + u_lane_2 + u_col_1[0] + u_lane_3 + u_lane_4 + u_lane_5 + u_lane_6 + u_col_0[2] + u_lane_7 + u_lane_8 + u_col_1[2]) + c3 * (u_lane_9 + u_lane_10 + u_lane_11 + u_lane_12 + u_lane_13 + u_lane_14 + u_lane_15 + u_lane_16);
      u_col[0] = u_col[1];
      u_col[1] = u_col[2];
      u_col_9[0] = u_col_9[1];
      u_col_9[1] = u_col_9[2];
      u_col_8[0] = u_col_8[1];
      u_col_8[1] = u_col_8[2];
      u_col_7[0] = u_col_7[1];
      u_col_7[1] = u_col_7[2];
      u_col_6[0] = u_col_6[1];
      u_col_6[1] = u_col_6[2];
      u_col_5[0] = u_col_5[1];
      u_col_5[1] = u_col_5[2];
      u_col_4[0] = u_col_4[1];
      u_col_4[1] = u_col_4[2];
      u_col_3[0] = u_col_3[1];
      u_col_3[1] = u_col_3[2];
      u_col_2[0] = u_col_2[1];
      u_col_2[1] = u_col_2[2];
      u_col_1[0] = u_col_1[1];
      u_col_1[1] = u_col_1[2];
      u_col_10[0] = u_col_10[1];
      u_col_10[1] = u_col_10[2];
      u_col_0[0] = u_col_0[1];
      u_col_0[1] = u_col_0[2];
    }
  }
}