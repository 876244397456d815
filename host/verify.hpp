// `quatstep verify`: the papers' benchmark studies that quatstep can rerun, each figure the paper
// publishes set against what this build measures and what the project expects where the paper is
// wrong (docs/errata.md):
//   spin_up      Sherif §3–7: exact spin-up of the modified HHT (eq. 42), the classical form's
//                terminal spin (eq. 28; docs/errata.md S5)
//   heavy_top    Sherif §10.1: observed orders of e_ω against an RK4 reference (docs/errata.md S3;
//                docs/second_order_hht.md)
//   eml          Kinon & Betsch §5.3: EML (reduced) conserves the generalized energy, the spatial
//                angular momentum and |q| = 1 on the free rotation at h = 0.05 over [0, 100]
//   zupan        Zupan & Zupan §IV.A case (ii): maximum rotation-angle error of Simo–Vu-Quoc and the
//                third-order scheme at h = 0.05 and 0.01 (docs/errata.md Z6)
//   four_bar     Kinon & Betsch §5.5: the closed four-bar loop (docs/errata.md K5) under the modified
//                HHT with the shift: the load's impulse, closed joints, energy and angular momentum
//                against RK4
//   four_bar_eml the same loop under the Livens EML at h = 0.1 (Fig. 16): energy (74), linear and
//                angular momentum conserved with the equivariant joint gradient; the midpoint
//                gradient's angular-momentum drift (docs/errata.md K5)
// Writes verify.md (the table), verify.csv and per-study CSVs of the curves; plots are drawn from
// those by python/quatstep/plot.py --verify. The studies compile into their own program,
// quatstep-verify (verify_main.cpp), which `quatstep verify` runs (companion.hpp): a minute of compiler
// time that the command's first build (README) does not need.
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace quatstep {

/// One published figure and its measurement.
struct VerifiedFigure {
  std::string study, quantity;
  std::string published;  ///< as the paper states it
  std::string expected;   ///< what the project holds (the paper's, or docs/errata.md's correction)
  double measured;
  bool agrees;            ///< measured within the expected figure's stated tolerance
};

/// Runs the studies (fast: fewer and coarser steps in the convergence study, a few seconds in all)
/// and writes their CSV files into `directory` (created). Returns the figures in study order.
std::vector<VerifiedFigure> verify_papers(const std::string& directory, bool fast);

/// The table as Markdown (verify.md) and CSV (verify.csv).
void write_verify_table(std::ostream& markdown, std::ostream& csv, const std::vector<VerifiedFigure>& figures);

/// `quatstep verify`: runs the studies, writes verify.md and verify.csv into `directory`, prints the
/// table and draws the plots (python/quatstep/plot.py --verify; a missing python3 only warns).
/// Returns the exit status: 0 when every figure agrees, 2 otherwise.
int verify_command(const std::string& directory, bool fast);

}  // namespace quatstep
