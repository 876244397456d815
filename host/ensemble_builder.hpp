// Scenario → running ensemble on a backend, written once for every backend (CpuEnsemble in
// ensemble_factory.cpp, cuda::CudaEnsemble in kernels/cuda_ensemble_shard.cu.in): the registry's
// dispatch (registry_dispatch.hpp) picks the integrator class, the model entry builds each body.
// A backend is a class template over the integrator with CpuEnsemble's interface: (integrator,
// models, t0, h), initialize, advance, status, newton_iterations, failed_step, step_records (empty
// for fixed steps). A scenario with [time] adaptive = true runs on Backend<AdaptiveHht<Integrator>>
// (h: the output spacing) where runs_adaptive_steps<Backend> says so.
#pragma once

#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "ensemble_factory.hpp"
#include "keys.hpp"
#include "quatstep/adaptive/adaptive_hht.hpp"
#include "registry_dispatch.hpp"

namespace quatstep::build {

/// The settings struct of an integrator (HhtSettings<S>, LivensSettings<S>, …).
template <class Integrator>
using SettingsOf = std::remove_cv_t<decltype(Integrator::settings)>;

/// The integrator with the scenario's settings (its own defaults for anything the file leaves out:
/// the parser filled them in, in the run's precision).
template <class Integrator>
Integrator make_integrator(const IntegratorSpec& in) {
  SettingsOf<Integrator> s;
  KeyAssigner assign(in.settings);
  s.describe(assign);
  return Integrator(s);
}

/// [time]'s step control in precision S.
template <class S>
AdaptiveSettings<S> step_control(const TimeSpec& time) {
  AdaptiveSettings<double> in = time.step_control;
  KeyCollector values;  // each key's value, in describe() order (a choice as its index)
  in.describe(values);
  std::vector<std::vector<double>> numbers;
  for (const KeyInfo& k : values.keys()) numbers.push_back(k.value);
  AdaptiveSettings<S> s;
  KeyAssigner assign(numbers);
  s.describe(assign);
  return s;
}

/// Whether scenarios run AdaptiveHht steppers on Backend: the specialisations of CpuEnsemble
/// (cpu_ensemble_shard.cpp.in) and cuda::CudaEnsemble (kernels/cuda_ensemble_shard.cu.in) say yes;
/// the two agree bit for bit in strict mode (tests/gpu/adaptive_agreement_test.cu, run on an H200).
template <template <class> class Backend>
struct runs_adaptive_steps : std::false_type {};

/// Body i's parameters as the model entry's struct, from body_table's rows (the model's flat
/// parameters: its Parameters struct, field by field).
template <class ModelEntry>
typename ModelEntry::Parameters parameters(const std::vector<double>& table, index_t i) {
  typename ModelEntry::Parameters p;
  std::memcpy(&p, table.data() + std::size_t(i) * (sizeof p / sizeof(double)), sizeof p);
  return p;
}

/// Host memory of T for a backend: Backend::HostVector<T> where it has one (cuda::CudaEnsemble:
/// pinned, for copies that overlap its kernels), std::vector otherwise.
template <class Backend, class T, class = void>
struct host_vector {
  using type = std::vector<T>;
};
template <class Backend, class T>
struct host_vector<Backend, T, std::void_t<typename Backend::template HostVector<T>>> {
  using type = typename Backend::template HostVector<T>;
};

/// Samples for a caller's double windows from an ensemble of precision S: the window itself for
/// double, else a float staging window (one per window in flight, two at most) widened into the
/// caller's when its samples are there (none for a window without data: samples for device
/// statistics alone). Windows are widened in the order they were made.
template <class S, class Staging = std::vector<S>>
class Widening {
 public:
  SampleView<S> window(const SampleView<double>& out) {
    pending_.push_back(out);
    if constexpr (std::is_same_v<S, double>) {
      return out;
    } else if (!out.data) {
      return SampleView<S>{nullptr, out.bodies, out.first_sample, out.samples, out.stride, out.scalars};
    } else {
      Staging& staging = staging_[next_];
      next_ = 1 - next_;
      staging.resize(static_cast<std::size_t>(out.samples * out.scalars * out.bodies));
      return SampleView<S>{staging.data(), out.bodies, out.first_sample, out.samples, out.stride, out.scalars};
    }
  }
  /// The oldest window's samples into its caller's window.
  void widen() {
    const SampleView<double> out = pending_.front();
    pending_.pop_front();
    if constexpr (!std::is_same_v<S, double>)
      if (out.data) {
        const Staging& staging = staging_[oldest_];
        oldest_ = 1 - oldest_;
        for (std::size_t k = 0; k < staging.size(); ++k) out.data[k] = double(staging[k]);
      }
  }

