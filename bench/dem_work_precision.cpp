// Work–precision of the DEM coupling on the CPU, float, one core: quatstep's NoSquish at order 2
// through CpuBatchStepper (host/cpu_batch_stepper.hpp: the coupled-step API a granular code links,
// OpenMP held to one thread; bodies stepped from their inertia and mass by the function
// BatchStepper's kernel calls), on the orientation alone (HeavyTop about its centre of mass,
// the peer's work) and on free bodies (FreeRigidBody: the centre of mass drifts besides), its loads
// given at the step's start (LoadTiming::at_start, the default) and, for the free body, held over
// the step (LoadTiming::held), against the float semi-implicit Euler peer
// (bench/peers/semi_implicit_euler_step.hpp) as the same kind of coupled step. Writes the table of
// bench/README.md's "DEM coupling on the CPU":
//
//   dem_work_precision [--markdown FILE]
//
// The caller's loop, as a granular code runs it: read the bodies' kinematics, compute each spatial
// torque from them, step. The torque stands for a contact: a fixed spatial force f_i at a body point
// a_i with rolling friction, τ = (R(q) a_i) × f_i − c R(q) ω, so it depends on the orientation and
// the spin. 1024 bodies: principal moments of boxes with sides in [0.5, 1.5] and unit mass, random
// orientations, |ω| ∈ [2, 8] rad/s, |a_i| ≤ 0.5, |f_i| ≤ 2, c = 0.02; t ∈ [0, 1] in n = 2^k steps.
// Error: the largest geodesic angle at t = 1 over 64 bodies spread over the batch, against RK4 in
// double at h = 2^-17 with the same torque law (shared by no method here). Time: CPU time of the
// thread (CLOCK_THREAD_CPUTIME_ID), fastest of 3 runs, for the steps alone and for the caller's
// whole loop (kinematics, torques, step).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#ifdef _OPENMP
#include <omp.h>
#endif

#include "cpu_batch_stepper.hpp"
#include "peers/rotation_ode.hpp"
#include "peers/semi_implicit_euler_step.hpp"
#include "quatstep/integrators/no_squish.hpp"
#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"

using namespace quatstep;

