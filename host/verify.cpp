// The studies of `quatstep verify` (verify.hpp), on the papers' reference problems of problems/ (shared
// with the tests and bench/).
#include "verify.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <stdexcept>

#include "quatstep/integrators/hht.hpp"
#include "quatstep/integrators/livens_em.hpp"
#include "quatstep/integrators/simo_vu_quoc.hpp"
#include "quatstep/integrators/zupan3.hpp"
#include "quatstep/mechanism/hht.hpp"
#include "quatstep/mechanism/livens.hpp"
#include "quatstep/mechanism/observables.hpp"
#include "mechanism_reference.hpp"
#include "mechanisms.hpp"
#include "plot_command.hpp"
#include "reference/angular_velocity_error.hpp"
#include "reference/sherif_heavy_top.hpp"
#include "zupan_rotation_field.hpp"

namespace quatstep {
namespace {

using Top = HeavyTop<double>;

std::string text(double x) {
  std::ostringstream os;
  os << std::setprecision(4) << x;
  return os.str();
}

/// A CSV file of columns in `directory`.
class Csv {
 public:
  Csv(const std::string& directory, const std::string& name, const std::string& header)
      : out_(std::filesystem::path(directory) / name) {
    if (!out_) throw std::runtime_error(directory + "/" + name + ": cannot write");
    out_ << header << "\n" << std::setprecision(17);
  }
  template <class... T>
  void row(const T&... values) {
    int k = 0;
    ((out_ << (k++ ? "," : "") << values), ...);
    out_ << "\n";
  }

