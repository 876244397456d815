// Peer 1, what a C++ user would pick: Boost.Odeint's runge_kutta4 with its Thrust backend
// (thrust_algebra, thrust_operations) on one state vector of 7·N doubles (body_loop.hpp layout), and
// the quaternions renormalised after each step by one more thrust::for_each. The scheme is that of
// rk4_step.hpp; the difference is the execution: every RK stage is a separate pass over memory (the
// right-hand side, then odeint's vector operations), against one pass per run in registers.
// Vector: thrust::device_vector<double> of the translation unit's device system (OMP or CPP with
// g++, CUDA with nvcc).
#pragma once

#include "odeint_thrust_compat.hpp"
#include "free_rotation_ensemble.hpp"

namespace quatstep::peers {

// Per-body functors of the odeint peer, at namespace scope: nvcc cannot launch kernels on private
// nested types.
/// Body i's block of dx/dt = f(x) (rotation_ode.hpp).
struct OdeintRhs {
  SoaView<double> x, dxdt, params;
  QS_HD void operator()(index_t i) const {
    store_state(dxdt, i, rotation_rhs(load_params(params, i), load_state(x, i)));
  }
};
/// q ← q / |q| for body i.
struct RenormalizeQuaternion {
  SoaView<double> x;
  QS_HD void operator()(index_t i) const {
    const Vec4<double> q = normalized<double>(Vec4<double>(x(0, i), x(1, i), x(2, i), x(3, i)));
    for (int c = 0; c < 4; ++c) x(c, i) = q[c];
  }
};

template <class Vector>
class OdeintRk4 {
 public:
  using Stepper = boost::numeric::odeint::runge_kutta4<Vector, double, Vector, double,
                                                       boost::numeric::odeint::thrust_algebra,
                                                       boost::numeric::odeint::thrust_operations>;

  OdeintRk4(const FreeRotationSpec& spec, index_t bodies, double h)
      : bodies_(bodies), h_(h), initial_(state_components * bodies), params_(param_components * bodies) {
    thrust::for_each(counting(0), counting(bodies), StoreBody<double>{spec, view(initial_), view(params_)});
    reset();
  }

  void reset() {
    x_ = initial_;
    t_ = 0;
  }
  void advance(index_t steps) {
    const System system{view(params_), bodies_};
    const RenormalizeQuaternion normalize{view(x_)};
    for (index_t k = 0; k < steps; ++k) {
      stepper_.do_step(system, x_, t_, h_);
      t_ += h_;
      thrust::for_each(counting(0), counting(bodies_), normalize);
    }
  }
  /// Body i, read back to the host.
  RotationState<double> state(index_t i) const {
    RotationState<double> s;
    for (int c = 0; c < 4; ++c) s.q[c] = x_[c * bodies_ + i];
    for (int c = 0; c < 3; ++c) s.w[c] = x_[(4 + c) * bodies_ + i];
    return s;
  }

 private:
  static thrust::counting_iterator<index_t> counting(index_t i) { return thrust::counting_iterator<index_t>(i); }
  /// A view for the functors (raw pointers are what thrust::for_each passes to the device); the
  /// right-hand side only reads x and params through it.
  static double* raw(const Vector& v) { return const_cast<double*>(thrust::raw_pointer_cast(v.data())); }
  SoaView<double> view(const Vector& v) const { return {raw(v), bodies_}; }

  /// The odeint system: one thrust::for_each over the bodies.
  struct System {
    SoaView<double> params;
    index_t bodies;
    void operator()(const Vector& x, Vector& dxdt, double) const {
      thrust::for_each(counting(0), counting(bodies),
                       OdeintRhs{{raw(x), bodies}, {raw(dxdt), bodies}, params});
    }
  };

  index_t bodies_;
  double h_, t_ = 0;
  Vector initial_, params_, x_;
  Stepper stepper_;
};

}  // namespace quatstep::peers
