// Host/device qualifiers for code shared by the CPU reference and the CUDA kernels.
#pragma once

#ifdef __CUDACC__
#define RF_HD __host__ __device__
#define RF_HDI __host__ __device__ __forceinline__
#define RF_UNROLL _Pragma("unroll")
#else
#define RF_HD
#define RF_HDI inline
#define RF_UNROLL _Pragma("GCC unroll 32")
#endif
