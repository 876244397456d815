// quatstep — compile-time configuration shared by host and device code.
#pragma once

// One annotation for everything callable on both sides (cf. EIGEN_DEVICE_FUNC).
#if defined(__CUDACC__)
#define QS_HD __host__ __device__
#else
#define QS_HD
#endif

// Unrolling, in device code, of a loop whose trip count is at most `n` (a constant expression,
// template parameters allowed) when `n` is at most 8: every index becomes a constant, so small
// fixed-size matrices stay in registers instead of local memory. Larger loops stay rolled (fully
// unrolled 10×10+ eliminations made ptxas give up on registers: 32 registers and 37 KB of spills).
#define QS_PRAGMA(x) _Pragma(#x)
#if defined(__CUDA_ARCH__)
#define QS_UNROLL_UP_TO(n) QS_PRAGMA(unroll((n) <= 8 ? (n) : 1))
#else
#define QS_UNROLL_UP_TO(n)
#endif
// Full unrolling, in device code, of a loop over the components of a state (State::size, up to
// ~25): left to itself the compiler keeps such loops rolled, which indexes the state dynamically
// and puts it in local memory.
#if defined(__CUDA_ARCH__)
#define QS_UNROLL QS_PRAGMA(unroll)
#else
#define QS_UNROLL
#endif
// A loop kept rolled in device code: its iterations run one after the other, so the registers one
// iteration needs are not multiplied by the compiler interleaving them (the HHT Jacobian columns).
#if defined(__CUDA_ARCH__)
#define QS_NO_UNROLL QS_PRAGMA(unroll 1)
#else
#define QS_NO_UNROLL
#endif

// g++ inlines everything under the function it marks (one step's Newton solve: system, LU, Eigen
// and quaternion helpers). Without it, in translation units that instantiate many integrators g++
// stops inlining those small helpers: REML ran 1.5× slower (2.79e6 vs 1.89e6 body-steps per
// CPU-second on the free rotation). Device code inlines them anyway. `noinline` keeps the flattened
// body one out-of-line function per instantiation instead of a copy in every caller (the advance loop,
// the coupled step, the adaptive attempts): a quarter less compile time for the CPU ensembles (121 s
// → 92 s for the double unit), one call per step at run time.
#if defined(__GNUC__) && !defined(__CUDACC__)
#define QS_FLATTEN __attribute__((flatten, noinline))
#else
#define QS_FLATTEN
#endif

// Bitwise CPU/GPU agreement needs identical summation order: no SIMD re-association in Eigen.
#ifndef EIGEN_DONT_VECTORIZE
#define EIGEN_DONT_VECTORIZE
#endif
// One memory layout in g++ and nvcc objects: without vectorisation g++ drops Eigen's static
// alignment while nvcc keeps 16 bytes for Vector4d, so RigidBodyKinematics<double> was 104 bytes in
// one and 112 in the other, and inline functions the linker shares between them corrupted the heap
// (found on the first H100 run). No static alignment anywhere: no SIMD uses it here.
#ifndef EIGEN_MAX_STATIC_ALIGN_BYTES
#define EIGEN_MAX_STATIC_ALIGN_BYTES 0
#endif
#include <Eigen/Core>
#include <Eigen/Geometry>  // cross products

static_assert(alignof(Eigen::Matrix<double, 4, 1>) == alignof(double),
              "Eigen's static alignment must be off in every object (config.hpp): g++ and nvcc disagree on it");

namespace quatstep {

template <class S, int R, int C = 1>
using Mat = Eigen::Matrix<S, R, C, (C == 1 ? Eigen::ColMajor : (R == 1 ? Eigen::RowMajor : Eigen::ColMajor))>;
template <class S, int R>
using Vec = Eigen::Matrix<S, R, 1>;
template <class S>
using Vec3 = Vec<S, 3>;
template <class S>
using Vec4 = Vec<S, 4>;
template <class S>
using Mat3 = Eigen::Matrix<S, 3, 3>;
template <class S>
using Mat4 = Eigen::Matrix<S, 4, 4>;
template <class S>
using Mat34 = Eigen::Matrix<S, 3, 4>;

inline constexpr const char* version = "0.1.0";

}  // namespace quatstep
