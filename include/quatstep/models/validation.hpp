// Host-side checks of per-body input, for library users who build ensembles in code (the CLI
// validates scenario files before this). Each returns an empty string or a message naming the
// field and the problem; the caller adds the body index.
#pragma once

#include <cmath>
#include <sstream>
#include <string>

#include <Eigen/Eigenvalues>

#include "quatstep/models/free_rigid_body.hpp"
#include "quatstep/models/heavy_top.hpp"

namespace quatstep::validation {

/// Quaternions within this distance of unit norm are accepted (and should be normalised by the
/// caller); the integrators keep |‖e‖ − 1| at round-off from there.
inline constexpr double unit_tolerance = 1e-6;

template <class Derived>
bool all_finite(const Eigen::MatrixBase<Derived>& m) {
  return m.array().isFinite().all();
}

template <class S>
std::string inertia_problem(const Mat3<S>& J, const char* field) {
  std::ostringstream os;
  if (!all_finite(J)) return os << field << ": not finite", os.str();
  if (!J.isApprox(J.transpose(), S(1e-12))) return os << field << ": not symmetric", os.str();
  const Vec3<S> ev = Eigen::SelfAdjointEigenSolver<Mat3<S>>(J, Eigen::EigenvaluesOnly).eigenvalues();
  if (!(ev[0] > S(1e-12) * ev[2])) return os << field << ": not positive definite (eigenvalues " << ev.transpose() << ")", os.str();
  // Principal moments of a real body satisfy the triangle inequality I1 + I2 ≥ I3.
  if (ev[0] + ev[1] < ev[2] * (S(1) - S(1e-12)))
    return os << field << ": principal moments " << ev.transpose() << " violate I1 + I2 >= I3", os.str();
  return {};
}

template <class S>
std::string kinematics_problem(const RigidBodyKinematics<S>& k) {
  std::ostringstream os;
  if (!all_finite(k.quaternion)) return "quaternion: not finite";
  const S norm = k.quaternion.norm();
  if (std::abs(norm - S(1)) > S(unit_tolerance)) return os << "quaternion: not unit (norm " << norm << ")", os.str();
  if (!all_finite(k.omega_body)) return "omega_body: not finite";
  if (!all_finite(k.position)) return "position: not finite";
  if (!all_finite(k.velocity)) return "velocity: not finite";
  return {};
}

template <class S>
std::string model_problem(const HeavyTop<S>& m) {
  if (!(m.loads.mass >= S(0)) || !std::isfinite(m.loads.mass)) return "mass: must be finite and >= 0";
  if (!all_finite(m.loads.lever)) return "center_of_mass: not finite";
  if (!all_finite(m.loads.gravity)) return "gravity: not finite";
  // About the fixed point the parallel-axis term may break the triangle inequality; only
  // positive definiteness is required there.
  const Vec3<S> ev = Eigen::SelfAdjointEigenSolver<Mat3<S>>(m.inertia, Eigen::EigenvaluesOnly).eigenvalues();
  if (!all_finite(m.inertia) || !(ev[0] > S(1e-12) * ev[2])) return "inertia: not positive definite";
  return {};
}

template <class S>
std::string model_problem(const FreeRigidBody<S>& m) {
  if (!(m.mass > S(0)) || !std::isfinite(m.mass)) return "mass: must be finite and > 0";
  if (!all_finite(m.gravity)) return "gravity: not finite";
  return inertia_problem(m.inertia, "inertia");
}

}  // namespace quatstep::validation