namespace {

constexpr index_t bodies = 1024, checked = 64;
constexpr double end_time = 1.0, friction = 0.02;
constexpr int reference_log2_steps = 17;

/// Body i of the batch, in double: principal moments, initial state, contact point and force.
struct Particle {
  Vec3<double> inertia;
  Vec4<double> q;
  Vec3<double> w;
  Vec3<double> lever, force;
};

std::vector<Particle> particles() {
  std::mt19937_64 gen(20261203);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::normal_distribution<double> g;
  auto direction = [&] {
    const Vec3<double> v(g(gen), g(gen), g(gen));
    return Vec3<double>(v / v.norm());
  };
  std::vector<Particle> p(bodies);
  for (Particle& b : p) {
    const Vec3<double> side(0.5 + u(gen), 0.5 + u(gen), 0.5 + u(gen));
    const Vec3<double> sq = side.cwiseProduct(side);
    b.inertia = Vec3<double>(sq[1] + sq[2], sq[0] + sq[2], sq[0] + sq[1]) / 12.0;
    const Vec4<double> q(g(gen), g(gen), g(gen), g(gen));
    b.q = q / q.norm();
    b.w = (2.0 + 6.0 * u(gen)) * direction();
    b.lever = 0.5 * std::cbrt(u(gen)) * direction();
    b.force = 2.0 * u(gen) * direction();
  }
  return p;
}

/// The caller's contact torque, spatial: (R(q) a) × f − c R(q) ω.
template <class S>
Vec3<S> contact_torque(const Vec4<S>& q, const Vec3<S>& omega_body, const Vec3<S>& lever, const Vec3<S>& force) {
  const Mat3<S> r = rotation_matrix(q);
  return Vec3<S>(r * lever).cross(force) - S(friction) * Vec3<S>(r * omega_body);
}

/// Orientation at t = end_time of body i, RK4 in double at h = 2^-reference_log2_steps.
Vec4<double> reference_orientation(const Particle& b) {
  using peers::RotationParams;
  using peers::RotationState;
  auto rate = [&](const RotationState<double>& x) {
    const RotationParams<double> p{b.inertia, to_body(x.q, contact_torque(x.q, x.w, b.lever, b.force))};
    return peers::rotation_rhs(p, x);
  };
  auto plus = [](const RotationState<double>& x, double c, const RotationState<double>& d) {
    return RotationState<double>{x.q + c * d.q, x.w + c * d.w};
  };
  RotationState<double> x{b.q, b.w};
  const long n = 1L << reference_log2_steps;
  const double h = end_time / double(n);
  for (long k = 0; k < n; ++k) {
    const RotationState<double> k1 = rate(x), k2 = rate(plus(x, h / 2, k1)), k3 = rate(plus(x, h / 2, k2)),
                                k4 = rate(plus(x, h, k3));
    x.q += h / 6 * (k1.q + 2 * k2.q + 2 * k3.q + k4.q);
    x.w += h / 6 * (k1.w + 2 * k2.w + 2 * k3.w + k4.w);
  }
  return x.q / x.q.norm();
}

double thread_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

/// A coupled stepper of the float batch: kinematics(q, ω body) of every body (4 × and 3 × bodies,
/// component-major), step(h, spatial torques (3 × bodies)).
struct Result {
  double error = 0, step_seconds = 0, loop_seconds = 0;
};

/// Runs a stepper over [0, end_time] in n steps with the caller's loop; errors on the checked bodies.
template <class Stepper>
Result run(const std::vector<Particle>& p, const std::vector<Vec4<double>>& reference, long n) {
  Result best{0, 1e300, 1e300};
  for (int repeat = 0; repeat < 3; ++repeat) {
    Stepper stepper(p);
    std::vector<float> q(4 * bodies), w(3 * bodies), torque(3 * bodies);
    auto quaternion = [&](index_t i) { return Vec4<float>(q[i], q[bodies + i], q[2 * bodies + i], q[3 * bodies + i]); };
    const float h = float(end_time / double(n));
    double step_time = 0;
    const double loop_start = thread_seconds();
    for (long k = 0; k < n; ++k) {
      stepper.kinematics(q.data(), w.data());
      for (index_t i = 0; i < bodies; ++i) {
        const Vec3<float> omega(w[i], w[bodies + i], w[2 * bodies + i]);
        const Vec3<float> tau =
            contact_torque(quaternion(i), omega, p[i].lever.cast<float>().eval(), p[i].force.cast<float>().eval());
        for (int c = 0; c < 3; ++c) torque[c * bodies + i] = tau[c];
      }
      const double t0 = thread_seconds();
      stepper.step(h, torque.data());
      step_time += thread_seconds() - t0;
    }
    const double loop_time = thread_seconds() - loop_start;
    stepper.kinematics(q.data(), w.data());
    double error = 0;
    for (index_t j = 0; j < checked; ++j) {
      const Vec4<double> qd = quaternion(j * (bodies / checked)).template cast<double>();
      error = std::max(error, geodesic_angle(reference[j], Vec4<double>(qd / qd.norm())));
    }
    best.error = error;
    best.step_seconds = std::min(best.step_seconds, step_time);
    best.loop_seconds = std::min(best.loop_seconds, loop_time);
  }
  return best;
}

/// quatstep: NoSquish at order 2 on Body (HeavyTop<float> about the centre of mass: the orientation
/// alone, the peer's work; FreeRigidBody<float>: a free drift of the centre of mass besides) in
/// CpuBatchStepper, the coupled-step API on the CPU.
template <class Body, LoadTiming Timing>
class NoSquishCoupled {
 public:
  using Integrator = NoSquish<Body>;

  explicit NoSquishCoupled(const std::vector<Particle>& p) : batch_(make(), models(p), initial(p), 0.0f, Timing) {}
  void kinematics(float* q, float* w) const { batch_.kinematics(q, w, nullptr, nullptr); }
  void step(float h, const float* torque) { batch_.step(h, torque, nullptr); }

 private:
  static Integrator make() {
    SplittingSettings<float> settings;
    settings.order = 2;
    return Integrator(settings);
  }
  static std::vector<Body> models(const std::vector<Particle>& p) {
    std::vector<Body> m;
    for (const Particle& b : p) m.push_back(Body::unloaded(Mat3<float>(b.inertia.cast<float>().asDiagonal()), 1.0f));
    return m;
  }
  static std::vector<KinematicsOf<Integrator>> initial(const std::vector<Particle>& p) {
    std::vector<KinematicsOf<Integrator>> k(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) {
      k[i].quaternion = p[i].q.cast<float>();
      k[i].omega_body = p[i].w.cast<float>();
    }
    return k;
  }

  CpuBatchStepper<Integrator> batch_;
};

/// The peer: the float semi-implicit Euler as a coupled step (its state and parameters loaded and
/// stored every step, the spatial torque turned into body axes), as bench/peers_gpu.cu's.
class PeerCoupled {
 public:
  explicit PeerCoupled(const std::vector<Particle>& p) : x_(bodies), params_(bodies) {
    for (index_t i = 0; i < bodies; ++i) {
      x_[i] = {p[i].q.cast<float>(), p[i].w.cast<float>()};
      params_[i].inertia = p[i].inertia.cast<float>();
    }
  }
  void kinematics(float* q, float* w) const {
    for (index_t i = 0; i < bodies; ++i) {
      for (int c = 0; c < 4; ++c) q[c * bodies + i] = x_[i].q[c];
      for (int c = 0; c < 3; ++c) w[c * bodies + i] = x_[i].w[c];
    }
  }
  void step(float h, const float* torque) {
    for (index_t i = 0; i < bodies; ++i) {
      peers::RotationParams<float> params = params_[i];
      params.torque = to_body(x_[i].q, Vec3<float>(torque[i], torque[bodies + i], torque[2 * bodies + i]));
      peers::SemiImplicitEulerStep()(params, x_[i], h);
    }
  }

