// Host/device qualifiers for code shared by the CPU reference and the CUDA kernels.
#pragma once

#ifdef __CUDACC__
#define RF_HD __host__ __device__
#define RF_HDI __host__ __device__ __forceinline__
#else
#define RF_HD
#define RF_HDI inline
#endif
