// Work–precision of the explicit symplectic splittings (NoSquish, SymmetricSplitting,
// ExactFreeSplitting, orders 2/4/6; ExactFreeSplitting also with composition = "near_integrable")
// against the register RK4 of bench/peers/, one CPU core, and the measurements behind their
// axis-order rules. Writes bench/symplectic.md's tables:
//
//   symplectic_work_precision [--markdown FILE] [--csv FILE]
//
// Problems (problems/rigid_body_problems.hpp), t ∈ [0, 1]:
//   (a) Sherif's fast top (150 rad/s, centre of mass on the symmetry axis);
//   (b) the off-axis top (non-diagonal inertia), and the asymmetric body J = diag(6, 8, 3) under a
//       constant body torque;
//   (c) the torque-free asymmetric body J = diag(6, 8, 3), Ω = (10, 20, 20) (Kinon §5.3), and its
//       energy and momentum over t ∈ [0, 10³].
// Error: the largest geodesic angle between the computed and the reference orientation at
// t = 0.1, 0.2, …, 1 (rad); reference: RK4 at h = 2.5e-6 (problems/reference/heavy_top_reference.hpp),
// shared by no method here. RK4: peers::Rk4Step where it applies (principal axes, constant body
// torque), symplectic_rk4.hpp (the same scheme with the full inertia and the gravity moment) on the
// tops. Steps n = 10·round(2^{k/2}) over [0, 1] until the error is below 1e-11 or n reaches its
// cap. Time: CPU time of the thread (CLOCK_THREAD_CPUTIME_ID) for the step loop of one body,
// checkpoints included, fastest of ≥ 5 runs and ≥ 0.1 s: on the shared machine wall time doubled
// for long runs whenever the other processes took the core, CPU time does not. "Time to reach" an
// error is interpolated log–log between the two runs that bracket it.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "peers/accuracy.hpp"
#include "peers/rk4_step.hpp"
#include "quatstep/integrators/exact_free_flow.hpp"
#include "quatstep/integrators/no_squish.hpp"
#include "quatstep/integrators/symmetric_splitting.hpp"
#include "reference/heavy_top_reference.hpp"
#include "rigid_body_problems.hpp"
#include "symplectic_rk4.hpp"

using namespace quatstep;
using testing::RigidBodyProblem;
using Top = HeavyTop<double>;

