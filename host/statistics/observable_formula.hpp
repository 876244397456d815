// What an observable computes from one body's sampled channels, as plain data and QS_HD code: the
// CPU statistics (Observable::evaluate) and the GPU reduction (kernels/device_statistics.cu) call the
// same lines, so that a value is the same bits on both sides (IEEE operations only, no contraction:
// host code is built with -ffp-contract=off, the GPU reduction with --fmad=false).
#pragma once

#include <cmath>
#include <limits>

#include "quatstep/config.hpp"
#include "quatstep/ensemble.hpp"
#include "quatstep/math/angle.hpp"
#include "quatstep/quaternion.hpp"

namespace quatstep::statistics {

struct ObservableFormula {
  enum class Kind { component, norm, relative_drift, nutation };

  Kind kind = Kind::component;
  int offset = -1;      ///< the channel's first scalar in a body's sample (plus the component for Kind::component)
  int components = 0;   ///< scalars read from there
  double body_axis[3] = {0, 0, 0}, spatial_axis[3] = {0, 0, 0};  ///< nutation: unit vectors

  /// Numbers per body kept from sample 0 (the drift's x₀); 0 for the others.
  QS_HD int initial_width() const { return kind == Kind::relative_drift ? components : 0; }

  /// `body` points at a body's first sampled scalar; scalar c lies at body[c·stride] ([scalar][body]).
  QS_HD void capture_initial(const double* body, index_t stride, double* initial) const {
    for (int c = 0; c < initial_width(); ++c) initial[c] = body[(offset + c) * stride];
  }

  QS_HD double evaluate(const double* body, index_t stride, const double* initial) const {
    using std::sqrt;
    using std::abs;
    const auto x = [&](int c) { return body[(offset + c) * stride]; };
    switch (kind) {
      case Kind::component:
        return x(0);
      case Kind::norm: {
        double s = 0;
        for (int c = 0; c < components; ++c) s += x(c) * x(c);
        return sqrt(s);
      }
      case Kind::relative_drift: {
        if (components == 1) return (x(0) - initial[0]) / abs(initial[0]);
        double d = 0, r = 0;
        for (int c = 0; c < components; ++c) d += (x(c) - initial[c]) * (x(c) - initial[c]), r += initial[c] * initial[c];
        return sqrt(d) / sqrt(r);
      }
      case Kind::nutation: {  // the angle between R(q)·b and a, atan2(|R b × a|, R b · a)
        const Vec3<double> d = rotation_matrix(Vec4<double>(x(0), x(1), x(2), x(3))) *
                               Vec3<double>(body_axis[0], body_axis[1], body_axis[2]);
        const Vec3<double> a(spatial_axis[0], spatial_axis[1], spatial_axis[2]);
        return math::angle(d.cross(a).norm(), d.dot(a));
      }
    }
    return std::numeric_limits<double>::quiet_NaN();
  }
};

}  // namespace quatstep::statistics