 private:
  std::deque<SampleView<double>> pending_;
  Staging staging_[2];  // float only: used in turn
  int next_ = 0, oldest_ = 0;
};

/// Whether Backend reduces statistics where its samples are (cuda::CudaEnsemble).
template <class Backend, class = void>
struct reduces_statistics : std::false_type {};
template <class Backend>
struct reduces_statistics<Backend, std::void_t<decltype(std::declval<Backend&>().attach_statistics(nullptr))>>
    : std::true_type {};

/// Whether Backend queues its advances (cuda::CudaEnsemble: launch() and complete()).
template <class Backend, class = void>
struct queueing : std::false_type {};
template <class Backend>
struct queueing<Backend, std::void_t<decltype(std::declval<Backend&>().complete())>> : std::true_type {};

/// Whether Backend keeps the state in device memory (cuda::CudaEnsemble: device_state()).
template <class Backend, class = void>
struct stores_on_device : std::false_type {};
template <class Backend>
struct stores_on_device<Backend, std::void_t<decltype(std::declval<const Backend&>().device_state())>>
    : std::true_type {};

/// Whether Backend can step bodies in SIMD lanes (CpuEnsemble: bodies_in_lanes()).
template <class Backend, class = void>
struct has_lane_bodies : std::false_type {};
template <class Backend>
struct has_lane_bodies<Backend, std::void_t<decltype(std::declval<const Backend&>().bodies_in_lanes())>>
    : std::true_type {};

/// Where kinematics() takes each quantity verbatim from the state: it is evaluated on two states of
/// distinct, exactly representable components, and a quantity lies at offset o when both results
/// are components o, o+1, … of their states.
template <class Integrator>
StateLayout probe_layout(const Integrator& integrator, const typename Integrator::ModelType& model) {
  using S = typename Integrator::Scalar;
  using State = typename Integrator::State;
  StateLayout l;
  if constexpr (is_rigid_body_kinematics<KinematicsOf<Integrator>>::value) {
    State a{}, b{};
    for (int c = 0; c < State::size; ++c) {
      a[c] = S(c + 1);
      b[c] = S(-0.25) * S(2 * c + 3);
    }
    const auto ka = integrator.kinematics(model, a), kb = integrator.kinematics(model, b);
    const auto find = [&](const auto& va, const auto& vb) {
      const int size = int(va.size());
      for (int o = 0; o + size <= State::size; ++o) {
        bool same = true;
        for (int c = 0; c < size; ++c) same = same && va[c] == a[o + c] && vb[c] == b[o + c];
        if (same) return o;
      }
      return -1;
    };
    l.quaternion = find(ka.quaternion, kb.quaternion);
    l.omega_body = find(ka.omega_body, kb.omega_body);
    if (Integrator::ModelType::translates) {
      l.position = find(ka.position, kb.position);
      l.velocity = find(ka.velocity, kb.velocity);
    }
  }
  return l;
}

/// A backend's ensemble behind the Ensemble interface. The interface speaks double; a float
/// ensemble writes its samples into a float window that is widened into the caller's.
template <class Backend, class ModelEntry>
class BackendAdapter final : public Ensemble {
  using S = typename Backend::S;
  using State = typename Backend::State;
  using Kinematics = typename Backend::Kinematics;

