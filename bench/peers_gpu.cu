// Peers on the GPU, in the same run and on the same ensemble as bench_peers_cpu
// (free_rotation_ensemble.hpp, seed 1, torque-free): quatstep's integrators through
// cuda::CudaEnsemble, the production path (peers/quatstep_methods.hpp; each advance is one launch and
// includes the copy of the per-body records to the host), and the three peer baselines
// (bench/peers/), t ∈ [0, 1], 10 timed chunks, time per chunk from cudaEvents around the stepping
// (UseManualTime); accuracy (measure.hpp) on 64 bodies spread over the ensemble, against the CPU
// reference of those bodies. Two sweeps, run names peers/<method>/bodies:N/steps:S:
//   throughput: N = 1e3 … 1e7 at 1000 steps (h = 1e-3);
//   work–precision: N = 1e6 at 100 … 3200 steps (the float Euler 100 … 102400), error against time.
// Peers: peer:rk4_registers (one thread per body, rk4_step.hpp in registers, double),
// peer:semi_implicit_euler_f32 (one thread per body, semi_implicit_euler_step.hpp, float),
// peer:odeint_rk4_thrust_cuda (odeint_rk4.hpp with thrust::device_vector, CUDA backend, double).
// DEM coupling, dem/<stepper>/bodies:N/steps:S: one step per launch with the caller's spatial torques
// for that step (a 3 × N device array), the state in global memory between steps, float, as a
// granular code calls it: quatstep's NoSquish (order 2) through cuda::BatchStepper on the orientation
// alone (dem/no_squish_order2_f32_orientation: tops about their centre of mass, the peer's work) and
// on free bodies (the centre of mass drifts besides), with the loads of the step's start
// (LoadTiming::at_start, the default: second order in loads of the state) and, for the free bodies,
// held over the step (LoadTiming::held: fewer bytes), and the float semi-implicit Euler peer written
// as the same coupled step (rotation only; the torque turned into body axes each step). Time per step
// from cudaEvents.
// Benchmarks only (registration, no main): the object library quatstep_bench_peers_gpu is linked
// into bench_gpu. Without a usable GPU each reports "no usable CUDA device: …" and runs nothing.
#include <cuda_runtime.h>

#include <algorithm>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <thrust/execution_policy.h>

#include "kernels/batch_stepper.cuh"
#include "kernels/cuda_ensemble.cuh"
#include "quatstep/integrators/no_squish.hpp"
#include "peers/measure.hpp"
#include "peers/odeint_rk4.hpp"
#include "peers/quatstep_methods.hpp"
#include "peers/quatstep_runner.hpp"
#include "peers/semi_implicit_euler_step.hpp"

namespace {

using namespace quatstep;
using namespace quatstep::peers;

constexpr double t_end = 1.0;
constexpr int checkpoints = 10;
constexpr index_t checked_bodies = 64;
const FreeRotationSpec spec{};

std::string gpu_unusable_reason() {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);  // no driver: an error, not 0 (docs/toolchain.md)
  if (err != cudaSuccess) return std::string("no usable CUDA device: ") + cudaGetErrorString(err);
  if (count == 0) return "no usable CUDA device: none present";
  return {};
}

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(err));
}

/// The reference of the checked bodies of an ensemble of n, computed once per n on the CPU.
const Reference& reference_for(index_t n) {
  static std::map<index_t, Reference> cache;
  auto it = cache.find(n);
  if (it == cache.end()) it = cache.emplace(n, make_reference(spec, strided_bodies(n, checked_bodies), t_end)).first;
  return it->second;
}

/// Wall time between two cudaEvents around the stepping; no CPU seconds.
struct CudaEventTimer {
  template <class F>
  Elapsed operator()(F&& f) const {
    cudaEvent_t start, stop;
    check(cudaEventCreate(&start), "cudaEventCreate");
    check(cudaEventCreate(&stop), "cudaEventCreate");
    check(cudaEventRecord(start), "cudaEventRecord");
    f();
    check(cudaEventRecord(stop), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    return {1e-3 * ms, 0};
  }
};

template <class Step, class S>
__global__ void advance_bodies(Step step, SoaView<S> x, SoaView<S> p, S h, index_t steps) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  if (i < x.bodies) advance_peer_body(step, x, p, i, h, steps);
}

/// A peer's per-body step in scalar S, one thread per body (body_loop.hpp).
template <class Step, class S>
class GpuPeerLoop {
 public:
  GpuPeerLoop(const FreeRotationSpec& s, index_t bodies, double h)
      : bodies_(bodies), h_(S(h)), initial_(state_components * bodies), params_(param_components * bodies) {
    thrust::for_each(thrust::device, thrust::counting_iterator<index_t>(0), thrust::counting_iterator<index_t>(bodies),
                     StoreBody<S>{s, view(initial_), view(params_)});
    reset();
  }
  void reset() { x_ = initial_; }
  void advance(index_t n) {
    constexpr int block = 256;
    advance_bodies<<<unsigned((bodies_ + block - 1) / block), block>>>(Step(), view(x_), view(params_), h_, n);
    check(cudaGetLastError(), "advance_bodies launch");
  }
  RotationState<double> state(index_t i) const {
    RotationState<double> s;
    for (int c = 0; c < 4; ++c) s.q[c] = double(S(x_[c * bodies_ + i]));
    for (int c = 0; c < 3; ++c) s.w[c] = double(S(x_[(4 + c) * bodies_ + i]));
    return s;
  }

