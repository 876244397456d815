// Host code: describe a mechanism with names and checks, then build the Mechanism value the
// integrators run (mechanism.hpp). Every problem is a std::invalid_argument naming the element and
// the field: "joints[2] 'crank pin': body_j = 7 is not a body (3 bodies)".
//
// The builder also numbers the joint rows. Joint k's rows are placed in the order in which a greedy
// minimum-degree elimination of the joint graph (two joints adjacent when they share a body) takes
// them, which keeps the fill of the constraint-space factorisation small (kkt.hpp): on a V8 the
// eight piston and connecting-rod joints go first and the joints on the crank shaft last.
#pragma once

#include <algorithm>
#include <cmath>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "quatstep/mechanism/assembly.hpp"
#include "quatstep/mechanism/mechanism.hpp"
#include "quatstep/models/validation.hpp"

namespace quatstep::mechanism {

/// An orthonormal frame whose z axis is `axis` (normalised), with x along the part of `x_hint`
/// normal to it (any normal direction when x_hint is parallel to the axis).
template <class S>
JointFrame<S> frame_with_axis(const Vec3<S>& origin, const Vec3<S>& axis, const Vec3<S>& x_hint = Vec3<S>::UnitX()) {
  const Vec3<S> z = axis.normalized();
  Vec3<S> x = x_hint - z * z.dot(x_hint);
  if (x.norm() < S(1e-8) * x_hint.norm() || x.norm() == S(0)) {
    const Vec3<S> other = std::abs(z[0]) < S(0.9) ? Vec3<S>::UnitX() : Vec3<S>::UnitY();
    x = other - z * z.dot(other);
  }
  x.normalize();
  JointFrame<S> f;
  f.origin = origin;
  f.axes.col(0) = x;
  f.axes.col(1) = z.cross(x);
  f.axes.col(2) = z;
  return f;
}

/// A frame given in space, seen from a body at `pose` (R(e), r): o = Rᵀ(p − r), axes Rᵀ A.
template <class S>
JointFrame<S> frame_in_body(const RigidBodyKinematics<S>& pose, const JointFrame<S>& spatial) {
  const Mat3<S> Rt = rotation_matrix(pose.quaternion).transpose();
  JointFrame<S> f;
  f.origin = Rt * (spatial.origin - pose.position);
  f.axes = Rt * spatial.axes;
  return f;
}

template <class S>
class MechanismBuilder {
 public:
  struct BodySpec {
    std::string name;
    S mass;
    Vec3<S> inertia;  // principal, about the centre of mass
  };
  struct JointSpec {
    std::string name;
    Joint<S> joint;
  };
  struct SpringSpec {
    std::string name;
    SpringDamper<S> spring;
  };

  /// A body: mass and principal moments of inertia about its centre of mass (body axes).
  int add_body(const std::string& name, S mass, const Vec3<S>& principal_inertia) {
    bodies_.push_back({name, mass, principal_inertia});
    return static_cast<int>(bodies_.size()) - 1;
  }
  /// A joint from the frame fi on body i to the frame fj on body j (`ground` for the ground).
  int add_joint(const std::string& name, JointType type, int body_i, const JointFrame<S>& fi, int body_j,
                const JointFrame<S>& fj) {
    Joint<S> j;
    j.type = type;
    j.body[0] = body_i;
    j.body[1] = body_j;
    j.frame[0] = fi;
    j.frame[1] = fj;
    joints_.push_back({name, j});
    return static_cast<int>(joints_.size()) - 1;
  }
  /// Prescribe the angle of a revolute joint: x_j at angle(t).x() from x_i about z_i.
  void drive(int joint, const TimeProfile<S>& angle) {
    if (joint < 0 || joint >= static_cast<int>(joints_.size())) throw std::invalid_argument("drive: no joint " + std::to_string(joint));
    joints_[joint].joint.driven = true;
    joints_[joint].joint.angle = angle;
  }
  int add_spring(const std::string& name, int body_i, const Vec3<S>& point_i, int body_j, const Vec3<S>& point_j,
                 S stiffness, S damping, S rest_length) {
    SpringDamper<S> s;
    s.body[0] = body_i;
    s.body[1] = body_j;
    s.point[0] = point_i;
    s.point[1] = point_j;
    s.stiffness = stiffness;
    s.damping = damping;
    s.rest_length = rest_length;
    springs_.push_back({name, s});
    return static_cast<int>(springs_.size()) - 1;
  }
  /// A force at body's centre of mass (spatial) or a torque (body or spatial axes), acting for
  /// begin ≤ t < end within the profile's own window.
  void add_load(int body, LoadKind kind, const TimeProfile<S>& profile,
                S begin = -std::numeric_limits<S>::infinity(), S end = std::numeric_limits<S>::infinity()) {
    TimedLoad<S> l;
    l.body = body;
    l.kind = kind;
    l.profile = profile;
    l.profile.begin = std::max(profile.begin, begin);
    l.profile.end = std::min(profile.end, end);
    loads_.push_back(l);
  }
  void set_gravity(const Vec3<S>& g) { gravity_ = g; }

