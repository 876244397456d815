// The mechanism part of `quatstep docs scenario`: the key tables of mechanism_scenario.hpp.
#include "docs.hpp"
#include "mechanism_scenario.hpp"
#include "quatstep/mechanism/channels.hpp"

namespace quatstep {

namespace {
bool same_keys(const std::vector<KeyInfo>& a, const std::vector<KeyInfo>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t k = 0; k < a.size(); ++k)
    if (a[k].name != b[k].name || a[k].value != b[k].value) return false;
  return true;
}
}  // namespace

void print_mechanism_format(std::ostream& os) {
  os << "\n## Mechanisms: [mechanism]\n\n"
        "A scenario with a [mechanism] table (and no [model] or [initial]) describes a mechanism: rigid bodies "
        "held by joints, with spring-dampers, timed loads and gravity (docs/mechanisms.md). `quatstep run` "
        "integrates an ensemble of them on the CPU (one mechanism per OpenMP iteration) or the GPU (one per thread, "
        "[run] below), with the HHT family or the Livens schemes; its "
        "output layout is in README.md. The mechanism's tables:\n\n";
  print_key_table(os, key_table<MechanismSpec>());
  const auto table = [&os](const char* title, const char* text, const std::vector<KeyInfo>& keys) {
    os << "\n### " << title << "\n\n" << text << (*text ? "\n\n" : "");
    print_key_table(os, keys);
  };
  table("[[mechanism.body]]", "One table per body, in the order of the output's per-body components.",
        key_table<MechanismBodySpec>());
  table("[[mechanism.joint]]",
        "A joint between two bodies or a body and the ground; its frame's z is the joint axis. With frame = \"space\" "
        "the frame is given once, in space at the initial pose, and carried into both bodies (the usual way: the "
        "joint's point and axis as seen in the assembled mechanism); with frame = \"body\" each side's frame is given "
        "in its body's coordinates. A key of the other frame kind is an error. A [mechanism.joint.driver] table "
        "(revolute joints only) prescribes the angle of x_j from x_i about z_i (0 when the two frames coincide) and "
        "adds one constraint row.",
        key_table<MechanismJointSpec>());
  table("[[mechanism.spring]]", "", key_table<MechanismSpringSpec>());
  table("[[mechanism.load]]", "", key_table<MechanismLoadSpec>());
  os << "\n### Sampled channels\n\nDeclared by the mechanism (include/quatstep/mechanism/channels.hpp), then "
        "`sample_newton_iterations` (Newton iterations since the previous sample), then the method's own (below):\n\n"
        "| channel | scalars | meaning |\n|---|---|---|\n";
  for (const mechanism::MechanismChannel& c : mechanism::mechanism_channels)
    os << "| `" << c.channel.name << "` | " << c.channel.size << (c.per_body ? " per body" : "") << " | "
       << cell(c.channel.doc) << " |\n";
  os << "\n### [integrator] of a mechanism scenario\n\n`method` (required): " << quoted(names_of(mechanism_method_views()))
     << ", the mechanism registry (include/quatstep/mechanism/registry.hpp). A method of single bodies is an error "
        "(\"method 'zupan3' does not run on mechanisms; they run ...\"), and so is a key the method does not read.\n";
  const std::vector<KeyInfo>* previous = nullptr;
  for (const MechanismMethodView& m : mechanism_method_views()) {
    os << "\n#### method = \"" << m.info.name << "\"\n\n" << m.info.reference << ". Class `" << m.info.class_name
       << "` (include/quatstep/mechanism/" << m.info.header << "); order " << m.info.order << "; conserves "
       << m.info.conserves << ".";
    for (const Channel& c : m.channels) os << " Adds the channel `" << c.name << "`: " << c.doc << ".";
    if (previous && same_keys(*previous, m.keys)) {
      os << " Its keys are those of the method above.\n";
    } else {
      os << "\n\n";
      print_key_table(os, m.keys);
    }
    previous = &m.keys;
  }
  os << "\n### [time], [run], [ensemble] and [output] of a mechanism scenario\n\n[time] is as above; adaptive = true runs with hht and modified_hht, each mechanism with its own steps, sampled at the output times by dense output (/accepted_steps, /rejected_steps, /smallest_step, /largest_step per mechanism). [run]: backend \"auto\", \"cuda\" or \"cpu\" as for bodies — the GPU runs one "
        "mechanism per thread, with fixed or adaptive steps, in the thread's local memory: ≈ 33–75 kB for mechanisms of "
        "at most " + small_capacity_limits() + ", ≈ 200–240 kB for larger ones, which the device reserves for every "
        "thread it can hold (on an H100 ≈ 54–65 GB; a device that cannot gets a message saying so); precision "
        "\"double\". [ensemble]: `size` and [[ensemble.sweep]] tables whose `key` is a numeric key of the "
        "mechanism, named by element: `gravity`, `body.<name>.<key>` (mass, inertia, position, quaternion, velocity, "
        "omega), `joint.<name>.<key>` (the frame keys its frame kind reads; `driver.<key>` of a driven joint), "
        "`spring.<name>.<key>` (point_i, point_j, stiffness, damping, rest_length), `load.<index>.<key>` (value, "
        "profile.<key>); each swept key is written to /parameters/<key>, and every mechanism of the ensemble is "
        "built and checked before the run (a bad one is reported as \"mechanism i\"). [[ensemble.random]] and "
        "[[ensemble.design]] tables draw those keys as they draw a body's (mechanism i's values depend on the seed, i "
        "and the key alone), written to /parameters too; a `body.<name>.inertia` is kept physical as model.inertia is "
        "(invalid = \"redraw\" | \"fail\"; body_shape with mass_key = \"body.<name>.mass\"). [[ensemble.override]] tables "
        "set keys of one mechanism last: `mechanism` (required, an index in [0, size)) and any of those keys by "
        "name (`\"spring.return spring.stiffness\" = 500.0`), also written to /parameters. [output]: `file`, "
        "`stride`, `channels` (of the mechanism's channels below) and `trajectories` with its keys as for bodies, "
        "over mechanisms: `trajectory_bodies` lists ensemble indices of mechanisms, `trajectory_every` takes every "
        "k-th mechanism, \"auto\" (the default) keeps all unless they exceed max_trajectory_bytes. [output.statistics] as above, over the "
        "mechanism's channels, written to /statistics: by name the standard observables of mechanisms (";
  std::string names;
  for (const statistics::Observable& o : mechanism_observables())
    names += (names.empty() ? "`" : ", `") + o.name() + "`";
  os << names
     << "; without `observables` those the method's channels have), others by kind — a per-body channel "
        "holds every body in the [[mechanism.body]] order, so `kind = \"component\"`, `channel = \"omega_body\"`, "
        "`component = 3` is the second body's x, and `norm` or `relative_drift` of such a channel takes the norm over "
        "all its bodies' components together; a mechanism counts at a sample until it fails.\n";
}

}  // namespace quatstep