 private:
  SoaView<S> view(thrust::device_vector<S>& v) { return {thrust::raw_pointer_cast(v.data()), bodies_}; }
  index_t bodies_;
  S h_;
  thrust::device_vector<S> initial_, params_, x_;
};

/// Whether a GPU can run the benchmark; if not, the benchmark is skipped with the reason.
bool gpu_usable(benchmark::State& state) {
  const std::string why = gpu_unusable_reason();
  if (!why.empty()) state.SkipWithError(why.c_str());
  return why.empty();
}

/// One benchmark on the runner that make(bodies, h) returns.
template <class Make>
void gpu_run(benchmark::State& state, Make make) {
  if (!gpu_usable(state)) return;
  const index_t n = state.range(0), steps = state.range(1);
  try {
    auto runner = make(n, t_end / double(steps));
    measure_peer(state, runner, reference_for(n), n, steps, checkpoints, CudaEventTimer());
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

/// Registers peers/<name> for the runner `Runner(spec, bodies, h)`.
template <class Runner>
benchmark::internal::Benchmark* register_peer(const char* name) {
  return benchmark::RegisterBenchmark((std::string("peers/") + name).c_str(), [](benchmark::State& state) {
    gpu_run(state, [](index_t n, double h) { return Runner(spec, n, h); });
  });
}

/// Both sweeps: N = 1e3 … 1e7 at 1000 steps; N = 1e6 over `wp_steps`.
void sweeps(benchmark::internal::Benchmark* b, std::initializer_list<index_t> wp_steps) {
  b->ArgNames({"bodies", "steps"})->UseManualTime()->Unit(benchmark::kMillisecond);
  for (index_t n = 1000; n <= 10000000; n *= 10) b->Args({n, 1000});
  for (index_t s : wp_steps) b->Args({1000000, s});
}
const std::initializer_list<index_t> steps_2x = {100, 200, 400, 800, 1600, 3200};
const std::initializer_list<index_t> steps_4x = {100, 400, 1600, 6400, 25600, 102400};

/// The peer's semi-implicit Euler as a coupled step: body i's state and parameters from global
/// memory, the step's spatial torque turned into body axes, the state stored back.
template <class S>
__global__ void peer_coupled_step(SoaView<S> x, SoaView<S> p, const S* __restrict__ torque, S h) {
  const index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x;
  const index_t n = x.bodies;
  if (i >= n) return;
  RotationState<S> s = load_state(x, i);
  RotationParams<S> params = load_params(p, i);
  params.torque = to_body(s.q, Vec3<S>(torque[i], torque[n + i], torque[2 * n + i]));
  SemiImplicitEulerStep()(params, s, h);
  store_state(x, i, s);
}

/// Spatial torques of the DEM steps: small, different per body and component, fixed over the run.
struct DemTorque {
  float* torque;
  index_t bodies;
  QS_HD void operator()(index_t k) const { torque[k] = 0.1f * sinf(0.37f * float(k % 1000003)); }
};

/// Steps of 1e-4 s (spins up to 20 rad/s) through a coupled stepper `step(torque)`, each a launch.
template <class Setup>
void dem_run(benchmark::State& state, Setup setup) {
  if (!gpu_usable(state)) return;
  const index_t n = state.range(0), steps = state.range(1);
  try {
    thrust::device_vector<float> torque(3 * n);
    thrust::for_each(thrust::device, thrust::counting_iterator<index_t>(0), thrust::counting_iterator<index_t>(3 * n),
                     DemTorque{thrust::raw_pointer_cast(torque.data()), n});
    auto stepper = setup(n);
    const float* tau = thrust::raw_pointer_cast(torque.data());
    for (auto _ : state) {
      const Elapsed e = CudaEventTimer()([&] {
        for (index_t k = 0; k < steps; ++k) stepper.step(1e-4f, tau);
      });
      state.SetIterationTime(e.wall);
    }
    check(cudaDeviceSynchronize(), "DEM steps");
    state.counters["failed"] = double(stepper.failed());
    state.counters["body_steps_per_s"] =
        benchmark::Counter(double(n) * double(steps), benchmark::Counter::kIsIterationInvariantRate);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
  }
}

/// quatstep: NoSquish, order 2, through the coupled-step API on Body: HeavyTop<float> about its
/// centre of mass (the orientation alone, the peer's work) or FreeRigidBody<float> (a free drift of
/// the centre of mass besides); no body has loads of its own.
template <class Body>
class NoSquishCoupled {
 public:
  using Integrator = NoSquish<Body>;
  NoSquishCoupled(index_t n, LoadTiming timing) : batch_(integrator(), models(n), initial(n), 0.0f, nullptr, timing) {}
  void step(float h, const float* torque) { batch_.step(h, torque, nullptr); }
  index_t failed() const {
    std::vector<Status> status(batch_.bodies());
    check(cudaMemcpy(status.data(), batch_.status(), status.size() * sizeof(Status), cudaMemcpyDeviceToHost),
          "status copy");
    return std::count_if(status.begin(), status.end(), [](Status s) { return s != Status::ok; });
  }

 private:
  static Integrator integrator() {
    NoSquishSettings<float> settings;
    settings.order = 2;
    return Integrator(settings);
  }
  static std::vector<Body> models(index_t n) {
    std::vector<Body> m;
    for (index_t i = 0; i < n; ++i) {
      RotationParams<double> p;
      free_rotation_body(spec, i, p);
      m.push_back(Body::unloaded(p.inertia.cast<float>().asDiagonal(), 1.0f));
    }
    return m;
  }
  static std::vector<RigidBodyKinematics<float>> initial(index_t n) {
    std::vector<RigidBodyKinematics<float>> k(n);
    for (index_t i = 0; i < n; ++i) {
      RotationParams<double> p;
      const RotationState<double> x = free_rotation_body(spec, i, p);
      k[i].quaternion = x.q.cast<float>();
      k[i].omega_body = x.w.cast<float>();
    }
    return k;
  }
  quatstep::cuda::BatchStepper<Integrator> batch_;
};

/// The peer: the float semi-implicit Euler as a coupled step on the same bodies.
class PeerCoupled {
 public:
  explicit PeerCoupled(index_t n) : n_(n), x_(state_components * n), p_(param_components * n) {
    thrust::for_each(thrust::device, thrust::counting_iterator<index_t>(0), thrust::counting_iterator<index_t>(n),
                     StoreBody<float>{spec, view(x_), view(p_)});
  }
  void step(float h, const float* torque) {
    constexpr int block = 256;
    peer_coupled_step<<<unsigned((n_ + block - 1) / block), block>>>(view(x_), view(p_), torque, h);
    check(cudaGetLastError(), "peer_coupled_step launch");
  }
  index_t failed() const { return 0; }  // no failure mode

 private:
  SoaView<float> view(thrust::device_vector<float>& v) { return {thrust::raw_pointer_cast(v.data()), n_}; }
  index_t n_;
  thrust::device_vector<float> x_, p_;
};

const int registered = [] {
  for_each_quatstep_method([](const char* name, auto integrator) {
    using Integrator = decltype(integrator);
    using Runner = QuatstepRunner<quatstep::cuda::CudaEnsemble<Integrator>, Integrator>;
    sweeps(benchmark::RegisterBenchmark((std::string("peers/") + name).c_str(),
                                        [integrator](benchmark::State& state) {
                                          gpu_run(state, [&](index_t n, double h) { return Runner(integrator, spec, n, h); });
                                        }),
           steps_2x);
  });
  sweeps(register_peer<GpuPeerLoop<Rk4Step, double>>("peer:rk4_registers"), steps_2x);
  sweeps(register_peer<GpuPeerLoop<SemiImplicitEulerStep, float>>("peer:semi_implicit_euler_f32"), steps_4x);
  sweeps(register_peer<OdeintRk4<thrust::device_vector<double>>>("peer:odeint_rk4_thrust_cuda"), steps_2x);
  using Top = NoSquishCoupled<HeavyTop<float>>;
  using Free = NoSquishCoupled<FreeRigidBody<float>>;
  for (auto* b : {benchmark::RegisterBenchmark("dem/no_squish_order2_f32_orientation",
                                               [](benchmark::State& st) {
                                                 dem_run(st, [](index_t n) { return Top(n, LoadTiming::at_start); });
                                               }),
                  benchmark::RegisterBenchmark("dem/no_squish_order2_f32",
                                               [](benchmark::State& st) {
                                                 dem_run(st, [](index_t n) { return Free(n, LoadTiming::at_start); });
                                               }),
                  benchmark::RegisterBenchmark("dem/no_squish_order2_f32_held",
                                               [](benchmark::State& st) {
                                                 dem_run(st, [](index_t n) { return Free(n, LoadTiming::held); });
                                               }),
                  benchmark::RegisterBenchmark("dem/peer:semi_implicit_euler_f32",
                                               [](benchmark::State& st) {
                                                 dem_run(st, [](index_t n) { return PeerCoupled(n); });
                                               })})
    b->ArgNames({"bodies", "steps"})->UseManualTime()->Unit(benchmark::kMillisecond)->Args({100000, 1000})->Args({1000000, 1000});
  return 0;
}();

}  // namespace