 private:
  std::vector<peers::RotationState<float>> x_;
  std::vector<peers::RotationParams<float>> params_;
};

/// Time (log–log interpolated between the bracketing runs) to reach `target`; NaN where none does.
double time_to_reach(const std::vector<Result>& runs, double target, double Result::*time) {
  for (std::size_t j = 1; j < runs.size(); ++j) {
    const Result &a = runs[j - 1], &b = runs[j];
    if (a.error >= target && b.error <= target && a.error > b.error) {
      const double f = std::log(a.error / target) / std::log(a.error / b.error);
      return std::exp(std::log(a.*time) + f * std::log(b.*time / (a.*time)));
    }
  }
  return NAN;
}

}  // namespace

int main(int argc, char** argv) {
  std::string markdown;
  for (int a = 1; a + 1 < argc; a += 2)
    if (std::strcmp(argv[a], "--markdown") == 0) markdown = argv[a + 1];
#ifdef _OPENMP
  omp_set_num_threads(1);  // one core: the times are the calling thread's CPU time
#endif
  const std::vector<Particle> p = particles();
  std::vector<Vec4<double>> reference(checked);
  for (index_t j = 0; j < checked; ++j) reference[j] = reference_orientation(p[j * (bodies / checked)]);

  struct Method {
    const char* name;
    std::function<Result(long)> run;
    std::vector<Result> results;
  };
  using Top = HeavyTop<float>;
  using Free = FreeRigidBody<float>;
  // the first is the peer's work (the orientation alone) with quatstep's default timing; the last the peer
  std::vector<Method> methods = {
      {"NoSquish order 2, orientation alone, loads at the step's start",
       [&](long n) { return run<NoSquishCoupled<Top, LoadTiming::at_start>>(p, reference, n); }, {}},
      {"NoSquish order 2, free body, loads at the step's start",
       [&](long n) { return run<NoSquishCoupled<Free, LoadTiming::at_start>>(p, reference, n); }, {}},
      {"NoSquish order 2, free body, loads held over the step",
       [&](long n) { return run<NoSquishCoupled<Free, LoadTiming::held>>(p, reference, n); }, {}},
      {"semi-implicit Euler (peer)", [&](long n) { return run<PeerCoupled>(p, reference, n); }, {}}};
  const Method& first = methods.front();
  const Method& peer = methods.back();
  std::vector<long> steps;
  for (int k = 5; k <= 15; ++k) steps.push_back(1L << k);

  std::string out;
  auto print = [&](const std::string& line) {
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
    out += line;
  };
  char line[512];
  std::string header = "| steps over [0, 1] |", rule = "|---:|";
  for (const Method& m : methods) header += std::string(" ") + m.name + " |", rule += "---|";
  print("Each cell: error [rad]; ns per body-step (step; loop).\n\n" + header + "\n" + rule + "\n");
  for (long n : steps) {
    std::snprintf(line, sizeof line, "| %ld |", n);
    std::string row = line;
    for (Method& m : methods) {
      const Result r = m.run(n);
      m.results.push_back(r);
      const double per = 1e9 / (double(n) * double(bodies));
      std::snprintf(line, sizeof line, " %.2e, %.1f; %.1f |", r.error, r.step_seconds * per, r.loop_seconds * per);
      row += line;
    }
    print(row + "\n");
  }
  header = "| error [rad] |", rule = "|---:|";
  for (const Method& m : methods) header += std::string(" ") + m.name + " |", rule += "---:|";
  print("\nCPU time of the steps (and of the caller's whole loop) to reach a worst error over the checked bodies:\n\n" +
        header + " peer ÷ first |\n" + rule + "---:|\n");
  // "—": no two runs bracket the error (all below it, or none reaches it: float's round-off floor)
  auto cell = [&](double step, double loop, const char* unit) {
    if (std::isnan(step)) return std::string(" — |");
    std::snprintf(line, sizeof line, " %.3g%s (%.3g%s) |", step, unit, loop, unit);
    return std::string(line);
  };
  for (double target : {1e-2, 3e-3, 1e-3, 3e-4, 1e-4}) {
    std::snprintf(line, sizeof line, "| %.0e |", target);
    std::string row = line;
    for (const Method& m : methods)
      row += cell(time_to_reach(m.results, target, &Result::step_seconds),
                  time_to_reach(m.results, target, &Result::loop_seconds), " s");
    row += cell(time_to_reach(peer.results, target, &Result::step_seconds) /
                    time_to_reach(first.results, target, &Result::step_seconds),
                time_to_reach(peer.results, target, &Result::loop_seconds) /
                    time_to_reach(first.results, target, &Result::loop_seconds),
                "");
    print(row + "\n");
  }
  if (!markdown.empty()) std::ofstream(markdown) << out;
  return 0;
}
