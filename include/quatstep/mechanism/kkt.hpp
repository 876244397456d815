// The linear systems of a mechanism — the HHT Newton matrix (Sherif eq. 65 with Negrut's scaled
// constraint rows), the consistent initial accelerations (eqs. 57–58), the assembly projections —
// all have the saddle-point form
//
//   [ B   Dᵀ ] [x_B]   [r_B]      B = diag(B_1 … B_nb): per body an 8×8 block, its 7 coordinates
//   [ D   0  ] [λ_J] = [r_J]          and its Euler-parameter row:  B_b = [ A_b   n_b ]
//                                                                        [ n_bᵀ   0  ],  n_b = (0, 2e)
//                                     D: the joint rows, non-zero only on the joint's two bodies.
//
// Solved by the Schur complement onto the joint rows: with Y = B⁻¹ [Dᵀ; 0] per body,
//   S = D B⁻¹ Dᵀ = Σ_b Σ_{k,l on b} D_{k,b} Y_{l,b},   S λ_J = D B⁻¹ r_B − r_J,   x_B = B⁻¹ (r_B − Dᵀ λ_J).
// S couples two joints only through a body they share; it is factorised with BoundedLu in the row
// order the builder chose (leaves first), which keeps its fill small. Cost per factorisation:
// nb 8×8 LUs, one solve per joint row and side, and the Schur product and LU (docs/mechanisms.md).
//
// A body block B_b is invertible whenever its Euler-parameter mass block is positive definite on
// the tangent space eᵀδe = 0 (then n_b closes it); A_b need not be symmetric (the HHT blocks are not).
//
// Symmetric = false: the constraint columns differ from the rows, [B Eᵀ; D 0] with the border
// (m_b, n_b) and the joint columns E apart (the Livens scheme: rows ∂C/∂q at q¹, columns the
// discrete gradient at q^{n+½}, mechanism/livens.hpp). The same elimination with Y = B⁻¹ [Eᵀ; 0]
// and S = D Y.
#pragma once

#include <type_traits>
#include <utility>

#include "quatstep/linalg/bounded_lu.hpp"
#include "quatstep/linalg/lu.hpp"
#include "quatstep/mechanism/mechanism.hpp"

namespace quatstep::mechanism {

/// Whether a factorisation failed for every mechanism it holds: the bool itself for one; for
/// the lanes of a lane type, the mask's all_of (found by argument-dependent lookup).
QS_HD inline bool all_of(bool singular) { return singular; }

template <class S, class Cap, bool Symmetric = true>
struct StructuredKkt {
  using Mech = Mechanism<S, Cap>;
  static constexpr int NB = Cap::bodies, NJ = Cap::joints, R = Cap::rows;
  static constexpr int K = 8 * NB + R;  ///< unknowns at capacity: per body (q̈ or δq, its multiplier), joint rows
  using Rhs = Vec<S, K>;

  const Mech* mech = nullptr;
  Lu<S, 8> body[NB];      ///< B_b, assembled in body[b].lu and factorised in place
  Mat<S, 6, 7> jac[NJ][2];  ///< D_{k,s}: joint k's rows on side s (the body's coordinates)
  Mat<S, 6, 7> col[Symmetric ? 1 : NJ][2];  ///< E_{k,s} (Symmetric = false): joint k's columns, transposed
  Mat<S, 8, 6> y[NJ][2];    ///< Y_{k,s} = B_b⁻¹ [D_{k,s}ᵀ; 0]
  BoundedLu<S, R> schur;
  /// Whether a pivot was zero or not finite: a bool, or a lane mask for a lane type (simd/).
  using Singular = std::decay_t<decltype(std::declval<Lu<S, 8>&>().singular)>;
  Singular singular = Singular(false);
  /// Whether solve() holds: a condition of math/choose.hpp (a bool; for a lane type, per lane).
  QS_HD auto solvable() const {
    using Condition = decltype(std::declval<const Lu<S, 8>&>().solvable());
    return Condition{!singular};
  }

  /// Index of body b's first unknown, and of joint row 0.
  QS_HD static constexpr int body_index(int b) { return 8 * b; }
  QS_HD static constexpr int joint_index() { return 8 * NB; }

  /// The unknowns' two parts: the per-body 7-vectors (accelerations, or coordinates) as one vector of
  /// 7·NB, and the multipliers (each body's Euler-parameter one, then the joint rows) as one of NB + R,
  /// the order of Dae (dynamics.hpp); and the unknowns from them.
  using Coordinates = Vec<S, 7 * NB>;
  using Multipliers = Vec<S, NB + R>;
  QS_HD static Coordinates coordinates(const Rhs& x) {
    Coordinates c;
    for (int b = 0; b < NB; ++b) c.template segment<7>(7 * b) = x.template segment<7>(body_index(b));
    return c;
  }
  QS_HD static Multipliers multipliers(const Rhs& x) {
    Multipliers l;
    for (int b = 0; b < NB; ++b) l[b] = x[body_index(b) + 7];
    l.template tail<R>() = x.template segment<R>(joint_index());
    return l;
  }
  QS_HD static Rhs unknowns(const Coordinates& c, const Multipliers& l) {
    Rhs x;
    for (int b = 0; b < NB; ++b) {
      x.template segment<7>(body_index(b)) = c.template segment<7>(7 * b);
      x[body_index(b) + 7] = l[b];
    }
    x.template segment<R>(joint_index()) = l.template tail<R>();
    return x;
  }