namespace {

constexpr int checkpoints = 10;
constexpr double end_time = 1.0, reference_step = 2.5e-6;
using Orientations = std::array<Vec4<double>, checkpoints>;
/// n steps over [0, end_time] → the orientations at the checkpoints (NaN after a failure).
using Run = std::function<Orientations(long n)>;

struct Problem {
  RigidBodyProblem p;
  std::unique_ptr<reference::HeavyTopReference> reference;
  Orientations exact;
  explicit Problem(const RigidBodyProblem& problem) : p(problem) {
    const long n = std::lround(end_time / reference_step);
    reference = std::make_unique<reference::HeavyTopReference>(p.model, p.initial, reference_step, n);
    for (int c = 0; c < checkpoints; ++c) exact[c] = reference->quaternion((c + 1) * (n / checkpoints));
  }
  double error(const Orientations& q) const {
    double worst = 0;
    for (int c = 0; c < checkpoints; ++c) worst = std::max(worst, geodesic_angle(exact[c], q[c]));
    return std::isfinite(worst) ? worst : NAN;
  }
};

template <class I>
using SettingsOf = std::remove_cv_t<decltype(I::settings)>;

template <class I>
Run splitting_run(const Problem& problem, const SettingsOf<I>& settings) {
  return [&problem, integrator = I(settings)](long n) {
    const Top& model = problem.p.model;
    typename I::State s;
    Orientations out;
    out.fill(Vec4<double>::Constant(NAN));
    if (integrator.initialize(model, problem.p.initial, 0.0, s) != Status::ok) return out;
    const double h = end_time / n;
    const long stride = n / checkpoints;
    for (long k = 0; k < n; ++k) {
      if (integrator.step(model, s, k * h, h).status != Status::ok) return out;
      if ((k + 1) % stride == 0) out[(k + 1) / stride - 1] = integrator.kinematics(model, s).quaternion;
    }
    return out;
  };
}

template <class I>
Run splitting_run(const Problem& problem, int order) {
  SettingsOf<I> settings;
  settings.order = order;
  return splitting_run<I>(problem, settings);
}

/// RK4 with step(x, t, h) from the problem's initial state.
template <class Step>
Run rk4_run(const Problem& problem, Step step) {
  return [&problem, step](long n) {
    peers::RotationState<double> x{problem.p.initial.quaternion, problem.p.initial.omega_body};
    Orientations out;
    const double h = end_time / n;
    const long stride = n / checkpoints;
    for (long k = 0; k < n; ++k) {
      step(x, k * h, h);
      if ((k + 1) % stride == 0) out[(k + 1) / stride - 1] = x.q;
    }
    return out;
  };
}

/// The peer's RK4 (principal axes, constant body torque) on a problem it can run.
Run peer_rk4_run(const Problem& problem) {
  const Top& m = problem.p.model;
  const peers::RotationParams<double> params{m.inertia.diagonal(), m.loads.body_torque.constant};
  return rk4_run(problem,
                 [params](peers::RotationState<double>& x, double, double h) { peers::Rk4Step()(params, x, h); });
}

Run heavy_top_rk4_run(const Problem& problem) {
  return rk4_run(problem, [rk4 = bench::HeavyTopRk4(problem.p.model)](peers::RotationState<double>& x, double t,
                                                                         double h) { rk4(x, t, h); });
}

struct Point {
  long steps;
  double error, seconds;
};

struct Curve {
  std::string method;
  std::vector<Point> points;
};

double thread_cpu_seconds() {
  timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

Point measure(const Run& run, const Problem& problem, long n) {
  double best = INFINITY, total = 0;
  Orientations q;
  for (int runs = 0; runs < 5 || total < 0.1; ++runs) {
    const double t0 = thread_cpu_seconds();
    q = run(n);
    const double dt = thread_cpu_seconds() - t0;
    best = std::min(best, dt), total += dt;
  }
  return {n, problem.error(q), best};
}

Curve sweep(const std::string& method, const Run& run, const Problem& problem, long cap) {
  Curve c{method, {}};
  for (int k = 0;; ++k) {
    const long n = 10 * std::lround(std::pow(2.0, 0.5 * k));
    if (n > cap) break;
    c.points.push_back(measure(run, problem, n));
    std::fprintf(stderr, "  %-26s n = %7ld: error %.3e, %.3e s\n", method.c_str(), n, c.points.back().error,
                 c.points.back().seconds);
    if (c.points.back().error < 1e-11) break;
  }
  return c;
}

/// Median over the runs of ≥ 100 steps of the CPU time per step.
double median_step_seconds(const Curve& c) {
  std::vector<double> t;
  for (const Point& p : c.points)
    if (p.steps >= 100) t.push_back(p.seconds / p.steps);
  if (t.empty()) return NAN;
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

/// Time to reach `target`, log–log between the bracketing runs; NaN if never reached, and
/// `bound` set when even the coarsest run was below the target (then its time, an upper bound).
double time_to_reach(const Curve& c, double target, bool& bound) {
  bound = false;
  for (std::size_t i = 0; i < c.points.size(); ++i) {
    const Point& b = c.points[i];
    if (!(b.error <= target)) continue;
    if (i == 0) {
      bound = true;
      return b.seconds;
    }
    const Point& a = c.points[i - 1];
    if (!(a.error > target)) return b.seconds;
    const double f = std::log(target / a.error) / std::log(b.error / a.error);
    return std::exp(std::log(a.seconds) + f * std::log(b.seconds / a.seconds));
  }
  return NAN;
}

/// µs, "≤" for an upper bound.
std::string format_time(double seconds, bool bound) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%s%.3g", bound ? "≤ " : "", 1e6 * seconds);
  return buf;
}

struct Report {
  std::string markdown, csv = "problem,method,steps,h,error,seconds\n";
  void add(const char* format, ...) __attribute__((format(printf, 2, 3))) {
    char buf[4096];
    va_list args;
    va_start(args, format);
    std::vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    markdown += buf;
  }
};

const double targets[3] = {1e-3, 1e-6, 1e-9};

/// The curves of one problem: RK4 and the ten splittings, the summary table, the CSV rows.
void work_precision(Report& r, const Problem& problem, const Run& rk4, const char* rk4_name) {
  std::fprintf(stderr, "%s\n", problem.p.name);
  std::vector<Curve> curves;
  curves.push_back(sweep(rk4_name, rk4, problem, 400000));
  for (int order : {2, 4, 6}) {
    curves.push_back(sweep("NoSquish, order " + std::to_string(order), splitting_run<NoSquish<Top>>(problem, order),
                           problem, 100000));
    curves.push_back(sweep("SymmetricSplitting, order " + std::to_string(order),
                           splitting_run<SymmetricSplitting<Top>>(problem, order), problem, 100000));
    curves.push_back(sweep("ExactFreeSplitting, order " + std::to_string(order),
                           splitting_run<ExactFreeSplitting<Top>>(problem, order), problem, 100000));
  }
  ExactFreeSplittingSettings<double> near_integrable;
  near_integrable.composition = Composition::near_integrable;
  curves.push_back(sweep("ExactFreeSplitting, near_integrable",
                         splitting_run<ExactFreeSplitting<Top>>(problem, near_integrable), problem, 100000));
  r.add("\n#### %s\n\nCPU time per body for t ∈ [0, 1] [µs] to reach a max orientation error, and RK4's time over "
        "it (×):\n\n"
        "| method | 1e-3 rad | × | 1e-6 rad | × | 1e-9 rad | × | ns/step |\n|---|---:|---:|---:|---:|---:|---:|---:|\n",
        problem.p.name);
  double rk4_time[3];
  for (int t = 0; t < 3; ++t) {
    bool bound;
    rk4_time[t] = time_to_reach(curves[0], targets[t], bound);
  }
  for (const Curve& c : curves) {
    r.add("| %s", c.method.c_str());
    for (int t = 0; t < 3; ++t) {
      bool bound;
      const double time = time_to_reach(c, targets[t], bound);
      if (std::isnan(time)) r.add(" | not reached | –");
      else r.add(" | %s | %.3g", format_time(time, bound).c_str(), rk4_time[t] / time);
    }
    r.add(" | %.0f |\n", 1e9 * median_step_seconds(c));
    for (const Point& p : c.points) {
      char buf[256];
      std::snprintf(buf, sizeof buf, "\"%s\",\"%s\",%ld,%.6g,%.6e,%.6e\n", problem.p.name, c.method.c_str(), p.steps,
                    end_time / p.steps, p.error, p.seconds);
      r.csv += buf;
    }
  }
}

// ---------------------------------------------------------------- long run

struct Drift {
  double energy = 0, momentum = 0;
};

/// Max relative energy and spatial-momentum drift up to t = 1, 10, 100, 1000, sampled every step.
template <class Observe, class Advance>
std::array<Drift, 4> drift_over_decades(Observe observe, Advance advance, double h) {
  std::array<Drift, 4> d;
  const auto [e0, l0] = observe();
  const long n = std::lround(1000 / h);
  Drift running;
  for (long k = 1; k <= n; ++k) {
    advance(k - 1, h);
    const auto [e, l] = observe();
    running.energy = std::max(running.energy, std::abs(e / e0 - 1));
    running.momentum = std::max(running.momentum, (l - l0).norm() / l0.norm());
    for (int decade = 0; decade < 4; ++decade)
      if (k == std::lround(std::pow(10.0, decade) / h)) d[decade] = running;
  }
  return d;
}

void long_run(Report& r) {
  const RigidBodyProblem p = testing::free_asymmetric_body();
  r.add("\n#### (c) Long run: torque-free asymmetric body, t ∈ [0, 10³]\n\n"
        "Max |E/E₀ − 1| and |L − L₀|/|L₀| (spatial momentum) up to t, sampled every step:\n\n"
        "| method | h | ΔE, t = 1 | 10 | 10² | 10³ | ΔL, t = 1 | 10 | 10² | 10³ |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
  auto row = [&](const std::string& name, double h, const std::array<Drift, 4>& d) {
    r.add("| %s | %g", name.c_str(), h);
    for (const Drift& x : d) r.add(" | %.2e", x.energy);
    for (const Drift& x : d) r.add(" | %.2e", x.momentum);
    r.add(" |\n");
  };
  const peers::RotationParams<double> params{p.model.inertia.diagonal(), Vec3<double>::Zero()};
  for (double h : {0.01, 0.005}) {
    peers::RotationState<double> x{p.initial.quaternion, p.initial.omega_body};
    auto observe = [&] {
      const peers::Invariants i = peers::invariants(params, x);
      return std::pair{i.energy, i.momentum};
    };
    row("RK4 (peer)", h, drift_over_decades(observe, [&](long, double step) { peers::Rk4Step()(params, x, step); }, h));
  }
  auto splitting = [&](auto integrator, const std::string& name, double h) {
    typename decltype(integrator)::State s;
    integrator.initialize(p.model, p.initial, 0.0, s);
    auto observe = [&] {
      const RigidBodyObservables<double> o = p.model.observables(integrator.kinematics(p.model, s));
      return std::pair{o.energy, o.angular_momentum};
    };
    auto advance = [&](long k, double step) { integrator.step(p.model, s, k * step, step); };
    row(name, h, drift_over_decades(observe, advance, h));
  };
  for (int order : {2, 4, 6}) {
    SplittingSettings<double> settings;
    settings.order = order;
    const double h = order == 6 ? 0.02 : 0.01;
    splitting(NoSquish<Top>(settings), "NoSquish, order " + std::to_string(order), h);
    splitting(SymmetricSplitting<Top>(settings), "SymmetricSplitting, order " + std::to_string(order), h);
    splitting(ExactFreeSplitting<Top>(settings), "ExactFreeSplitting, order " + std::to_string(order), h);
  }
}

// ---------------------------------------------------------------- axis orders

/// NoSquish with the axes in a fixed order, outermost first.
template <int outer, int middle, int inner>
struct FixedAxes : NoSquishFlow {
  template <class S>
  static void order_axes(const Vec3<S>&, const Vec3<S>&, int order[3]) {
    order[0] = outer, order[1] = middle, order[2] = inner;
  }
};

/// SymmetricSplitting with symmetry axis s, a the pair's smaller (or larger) moment.
template <int s, bool a_smaller>
struct FixedSymmetryAxis : SymmetricSplittingFlow {
  template <class S>
  static void order_axes(const Vec3<S>& moments, const Vec3<S>&, int order[3]) {
    const int i = (s + 1) % 3, j = (s + 2) % 3;
    const bool i_first = (moments[i] <= moments[j]) == a_smaller;
    order[0] = i_first ? i : j, order[1] = i_first ? j : i, order[2] = s;
  }
};

/// Orientation error at t = 1 after 100 steps of order 2.
template <class Flow>
double free_body_error(const Top& body, const RigidBodyKinematics<double>& k0, const Vec4<double>& exact) {
  SplittingSettings<double> settings;
  settings.order = 2;
  const RigidBodySplitting<Top, Flow> integrator(settings);
  typename RigidBodySplitting<Top, Flow>::State s;
  integrator.initialize(body, k0, 0.0, s);
  for (int k = 0; k < 100; ++k) integrator.step(body, s, k * 0.01, 0.01);
  return geodesic_angle(exact, integrator.kinematics(body, s).quaternion);
}

/// Index of (outer, middle, inner) among FixedAxes' six orders.
int permutation_index(const int o[3]) {
  const int table[6][3] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (int k = 0; k < 6; ++k)
    if (table[k][0] == o[0] && table[k][1] == o[1] && table[k][2] == o[2]) return k;
  return -1;
}

/// Index of (s, a smaller?) among FixedSymmetryAxis' six choices, from an order {a, b, s}.
int symmetry_choice(const int o[3], const Vec3<double>& moments) {
  return o[2] + (moments[o[0]] <= moments[o[1]] ? 0 : 3);
}

/// Axes ordered by a key, largest first.
void order_by(const Vec3<double>& key, int order[3]) {
  order[0] = 0, order[1] = 1, order[2] = 2;
  std::sort(order, order + 3, [&](int i, int j) { return key[i] > key[j]; });
}

struct RuleStats {
  const char* name;
  int best = 0;
  double log_ratio = 0, worst = 0;
  void add(double error, double best_error) {
    best += error == best_error;
    log_ratio += std::log(error / best_error);
    worst = std::max(worst, error / best_error);
  }
};

/// A family of torque-free bodies: body i's principal moments, orientation and rate.
struct BodySet {
  const char* name;
  double inertia_min;  ///< of the peers' ensemble
  int near_symmetric;  ///< 0: the peers' moments; +1: near-oblate (a, a(1+d), b > a); −1: near-prolate (b < a)
  peers::RotationState<double> body(int i, Vec3<double>& moments) const {
    peers::FreeRotationSpec spec;
    spec.inertia_min = inertia_min;
    peers::RotationParams<double> params;
    const peers::RotationState<double> x = peers::free_rotation_body(spec, i, params);
    moments = params.inertia;
    if (near_symmetric != 0) {
      peers::SplitMix64 rng(0x5EED + std::uint64_t(i));
      const double a = rng.uniform(1, 2), d = rng.uniform(0, 0.1), f = rng.uniform(1.2, 2);
      const double j[3] = {a, a * (1 + d), near_symmetric > 0 ? a * f : a / f};
      for (int k = 0; k < 3; ++k) moments[k] = j[(k + i) % 3];  // the pair on every pair of axes
    }
    return x;
  }
};

void axis_orders(Report& r, const BodySet& set) {
  const int bodies = 200;
  RuleStats ns[4] = {{"smallest moment outermost (NoSquish's rule)"}, {"largest \\|Ω_k\\| outermost"},
                     {"largest L_k²/I_k outermost"}, {"largest moment outermost"}};
  RuleStats sym[4] = {{"least error estimate (SymmetricSplitting's rule)"}, {"s the smallest moment, a the middle"},
                      {"s outside the closest inverse moments, a the pair's smaller"},
                      {"s outside the closest moments, a the pair's smaller"}};
  double log_sym_over_ns = 0;
  for (int i = 0; i < bodies; ++i) {
    Vec3<double> J;
    const peers::RotationState<double> x0 = set.body(i, J);
    peers::RotationState<double> exact = x0;
    const peers::RotationParams<double> params{J, Vec3<double>::Zero()};
    for (index_t k = 0; k < peers::reference_steps; ++k) peers::Rk4Step()(params, exact, 1.0 / peers::reference_steps);
    Top body;
    body.inertia = J.asDiagonal();
    RigidBodyKinematics<double> k0;
    k0.quaternion = x0.q;
    k0.omega_body = x0.w;
    const double e[6] = {free_body_error<FixedAxes<0, 1, 2>>(body, k0, exact.q),
                         free_body_error<FixedAxes<0, 2, 1>>(body, k0, exact.q),
                         free_body_error<FixedAxes<1, 0, 2>>(body, k0, exact.q),
                         free_body_error<FixedAxes<1, 2, 0>>(body, k0, exact.q),
                         free_body_error<FixedAxes<2, 0, 1>>(body, k0, exact.q),
                         free_body_error<FixedAxes<2, 1, 0>>(body, k0, exact.q)};
    const double best = *std::min_element(e, e + 6);
    const Vec3<double> L = J.cwiseProduct(x0.w);
    int o[3];
    NoSquishFlow::order_axes(J, L, o);
    const double no_squish = e[permutation_index(o)];
    ns[0].add(no_squish, best);
    order_by(L.cwiseQuotient(J).cwiseAbs(), o);
    ns[1].add(e[permutation_index(o)], best);
    order_by(L.cwiseAbs2().cwiseQuotient(J), o);
    ns[2].add(e[permutation_index(o)], best);
    order_by(J, o);
    ns[3].add(e[permutation_index(o)], best);

    const double es[6] = {free_body_error<FixedSymmetryAxis<0, true>>(body, k0, exact.q),
                          free_body_error<FixedSymmetryAxis<1, true>>(body, k0, exact.q),
                          free_body_error<FixedSymmetryAxis<2, true>>(body, k0, exact.q),
                          free_body_error<FixedSymmetryAxis<0, false>>(body, k0, exact.q),
                          free_body_error<FixedSymmetryAxis<1, false>>(body, k0, exact.q),
                          free_body_error<FixedSymmetryAxis<2, false>>(body, k0, exact.q)};
    const double best_s = *std::min_element(es, es + 6);
    SymmetricSplittingFlow::order_axes(J, L, o);
    const double symmetric = es[symmetry_choice(o, J)];
    sym[0].add(symmetric, best_s);
    const int smallest = int(std::min_element(J.data(), J.data() + 3) - J.data());
    sym[1].add(es[smallest], best_s);  // pair: the middle and the largest, a the smaller of them
    const Vec3<double> inv = J.cwiseInverse();
    const double inverse_gaps[3] = {std::abs(inv[1] - inv[2]), std::abs(inv[2] - inv[0]), std::abs(inv[0] - inv[1])};
    sym[2].add(es[std::min_element(inverse_gaps, inverse_gaps + 3) - inverse_gaps], best_s);
    const double gaps[3] = {std::abs(J[1] - J[2]), std::abs(J[2] - J[0]), std::abs(J[0] - J[1])};
    sym[3].add(es[std::min_element(gaps, gaps + 3) - gaps], best_s);
    log_sym_over_ns += std::log(symmetric / no_squish);
  }
  r.add("\n#### %s\n\n| NoSquish axis order | best of the six orders | error / best, geometric mean | worst |\n"
        "|---|---:|---:|---:|\n",
        set.name);
  for (const RuleStats& s : ns)
    r.add("| %s | %d %% | %.2f | %.1f |\n", s.name, 100 * s.best / bodies, std::exp(s.log_ratio / bodies), s.worst);
  r.add("\n| SymmetricSplitting axes (s, a, b) | best of the six choices | error / best, geometric mean | worst |\n"
        "|---|---:|---:|---:|\n");
  for (const RuleStats& s : sym)
    r.add("| %s | %d %% | %.2f | %.1f |\n", s.name, 100 * s.best / bodies, std::exp(s.log_ratio / bodies), s.worst);
  r.add("\nSymmetricSplitting's error over NoSquish's, each with its rule, geometric mean: %.3g.\n",
        std::exp(log_sym_over_ns / bodies));
}

std::string machine() {
  std::ifstream cpu("/proc/cpuinfo");
  std::string line, model = "?";
  while (std::getline(cpu, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  std::ifstream load("/proc/loadavg");
  std::string l1;
  load >> l1;
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::localtime(&now));
  return model + ", " + std::to_string(std::thread::hardware_concurrency()) + " logical CPUs, load " + l1 +
         " at the start; g++ " + __VERSION__ + "; " + date;
}

}  // namespace

int main(int argc, char** argv) {
  const char* md = nullptr;
  const char* csv = nullptr;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--markdown")) md = argv[i + 1];
    else if (!std::strcmp(argv[i], "--csv")) csv = argv[i + 1];
    else {
      std::fprintf(stderr, "usage: %s [--markdown FILE] [--csv FILE]\n", argv[0]);
      return 2;
    }
  }
  Report r;
  r.add("<!-- generated by build/bench/symplectic_work_precision --markdown FILE --csv "
        "bench/symplectic_work_precision.csv (bench/symplectic_work_precision.cpp) -->\nMachine: %s.\n",
        machine().c_str());

  // The heavy-top RK4 is the peer's scheme: on a body both run, they agree to round-off.
  {
    const Problem torqued(testing::torqued_asymmetric_body());
    const Orientations a = peer_rk4_run(torqued)(1000), b = heavy_top_rk4_run(torqued)(1000);
    double worst = 0;
    for (int c = 0; c < checkpoints; ++c) worst = std::max(worst, geodesic_angle(a[c], b[c]));
    r.add("\nThe heavy-top RK4 (symplectic_rk4.hpp) and the peer's Rk4Step differ by %.1e rad on the torqued "
          "asymmetric body (1000 steps).\n",
          worst);
  }
  r.add("\n### Work–precision\n");
  {
    const Problem a(testing::sherif_top());
    work_precision(r, a, heavy_top_rk4_run(a), "RK4 (heavy-top RK4)");
  }
  {
    const Problem b(testing::off_axis_top());
    work_precision(r, b, heavy_top_rk4_run(b), "RK4 (heavy-top RK4)");
  }
  {
    const Problem b(testing::torqued_asymmetric_body());
    work_precision(r, b, peer_rk4_run(b), "RK4 (peer)");
  }
  {
    const Problem c(testing::free_asymmetric_body());
    work_precision(r, c, peer_rk4_run(c), "RK4 (peer)");
  }
  long_run(r);
  r.add("\n### Axis orders\n\nTorque-free bodies of bench/peers/free_rotation_ensemble.hpp (seed 1, 200 bodies, "
        "|Ω| ≤ 20, random orientation; moments as stated), order 2, h = 0.01, t = 1, orientation error against RK4 "
        "with 2¹⁶ steps; each rule against the best of all orders for that body.\n");
  axis_orders(r, {"Principal moments of the peers' ensemble, uniform in [1, 3]", 1.0, 0});
  axis_orders(r, {"Principal moments of the peers' ensemble, uniform in [0.1, 3]", 0.1, 0});
  axis_orders(r, {"Near-oblate: moments (a, a(1 + d), fa), a ∈ [1, 2], d ∈ [0, 0.1], f ∈ [1.2, 2]", 1.0, 1});
  axis_orders(r, {"Near-prolate: moments (a, a(1 + d), a/f)", 1.0, -1});

  std::fputs(r.markdown.c_str(), stdout);
  if (md) std::ofstream(md) << r.markdown;
  if (csv) std::ofstream(csv) << r.csv;
  return 0;
}
