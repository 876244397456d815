#include "sampling/distribution.hpp"

#include <algorithm>
#include <cmath>

#include "quatstep/math/trig.hpp"
#include "quatstep/models/validation.hpp"
#include "quatstep/quaternion.hpp"
#include "sampling/counter_rng.hpp"

namespace quatstep::sampling {
namespace {

constexpr double pi = 3.14159265358979323846;
using Vec3d = Vec3<double>;
using Vec4d = Vec4<double>;

Vec3d to_vec(const std::array<double, 3>& a) { return Vec3d(a[0], a[1], a[2]); }

/// A unit vector from a nonzero finite one, or a SamplingError naming it.
Vec3d unit_axis(const std::array<double, 3>& a, const char* name) {
  const Vec3d v = to_vec(a);
  const double norm = v.norm();
  if (!std::isfinite(norm) || !(norm > 0))
    throw SamplingError(std::string(name) + ": [" + format_number(a[0]) + ", " + format_number(a[1]) + ", " +
                        format_number(a[2]) + "], must be a finite nonzero vector");
  return v / norm;
}

void require_half_angle(double half_angle) {
  if (!(half_angle >= 0 && half_angle <= pi))
    throw SamplingError("half_angle: " + format_number(half_angle) + ", must be in [0, pi] (radians)");
}

/// A point of the spherical cap of half-angle θ about the unit axis a, uniform in area: the polar angle
/// φ by 1 − cos φ = u1·(1 − cos θ) (the cap's area is linear in cos φ), the azimuth 2π·u2. Returned as
/// t = 1 − cos φ and the unit tilt direction w ⟂ a, so that the point is (1 − t)·a + √(t(2 − t))·w;
/// 1 − cos θ = 2 sin²(θ/2) keeps the digits of small cones.
struct CapPoint {
  double t;
  Vec3d w;
};
CapPoint cap_point(const Vec3d& a, double half_angle, double u1, double u2) {
  // Orthonormal e1, e2 ⟂ a (Duff et al., "Building an orthonormal basis, revisited", JCGT 6(1), 2017),
  // right-handed: e2 = a × e1.
  const double sign = std::copysign(1.0, a[2]), k = -1 / (sign + a[2]), b = a[0] * a[1] * k;
  const Vec3d e1(1 + sign * a[0] * a[0] * k, sign * b, -sign * a[0]);
  const Vec3d e2 = a.cross(e1);
  const double s = math::sin(0.5 * half_angle);
  double sin_psi, cos_psi;
  math::sincos(2 * pi * u2, sin_psi, cos_psi);
  return {u1 * 2 * s * s, cos_psi * e1 + sin_psi * e2};
}

Vec3d cap_direction(const Vec3d& a, double half_angle, double u1, double u2) {
  const CapPoint p = cap_point(a, half_angle, u1, u2);
  return (1 - p.t) * a + std::sqrt(p.t * (2 - p.t)) * p.w;
}

/// Why principal moments are not a body, or "". validation::inertia_problem, the models' own test,
/// decides every accepted body; the clear rejections (most redrawn ones) are answered first with a
/// message of their own, since formatting its message costs ten times the draw.
std::string inertia_problem(const std::array<double, 3>& m) {
  std::array<double, 3> s = m;
  std::sort(s.begin(), s.end());
  const auto text = [&] {
    return "drawn moments [" + format_number(m[0]) + ", " + format_number(m[1]) + ", " + format_number(m[2]) + "]";
  };
  if (!(s[0] > 0) || !std::isfinite(s[2])) return text() + ": must be finite and > 0";
  if (s[0] + s[1] < s[2] * (1 - 1e-9)) return text() + " violate I1 + I2 >= I3";  // far beyond its 1e-12
  const std::string problem = validation::principal_moments_problem(m);
  return problem.empty() ? problem : "drawn moments: " + problem;
}

template <class... F>
struct Overloaded : F... {
  using F::operator()...;
};
template <class... F>
Overloaded(F...) -> Overloaded<F...>;

}  // namespace

// ---------------------------------------------------------------- factories
template <class Make>
Distribution Distribution::from_params(const std::vector<std::pair<const char*, const Param*>>& params, Make make) {
  std::size_t n = 1;
  const char* longest = nullptr;
  for (const auto& [name, p] : params) {
    if (p->empty()) throw SamplingError(std::string(name) + ": no value");
    if (p->size() == 1) continue;
    if (longest && p->size() != n)
      throw SamplingError(std::string(name) + ": " + std::to_string(p->size()) + " components, " + longest + " has " +
                          std::to_string(n));
    n = p->size();
    longest = name;
  }
  std::vector<Marginal> components;
  for (std::size_t c = 0; c < n; ++c) {
    const auto at = [&](const Param& p) { return p.size() == 1 ? p[0] : p[c]; };
    components.push_back(make(at, n == 1 ? -1 : int(c)));
  }
  return Distribution(Componentwise{std::move(components)});
}

Distribution Distribution::fixed(const Param& value) {
  return from_params({{"value", &value}}, [&](auto at, int c) { return Marginal::fixed(at(value), c); });
}
Distribution Distribution::uniform(const Param& low, const Param& high) {
  return from_params({{"low", &low}, {"high", &high}},
                     [&](auto at, int c) { return Marginal::uniform(at(low), at(high), c); });
}
Distribution Distribution::normal(const Param& mean, const Param& stddev) {
  return from_params({{"mean", &mean}, {"stddev", &stddev}},
                     [&](auto at, int c) { return Marginal::normal(at(mean), at(stddev), c); });
}
Distribution Distribution::truncated_normal(const Param& mean, const Param& stddev, const Param& low, const Param& high) {
  return from_params({{"mean", &mean}, {"stddev", &stddev}, {"low", &low}, {"high", &high}}, [&](auto at, int c) {
    return Marginal::truncated_normal(at(mean), at(stddev), at(low), at(high), c);
  });
}
Distribution Distribution::log_normal(const Param& mu, const Param& sigma) {
  return from_params({{"mu", &mu}, {"sigma", &sigma}},
                     [&](auto at, int c) { return Marginal::log_normal(at(mu), at(sigma), c); });
}
Distribution Distribution::log_uniform(const Param& low, const Param& high) {
  return from_params({{"low", &low}, {"high", &high}},
                     [&](auto at, int c) { return Marginal::log_uniform(at(low), at(high), c); });
}
Distribution Distribution::componentwise(std::vector<Marginal> components) {
  if (components.empty()) throw SamplingError("components: no law");
  return Distribution(Componentwise{std::move(components)});
}

Distribution Distribution::choice(std::vector<std::vector<double>> values, std::vector<double> weights) {
  if (values.empty()) throw SamplingError("values: no value");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].size() != values[0].size())
      throw SamplingError("values[" + std::to_string(i) + "]: " + std::to_string(values[i].size()) +
                          " components, values[0] has " + std::to_string(values[0].size()));
    for (std::size_t c = 0; c < values[i].size(); ++c)
      if (!std::isfinite(values[i][c]))
        throw SamplingError("values[" + std::to_string(i) + "]: component " + std::to_string(c) + " is " +
                            format_number(values[i][c]) + ", must be finite");
  }
  if (values[0].empty()) throw SamplingError("values[0]: no component");
  if (weights.empty()) weights.assign(values.size(), 1.0);
  if (weights.size() != values.size())
    throw SamplingError("weights: " + std::to_string(weights.size()) + " weights for " + std::to_string(values.size()) +
                        " values");
  std::vector<double> cumulative(weights.size());
  double total = 0;
  for (std::size_t i = 0; i < weights.size(); ++i) {
    if (!(std::isfinite(weights[i]) && weights[i] >= 0))
      throw SamplingError("weights[" + std::to_string(i) + "]: " + format_number(weights[i]) + ", must be finite and >= 0");
    cumulative[i] = total += weights[i];
  }
  if (!(total > 0) || !std::isfinite(total)) throw SamplingError("weights: sum " + format_number(total) + ", must be finite and > 0");
  return Distribution(Choice{std::move(values), std::move(cumulative)});
}