  /// B_b's Euler-parameter row and column, n_b = (0, 2e), around the A_b already in body[b].lu.
  QS_HD void border(int b, const Vec4<S>& e) { border(b, Vec4<S>(S(2) * e), Vec4<S>(S(2) * e)); }
  /// The same with the row (0, row) and the column (0, column) apart (Symmetric = false).
  QS_HD void border(int b, const Vec4<S>& row, const Vec4<S>& column) {
    Mat<S, 8, 8>& m = body[b].lu;
    m.template block<3, 1>(0, 7).setZero();
    m.template block<1, 3>(7, 0).setZero();
    m.template block<4, 1>(3, 7) = column;
    m.template block<1, 4>(7, 3) = row.transpose();
    m(7, 7) = S(0);
  }

  /// Joint k's columns on side s, transposed: D_{k,s} itself unless Symmetric is false.
  QS_HD const Mat<S, 6, 7>& columns(int k, int s) const {
    if constexpr (Symmetric) return jac[k][s];
    else return col[k][s];
  }

  /// Factorise the assembled blocks (body[b].lu, jac) of mechanism m.
  QS_HD void factorize(const Mech& m) {
    mech = &m;
    singular = Singular(false);
    for (int b = 0; b < m.n_bodies; ++b) {
      body[b].factorize();
      singular = singular || body[b].singular;
      if (all_of(singular)) return;
    }
    for (int k = 0; k < m.n_joints; ++k)
      for (int s = 0; s < 2; ++s) {
        const int b = m.joints[k].body[s];
        if (b == ground) continue;
        for (int r = 0; r < m.joints[k].rows; ++r) {
          Vec<S, 8> d;
          d << columns(k, s).row(r).transpose(), S(0);
          y[k][s].col(r) = body[b].solve(d);
        }
      }
    const int n = m.n_rows;
    schur.lu.topLeftCorner(n, n).setZero();
    for (int b = 0; b < m.n_bodies; ++b)
      for (int i = 0; i < m.n_incident[b]; ++i) {
        const JointSide a = m.incident[b][i];
        const Joint<S>& ja = m.joints[a.joint];
        for (int l = 0; l < m.n_incident[b]; ++l) {
          const JointSide c = m.incident[b][l];
          const Joint<S>& jc = m.joints[c.joint];
          schur.lu.block(ja.offset, jc.offset, ja.rows, jc.rows) +=
              jac[a.joint][a.side].topRows(ja.rows).lazyProduct(y[c.joint][c.side].topLeftCorner(7, jc.rows));
        }
      }
    schur.factorize(n);
    singular = singular || schur.singular;
  }

  /// The solution of the saddle-point system for the right-hand side rhs.
  QS_HD Rhs solve(const Rhs& rhs) const {
    const Mech& m = *mech;
    Rhs x = Rhs::Zero();
    for (int b = 0; b < m.n_bodies; ++b)
      x.template segment<8>(body_index(b)) = body[b].solve(rhs.template segment<8>(body_index(b)));  // z = B⁻¹ r_B
    Vec<S, R> g = Vec<S, R>::Zero();
    for (int k = 0; k < m.n_joints; ++k) {  // g = D z − r_J
      const Joint<S>& j = m.joints[k];
      g.segment(j.offset, j.rows) = -rhs.segment(joint_index() + j.offset, j.rows);
      for (int s = 0; s < 2; ++s)
        if (j.body[s] != ground)
          g.segment(j.offset, j.rows) += jac[k][s].topRows(j.rows).lazyProduct(x.template segment<7>(body_index(j.body[s])));
    }
    const Vec<S, R> lambda = schur.solve(g);
    for (int k = 0; k < m.n_joints; ++k) {  // x_B = z − Y λ_J
      const Joint<S>& j = m.joints[k];
      for (int s = 0; s < 2; ++s)
        if (j.body[s] != ground)
          x.template segment<8>(body_index(j.body[s])) -= y[k][s].leftCols(j.rows).lazyProduct(lambda.segment(j.offset, j.rows));
    }
    x.template segment<R>(joint_index()) = lambda;
    return x;
  }
};

/// newton_solve's interface (newton.hpp) for a mechanism step that fills its residual and its Newton
/// matrix in one pass, `assemble(x, r, Kkt*)` (nullptr: the residual alone), with a member `mech`.
template <class Step, class Kkt>
struct AssembledSystem {
  template <class V>
  QS_HD void residual(const V& x, V& r) const {
    static_cast<const Step&>(*this).assemble(x, r, nullptr);
  }
  template <class V>
  QS_HD void evaluate(const V& x, V& r, Kkt& kkt) const {
    static_cast<const Step&>(*this).assemble(x, r, &kkt);
    kkt.factorize(static_cast<const Step&>(*this).mech);
  }
};

}  // namespace quatstep::mechanism
