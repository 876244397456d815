// Scenario → running ensemble on a backend, written once for every backend (CpuEnsemble in
// ensemble_factory.cpp, cuda::CudaEnsemble in kernels/cuda_ensemble_shard.cu.in): the registry's
// dispatch (registry_dispatch.hpp) picks the integrator class, the model entry builds each body.
// A backend is a class template over the integrator with CpuEnsemble's interface: (integrator,
// models, t0, h), initialize, advance, status, newton_iterations, failed_step, step_records (empty
// for fixed steps). A scenario with [time] adaptive = true runs on Backend<AdaptiveHht<Integrator>>
// (h: the output spacing) where runs_adaptive_steps<Backend> says so.
#pragma once

#include <cstring>
#include <memory>
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
/// (cpu_ensemble_instances.cpp) and cuda::CudaEnsemble (kernels/cuda_ensemble_shard.cu.in) say yes;
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

/// Samples for a caller's double window from an ensemble of precision S: the window itself for
/// double, else a float staging window widened into the caller's after each write (none for a
/// window without data: samples for device statistics alone).
template <class S>
class Widening {
 public:
  SampleView<S> window(const SampleView<double>& out) {
    if constexpr (std::is_same_v<S, double>) {
      return out;
    } else if (!out.data) {
      return SampleView<S>{nullptr, out.bodies, out.first_sample, out.samples, out.stride, out.scalars};
    } else {
      staging_.resize(static_cast<std::size_t>(out.samples * out.scalars * out.bodies));
      return SampleView<S>{staging_.data(), out.bodies, out.first_sample, out.samples, out.stride, out.scalars};
    }
  }
  void widen(const SampleView<double>& out) const {
    if constexpr (!std::is_same_v<S, double>)
      if (out.data)
        for (std::size_t k = 0; k < staging_.size(); ++k) out.data[k] = double(staging_[k]);
  }

 private:
  std::vector<S> staging_;  // float only
};

/// Whether Backend reduces statistics where its samples are (cuda::CudaEnsemble).
template <class Backend, class = void>
struct reduces_statistics : std::false_type {};
template <class Backend>
struct reduces_statistics<Backend, std::void_t<decltype(std::declval<Backend&>().attach_statistics(nullptr))>>
    : std::true_type {};

/// A backend's ensemble behind the Ensemble interface. The interface speaks double; a float
/// ensemble writes its samples into a float window that is widened into the caller's.
template <class Backend, class ModelEntry>
class BackendAdapter final : public Ensemble {
  using S = typename Backend::S;

 public:
  /// `table`: body_table of the scenario.
  BackendAdapter(const std::vector<double>& table, index_t bodies, Backend backend) : backend_(std::move(backend)) {
    initial_.reserve(bodies);
    for (index_t i = 0; i < bodies; ++i) initial_.push_back(ModelEntry::template initial<S>(parameters<ModelEntry>(table, i)));
  }
  void initialize(const SampleView<double>& out) override {
    backend_.initialize(initial_, widening_.window(out));
    widening_.widen(out);
  }
  void advance(index_t steps, const SampleView<double>& out) override {
    backend_.advance(steps, widening_.window(out));
    widening_.widen(out);
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

 private:
  Backend backend_;
  std::vector<typename Backend::Kinematics> initial_;
  Widening<S> widening_;
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
