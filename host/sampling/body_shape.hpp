// Principal moments of inertia of homogeneous solids about their centre of mass, in body axes, and
// their volumes: the inertia of a body drawn by its shape is physical by construction (it satisfies
// I1 + I2 >= I3 for every ordering). Formulas: the table of homogeneous solids in any dynamics text,
// e.g. J. L. Meriam, L. G. Kraige, "Engineering Mechanics: Dynamics" (appendix tables); the cone's
// transverse moment about its centre of mass by the parallel-axis theorem from the base-plane value
// m(3r²/20 + h²/10), the centre of mass lying h/4 above the base. tests/sampling_test.cpp checks
// each against an independent integration over slices:
//   box, edges a, b, c along x, y, z     I = m/12 (b² + c², a² + c², a² + b²)      V = abc
//   ellipsoid, semi-axes a, b, c         I = m/5 (b² + c², a² + c², a² + b²)       V = 4π/3 abc
//   cylinder, radius r, height h (z)     I = m (3r² + h²)/12 (x, y), m r²/2 (z)    V = π r² h
//   cone, base radius r, height h (z)    I = m (3r²/20 + 3h²/80) (x, y), 3 m r²/10 (z)   V = π r² h / 3
#pragma once

#include <array>

namespace quatstep::sampling {

enum class Shape { box, ellipsoid, cylinder, cone };

/// The shape's name as in a scenario file ("box", ...) and its dimension names in order: box
/// "length_x", "length_y", "length_z" (full edges); ellipsoid "semi_axis_x", "semi_axis_y",
/// "semi_axis_z"; cylinder and cone "radius", "height" (symmetry axis body z).
const char* to_string(Shape shape);
int dimension_count(Shape shape);
const char* dimension_name(Shape shape, int d);

/// Volume of the shape with dimensions d (the unused third one of a cylinder or cone is ignored).
double volume(Shape shape, const std::array<double, 3>& d);
/// Principal moments (x, y, z) about the centre of mass for mass m.
std::array<double, 3> principal_inertia(Shape shape, const std::array<double, 3>& d, double m);

}  // namespace quatstep::sampling