Distribution Distribution::uniform_rotation() { return Distribution(UniformRotation{}); }

Distribution Distribution::rotation_cone(const std::array<double, 4>& mean, const std::array<double, 3>& body_axis,
                                         double half_angle, bool spin) {
  const Vec4d q(mean[0], mean[1], mean[2], mean[3]);
  const double norm = q.norm();
  if (!(std::abs(norm - 1) <= validation::unit_tolerance))
    throw SamplingError("mean: quaternion of norm " + format_number(norm) + ", must be 1 (to 1e-6)");
  require_half_angle(half_angle);
  const Vec3d b = unit_axis(body_axis, "body_axis");
  return Distribution(RotationCone{{q[0] / norm, q[1] / norm, q[2] / norm, q[3] / norm}, {b[0], b[1], b[2]}, half_angle, spin});
}

Distribution Distribution::axis_magnitude(const Direction& direction, const Marginal& magnitude) {
  const Vec3d a = unit_axis(direction.axis, "axis");
  require_half_angle(direction.half_angle);
  return Distribution(AxisMagnitude{{{a[0], a[1], a[2]}, direction.half_angle}, magnitude});
}

Distribution Distribution::principal_inertia(const Distribution& moments, InvalidPolicy invalid) {
  if (!std::holds_alternative<Componentwise>(moments.law_) && !std::holds_alternative<Choice>(moments.law_))
    throw SamplingError("moments: must be a component-wise law or a choice of values");
  return Distribution(PrincipalInertia{std::make_shared<const Distribution>(moments.for_dimension(3)), invalid});
}

