#define lid(N) ((int) get_local_id(N))
#define gid(N) ((int) get_group_id(N))

__kernel void __attribute__ ((reqd_work_group_size(64, 4, 1))) box2d9(__global float2 const *__restrict__ u, __global float2 *__restrict__ u_new, float const c0, float const c1, float const c2, int const ny, int const nx)
{
  float2 u_col[3];
  float2 u_col_0[3];
  float2 u_col_1[3];
  float2 u_lane;
  float2 u_lane_0;
  float2 u_lane_1;
  float2 u_lane_2;
  float2 u_lane_3;
  float2 u_lane_4;
  float2 u_vec;
  float2 u_vec_0;
  float2 u_vec_1;
  float2 u_vec_2;
  float2 u_vec_3;
  float2 u_vec_4;
  float2 u_vec_5;
  float2 u_vec_6;
  float2 u_vec_7;

  if (-1 + -16 * gid(1) + -4 * lid(1) + ny >= 0 && -2 + -128 * gid(0) + -2 * lid(0) + nx >= 0)
  {
    u_col[0] = u[((nx + 32) / 2) * (16 * gid(1) + 4 * lid(1)) + 8 + 64 * gid(0) + lid(0)];
    u_col[1] = u[((nx + 32) / 2) * (16 * gid(1) + 4 * lid(1) + 1) + 8 + 64 * gid(0) + lid(0)];
    u_col_1[0] = u[((nx + 32) / 2) * (16 * gid(1) + 4 * lid(1)) + 9 + 64 * gid(0) + lid(0)];
    u_col_1[1] = u[((nx + 32) / 2) * (16 * gid(1) + 4 * lid(1) + 1) + 9 + 64 * gid(0) + lid(0)];
    u_col_0[0] = u[((nx + 32) / 2) * (16 * gid(1) + 4 * lid(1)) + 7 + 64 * gid(0) + lid(0)];
    u_col_0[1] = u[((nx + 32) / 2) * (16 * gid(1) + 4 * lid(1) + 1) + 7 + 64 * gid(0) + lid(0)];
    for (int j_stream = 0; j_stream <= ((-4 + ny + -4 * lid(1) + -16 * gid(1) >= 0) ? 3 : -1 + ny + -4 * lid(1) + -16 * gid(1)); ++j_stream)
    {
      u_col[2] = u[((nx + 32) / 2) * (2 + j_stream + 16 * gid(1) + 4 * lid(1)) + 8 + 64 * gid(0) + lid(0)];
      u_col_0[2] = u[((nx + 32) / 2) * (2 + j_stream + 16 * gid(1) + 4 * lid(1)) + 7 + 64 * gid(0) + lid(0)];
      u_col_1[2] = u[((nx + 32) / 2) * (2 + j_stream + 16 * gid(1) + 4 * lid(1)) + 9 + 64 * gid(0) + lid(0)];
      u_vec_0 = u_col[1];
      u_vec_1 = u_col_1[1];
      u_vec_2 = u_col_0[0];
      u_vec_3 = u_col[0];
      u_vec_4 = u_col_1[0];
      u_vec_5 = u_col_0[2];
      u_vec_6 = u_col[2];
      u_vec_7 = u_col_1[2];
      u_vec = u_col_0[1];
      u_lane = shuffle2(u_vec, u_vec_0, (uint2)(1, 2));
      u_lane_0 = shuffle2(u_vec_0, u_vec_1, (uint2)(1, 2));
      u_lane_1 = shuffle2(u_vec_2, u_vec_3, (uint2)(1, 2));
      u_lane_2 = shuffle2(u_vec_3, u_vec_4, (uint2)(1, 2));
      u_lane_3 = shuffle2(u_vec_5, u_vec_6, (uint2)(1, 2));
      u_lane_4 = shuffle2(u_vec_6, u_vec_7, (uint2)(1, 2));
      u_new[((nx + 32) / 2) * (1 + j_stream + 16 * gid(1) + 4 * lid(1)) + 8 + 64 * gid(0) + lid(0)] = c0 * u_col[1] + c1 * (u_lane + u_lane_0 + u_col[0] + u_col[2]) + c2 * (u_lane_1 + u_lane_2 + u_lane_3 + u_lane_4);
      u_col[0] = u_col[1];
      u_col[1] = u_col[2];
      u_col_1[0] = u_col_1[1];
      u_col_1[1] = u_col_1[2];
      u_col_0[0] = u_col_0[1];
      u_col_0[1] = u_col_0[2];
    }
  }
}