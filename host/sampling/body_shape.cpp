#include "sampling/body_shape.hpp"

namespace quatstep::sampling {
namespace {
constexpr double pi = 3.14159265358979323846;
}

const char* to_string(Shape shape) {
  switch (shape) {
    case Shape::box: return "box";
    case Shape::ellipsoid: return "ellipsoid";
    case Shape::cylinder: return "cylinder";
    case Shape::cone: return "cone";
  }
  return "unknown";
}

int dimension_count(Shape shape) { return shape == Shape::box || shape == Shape::ellipsoid ? 3 : 2; }

const char* dimension_name(Shape shape, int d) {
  static const char* const box[] = {"length_x", "length_y", "length_z"};
  static const char* const ellipsoid[] = {"semi_axis_x", "semi_axis_y", "semi_axis_z"};
  static const char* const round[] = {"radius", "height", ""};
  switch (shape) {
    case Shape::box: return box[d];
    case Shape::ellipsoid: return ellipsoid[d];
    default: return round[d];
  }
}

double volume(Shape shape, const std::array<double, 3>& d) {
  switch (shape) {
    case Shape::box: return d[0] * d[1] * d[2];
    case Shape::ellipsoid: return 4 * pi / 3 * d[0] * d[1] * d[2];
    case Shape::cylinder: return pi * d[0] * d[0] * d[1];
    case Shape::cone: return pi * d[0] * d[0] * d[1] / 3;
  }
  return 0;
}

std::array<double, 3> principal_inertia(Shape shape, const std::array<double, 3>& d, double m) {
  const double a2 = d[0] * d[0], b2 = d[1] * d[1], c2 = d[2] * d[2];
  switch (shape) {
    case Shape::box: return {m * (b2 + c2) / 12, m * (a2 + c2) / 12, m * (a2 + b2) / 12};
    case Shape::ellipsoid: return {m * (b2 + c2) / 5, m * (a2 + c2) / 5, m * (a2 + b2) / 5};
    case Shape::cylinder: {  // a = radius, b = height
      const double transverse = m * (3 * a2 + b2) / 12;
      return {transverse, transverse, m * a2 / 2};
    }
    case Shape::cone: {
      const double transverse = m * (3 * a2 / 20 + 3 * b2 / 80);
      return {transverse, transverse, 3 * m * a2 / 10};
    }
  }
  return {};
}

}  // namespace quatstep::sampling