Distribution Distribution::body_shape(Shape shape, std::vector<Marginal> dimensions, ShapeAmount amount_kind,
                                      const Marginal& amount, InvalidPolicy invalid) {
  if (int(dimensions.size()) != dimension_count(shape)) {
    std::string names;
    for (int d = 0; d < dimension_count(shape); ++d) names += std::string(d ? ", " : "") + dimension_name(shape, d);
    throw SamplingError(std::string(to_string(shape)) + ": " + std::to_string(dimensions.size()) +
                        " dimensions given, needs " + names);
  }
  return Distribution(BodyShape{shape, std::move(dimensions), amount_kind, amount, invalid});
}

// ---------------------------------------------------------------- shape of the law
int Distribution::dimension() const {
  return std::visit(Overloaded{[](const Componentwise& l) { return int(l.components.size()); },
                               [](const Choice& l) { return int(l.values[0].size()); },
                               [](const UniformRotation&) { return 4; }, [](const RotationCone&) { return 4; },
                               [](const AxisMagnitude&) { return 3; }, [](const PrincipalInertia&) { return 3; },
                               [](const BodyShape&) { return 3; }},
                    law_);
}

Distribution Distribution::for_dimension(int n) const {
  const int d = dimension();
  if (d == n) return *this;
  if (const auto* l = std::get_if<Componentwise>(&law_); l && d == 1 && n > 1)
    return Distribution(Componentwise{std::vector<Marginal>(n, l->components[0])});
  throw SamplingError("the law gives " + std::to_string(d) + " component" + (d == 1 ? "" : "s") + ", the key has " +
                      std::to_string(n));
}

int Distribution::uniforms() const {
  return std::visit(Overloaded{[](const Componentwise& l) { return int(l.components.size()); },
                               [](const Choice&) { return 1; }, [](const UniformRotation&) { return 3; },
                               [](const RotationCone&) { return 3; }, [](const AxisMagnitude&) { return 3; },
                               [](const PrincipalInertia& l) { return l.moments->uniforms(); },
                               [](const BodyShape&) { return 4; }},
                    law_);
}

bool Distribution::redraws_invalid() const {
  if (const auto* l = std::get_if<PrincipalInertia>(&law_)) return l->invalid == InvalidPolicy::redraw;
  if (const auto* l = std::get_if<BodyShape>(&law_)) return l->invalid == InvalidPolicy::redraw;
  return false;
}

bool Distribution::draws_mass() const { return std::holds_alternative<BodyShape>(law_); }

int Distribution::shape_dimensions() const {
  const auto* shape = std::get_if<BodyShape>(&law_);
  return shape ? dimension_count(shape->shape) : 0;
}

