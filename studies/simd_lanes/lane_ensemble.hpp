// A heavy-top ensemble stepped W bodies at a time: the SIMD counterpart of CpuEnsemble<Integrator>
// for the study in studies/README.md, with Method one of
//   HhtLanes<U>  HhtFamily<HeavyTop, U> by lane_hht_step (simd_step.hpp),
//   RemlLanes    LivensEm<HeavyTop> (REML) by lane_reml_step (reml_step.hpp).
// State in the same struct-of-arrays layout, so a block of W bodies is W consecutive doubles per
// component. The initial state comes from the scalar integrator (initialize pivots).
#pragma once

#include <vector>

#include "quatstep/ensemble.hpp"
#include "quatstep/models/heavy_top.hpp"
#include "reml_step.hpp"
#include "simd_step.hpp"

namespace quatstep::bench {

/// The W scalar parameters of bodies m[0..W) as one lane model.
template <int W>
HeavyTop<Lanes<W>> lane_model(const HeavyTop<double>* m) {
  using L = Lanes<W>;
  const auto lanes = [&](auto field) {
    L out;
    for (int j = 0; j < W; ++j) out[j] = field(m[j]);
    return out;
  };
  const auto profile = [&](auto get) {
    TimeProfile<L> p;
    for (int c = 0; c < 3; ++c) {
      p.constant[c] = lanes([&](const auto& b) { return get(b).constant[c]; });
      p.ramp[c] = lanes([&](const auto& b) { return get(b).ramp[c]; });
      p.amplitude[c] = lanes([&](const auto& b) { return get(b).amplitude[c]; });
    }
    p.frequency = lanes([&](const auto& b) { return get(b).frequency; });
    p.phase = lanes([&](const auto& b) { return get(b).phase; });
    return p;
  };
  HeavyTop<L> t;
  for (int k = 0; k < 9; ++k) t.inertia(k) = lanes([&](const auto& b) { return b.inertia(k); });
  for (int c = 0; c < 3; ++c) {
    t.loads.gravity[c] = lanes([&](const auto& b) { return b.loads.gravity[c]; });
    t.loads.lever[c] = lanes([&](const auto& b) { return b.loads.lever[c]; });
  }
  t.loads.mass = lanes([&](const auto& b) { return b.loads.mass; });
  t.loads.body_torque = profile([](const auto& b) -> const auto& { return b.loads.body_torque; });
  t.loads.spatial_torque = profile([](const auto& b) -> const auto& { return b.loads.spatial_torque; });
  return t;
}

/// The Newton settings of a lane integrator: the scalar ones broadcast.
template <int W>
NewtonSettings<Lanes<W>> lane_newton_settings(const NewtonSettings<double>& s) {
  NewtonSettings<Lanes<W>> out;
  out.tolerance = s.tolerance;
  out.max_iterations = s.max_iterations;
  out.jacobian_reuse_below = s.jacobian_reuse_below;
  return out;
}

template <VelocityUpdate U>
struct HhtLanes {
  using Scalar = HhtFamily<HeavyTop<double>, U>;
  template <int W>
  using Lane = HhtFamily<HeavyTop<Lanes<W>>, U>;
  template <int W>
  static Lane<W> lane_of(const Scalar& scalar) {
    HhtSettings<Lanes<W>> out;
    out.alpha = scalar.settings.alpha;
    out.inertia_shift = scalar.settings.inertia_shift;
    out.newton = lane_newton_settings<W>(scalar.settings.newton);
    out.drift_tolerance = scalar.settings.drift_tolerance;
    return Lane<W>(out);
  }
  template <int W, class... A>
  static LaneOutcome<W> step(A&&... a) { return lane_hht_step(std::forward<A>(a)...); }
};

struct RemlLanes {
  using Scalar = LivensEm<HeavyTop<double>>;
  template <int W>
  using Lane = LaneReml<W>;
  template <int W>
  static Lane<W> lane_of(const Scalar& scalar) {
    LivensSettings<Lanes<W>> out;
    out.project_normal_components = scalar.settings.project_normal_components;
    out.newton = lane_newton_settings<W>(scalar.settings.newton);
    return Lane<W>(out);
  }
  template <int W, class... A>
  static LaneOutcome<W> step(A&&... a) { return lane_reml_step<W>(std::forward<A>(a)...); }
};

template <int W, class Method>
class LaneEnsemble {
 public:
  using L = Lanes<W>;
  using Scalar = typename Method::Scalar;
  using Lane = typename Method::template Lane<W>;
  static constexpr int size = Scalar::State::size;

