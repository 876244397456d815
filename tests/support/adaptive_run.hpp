// Runs bodies through initialize_body_adaptive / advance_body_adaptive (adaptive_ensemble.hpp) as a
// backend would: struct-of-arrays state, per-body records, samples at t_j = j·interval, the run cut
// into launches of `launch_samples` output times, in the stepper's precision.
#pragma once

#include <algorithm>
#include <vector>

#include "quatstep/adaptive/adaptive_ensemble.hpp"

namespace quatstep::testing {

struct AdaptiveBodyResult {
  Status status;
  index_t accepted, rejected, newton_iterations, failed_step;
  double smallest_step, largest_step;
  std::vector<Vec4<double>> quaternion;  // at t_j, j = 0 … samples
  std::vector<Vec3<double>> omega;
};

template <class Stepper>
std::vector<AdaptiveBodyResult> run_adaptive(const Stepper& stepper, const std::vector<typename Stepper::ModelType>& models,
                                             const std::vector<RigidBodyKinematics<typename Stepper::Scalar>>& initial,
                                             typename Stepper::Scalar interval, index_t samples, index_t launch_samples,
                                             typename Stepper::Scalar t0 = 0) {
  using S = typename Stepper::Scalar;
  using State = typename Stepper::State;
  const index_t bodies = index_t(models.size());
  std::vector<S> soa(State::size * bodies), out(channel::count * bodies * (samples + 1));
  std::vector<Status> status(bodies, Status::ok);
  std::vector<index_t> iterations(bodies), failed(bodies), accepted(bodies), rejected(bodies);
  std::vector<S> smallest(bodies), largest(bodies);
  const SoaView<S> view{soa.data(), bodies};
  const BodyRecord record{status.data(), iterations.data(), failed.data()};
  const AdaptiveRecord<S> steps{accepted.data(), rejected.data(), smallest.data(), largest.data()};
  const SampleView<S> all{out.data(), bodies, 0, samples + 1, 1};
  for (index_t i = 0; i < bodies; ++i)
    initialize_body_adaptive(stepper, models[i], initial[i], view, record, steps, i, t0, all);
  for (index_t first = 0; first < samples; first += launch_samples) {
    const index_t count = std::min(launch_samples, samples - first);
    for (index_t i = 0; i < bodies; ++i)
      advance_body_adaptive(stepper, models[i], view, record, steps, i, t0, interval, first, count, all);
  }
  std::vector<AdaptiveBodyResult> results(bodies);
  for (index_t i = 0; i < bodies; ++i) {
    AdaptiveBodyResult& r = results[i];
    r = {status[i], accepted[i], rejected[i], iterations[i], failed[i], double(smallest[i]), double(largest[i]), {}, {}};
    for (index_t j = 0; j <= samples; ++j) {
      Vec4<double> q;
      Vec3<double> w;
      for (int c = 0; c < 4; ++c) q[c] = double(all(j, channel::quaternion + c, i));
      for (int c = 0; c < 3; ++c) w[c] = double(all(j, channel::omega_body + c, i));
      r.quaternion.push_back(q);
      r.omega.push_back(w);
    }
  }
  return results;
}

}  // namespace quatstep::testing