 private:
  std::ofstream out_;
};

HhtSettings<double> hht(double alpha, bool inertia_shift) {
  HhtSettings<double> s;
  s.alpha = alpha;
  s.inertia_shift = inertia_shift;
  s.newton.tolerance = 1e-14;  // the claims are about the methods, not the stopping rule (tests/spin_up_test.cpp)
  return s;
}

// ---------------------------------------------------------------- Sherif §3–7: spin-up
void spin_up(const std::string& dir, std::vector<VerifiedFigure>& out) {
  constexpr double h = 0.01, alpha = -0.2;
  constexpr long steps = 10000;  // t = 100
  Top body;
  body.inertia = Mat3<double>::Identity();
  body.loads.body_torque.constant = Vec3<double>(1, 0, 0);
  const ModifiedHht<Top> exact(hht(0, false));
  const Hht<Top> classical(hht(alpha, false));
  ModifiedHht<Top>::State a;
  Hht<Top>::State b;
  const RigidBodyKinematics<double> rest;
  exact.initialize(body, rest, 0, a);
  classical.initialize(body, rest, 0, b);
  Csv csv(dir, "spin_up.csv", "t,omega_modified_hht,omega_classical_hht,exact");
  csv.row(0, 0, 0, 0);
  for (long k = 0; k < steps; ++k) {
    exact.step(body, a, double(k) * h, h);
    classical.step(body, b, double(k) * h, h);
    if ((k + 1) % 10 == 0)
      csv.row(double(k + 1) * h, exact.kinematics(body, a).omega_body[0], classical.kinematics(body, b).omega_body[0],
              double(k + 1) * h);
  }
  const double w_exact = exact.kinematics(body, a).omega_body[0], w_classical = classical.kinematics(body, b).omega_body[0];
  const double terminal = std::cbrt(4.0 / (-alpha * h));
  const double error = std::abs(w_exact - 100) / 100;
  out.push_back({"spin-up (Sherif §7)", "modified HHT α = 0, h = 0.01: |ω_x(100) − 100|/100",
                 "0: exact spin-up (eq. 42)", "<= 1e-12", error, error <= 1e-12});
  out.push_back({"spin-up (Sherif §7)", "classical HHT α = −0.2, h = 0.01: ω_x(100)",
                 "levels off (eq. 28)", "ω∞ = (4M/(|α|Ih))^(1/3) = " + text(terminal) + " to 1e-3 (docs/errata.md S5)",
                 w_classical, std::abs(w_classical / terminal - 1) <= 1e-3});
}

// ---------------------------------------------------------------- Sherif §10.1: heavy-top orders
void heavy_top(const std::string& dir, bool fast, std::vector<VerifiedFigure>& out) {
  using namespace reference;
  const std::vector<double> hs = fast ? std::vector<double>{1e-4, 5e-5} : std::vector<double>{1e-4, 5e-5, 2.5e-5};
  const HeavyTopReference ref(sherif_heavy_top(), sherif_heavy_top_initial(), sherif_heavy_top_reference_step,
                              std::lround(sherif_heavy_top_end_time / sherif_heavy_top_reference_step));
  Csv csv(dir, "heavy_top.csv", "method,h,e_omega");
  const auto order = [&](const std::string& name, const auto& integrator) {
    std::vector<double> e;
    for (double h : hs) {
      e.push_back(measure_run(integrator, sherif_heavy_top(), sherif_heavy_top_initial(), ref, h,
                              std::lround(sherif_heavy_top_end_time / h)).e_omega);
      csv.row(name, h, e.back());
    }
    return std::log(e.front() / e.back()) / std::log(hs.front() / hs.back());
  };
  SimoVuQuocSettings<double> svq;
  svq.alpha = -0.2;
  const double modified = order("modified HHT", ModifiedHht<Top>(hht(-0.2, false)));
  const double simo = order("Simo-Vu-Quoc", SimoVuQuoc<Top>(svq));
  const double shifted = order("modified HHT + inertia shift", ModifiedHht<Top>(hht(-0.2, true)));
  const std::string range = " (h = " + text(hs.front()) + " … " + text(hs.back()) + ")";
  out.push_back({"heavy top (Sherif §10.1)", "modified HHT α = −0.2: observed order of e_ω" + range,
                 "2 (\"second order convergence\")", "1 ± 0.15 (docs/errata.md S3)", modified, std::abs(modified - 1) <= 0.15});
  out.push_back({"heavy top (Sherif §10.1)", "Simo–Vu-Quoc α = −0.2: observed order of e_ω" + range, "2",
                 "2 ± 0.1", simo, std::abs(simo - 2) <= 0.1});
  out.push_back({"heavy top (Sherif §10.1)", "modified HHT α = −0.2 + inertia shift: observed order" + range,
                 "– (not in the paper)", "2 ± 0.1 (docs/second_order_hht.md)", shifted, std::abs(shifted - 2) <= 0.1});
}

// ---------------------------------------------------------------- Kinon & Betsch §5.3: EML
void eml(const std::string& dir, std::vector<VerifiedFigure>& out) {
  constexpr double h = 0.05;
  constexpr long steps = 2000;  // t = 100
  Top body;  // zero lever and mass: rotation about the centre of mass
  body.inertia = Vec3<double>(6, 8, 3).asDiagonal();
  RigidBodyKinematics<double> k0;
  k0.omega_body = {10, 20, 20};
  const LivensEm<Top> scheme;
  LivensEm<Top>::State s;
  scheme.initialize(body, k0, 0, s);
  const double e0 = scheme.generalized_energy(body, s);
  const Vec3<double> L0 = scheme.angular_momentum(body, s);  // the scheme's momentum map (Kinon eq. 75)
  double energy = 0, momentum = 0, unity = 0;
  Csv csv(dir, "eml.csv", "t,energy_drift,momentum_drift,unity_drift");
  for (long k = 0; k < steps; ++k) {
    scheme.step(body, s, double(k) * h, h);
    const RigidBodyKinematics<double> kin = scheme.kinematics(body, s);
    const double de = std::abs(scheme.generalized_energy(body, s) - e0) / std::abs(e0);
    const double dl = (scheme.angular_momentum(body, s) - L0).norm() / L0.norm();
    const double dq = std::abs(kin.quaternion.norm() - 1);
    energy = std::max(energy, de), momentum = std::max(momentum, dl), unity = std::max(unity, dq);
    csv.row(double(k + 1) * h, de, dl, dq);
  }
  const std::string study = "free rotation, EML (Kinon & Betsch §5.3)";
  out.push_back({study, "max |E − E0|/E0 of the generalized energy (eq. 74), h = 0.05, t ≤ 100", "conserved",
                 "<= 1e-12 (round-off)", energy, energy <= 1e-12});
  out.push_back({study, "max ‖L − L0‖/‖L0‖, spatial angular momentum (the scheme's momentum map)", "conserved", "<= 1e-12 (round-off)", momentum,
                 momentum <= 1e-12});
  out.push_back({study, "max | |q| − 1 |", "conserved", "<= 1e-12 (round-off)", unity, unity <= 1e-12});
}

// ---------------------------------------------------------------- Zupan & Zupan §IV.A case (ii)
void zupan(const std::string& dir, std::vector<VerifiedFigure>& out) {
  using testing::ZupanPrescribedBody;
  const ZupanPrescribedBody body(2);
  SimoVuQuocSettings<double> newmark;  // the paper's Newmark form: β = 1/4, γ = 1/2, i.e. α = 0
  newmark.alpha = 0;
  const SimoVuQuoc<ZupanPrescribedBody> svq(newmark);
  const Zupan3<ZupanPrescribedBody> third;
  Csv csv(dir, "zupan.csv", "method,h,max_angle_error");
  const auto figure = [&](const std::string& name, const auto& integrator, double h, double published) {
    const double e = testing::max_geodesic_error(integrator, body, h);
    csv.row(name, h, e);
    out.push_back({"prescribed rotation, case (ii) (Zupan §IV.A)",
                   name + ", h = " + text(h) + ": max angle error on [0, 5π]", text(published),
                   "within a factor 1.5 of the paper (docs/errata.md Z6)", e, e <= 1.5 * published && e >= published / 1.5});
  };
  figure("Simo–Vu-Quoc", svq, 0.05, 0.084);
  figure("Zupan3", third, 0.05, 0.0022);
  figure("Simo–Vu-Quoc", svq, 0.01, 0.0035);
  figure("Zupan3", third, 0.01, 0.000017);
}

// ---------------------------------------------------------------- Kinon & Betsch §5.5: the four-bar loop
// The HHT family on the loop of the paper (docs/errata.md K5's data, tests/mechanism_four_bar_test.cpp):
// the load's impulse in the linear momentum, the joints closed to round-off, and energy and angular
// momentum after the load against an RK4 reference. The paper's own claims, for the Livens EML: below.
void four_bar(const std::string& dir, bool fast, std::vector<VerifiedFigure>& out) {
  using Cap = mechanism::SmallCapacity;
  using Mech = mechanism::Mechanism<double, Cap>;
  constexpr double t_end = 10.0, h = 0.01;
  const testing::TestMechanism<Cap> tm = testing::four_bar<Cap>();
  const double h_ref = fast ? 2e-3 : 1e-3;
  const testing::Rk4Reference<Mech> ref(tm.mech, tm.initial, h_ref, std::lround(t_end / h_ref), std::lround(0.1 / h_ref));
  if (ref.status != Status::ok) throw std::runtime_error("four-bar: the RK4 reference failed");
  const auto exact = mechanism::observe(tm.mech, ref.samples.back().q, ref.samples.back().v, t_end);
  mechanism::MechanismHhtSettings<double> settings;
  settings.alpha = -0.2;
  settings.inertia_shift = true;
  const mechanism::MechanismModifiedHht<Mech> hht(settings);
  mechanism::MechanismModifiedHht<Mech>::State s;
  if (hht.initialize(tm.mech, tm.initial, 0.0, s) != Status::ok) throw std::runtime_error("four-bar: no consistent start");
  Csv csv(dir, "four_bar.csv", "t,energy,linear_momentum_x,angular_momentum_norm,position_residual");
  double residual = 0;
  const long steps = std::lround(t_end / h);
  for (long k = 0; k < steps; ++k) {
    if (hht.step(tm.mech, s, double(k) * h, h).status != Status::ok) throw std::runtime_error("four-bar: a step failed");
    const auto o = mechanism::observe(tm.mech, s.q, s.v, double(k + 1) * h);
    residual = std::max(residual, o.position_residual);
    if ((k + 1) % 10 == 0) csv.row(double(k + 1) * h, o.energy, o.linear_momentum[0], o.angular_momentum.norm(), o.position_residual);
  }
  const auto end = mechanism::observe(tm.mech, s.q, s.v, t_end);
  const Vec3<double> impulse(400.0, 0.0, 0.0);  // 8·∫f dt e₁ = 8 · f_m/2
  const double p = (end.linear_momentum - impulse).norm() / impulse.norm();
  const double e = std::abs(end.energy - exact.energy) / exact.energy;
  const double l = (end.angular_momentum - exact.angular_momentum).norm() / exact.angular_momentum.norm();
  const std::string study = "four-bar loop (Kinon & Betsch §5.5, docs/errata.md K5)";
  const std::string method = "modified HHT α = −0.2 + shift, h = 0.01: ";
  out.push_back({study, method + "|p(10) − 400 e₁|/400 (the load's impulse)", "conserved after the load",
                 "<= 1e-13 (round-off)", p, p <= 1e-13});
  out.push_back({study, method + "max |C| of the joints over [0, 10]", "0 (closed loop)", "<= 1e-11", residual,
                 residual <= 1e-11});
  out.push_back({study, method + "|E(10) − E_ref|/E_ref against RK4 (h = " + text(h_ref) + ")",
                 "conserved (EML; HHT dissipates)", "<= 1e-5", e, e <= 1e-5});
  out.push_back({study, method + "‖L(10) − L_ref‖/‖L_ref‖", "conserved (EML)", "<= 1e-4 (second order in h)", l,
                 l <= 1e-4});
}

// ---------------------------------------------------------------- Kinon & Betsch §5.5 with EML (Fig. 16)
// The paper's claims for the loop: once the load is off, the Livens EML conserves the generalized
// energy (74) and the angular momentum (Fig. 16), at h = 0.1 (Table 5). With the G-equivariant joint
// gradient (mechanism/livens.hpp) both hold to round-off; with the midpoint gradient the angular
// momentum drifts (docs/errata.md K5; tests/mechanism_livens_test.cpp).
void four_bar_eml(const std::string& dir, std::vector<VerifiedFigure>& out) {
  using Cap = mechanism::SmallCapacity;
  using Mech = mechanism::Mechanism<double, Cap>;
  constexpr double h = 0.1;
  constexpr long steps = 100;  // t = 10
  const testing::TestMechanism<Cap> tm = testing::four_bar<Cap>();
  struct Drift {
    double energy = 0, linear = 0, angular = 0;
    std::vector<double> e, l;  // per step from t = 1
  };
  const auto run = [&](mechanism::ConstraintGradient g) {
    mechanism::MechanismLivensSettings<double> settings;
    settings.gradient = g;
    settings.newton.tolerance = 1e-14;  // conservation at round-off needs the Newton error below it
    const mechanism::MechanismLivensEm<Mech> eml(settings);
    mechanism::MechanismLivensEm<Mech>::State s;
    if (eml.initialize(tm.mech, tm.initial, 0.0, s) != Status::ok) throw std::runtime_error("four-bar EML: no consistent start");
    Drift d;
    double e1 = 0;
    Vec3<double> p1, l1;
    for (long k = 0; k < steps; ++k) {
      if (eml.step(tm.mech, s, double(k) * h, h).status != Status::ok) throw std::runtime_error("four-bar EML: a step failed");
      if (k + 1 < 10) continue;  // the load acts until t = 1
      const double e = eml.generalized_energy(tm.mech, s);
      const Vec3<double> p = eml.linear_momentum(tm.mech, s), l = eml.angular_momentum(tm.mech, s);
      if (k + 1 == 10) e1 = e, p1 = p, l1 = l;
      d.e.push_back(std::abs(e - e1) / std::abs(e1));
      d.l.push_back((l - l1).norm() / l1.norm());
      d.energy = std::max(d.energy, d.e.back());
      d.linear = std::max(d.linear, (p - p1).norm() / p1.norm());
      d.angular = std::max(d.angular, d.l.back());
    }
    return d;
  };
  const Drift eq = run(mechanism::ConstraintGradient::equivariant), mid = run(mechanism::ConstraintGradient::midpoint);
  Csv csv(dir, "four_bar_eml.csv", "t,energy_drift,momentum_drift,midpoint_energy_drift,midpoint_momentum_drift");
  for (std::size_t i = 0; i < eq.e.size(); ++i) csv.row(1.0 + double(i) * h, eq.e[i], eq.l[i], mid.e[i], mid.l[i]);
  const std::string study = "four-bar loop, EML (Kinon & Betsch §5.5, Fig. 16)";
  const std::string range = ", h = 0.1, t ∈ [1, 10]";
  out.push_back({study, "equivariant joint gradient: max |E − E1|/E1, generalized energy (74)" + range, "conserved",
                 "<= 1e-12 (round-off)", eq.energy, eq.energy <= 1e-12});
  out.push_back({study, "equivariant joint gradient: max ‖p − p1‖/‖p1‖, linear momentum" + range, "conserved",
                 "<= 1e-12 (round-off)", eq.linear, eq.linear <= 1e-12});
  out.push_back({study, "equivariant joint gradient: max ‖L − L1‖/‖L1‖, angular momentum" + range, "conserved",
                 "<= 1e-12 (round-off)", eq.angular, eq.angular <= 1e-12});
  out.push_back({study, "the paper's midpoint joint gradient: max |E − E1|/E1" + range, "conserved",
                 "<= 1e-12 (the rows are quadratic)", mid.energy, mid.energy <= 1e-12});
  out.push_back({study, "the paper's midpoint joint gradient: max ‖L − L1‖/‖L1‖" + range, "conserved",
                 "1e-4 … 1e-2: drifts (docs/errata.md K5)", mid.angular, mid.angular >= 1e-4 && mid.angular <= 1e-2});
}

}  // namespace

std::vector<VerifiedFigure> verify_papers(const std::string& directory, bool fast) {
  std::filesystem::create_directories(directory);
  std::vector<VerifiedFigure> figures;
  spin_up(directory, figures);
  heavy_top(directory, fast, figures);
  eml(directory, figures);
  zupan(directory, figures);
  four_bar(directory, fast, figures);
  four_bar_eml(directory, figures);
  return figures;
}

void write_verify_table(std::ostream& md, std::ostream& csv, const std::vector<VerifiedFigure>& figures) {
  md << "| study | quantity | published | expected | measured | agrees |\n|---|---|---|---|---|---|\n";
  csv << "study,quantity,published,expected,measured,agrees\n" << std::setprecision(17);
  const auto quote = [](const std::string& s) { return "\"" + s + "\""; };
  const auto cell = [](const std::string& s) {  // a '|' of the text (|x|, a norm) would end the cell
    std::string escaped;
    for (char c : s) escaped += c == '|' ? std::string("\\|") : std::string(1, c);
    return escaped;
  };
  for (const VerifiedFigure& f : figures) {
    md << "| " << cell(f.study) << " | " << cell(f.quantity) << " | " << cell(f.published) << " | " << cell(f.expected) << " | "
       << text(f.measured) << " | " << (f.agrees ? "yes" : "**no**") << " |\n";
    csv << quote(f.study) << "," << quote(f.quantity) << "," << quote(f.published) << "," << quote(f.expected) << ","
        << f.measured << "," << (f.agrees ? 1 : 0) << "\n";
  }
}

int verify_command(const std::string& directory, bool fast) {
  const std::vector<VerifiedFigure> figures = verify_papers(directory, fast);
  std::ofstream md(directory + "/verify.md"), csv(directory + "/verify.csv");
  write_verify_table(md, csv, figures);
  std::ostringstream unused_csv;
  write_verify_table(std::cout, unused_csv, figures);
  std::cout << "\nwritten to " << directory << "/verify.md and verify.csv; plots:" << std::endl;
  int plots = 1;
  try {
    plots = run_plot_script({"--verify", directory});
  } catch (const std::exception& e) {
    std::cerr << "quatstep: verify: no plots: " << e.what() << "\n";
  }
  if (plots != 0) std::cerr << "quatstep: verify: the plots were not drawn\n";
  bool all = true;
  for (const VerifiedFigure& f : figures) all = all && f.agrees;
  return all ? 0 : 2;
}

}  // namespace quatstep
