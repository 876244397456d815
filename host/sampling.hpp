// Reproducible parameter sampling for ensembles (host/sampling/): body k's value of a scenario key
// is a function of (seed, k, key) alone — the same on any thread, backend, chunk or shard and for
// any ensemble size (except a Latin hypercube, whose strata depend on N).
//
//   sampling/counter_rng.hpp     Philox4x32-10 streams keyed by (seed, body, key); doubles by integer
//                                arithmetic only (host and device)
//   sampling/marginal.hpp        scalar laws by their quantile functions: fixed, uniform, normal,
//                                truncated normal (exact), log-normal, log-uniform
//   sampling/body_shape.hpp      principal inertia and volume of a box, ellipsoid, cylinder, cone
//   sampling/distribution.hpp    the law of one key: component-wise, choice, rotations (uniform, cone),
//                                axis × magnitude, physically valid inertias (redraw | fail, shapes)
//   sampling/design.hpp          Latin hypercube and Sobol designs over several keys jointly
//   sampling/plan.hpp            all of a scenario's draws, validated before any integration
//   sampling/sampling_error.hpp  the error naming the parameter
#pragma once

#include "sampling/body_shape.hpp"
#include "sampling/counter_rng.hpp"
#include "sampling/design.hpp"
#include "sampling/distribution.hpp"
#include "sampling/marginal.hpp"
#include "sampling/plan.hpp"
#include "sampling/sampling_error.hpp"