// ---------------------------------------------------------------- one attempt
Drawn Distribution::transform(const double* u) const {
  Drawn out;
  std::visit(
      Overloaded{
          [&](const Componentwise& l) {
            for (std::size_t c = 0; c < l.components.size(); ++c) out.value.push_back(l.components[c].quantile(u[c]));
          },
          [&](const Choice& l) {
            const double t = u[0] * l.cumulative.back();
            const auto at = std::upper_bound(l.cumulative.begin(), l.cumulative.end(), t) - l.cumulative.begin();
            out.value = l.values[std::min<std::size_t>(at, l.values.size() - 1)];
          },
          [&](const UniformRotation&) {  // Shoemake's subgroup algorithm
            double s1, c1, s2, c2;
            math::sincos(2 * pi * u[1], s1, c1);
            math::sincos(2 * pi * u[2], s2, c2);
            const double a = std::sqrt(1 - u[0]), b = std::sqrt(u[0]);
            out.value = {a * s1, a * c1, b * s2, b * c2};
          },
          [&](const RotationCone& l) {
            // q = r ∘ q0 ∘ s: q0 takes b to a0 = R(q0) b; r turns a0 by φ about a0 × w onto the drawn
            // direction (1 − t) a0 + √(t(2 − t)) w; s spins about b, which leaves R(q) b alone.
            const Vec4d q0(l.mean[0], l.mean[1], l.mean[2], l.mean[3]);
            const Vec3d b = to_vec(l.body_axis);
            const Vec3d a0 = (rotation_matrix(q0) * b).normalized();
            const CapPoint p = cap_point(a0, l.half_angle, u[0], u[1]);
            const Vec3d n = a0.cross(p.w);
            const double half_sin = std::sqrt(0.5 * p.t);  // sin(φ/2), sin²(φ/2) = (1 − cos φ)/2
            Vec4d q = quat_mul(Vec4d(std::sqrt(1 - 0.5 * p.t), half_sin * n[0], half_sin * n[1], half_sin * n[2]), q0);
            if (l.spin) {
              double s, c;
              math::sincos(pi * u[2], s, c);  // half of a spin angle uniform in [0, 2π)
              q = quat_mul(q, Vec4d(c, s * b[0], s * b[1], s * b[2]));
            }
            out.value = {q[0], q[1], q[2], q[3]};
          },
          [&](const AxisMagnitude& l) {
            const Vec3d d = cap_direction(to_vec(l.direction.axis), l.direction.half_angle, u[0], u[1]);
            const double m = l.magnitude.quantile(u[2]);
            out.value = {m * d[0], m * d[1], m * d[2]};
          },
          [&](const PrincipalInertia& l) {
            out = l.moments->transform(u);
            out.problem = inertia_problem({out.value[0], out.value[1], out.value[2]});
          },
          [&](const BodyShape& l) {
            std::array<double, 3> d{};
            for (std::size_t i = 0; i < l.dimensions.size(); ++i) {
              d[i] = l.dimensions[i].quantile(u[i]);
              if (!(d[i] > 0) && out.problem.empty())
                out.problem = std::string(dimension_name(l.shape, int(i))) + ": " + format_number(d[i]) + ", must be > 0";
            }
            const double amount = l.amount.quantile(u[3]);
            const char* amount_name = l.amount_kind == ShapeAmount::mass ? "mass" : "density";
            if (!(amount > 0) && out.problem.empty())
              out.problem = std::string(amount_name) + ": " + format_number(amount) + ", must be > 0";
            out.mass = l.amount_kind == ShapeAmount::mass ? amount : amount * volume(l.shape, d);
            out.density = l.amount_kind == ShapeAmount::density ? amount : amount / volume(l.shape, d);
            out.dimensions.assign(d.begin(), d.begin() + std::ptrdiff_t(l.dimensions.size()));
            const std::array<double, 3> moments = sampling::principal_inertia(l.shape, d, out.mass);
            out.value.assign(moments.begin(), moments.end());
            if (out.problem.empty()) out.problem = inertia_problem(moments);
          }},
      law_);
  return out;
}

