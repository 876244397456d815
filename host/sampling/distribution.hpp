// The law of one scenario key's value for each body: `draw(seed, body, key)` gives body `body`'s value
// of `key` as a function of those three alone (counter_rng.hpp), so it is the same on any thread,
// backend, chunk or shard and for any ensemble size.
//
// Laws (validating factories; a bad parameter is a SamplingError naming it, "stddev: -1, must be >= 0"):
//   component-wise   fixed, uniform, normal, truncated_normal, log_normal, log_uniform (marginal.hpp):
//                    one Param per parameter, one number per component or one for every component;
//                    components are independent, each takes its own uniform
//   choice           one of a list of values (each a whole vector), with optional weights
//   uniform_rotation unit quaternions uniform on SO(3) (Shoemake, "Uniform random rotations",
//                    Graphics Gems III, 1992)
//   rotation_cone    orientations whose body axis b points uniformly into the cone of half-angle θ about
//                    its direction in the mean orientation q0 (uniform on that spherical cap), reached
//                    from q0 by the smallest rotation, optionally followed by a uniform spin about b
//   axis_magnitude   a vector direction × magnitude: the direction uniform on a cap about an axis
//                    (half-angle 0: the axis itself, π: the whole sphere), the magnitude any scalar law
//   principal_inertia  principal moments drawn component-wise (or from a list) and kept physical:
//                    all > 0 and I1 + I2 >= I3 for every ordering, as validation::inertia_problem
//                    decides for the models; invalid = redraw draws again from the same stream until
//                    the body is valid (Drawn::redraws counts), invalid = fail reports the body
//   body_shape       principal moments of a homogeneous box, ellipsoid, cylinder or cone (body_shape.hpp)
//                    from sampled dimensions and a sampled mass or density; Drawn::mass is the mass
//
// Uniforms: each law takes a fixed number of uniforms per attempt (uniforms()); attempt a of a body
// uses values a·uniforms() … (a + 1)·uniforms() − 1 of its stream. transform() maps one attempt's
// uniforms to a value, which is what the joint designs (design.hpp) call with their own points.
//
// Before drawing, check(seed, key) rejects a law that can (almost) never give a valid body: an
// analytic test on the supports (a moment that cannot be > 0, I_a + I_b that cannot reach I_c, a shape
// dimension that cannot be > 0), then, for invalid = redraw, a probe of 10⁴ draws that must find at
// least 10 valid ones. That bounds the redraws a body needs: with an acceptance of at least ~1e-3, a
// body needing more than max_redraws = 10⁵ has probability ~e⁻¹⁰⁰; if it happens anyway, draw()
// throws naming the key and the body.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "quatstep/ensemble.hpp"
#include "sampling/body_shape.hpp"
#include "sampling/marginal.hpp"

namespace quatstep::sampling {

/// What to do with a drawn body that is not physical (scenario names: host/scenario.hpp invalid_names).
enum class InvalidPolicy { redraw, fail };

/// Directions uniform on the spherical cap of half-angle `half_angle` ∈ [0, π] about `axis` (any
/// nonzero length): 0 gives the axis itself, π the whole sphere.
struct Direction {
  std::array<double, 3> axis{0, 0, 1};
  double half_angle = 0;
  static Direction uniform() { return {{0, 0, 1}, 3.14159265358979323846}; }
};

/// Either the body's mass or its density (mass = density × volume) of a body_shape.
enum class ShapeAmount { mass, density };

/// One body's value of a key.
struct Drawn {
  std::vector<double> value;
  double mass = std::numeric_limits<double>::quiet_NaN();  ///< body_shape only
  std::vector<double> dimensions;  ///< body_shape only: the shape's dimensions (dimension_name order)
  double density = std::numeric_limits<double>::quiet_NaN();  ///< body_shape only: mass / volume
  int redraws = 0;      ///< invalid draws thrown away before this one (invalid = redraw)
  std::string problem;  ///< why the value is not a valid body (invalid = fail); empty if it is
};

class Distribution {
 public:
  /// One number per component, or one for every component.
  using Param = std::vector<double>;

  // ------------------------------------------------------------ component-wise laws
  static Distribution fixed(const Param& value);
  static Distribution uniform(const Param& low, const Param& high);
  static Distribution normal(const Param& mean, const Param& stddev);
  static Distribution truncated_normal(const Param& mean, const Param& stddev, const Param& low, const Param& high);
  static Distribution log_normal(const Param& mu, const Param& sigma);
  static Distribution log_uniform(const Param& low, const Param& high);
  /// Any scalar laws, one per component.
  static Distribution componentwise(std::vector<Marginal> components);