  const std::vector<BodySpec>& bodies() const { return bodies_; }
  const std::vector<JointSpec>& joints() const { return joints_; }
  const std::vector<SpringSpec>& springs() const { return springs_; }

  /// Messages name the elements "bodies[b]", "joints[k]", "springs[k]", "loads[l]" by default (the
  /// order of the add_ calls); with `scenario_keys` as a scenario's keys do: "mechanism.body[b]",
  /// "mechanism.joint[k]", "mechanism.spring[k]", "mechanism.load[l]".
  void name_elements_by_scenario_keys(bool scenario_keys) { scenario_keys_ = scenario_keys; }

  /// "joints[k] 'name' (type)", for messages.
  std::string joint_label(int k) const {
    return element("joints", "joint", k) + " '" + joints_[k].name + "' (" + to_string(joints_[k].joint.type) + ")";
  }
  /// "bodies[b] 'name'", for messages.
  std::string body_label(int b) const { return element("bodies", "body", b) + " '" + bodies_[b].name + "'"; }

  /// The constraint row `row` of a mechanism this builder built (AssemblyReport::worst_row), for
  /// messages: "joints[1] 'crank pin' (spherical) row 0", "bodies[0] 'crank': quaternion norm² − 1".
  template <class Cap>
  std::string row_label(const Mechanism<S, Cap>& m, int row) const {
    if (row < Cap::bodies) return body_label(row) + ": quaternion norm² − 1";
    int local;
    const int k = joint_of_row(m, row, local);
    return joint_label(k) + " row " + std::to_string(local);
  }

  /// The message for an assembly report of a mechanism this builder built: empty when it is ok,
  /// else what was wrong and where, e.g. "assembly: joints[1] 'crank pin' (spherical) row 0 is
  /// violated by 0.4 (lengths relative to the mechanism size 0.2): the correction 0.31 exceeds
  /// max_correction 0.1".
  template <class Cap>
  std::string assembly_problem(const Mechanism<S, Cap>& m, const AssemblyReport<S>& r,
                               const AssemblySettings<S>& settings) const {
    if (r.status == Status::ok) return {};
    std::ostringstream os;
    os << "assembly: ";
    if (r.worst_row >= 0) {
      os << row_label(m, r.worst_row) << " is violated by " << r.position_violation << " (lengths relative to the mechanism size "
         << m.length_scale << "): ";
    }
    if (r.status == Status::singular_jacobian)
      os << "the constraint Jacobian is singular (redundant joints, or a degenerate configuration)";
    else if (!(r.position_correction <= settings.max_correction))
      os << "the correction " << r.position_correction << " exceeds max_correction " << settings.max_correction;
    else
      os << "no consistent state found within " << settings.max_iterations << " iterations";
    return os.str();
  }