 public:
  /// `table`: body_table of the scenario.
  BackendAdapter(const std::vector<double>& table, index_t bodies, Backend backend) : backend_(std::move(backend)) {
    initial_.reserve(bodies);
    for (index_t i = 0; i < bodies; ++i) initial_.push_back(ModelEntry::template initial<S>(parameters<ModelEntry>(table, i)));
    // Adaptive steps store each body at its own time: no view of the state is the ensemble's.
    if (bodies > 0 && !Backend::adaptive)
      layout_ = probe_layout(backend_.integrator(), backend_.model(0));
  }
  void initialize(const SampleView<double>& out) override {
    complete_all();
    backend_.initialize(initial_, widening_.window(out));
    widening_.widen();
  }
  void advance(index_t steps, const SampleView<double>& out) override {
    launch(steps, out);
    complete_all();
  }
  void launch(index_t steps, const SampleView<double>& out) override {
    if constexpr (queueing<Backend>::value) {
      backend_.launch(steps, widening_.window(out));
      ++in_flight_;
    } else {
      backend_.advance(steps, widening_.window(out));
      widening_.widen();
    }
  }
  void complete() override {
    if constexpr (queueing<Backend>::value) {
      if (in_flight_ == 0) return;
      backend_.complete();
      widening_.widen();
      --in_flight_;
    }
  }
  bool queues() const override { return queueing<Backend>::value; }
  HostBuffer host_buffer(std::size_t count) const override {
    if constexpr (queueing<Backend>::value) {
      using Pinned = typename Backend::template HostVector<double>;
      double* p = typename Pinned::allocator_type().allocate(count);
      return HostBuffer(p, [](double* q) { typename Pinned::allocator_type().deallocate(q, 0); });
    } else {
      return Ensemble::host_buffer(count);
    }
  }
  double device_seconds() const override {
    if constexpr (queueing<Backend>::value) return backend_.kernel_seconds();
    else return 0;
  }
  const std::vector<Status>& status() const override { return backend_.status(); }
  const std::vector<index_t>& newton_iterations() const override { return backend_.newton_iterations(); }
  const std::vector<index_t>& failed_step() const override { return backend_.failed_step(); }
  StepRecords step_records() const override { return backend_.step_records(); }
  EnsembleState save() const override {
    const std::vector<S>& state = backend_.state_data();
    return {backend_.steps_done(), std::vector<double>(state.begin(), state.end()), backend_.status(),
            backend_.newton_iterations(), backend_.failed_step(), step_records()};
  }
  void restore(const EnsembleState& s) override {
    complete_all();
    backend_.import_state(std::vector<S>(s.state.begin(), s.state.end()), s.status, s.newton_iterations, s.failed_step,
                          s.steps_done);
    backend_.import_step_records(s.steps);
  }
  bool attach_statistics(cuda::DeviceStatistics* statistics) override {
    if constexpr (reduces_statistics<Backend>::value) {
      backend_.attach_statistics(statistics);
      return true;
    } else {
      return false;
    }
  }

  index_t steps_done() const override { return backend_.steps_done(); }
  bool translates() const override {
    if constexpr (is_rigid_body_kinematics<Kinematics>::value) return Backend::Model::translates;
    else return false;
  }
  StateStorage storage() const override {
    if constexpr (stores_on_device<Backend>::value) return {backend_.device_state(), State::size, backend_.device()};
    else return {backend_.state_data().data(), State::size, -1};
  }
  const StateLayout& layout() const override { return layout_; }
  index_t bodies_in_lanes() const override {
    if constexpr (has_lane_bodies<Backend>::value) return backend_.bodies_in_lanes();
    else return 0;
  }
  void observe(const SampleView<double>& out) const override {
    if (in_flight_) throw std::logic_error("Ensemble::observe: a launch is in flight (complete() first)");
    const SampleView<S> w = widening_.window(out);
    const auto& state = backend_.state_data();  // the CPU's storage itself; a copy from the GPU
    const std::vector<Status>& status = backend_.status();
    const index_t n = backend_.bodies(), k = backend_.steps_done();
#pragma omp parallel for schedule(static)
    for (index_t i = 0; i < n; ++i)
      write_sample(w, k, i, backend_.integrator(), backend_.model(i), observed_state(state, status, i),
                   status[i] == Status::ok);
    widening_.widen();
  }
  void kinematics(double* quaternion, double* omega_body, double* position, double* velocity) const override {
    if constexpr (!is_rigid_body_kinematics<Kinematics>::value) {
      throw std::invalid_argument(std::string("kinematics: a ") + ModelEntry::info.name +
                                  " model is not one rigid body (its channels are observe()'s)");
    } else {
      const auto& state = backend_.state_data();
      const std::vector<Status>& status = backend_.status();
      const index_t n = backend_.bodies();
#pragma omp parallel for schedule(static)
      for (index_t i = 0; i < n; ++i) {
        const Kinematics k = backend_.integrator().kinematics(backend_.model(i), observed_state(state, status, i));
        for (int c = 0; c < 4 && quaternion; ++c) quaternion[4 * i + c] = double(k.quaternion[c]);
        for (int c = 0; c < 3 && omega_body; ++c) omega_body[3 * i + c] = double(k.omega_body[c]);
        for (int c = 0; c < 3 && position; ++c) position[3 * i + c] = double(k.position[c]);
        for (int c = 0; c < 3 && velocity; ++c) velocity[3 * i + c] = double(k.velocity[c]);
      }
    }
  }