  // ------------------------------------------------------------ whole-value laws
  /// values: at least one, all of one length, finite; weights: empty (equal) or one per value, each
  /// finite and >= 0, not all 0.
  static Distribution choice(std::vector<std::vector<double>> values, std::vector<double> weights = {});
  static Distribution uniform_rotation();
  /// mean: unit quaternion (scalar first, |‖q‖ − 1| <= 1e-6, normalised); body_axis: nonzero;
  /// half_angle ∈ [0, π] in radians; spin: add a rotation about body_axis uniform in [0, 2π).
  static Distribution rotation_cone(const std::array<double, 4>& mean, const std::array<double, 3>& body_axis,
                                    double half_angle, bool spin);
  static Distribution axis_magnitude(const Direction& direction, const Marginal& magnitude);
  /// moments: a component-wise law (broadcast to 3) or a choice of 3-vectors.
  static Distribution principal_inertia(const Distribution& moments, InvalidPolicy invalid);
  /// dimensions: dimension_count(shape) laws in the order of dimension_name(shape, d).
  static Distribution body_shape(Shape shape, std::vector<Marginal> dimensions, ShapeAmount amount_kind,
                                 const Marginal& amount, InvalidPolicy invalid);

  // ------------------------------------------------------------ use
  /// Components of a value; a component-wise law given only scalars has 1 until for_dimension.
  int dimension() const;
  /// The law for a key of n components: scalar parameters of a component-wise law are repeated (the
  /// components stay independent); any other mismatch is a SamplingError ("gives 4 components, the
  /// key has 3").
  Distribution for_dimension(int n) const;
  /// Uniforms one attempt takes.
  int uniforms() const;
  /// invalid = redraw (only principal_inertia and body_shape can draw invalid bodies).
  bool redraws_invalid() const;
  /// A body_shape: Drawn::mass is the body's mass.
  bool draws_mass() const;
  /// A body_shape's number of dimensions (Drawn::dimensions); 0 for any other law.
  int shape_dimensions() const;

  /// One attempt from `u` (uniforms() values in (0, 1)); Drawn::problem says why it is not valid.
  Drawn transform(const double* u) const;
  /// Body `body`'s value of `key`, redrawing invalid bodies under invalid = redraw; an invalid body
  /// under invalid = fail comes back with its problem (for the caller to reject or mark).
  Drawn sample(std::uint64_t seed, index_t body, const std::string& key) const;
  /// The value alone; an invalid body is a SamplingError "model.inertia: body 17: …".
  std::vector<double> draw(std::uint64_t seed, index_t body, const std::string& key) const;
  /// Throws a SamplingError naming `key` if the law can (almost) never give a valid body (above).
  void check(std::uint64_t seed, const std::string& key) const;

  static constexpr int max_redraws = 100000;
  static constexpr int probe_draws = 10000;
  static constexpr int probe_minimum_valid = 10;

 private:
  struct Componentwise {
    std::vector<Marginal> components;
  };
  struct Choice {
    std::vector<std::vector<double>> values;
    std::vector<double> cumulative;  ///< running sums of the weights
  };
  struct UniformRotation {};
  struct RotationCone {
    std::array<double, 4> mean;
    std::array<double, 3> body_axis;
    double half_angle;
    bool spin;
  };
  struct AxisMagnitude {
    Direction direction;
    Marginal magnitude;
  };
  struct PrincipalInertia {
    std::shared_ptr<const Distribution> moments;
    InvalidPolicy invalid;
  };
  struct BodyShape {
    Shape shape;
    std::vector<Marginal> dimensions;
    ShapeAmount amount_kind;
    Marginal amount;
    InvalidPolicy invalid;
  };
  using Law = std::variant<Componentwise, Choice, UniformRotation, RotationCone, AxisMagnitude, PrincipalInertia, BodyShape>;

  explicit Distribution(Law law) : law_(std::move(law)) {}
  /// A component-wise law from per-component parameters, broadcast to a common length.
  template <class Make>
  static Distribution from_params(const std::vector<std::pair<const char*, const Param*>>& params, Make make);
  /// The analytic part of check().
  void check_supports(const std::string& key) const;

  Law law_;
};

}  // namespace quatstep::sampling