  /// The checked mechanism, with its joint rows numbered (minimum-degree order) and its incidence
  /// lists and length scale filled in.
  template <class Cap>
  Mechanism<S, Cap> build() const {
    check<Cap>();
    Mechanism<S, Cap> m;
    m.n_bodies = static_cast<int>(bodies_.size());
    m.n_joints = static_cast<int>(joints_.size());
    m.n_springs = static_cast<int>(springs_.size());
    m.n_loads = static_cast<int>(loads_.size());
    for (int b = 0; b < m.n_bodies; ++b) {
      FreeRigidBody<S>& body = m.bodies[b];
      body.mass = bodies_[b].mass;
      body.inertia = bodies_[b].inertia.asDiagonal();
      body.gravity = gravity_;
    }
    S length = S(0);
    for (int k = 0; k < m.n_joints; ++k) {
      m.joints[k] = joints_[k].joint;
      m.joints[k].rows = joint_rows(m.joints[k].type, m.joints[k].driven);
      for (int s = 0; s < 2; ++s)
        if (m.joints[k].body[s] != ground) length = std::max(length, m.joints[k].frame[s].origin.norm());
    }
    for (int k = 0; k < m.n_springs; ++k) {
      m.springs[k] = springs_[k].spring;
      for (int s = 0; s < 2; ++s)
        if (m.springs[k].body[s] != ground) length = std::max(length, m.springs[k].point[s].norm());
    }
    for (int l = 0; l < m.n_loads; ++l) m.loads[l] = loads_[l];
    m.length_scale = length > S(0) ? length : S(1);
    int offset = 0;
    for (int k : elimination_order()) {
      m.joints[k].offset = offset;
      offset += m.joints[k].rows;
    }
    m.n_rows = offset;
    for (int k = 0; k < m.n_joints; ++k)
      for (int s = 0; s < 2; ++s) {
        const int b = m.joints[k].body[s];
        if (b != ground) m.incident[b][m.n_incident[b]++] = JointSide{k, s};
      }
    return m;
  }

 private:
  std::string element(const char* plural, const char* table, int i) const {
    return (scenario_keys_ ? "mechanism." + std::string(table) : std::string(plural)) + "[" + std::to_string(i) + "]";
  }

  template <class Cap>
  void check() const {
    const int nb = static_cast<int>(bodies_.size());
    const auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
    const auto count = [&](const char* what, std::size_t n, int cap) {
      if (static_cast<int>(n) > cap)
        fail(std::string("mechanism: ") + std::to_string(n) + " " + what + " exceed this capacity class (" +
             std::to_string(cap) + ")");
    };
    if (nb == 0) fail("mechanism: no bodies");
    count("bodies", bodies_.size(), Cap::bodies);
    count("joints", joints_.size(), Cap::joints);
    count("springs", springs_.size(), Cap::springs);
    count("loads", loads_.size(), Cap::loads);
    const auto finite = [](const auto& v) { return validation::all_finite(v); };
    for (int b = 0; b < nb; ++b) {
      if (!(bodies_[b].mass > S(0)) || !std::isfinite(bodies_[b].mass)) fail(body_label(b) + ": mass must be finite and > 0");
      const std::string p = validation::principal_moments_problem(bodies_[b].inertia);
      if (!p.empty()) fail(body_label(b) + ": inertia: " + p);
    }
    const auto side_problem = [&](int b) -> std::string {
      if (b == ground) return {};
      if (b < 0 || b >= nb) return "is not a body (" + std::to_string(nb) + " bodies)";
      return {};
    };
    int rows = 0;
    for (int k = 0; k < static_cast<int>(joints_.size()); ++k) {
      const Joint<S>& j = joints_[k].joint;
      const std::string label = joint_label(k);
      for (int s = 0; s < 2; ++s) {
        const std::string p = side_problem(j.body[s]);
        if (!p.empty()) fail(label + ": body_" + (s == 0 ? "i" : "j") + " = " + std::to_string(j.body[s]) + " " + p);
        const JointFrame<S>& f = j.frame[s];
        const std::string field = std::string("frame_") + (s == 0 ? "i" : "j");
        if (!finite(f.origin) || !finite(f.axes)) fail(label + ": " + field + " not finite");
        if (!(f.axes.transpose() * f.axes).isApprox(Mat3<S>::Identity(), S(1e-9)) || f.axes.determinant() < S(0))
          fail(label + ": " + field + " axes are not a right-handed orthonormal triad");
      }
      if (j.body[0] == j.body[1])
        fail(label + ": joins " + (j.body[0] == ground ? std::string("the ground") : body_label(j.body[0])) + " to itself");
      if (j.driven && j.type != JointType::revolute) fail(label + ": only a revolute joint can be driven");
      if (j.driven && !(finite(j.angle.constant) && finite(j.angle.ramp) && finite(j.angle.amplitude) &&
                        std::isfinite(j.angle.frequency) && std::isfinite(j.angle.phase)))
        fail(label + ": driver angle profile not finite");
      rows += joint_rows(j.type, j.driven);
    }
    if (rows > Cap::rows)
      fail("mechanism: " + std::to_string(rows) + " joint constraint rows exceed this capacity class (" +
           std::to_string(Cap::rows) + ")");
    for (int k = 0; k < static_cast<int>(springs_.size()); ++k) {
      const SpringDamper<S>& s = springs_[k].spring;
      const std::string label = element("springs", "spring", k) + " '" + springs_[k].name + "'";
      for (int e = 0; e < 2; ++e) {
        const std::string p = side_problem(s.body[e]);
        if (!p.empty()) fail(label + ": body_" + (e == 0 ? "i" : "j") + " = " + std::to_string(s.body[e]) + " " + p);
        if (!finite(s.point[e])) fail(label + ": point not finite");
      }
      if (s.body[0] == s.body[1]) fail(label + ": both ends on the same body");
      if (!(s.stiffness >= S(0)) || !(s.damping >= S(0)) || !(s.rest_length >= S(0)) || !std::isfinite(s.stiffness) ||
          !std::isfinite(s.damping) || !std::isfinite(s.rest_length))
        fail(label + ": stiffness, damping and rest_length must be finite and >= 0");
    }
    for (int l = 0; l < static_cast<int>(loads_.size()); ++l) {
      const TimedLoad<S>& load = loads_[l];
      const std::string label = element("loads", "load", l);
      if (load.body < 0 || load.body >= nb) fail(label + ": body = " + std::to_string(load.body) + " is not a body");
      if (!(load.profile.begin <= load.profile.end)) fail(label + ": begin > end");
    }
  }

