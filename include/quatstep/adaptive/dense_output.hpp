// Dense output of an adaptive step: the state at any τ = t_0 + θH of a step of size H from the
// states at both ends, so that bodies with their own steps are sampled at common output times.
//
// Positions by the cubic Hermite interpolant of (q, q̇) at both ends, velocities by its derivative:
// interpolation errors O(H⁴) and O(H³) for a step H from exact end points. From the step's own, the
// positions keep the HHT family's O(H³) local error, and the velocities, which divide the position
// errors by H, are O(H²): the method's order (tests/adaptive_ensemble_test.cpp, DenseOutput*).
// Each Euler-parameter block is then put back on the constraints, e ← e/|e| and ė ← ė − e(eᵀė)
// (both changes O(H⁴)). Accelerations and multipliers are interpolated linearly.
#pragma once

#include "quatstep/adaptive/euler_parameter_blocks.hpp"
#include "quatstep/config.hpp"

namespace quatstep {

/// The state of `model`'s DAE form at θ ∈ [0, 1] of the step of size H from s0 to s1.
template <class Model, class State, class S>
QS_HD State dense_output(const Model& model, const State& s0, const State& s1, S H, S th) {
  using Blocks = EulerParameterBlocks<Model>;
  const S th2 = th * th, th3 = th2 * th;
  // cubic Hermite basis and its derivative in θ
  const S h00 = S(2) * th3 - S(3) * th2 + S(1), h10 = th3 - S(2) * th2 + th, h01 = S(3) * th2 - S(2) * th3,
          h11 = th3 - th2;
  const S d00 = S(6) * (th2 - th), d10 = S(3) * th2 - S(4) * th + S(1), d11 = S(3) * th2 - S(2) * th;
  State s;
  s.q = h00 * s0.q + h10 * H * s0.v + h01 * s1.q + h11 * H * s1.v;
  s.v = d00 * (s0.q - s1.q) / H + d10 * s0.v + d11 * s1.v;
  s.a = (S(1) - th) * s0.a + th * s1.a;
  s.lambda = (S(1) - th) * s0.lambda + th * s1.lambda;
  QS_UNROLL_UP_TO(Blocks::capacity) for (int b = 0; b < Blocks::count(model); ++b) {
    const int o = Blocks::offset(b);
    const Vec4<S> e = s.q.template segment<4>(o).normalized();
    const Vec4<S> ed = s.v.template segment<4>(o);
    s.q.template segment<4>(o) = e;
    s.v.template segment<4>(o) = ed - e * e.dot(ed);
  }
  return s;
}

}  // namespace quatstep
