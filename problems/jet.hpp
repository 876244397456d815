// A second-order forward-mode jet: f, f', f'' with respect to one variable (time). Exact
// derivatives by the chain rule, no finite differences; enough for Ω and Ω̇ of a given rotation.
#pragma once

#include <cmath>

namespace quatstep::testing {

struct Jet {
  double v = 0, d = 0, dd = 0;  // f, f', f''
  static Jet variable(double t) { return {t, 1, 0}; }
  static Jet constant(double c) { return {c, 0, 0}; }
};

inline Jet operator+(Jet a, Jet b) { return {a.v + b.v, a.d + b.d, a.dd + b.dd}; }
inline Jet operator-(Jet a, Jet b) { return {a.v - b.v, a.d - b.d, a.dd - b.dd}; }
inline Jet operator-(Jet a) { return {-a.v, -a.d, -a.dd}; }
inline Jet operator*(double c, Jet a) { return {c * a.v, c * a.d, c * a.dd}; }
inline Jet operator*(Jet a, Jet b) {  // (fg)'' = f''g + 2f'g' + fg''
  return {a.v * b.v, a.d * b.v + a.v * b.d, a.dd * b.v + 2 * a.d * b.d + a.v * b.dd};
}
inline Jet operator/(Jet a, Jet b) {  // q = f/g: q' = (f' − q g')/g, q'' = (f'' − 2q'g' − q g'')/g
  const double q = a.v / b.v, qd = (a.d - q * b.d) / b.v;
  return {q, qd, (a.dd - 2 * qd * b.d - q * b.dd) / b.v};
}
inline Jet sin(Jet a) {
  const double s = std::sin(a.v), c = std::cos(a.v);
  return {s, c * a.d, c * a.dd - s * a.d * a.d};
}
inline Jet cos(Jet a) {
  const double s = std::sin(a.v), c = std::cos(a.v);
  return {c, -s * a.d, -s * a.dd - c * a.d * a.d};
}
inline Jet sqrt(Jet a) {  // r² = f: r' = f'/(2r), r'' = (f'' − 2r'²)/(2r)
  const double r = std::sqrt(a.v), rd = a.d / (2 * r);
  return {r, rd, (a.dd - 2 * rd * rd) / (2 * r)};
}

}  // namespace quatstep::testing
