// A point-to-point spring–damper (mechanism.hpp) at one state of its two sides: the generalized
// forces on both sides, their derivative along a direction of both sides' coordinates and
// velocities, and the potential.
//
// With d = p_j − p_i, L = |d|, n = d/L, L̇ = n·ḋ and the tension f = k (L − L₀) + c L̇, the force on
// side i is F = f n at p_i (−F on side j); a force F at the body point o is the generalized force
// (F, W(e, o)ᵀ F) on q = (r, e), the virtual work of F·δp with δp = δr + W(e, o) δe.
// Along (δq, δq̇): δd = δp_j − δp_i, δḋ = δṗ_j − δṗ_i with δṗ = δṙ + W(δe, o) ė + W(e, o) δė,
// δn = (δd − n (n·δd))/L, δL̇ = δn·ḋ + n·δḋ, δF = (k n·δd + c δL̇) n + f δn, and on side i
// δ(W(e, o)ᵀ F) = W(δe, o)ᵀ F + W(e, o)ᵀ δF = H(F, o) δe + W(e, o)ᵀ δF.
#pragma once

#include "quatstep/mechanism/joints.hpp"

namespace quatstep::mechanism {

template <class S>
class SpringState {
 public:
  using Vec7 = Vec<S, 7>;

  QS_HD SpringState(const SpringDamper<S>& spring, const Side<S>& i, const Side<S>& j)
      : spring_(spring), side_{i, j} {
    using std::sqrt;
    for (int s = 0; s < 2; ++s) {
      p_[s] = side_[s].point(spring.point[s]);
      pd_[s] = side_[s].point_rate(spring.point[s]);
      w_[s] = side_[s].jacobian(spring.point[s]);
    }
    d_ = p_[1] - p_[0];
    dd_ = pd_[1] - pd_[0];
    length_ = sqrt(d_.squaredNorm());
    n_ = d_ / length_;
    tension_ = spring.stiffness * (length_ - spring.rest_length) + spring.damping * n_.dot(dd_);
  }

  QS_HD S length() const { return length_; }
  QS_HD S potential() const {
    const S stretch = length_ - spring_.rest_length;
    return S(0.5) * spring_.stiffness * stretch * stretch;
  }

  /// The generalized force on side s.
  QS_HD Vec7 force(int s) const { return generalized(s, Vec3<S>((s == 0 ? tension_ : -tension_) * n_)); }

  /// The derivative of force(0) and force(1) along (δq_i, δq̇_i, δq_j, δq̇_j), in out[0], out[1].
  QS_HD void force_derivative(const Vec7 dq[2], const Vec7 dv[2], Vec7 out[2]) const {
    Vec3<S> dd = Vec3<S>::Zero(), ddd = Vec3<S>::Zero();  // δd, δḋ
    for (int s = 0; s < 2; ++s) {
      if (side_[s].ground) continue;
      const Vec4<S> de = dq[s].template tail<4>(), ded = dv[s].template tail<4>();
      const Vec3<S> dp = dq[s].template head<3>() + w_[s] * de;
      const Vec3<S> dpd = dv[s].template head<3>() + rotation_jacobian(de, spring_.point[s]) * side_[s].ed + w_[s] * ded;
      dd += s == 1 ? dp : Vec3<S>(-dp);
      ddd += s == 1 ? dpd : Vec3<S>(-dpd);
    }
    const Vec3<S> dn = (dd - n_ * n_.dot(dd)) / length_;
    const S dtension = spring_.stiffness * n_.dot(dd) + spring_.damping * (dn.dot(dd_) + n_.dot(ddd));
    const Vec3<S> dF = dtension * n_ + tension_ * dn;  // side i
    for (int s = 0; s < 2; ++s) {
      out[s].setZero();
      if (side_[s].ground) continue;
      const S sign = s == 0 ? S(1) : S(-1);
      const Vec3<S> F = sign * tension_ * n_;
      out[s].template head<3>() = sign * dF;
      out[s].template tail<4>() =
          rotation_hessian(F, spring_.point[s]) * Vec4<S>(dq[s].template tail<4>()) + sign * (w_[s].transpose() * dF);
    }
  }

 private:
  QS_HD Vec7 generalized(int s, const Vec3<S>& F) const {
    Vec7 g = Vec7::Zero();
    if (side_[s].ground) return g;
    g.template head<3>() = F;
    g.template tail<4>() = w_[s].transpose() * F;
    return g;
  }

  const SpringDamper<S>& spring_;
  Side<S> side_[2];
  Vec3<S> p_[2], pd_[2];
  Mat34<S> w_[2];
  Vec3<S> d_, dd_, n_;
  S length_, tension_;
};

}  // namespace quatstep::mechanism