// ---------------------------------------------------------------- drawing
Drawn Distribution::sample(std::uint64_t seed, index_t body, const std::string& key) const {
  RandomStream stream(seed, std::uint64_t(body), stream_id(key));
  std::vector<double> u(uniforms());
  for (int attempt = 0;; ++attempt) {
    for (double& x : u) x = stream.open_unit();
    Drawn d = transform(u.data());
    d.redraws = attempt;
    if (d.problem.empty() || !redraws_invalid()) return d;
    if (attempt == max_redraws)
      throw SamplingError(key + ": body " + std::to_string(body) + ": no valid body in " +
                          std::to_string(max_redraws + 1) + " draws (the last: " + d.problem + ")");
  }
}

std::vector<double> Distribution::draw(std::uint64_t seed, index_t body, const std::string& key) const {
  Drawn d = sample(seed, body, key);
  if (!d.problem.empty()) throw SamplingError(key + ": body " + std::to_string(body) + ": " + d.problem);
  return std::move(d.value);
}

void Distribution::check_supports(const std::string& key) const {
  if (const auto* l = std::get_if<PrincipalInertia>(&law_)) {
    if (const auto* list = std::get_if<Choice>(&l->moments->law_)) {
      for (const auto& v : list->values)
        if (inertia_problem({v[0], v[1], v[2]}).empty()) return;
      throw SamplingError(key + ": no listed value is a valid body (values[0]: " +
                          inertia_problem({list->values[0][0], list->values[0][1], list->values[0][2]}) + ")");
    }
    const auto& m = std::get<Componentwise>(l->moments->law_).components;
    for (int i = 0; i < 3; ++i)
      if (!(m[i].upper() > 0))
        throw SamplingError(key + ": moment " + std::to_string(i) + " can never be > 0 (its law's support is [" +
                            format_number(m[i].lower()) + ", " + format_number(m[i].upper()) + "])");
    for (int c = 0; c < 3; ++c) {  // I_a + I_b >= I_c (1 − 1e-12), as validation::inertia_problem
      const int a = (c + 1) % 3, b = (c + 2) % 3;
      if (m[a].upper() + m[b].upper() < m[c].lower() * (1 - 1e-12))
        throw SamplingError(key + ": moments " + std::to_string(a) + " + " + std::to_string(b) + " can never reach moment " +
                            std::to_string(c) + " (at most " + format_number(m[a].upper() + m[b].upper()) +
                            ", moment " + std::to_string(c) + " at least " + format_number(m[c].lower()) +
                            "): I1 + I2 >= I3 never holds");
    }
  } else if (const auto* l = std::get_if<BodyShape>(&law_)) {
    const auto never_positive = [&](const Marginal& m, const std::string& name) {
      if (!(m.upper() > 0))
        throw SamplingError(key + ": " + name + " can never be > 0 (its law's support is [" + format_number(m.lower()) +
                            ", " + format_number(m.upper()) + "])");
    };
    for (std::size_t i = 0; i < l->dimensions.size(); ++i) never_positive(l->dimensions[i], dimension_name(l->shape, int(i)));
    never_positive(l->amount, l->amount_kind == ShapeAmount::mass ? "mass" : "density");
  }
}

void Distribution::check(std::uint64_t seed, const std::string& key) const {
  check_supports(key);
  if (!redraws_invalid()) return;
  RandomStream stream(seed, global_stream(GlobalStream::validity_probe, 0), stream_id(key));
  std::vector<double> u(uniforms());
  int valid = 0;
  std::string problem;
  for (int i = 0; i < probe_draws; ++i) {
    for (double& x : u) x = stream.open_unit();
    const Drawn d = transform(u.data());
    if (d.problem.empty()) ++valid;
    else problem = d.problem;
  }
  if (valid < probe_minimum_valid)
    throw SamplingError(key + ": only " + std::to_string(valid) + " of " + std::to_string(probe_draws) +
                        " trial draws are valid bodies (e.g. " + problem + "), fewer than " +
                        std::to_string(probe_minimum_valid) + ": the law almost never gives a physical body");
}

}  // namespace quatstep::sampling