  /// Joints in greedy minimum-degree order on the joint graph, the degree counted in rows.
  std::vector<int> elimination_order() const {
    const int nj = static_cast<int>(joints_.size());
    std::vector<std::vector<bool>> adjacent(nj, std::vector<bool>(nj, false));
    for (int a = 0; a < nj; ++a)
      for (int c = 0; c < nj; ++c) {
        if (a == c) continue;
        const Joint<S>&ja = joints_[a].joint, &jc = joints_[c].joint;
        for (int s = 0; s < 2; ++s)
          for (int t = 0; t < 2; ++t)
            if (ja.body[s] != ground && ja.body[s] == jc.body[t]) adjacent[a][c] = true;
      }
    std::vector<bool> done(nj, false);
    std::vector<int> order;
    for (int step = 0; step < nj; ++step) {
      int best = -1, best_degree = 0;
      for (int a = 0; a < nj; ++a) {
        if (done[a]) continue;
        int degree = 0;
        for (int c = 0; c < nj; ++c)
          if (!done[c] && adjacent[a][c]) degree += joint_rows(joints_[c].joint.type, joints_[c].joint.driven);
        if (best < 0 || degree < best_degree) best = a, best_degree = degree;
      }
      done[best] = true;
      order.push_back(best);
      for (int a = 0; a < nj; ++a)  // eliminating `best` joins its remaining neighbours (fill)
        for (int c = 0; c < nj; ++c)
          if (a != c && !done[a] && !done[c] && adjacent[best][a] && adjacent[best][c]) adjacent[a][c] = true;
    }
    return order;
  }

  std::vector<BodySpec> bodies_;
  std::vector<JointSpec> joints_;
  std::vector<SpringSpec> springs_;
  std::vector<TimedLoad<S>> loads_;
  bool scenario_keys_ = false;
  Vec3<S> gravity_ = Vec3<S>::Zero();
};

}  // namespace quatstep::mechanism
