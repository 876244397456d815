// EML (Kinon & Betsch 2024 eqs. 86a–86d, REML form, torque at t^{n+½} per docs/errata.md K5) on Zupan
// §IV.A case (ii), through the adapter of zupan_livens.hpp: second order, as the work–precision
// comparison (bench/zupan_work_precision.cpp) assumes.
#include <gtest/gtest.h>

#include <cmath>

#include "zupan_livens.hpp"

using quatstep::testing::max_geodesic_error;
using quatstep::testing::ZupanLivensEm;
using quatstep::testing::ZupanPrescribedBody;

TEST(ZupanLivens, EmlIsSecondOrderOnCaseTwo) {
  const ZupanPrescribedBody body(2);
  const ZupanLivensEm eml;
  // The error of docs/errata.md Z6: the max geodesic error over [0, 5π].
  const double e0 = max_geodesic_error(eml, body, 0.02), e1 = max_geodesic_error(eml, body, 0.005);
  const double p = std::log(e0 / e1) / std::log(0.02 / 0.005);
  // measured: errors 1.831e-3 (h = 0.02), 1.145e-4 (h = 0.005), order 2.00. Without the adapter
  // (LivensEm<ZupanPrescribedBody> reads only the zero `loads`) the error is 3.13–3.14 rad at
  // every h from 0.04 to 0.0025.
  EXPECT_GE(p, 1.9) << "EML case (ii) order " << p << " (errors " << e0 << ", " << e1 << ")";
  EXPECT_LE(p, 2.1) << "EML case (ii) order " << p << " (errors " << e0 << ", " << e1 << ")";
  EXPECT_LT(e1, 2e-4) << "EML case (ii) error at h = 0.005: " << e1;
}
