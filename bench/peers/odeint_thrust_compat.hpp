// Boost.Odeint 1.74's Thrust backend against CUDA 13's Thrust (CCCL 3), for g++ and nvcc alike
// (docs/toolchain.md). Two problems, two fixes:
//  1. odeint's functors are annotated __host__ __device__: for g++ these come from CUDA's
//     crt/host_defines.h, which CCCL's Thrust includes; a Thrust without it gets them defined empty.
//  2. thrust_algebra_dispatcher.hpp specialises algebra_dispatcher for thrust::cpp::vector and, under
//     _OPENMP / TBB_VERSION_MAJOR / __CUDACC__, for omp::, tbb:: and cuda::vector. In CCCL 3 these are
//     all aliases of one vector type, so the specialisations collide. Hiding the three macros while
//     that header is read keeps only the cpp one; thrust::device_vector has its own specialisation,
//     which is what the peers use. Thrust, Boost.Config and odeint proper are included first, with
//     the macros intact, so only odeint's Thrust headers are read without them.
#pragma once

#include <thrust/device_vector.h>
#include <thrust/for_each.h>
#include <thrust/host_vector.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/zip_iterator.h>
#include <thrust/system/cpp/vector.h>
#include <thrust/version.h>

#include <boost/numeric/odeint.hpp>

#if !defined(__host__)
#define QS_ODEINT_DEFINED_HOST_DEVICE
#define __host__
#define __device__
#endif
#pragma push_macro("_OPENMP")
#pragma push_macro("TBB_VERSION_MAJOR")
#pragma push_macro("__CUDACC__")
#undef _OPENMP
#undef TBB_VERSION_MAJOR
#undef __CUDACC__
#include <boost/numeric/odeint/external/thrust/thrust.hpp>
#pragma pop_macro("__CUDACC__")
#pragma pop_macro("TBB_VERSION_MAJOR")
#pragma pop_macro("_OPENMP")
#if defined(QS_ODEINT_DEFINED_HOST_DEVICE)
#undef __host__
#undef __device__
#undef QS_ODEINT_DEFINED_HOST_DEVICE
#endif