  /// bodies = models.size() must be a multiple of W.
  LaneEnsemble(const Scalar& integrator, const std::vector<HeavyTop<double>>& models, double t0, double h)
      : scalar_(integrator), lane_(Method::template lane_of<W>(integrator)), t0_(t0), h_(h), models_(models),
        state_(size * models.size()), status_(models.size()), iterations_(models.size()) {
    for (std::size_t i = 0; i < models.size(); i += W) lane_models_.push_back(lane_model<W>(&models[i]));
  }

  index_t bodies() const { return static_cast<index_t>(models_.size()); }

  void initialize(const std::vector<RigidBodyKinematics<double>>& initial) {
    for (index_t i = 0; i < bodies(); ++i) {
      typename Scalar::State s;
      status_[i] = scalar_.initialize(models_[i], initial[i], t0_, s);
      for (int c = 0; c < size; ++c) state_[c * bodies() + i] = s[c];
      iterations_[i] = 0;
    }
    steps_done_ = 0;
  }

  /// Advance every body by `steps` steps, blocks of W bodies spread over the OpenMP threads.
  void advance(index_t steps) {
#pragma omp parallel for schedule(static)
    for (index_t i0 = 0; i0 < bodies(); i0 += W) advance_block(i0, steps_done_, steps);
    steps_done_ += steps;
  }

  /// Advance bodies i0 … i0+W−1 by steps first … first+steps−1 (advance's loop body).
  void advance_block(index_t i0, index_t first, index_t steps) {
    const index_t n = bodies();
    typename Lane::State s;
    LaneInts<W> status, iterations = 0;
    for (int c = 0; c < size; ++c)
      for (int j = 0; j < W; ++j) s[c][j] = state_[c * n + i0 + j];
    for (int j = 0; j < W; ++j) status[j] = double(status_[i0 + j]);
    for (index_t k = first; k < first + steps; ++k) {
      const Mask<W> active = lanes_where<W>(status, 0);
      if (stdx::none_of(active)) break;
      const LaneOutcome<W> o =
          Method::template step<W>(lane_, lane_models_[i0 / W], s, L(t0_ + double(k) * h_), L(h_), active);
      iterations += select<W>(active, o.iterations, LaneInts<W>(0));
      status = select<W>(active, o.status, status);
    }
    for (int c = 0; c < size; ++c)
      for (int j = 0; j < W; ++j) state_[c * n + i0 + j] = s[c][j];
    for (int j = 0; j < W; ++j) {
      status_[i0 + j] = static_cast<Status>(std::int64_t(status[j]));
      iterations_[i0 + j] += std::int64_t(iterations[j]);
    }
  }

  index_t steps_done() const { return steps_done_; }
  const std::vector<Status>& status() const { return status_; }
  const std::vector<index_t>& newton_iterations() const { return iterations_; }
  double state(index_t i, int c) const { return state_[c * bodies() + i]; }

 private:
  Scalar scalar_;
  Lane lane_;
  double t0_, h_;
  std::vector<HeavyTop<double>> models_;
  std::vector<HeavyTop<L>> lane_models_;
  std::vector<double> state_;  // SoA [component][body]
  std::vector<Status> status_;
  std::vector<index_t> iterations_;
  index_t steps_done_ = 0;
};

}  // namespace quatstep::bench
