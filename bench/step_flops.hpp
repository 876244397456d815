// Floating-point operations of one step of an integrator on the heavy top of Sherif §10.1
// (h = 1e-4), counted by running the core with the counting scalar (counting_scalar.hpp): the mean
// over 100 steps after 500 warm-up steps, Newton iterations included as they happen.
#pragma once

#include "counting_scalar.hpp"
#include "heavy_top_ensemble.hpp"

namespace quatstep::bench {

template <class Integrator>
double flops_per_step(const Integrator& integrator) {
  using S = typename Integrator::Scalar;
  const auto top = sherif_top<S>();
  typename Integrator::State s;
  integrator.initialize(top, sherif_initial<S>(0), S(0), s);
  constexpr int warmup = 500, counted = 100;
  for (int k = 0; k < warmup; ++k) integrator.step(top, s, S(k) * S(step_size), S(step_size));
  flop_counts = {};
  for (int k = warmup; k < warmup + counted; ++k) integrator.step(top, s, S(k) * S(step_size), S(step_size));
  return double(flop_counts.flops()) / counted;
}

}  // namespace quatstep::bench