 private:
  /// Body i's state from every body's, [component][body].
  State body_state(const std::vector<S>& state, index_t i) const {
    State s;
    for (int c = 0; c < State::size; ++c) s[c] = state[std::size_t(c) * std::size_t(backend_.bodies()) + std::size_t(i)];
    return s;
  }
  /// Body i's state as observe() and kinematics() see it: as stored, or with adaptive steps (each
  /// body stored at its own time, at or past the ensemble's) a healthy body's dense output at the
  /// ensemble's time, the bits of advance()'s sample there (the GPU's in a strict-FP build); a failed
  /// body's last good state.
  State observed_state(const std::vector<S>& state, const std::vector<Status>& status, index_t i) const {
    State s = body_state(state, i);
    if constexpr (Backend::adaptive)
      if (status[i] == Status::ok)
        s.now = backend_.integrator().sample(backend_.model(i), s, backend_.sample_time(backend_.steps_done()));
    return s;
  }

  void complete_all() {
    while (in_flight_ > 0) complete();
  }

  Backend backend_;
  std::vector<Kinematics> initial_;
  mutable Widening<S, typename host_vector<Backend, S>::type> widening_;  // observe() writes through it too
  int in_flight_ = 0;  // launches not yet completed
  StateLayout layout_;
};

/// The scenario's ensemble on `Backend` in precision S, for the methods of CUDA shard Shard of
/// Shards (all methods by default).
template <template <class> class Backend, class S, int Shard = 0, int Shards = 1>
std::unique_ptr<Ensemble> ensemble_in(const Scenario& sc) {
  using R = std::unique_ptr<Ensemble>;
  return with_registered_integrator<S, R, Shard, Shards>(
      sc.model, sc.integrator.method, sc.integrator.variant, [&](auto model_tag, auto integrator_tag) -> R {
        using ModelEntry = tag_type<decltype(model_tag)>;
        using Integrator = tag_type<decltype(integrator_tag)>;
        using Model = typename Integrator::ModelType;
        const std::vector<double> table = body_table(sc);  // the draws, in parallel, once
        std::vector<Model> models;
        models.reserve(sc.ensemble_size);
        for (index_t i = 0; i < sc.ensemble_size; ++i)
          models.push_back(ModelEntry::template build<S>(parameters<ModelEntry>(table, i)));
        const Integrator integrator = make_integrator<Integrator>(sc.integrator);
        if (sc.time.adaptive) {
          if constexpr (takes_adaptive_steps<Integrator>::value && runs_adaptive_steps<Backend>::value) {
            using Stepper = AdaptiveHht<Integrator>;
            return std::make_unique<BackendAdapter<Backend<Stepper>, ModelEntry>>(
                table, sc.ensemble_size, Backend<Stepper>(Stepper(integrator, step_control<S>(sc.time)), std::move(models),
                                     S(sc.time.t_start), S(sc.time.dt)));
          } else {  // the scenario parser and choose_backend rule this out
            throw std::logic_error("adaptive steps: not with this method on this backend");
          }
        }
        return std::make_unique<BackendAdapter<Backend<Integrator>, ModelEntry>>(
            table, sc.ensemble_size, Backend<Integrator>(integrator, std::move(models), S(sc.time.t_start), S(sc.time.dt)));
      });
}

}  // namespace quatstep::build
