#include "sampling/design.hpp"

#include <cmath>

#include <boost/random/sobol.hpp>

#include "sampling/counter_rng.hpp"

namespace quatstep::sampling {

struct JointDesign::SobolEngine {
  boost::random::sobol engine;
};

namespace {

/// π(k) of the Latin hypercube's coordinate j: a keyed bijection of 0 … n − 1 (design.hpp).
index_t permuted(std::uint64_t seed, std::uint32_t stream, int coordinate, index_t n, index_t k) {
  constexpr int rounds = 4;  // Luby–Rackoff: four rounds make a pseudorandom permutation
  int h = 1;                 // half width: 2^(2h) >= n
  while (h < 31 && (std::uint64_t(1) << (2 * h)) < std::uint64_t(n)) ++h;
  const std::uint32_t mask = (std::uint32_t(1) << h) - 1;
  std::uint64_t x = std::uint64_t(k);
  do {
    std::uint32_t left = std::uint32_t(x >> h), right = std::uint32_t(x) & mask;
    for (int r = 0; r < rounds; ++r) {
      const std::uint64_t purpose = global_stream(GlobalStream::latin_hypercube, std::uint64_t(coordinate) * rounds + r);
      const std::uint32_t next = left ^ (counter_word(seed, purpose, stream, right) & mask);
      left = right;
      right = next;
    }
    x = (std::uint64_t(left) << h) | right;
  } while (x >= std::uint64_t(n));  // cycle walking: the first value of the cycle below n
  return index_t(x);
}

}  // namespace

JointDesign::JointDesign(Kind kind, std::string name, std::vector<DesignEntry> entries, index_t ensemble_size)
    : kind_(kind), name_(std::move(name)), entries_(std::move(entries)), ensemble_size_(ensemble_size) {
  const char* what = kind == Kind::latin_hypercube ? "latin_hypercube" : "sobol";
  if (entries_.empty()) throw SamplingError(std::string(what) + " '" + name_ + "': no key");
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const DesignEntry& e = entries_[i];
    for (std::size_t j = 0; j < i; ++j)
      if (entries_[j].key == e.key) throw SamplingError(std::string(what) + " '" + name_ + "': key '" + e.key + "' appears twice");
    if (e.distribution.redraws_invalid())
      throw SamplingError(e.key + ": invalid = \"redraw\" would undo the " + what +
                          " design's stratification; use invalid = \"fail\" or a body shape");
    if (!e.mass_key.empty() && !e.distribution.draws_mass())
      throw SamplingError(e.key + ": mass_key '" + e.mass_key + "' needs a body_shape law");
    dimension_ += e.distribution.uniforms();
  }
  if (kind == Kind::sobol) {
    try {
      sobol_ = std::make_shared<const SobolEngine>(SobolEngine{boost::random::sobol(std::size_t(dimension_))});
    } catch (const std::exception& e) {
      throw SamplingError("sobol '" + name_ + "': " + std::to_string(dimension_) + " coordinates: " + e.what());
    }
  }
}

JointDesign JointDesign::latin_hypercube(std::string name, std::vector<DesignEntry> entries, index_t ensemble_size) {
  if (ensemble_size < 1)
    throw SamplingError("latin_hypercube '" + name + "': ensemble size " + std::to_string(ensemble_size) + ", must be >= 1");
  return JointDesign(Kind::latin_hypercube, std::move(name), std::move(entries), ensemble_size);
}

JointDesign JointDesign::sobol(std::string name, std::vector<DesignEntry> entries) {
  return JointDesign(Kind::sobol, std::move(name), std::move(entries), 0);
}

std::vector<double> JointDesign::point(std::uint64_t seed, index_t body) const {
  const std::uint32_t stream = stream_id(name_);
  std::vector<double> u(dimension_);
  if (kind_ == Kind::latin_hypercube) {
    if (body < 0 || body >= ensemble_size_)
      throw SamplingError("latin_hypercube '" + name_ + "': body " + std::to_string(body) + " outside the ensemble of " +
                          std::to_string(ensemble_size_));
    RandomStream jitter(seed, std::uint64_t(body), stream);
    const double n = double(ensemble_size_);
    for (int j = 0; j < dimension_; ++j) {
      const double v = jitter.open_unit(), stratum = double(permuted(seed, stream, j, ensemble_size_, body));
      // In [π/N, (π + 1)/N) as doubles: π + v may round up to π + 1, then the stratum's last double.
      const double u_j = (stratum + v) / n, next = (stratum + 1) / n;
      u[j] = u_j < next ? u_j : std::nextafter(next, 0.0);
    }
  } else {
    boost::random::sobol engine = sobol_->engine;  // its state: this body's point
    std::vector<std::uint64_t> x(dimension_, 0);  // point 0: the origin
    if (body > 0) {
      engine.seed(std::uint64_t(body - 1));  // Boost's seed(k) gives point k + 1
      for (auto& xi : x) xi = engine();
    }
    RandomStream shift(seed, global_stream(GlobalStream::sobol_shift, 0), stream);
    for (int j = 0; j < dimension_; ++j) {
      const std::uint32_t hi = shift.word(), lo = shift.word();
      const std::uint64_t shifted = x[j] ^ ((std::uint64_t(hi) << 32) | lo);
      u[j] = open_unit(std::uint32_t(shifted >> 32), std::uint32_t(shifted));
    }
  }
  return u;
}

std::vector<Drawn> JointDesign::sample(std::uint64_t seed, index_t body) const {
  const std::vector<double> u = point(seed, body);
  std::vector<Drawn> out;
  int offset = 0;
  for (const DesignEntry& e : entries_) {
    out.push_back(e.distribution.transform(u.data() + offset));
    offset += e.distribution.uniforms();
  }
  return out;
}

}  // namespace quatstep::sampling
