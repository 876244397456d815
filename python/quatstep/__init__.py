"""quatstep from Python: thousands to millions of rigid bodies integrated at once, on the CPU or a GPU.

Four ways in, all on the same compiled core as the ``quatstep`` command:

* :func:`run` — a scenario (a path, a TOML string or a dict) run to its end by the command's run loop;
  the results come back as NumPy arrays (:class:`Result`): every dataset ``quatstep run`` writes to its
  HDF5 file (the chosen bodies' trajectories, the statistics, the drawn parameters), bit for bit,
  without a file unless ``output=`` asks for one. A scenario of mechanisms (``[mechanism]`` tables:
  bodies, joints, springs, loads) runs the same way, through the command's mechanism run.
* :class:`Ensemble` — bodies made from arrays of per-body parameters (no TOML): a model and a method
  by registry name, the model's keys as arrays, the method's settings as keywords; ``advance(steps)``
  and the state read without a copy: NumPy views of the ensemble's own storage on the CPU, DLPack arrays
  in device memory on the GPU (``backend="cuda"``).
* :class:`BatchStepper` — the coupled-step API for DEM codes: one step of the whole batch with the
  caller's torques and forces, NumPy arrays on the CPU or CUDA arrays (CuPy, PyTorch, JAX; DLPack) on
  the caller's stream on the GPU, the kinematics written into arrays the caller owns.

* :class:`MechanismEnsemble` — a mechanism scenario's mechanisms, with arrays over any of their numeric
  keys ("body.crank.mass", "spring.s.stiffness"), advanced step by step on the CPU: ``advance(steps)``
  gives the command's run bit for bit, however the steps are split.

Models and methods are those of the registry (:func:`registry`, ``quatstep docs scenario``); a new
model registered in C++ is reachable here by its name, with its keys as parameters. Mechanisms are
described by their scenario's tables (bodies, joints, springs, loads), not by a registered model:
:func:`run` runs them as the command does, :class:`MechanismEnsemble` steps them from Python, and
:class:`BatchStepper` (single bodies with the caller's loads) does not take them.

Every problem with the input raises :class:`ScenarioError` (a ValueError) with the command's message,
e.g. ``<dict>: key 'integrator.alpha': 0.5, must be in [-1/3, 0]``.
"""

from __future__ import annotations

import functools
import os
import threading
import warnings
from collections.abc import Mapping
from pkgutil import extend_path

# The package may lie in two directories: python/quatstep (these files) and the build tree's
# python/quatstep (the compiled _quatstep and its stubs); both on sys.path join here.
__path__ = extend_path(__path__, __name__)

import numpy as np  # noqa: E402

from . import _toml  # noqa: E402

try:
    from . import _quatstep as _core
    from ._quatstep import ScenarioError, Scenario, MechanismScenario
except ImportError as _error:  # the plots (quatstep.plot) work without the compiled module
    _core = None
    _import_error = _error

    class ScenarioError(ValueError):
        """A problem with a scenario or an ensemble's input (the compiled module is missing here)."""

__all__ = ["run", "load", "Result", "Ensemble", "MechanismEnsemble", "BatchStepper", "ScenarioError", "registry", "models",
           "methods", "to_toml", "STATUS"]

def _status_codes() -> dict:
    """{code: name} of quatstep/status.hpp, as the compiled core names them (empty without it)."""
    codes = {}
    while _core is not None and (name := _core.status_name(len(codes))) != "unknown":
        codes[len(codes)] = name
    return codes


#: Per-body status codes (quatstep/status.hpp): {0: "ok", 1: "newton_not_converged", …}.
STATUS = _status_codes()

to_toml = _toml.dumps


def _require_core():
    if _core is None:
        raise ImportError(f"the compiled module quatstep._quatstep is not importable ({_import_error}); build it "
                          "(cmake, target _quatstep) or pip install .") from _import_error
    return _core


def _one_call_at_a_time(method):
    """`method` under the object's lock (``self._calls``): Python threads may share an ensemble or a
    stepper, whose calls release the GIL while they step, and two calls at once would step one state
    from two threads (a crash or wrong numbers); they now run one after the other."""

    @functools.wraps(method)
    def serialized(self, *args, **kwargs):
        with self._calls:
            return method(self, *args, **kwargs)

    return serialized


_registry = None


def registry() -> dict:
    """The registry: ``{'models': {name: {...}}, 'methods': {name: {...}}}`` with every model's keys
    (name, size, default, range, doc, offset), channels and defaults, and every method's settings,
    variants, channels and the models it runs on."""
    global _registry
    if _registry is None:
        _registry = _require_core().registry()
    return _registry


def models() -> list[str]:
    """The names of the registered models (``[model] type``)."""
    return list(registry()["models"])


def methods() -> list[str]:
    """The names of the registered methods (``[integrator] method``)."""
    return list(registry()["methods"])


# ---------------------------------------------------------------- scenarios
def load(scenario, *, t_end: float | None = None, backend: str | None = None,
         precision: str | None = None, stride: int | None = None) -> "Scenario | MechanismScenario":
    """Parse and validate a scenario: a path (str ending in .toml, any existing file, a line with neither
    ``=`` nor ``[``, or os.PathLike: a path that does not exist is then an error saying so), a TOML
    string, or a dict of tables (written as TOML first). ``t_end``, ``backend``, ``precision`` and
    ``stride`` replace the file's values as the command's options do (a stride must divide the steps:
    with a shorter ``t_end``, pass one that does). A scenario with a ``[mechanism]`` table gives
    a :class:`MechanismScenario`, any other a :class:`Scenario`, as ``quatstep run`` tells them apart.
    Raises ScenarioError with the command's message; what a valid scenario asks that its precision
    cannot deliver (``Scenario.warnings``, e.g. a float tolerance below float's round-off) is a
    RuntimeWarning, as the command prints it."""
    core = _require_core()
    if isinstance(scenario, os.PathLike) or (
            isinstance(scenario, str) and "\n" not in scenario
            and (scenario.endswith(".toml") or os.path.isfile(scenario) or not any(c in scenario for c in "=["))):
        path = os.fspath(scenario)
        read = core.load_mechanism_scenario if core.is_mechanism_scenario(path) else core.load_scenario
        return _warned(read(path, t_end, backend, precision, stride))
    if isinstance(scenario, Mapping):
        text, source = to_toml(scenario), "<dict>"
    elif isinstance(scenario, str):
        text, source = scenario, "<string>"
    else:
        raise TypeError(f"a scenario is a path, a TOML string or a dict, got {type(scenario).__name__}")
    parse = core.parse_mechanism_scenario if core.is_mechanism_text(text, source) else core.parse_scenario
    return _warned(parse(text, source, t_end, backend, precision, stride))


def _warned(scenario):
    """The scenario, its warnings (if it has any) issued as RuntimeWarnings of the caller's caller."""
    for message in getattr(scenario, "warnings", ()):
        warnings.warn(message, RuntimeWarning, stacklevel=3)
    return scenario


class Result:
    """The results of a run: the datasets ``quatstep run`` writes to its HDF5 file, as arrays of the same
    names, shapes and values (h5py's view of the file).

    ``time`` (samples,); ``channels`` {name: (samples, M) or (samples, M, k)}: the ``[output] channels`` of
    the M bodies ``[output] trajectories`` chose (empty for ``"none"``), ``trajectory_bodies`` their
    ensemble indices when they are not all the bodies run (else None), ``trajectories`` the choice in
    words; ``status`` (N,) int32 codes (:data:`STATUS`), ``newton_iterations`` and ``failed_step`` (N,)
    int64 (−1: none); ``bodies`` the ensemble indices run with a body selection (else None);
    ``parameters`` {"model.inertia": (N,) or (N, k)} for every key an ``[ensemble]`` table sets;
    ``redraws`` (N,) int32 invalid draws thrown away per body when a law redraws (else None), with
    ``redrawn_bodies`` and ``redraw_count``; ``statistics`` {observable: {"definition", "count",
    "nonfinite", "mean", "std", "min", "max", "levels", "quantiles", and with bins "histogram", "edges",
    "below", "above"}} as /statistics/<observable>/ (``[output.statistics]``); with adaptive steps
    (``[time] adaptive = true``) ``accepted_steps`` and ``rejected_steps`` (N,) int64, the steps each body
    accepted and the attempts it rejected, and ``smallest_step`` and ``largest_step`` (N,) float64, the
    range of its accepted steps [s] (None with fixed steps, whose file has no such datasets);
    ``backend`` what ran it.

    A mechanism scenario's result has one row per mechanism (N mechanisms, all with trajectories):
    ``channels`` quaternion (samples, N, 4B), position, omega_body, velocity (samples, N, 3B) with
    the B bodies' components in turn (:meth:`body` gives one body's), energy, position_residual,
    velocity_residual, sample_newton_iterations (samples, N), linear_momentum and angular_momentum
    (samples, N, 3); ``parameters`` the swept or overridden keys ("body.crank.mass", …);
    ``assembly_position_correction`` and ``assembly_velocity_correction`` (N,) what assembly moved
    (None for bodies); the records as for bodies.
    ``result['energy']`` is ``result.channels['energy']``. After :func:`run` without ``output`` the
    arrays are views of the buffers the run filled (no copy).
    """

    def __init__(self, time, channels, status=None, newton_iterations=None, failed_step=None, backend=None,
                 scenario=None, *, trajectory_bodies=None, trajectories=None, bodies=None, parameters=None,
                 redraws=None, redrawn_bodies=0, redraw_count=0, statistics=None, accepted_steps=None,
                 rejected_steps=None, smallest_step=None, largest_step=None, assembly_position_correction=None,
                 assembly_velocity_correction=None):
        self.time = time
        self.channels = dict(channels)
        self.status = status
        self.newton_iterations = newton_iterations
        self.failed_step = failed_step
        self.backend = backend
        self.scenario = scenario
        self.trajectory_bodies = trajectory_bodies
        self.trajectories = trajectories
        self.bodies = bodies
        self.parameters = dict(parameters or {})
        self.redraws = redraws
        self.redrawn_bodies = redrawn_bodies
        self.redraw_count = redraw_count
        self.statistics = dict(statistics or {})
        self.accepted_steps = accepted_steps
        self.rejected_steps = rejected_steps
        self.smallest_step = smallest_step
        self.largest_step = largest_step
        self.assembly_position_correction = assembly_position_correction
        self.assembly_velocity_correction = assembly_velocity_correction

    def __getitem__(self, name):
        return self.channels[name]

    def __contains__(self, name):
        return name in self.channels

    def body(self, name: str) -> dict:
        """One body of a mechanism run: ``{channel: (samples, N, k)}`` for its quaternion, position,
        omega_body and velocity, views of the components of ``channels`` that are the body's."""
        names = getattr(self.scenario, "body_names", None)
        if names is None:
            raise ValueError("body(): the result of a mechanism scenario has bodies by name")
        if name not in names:
            raise ValueError(f"body(): no body '{name}' in the mechanism (its bodies: {names})")
        b = names.index(name)
        return {channel: self.channels[channel][..., k * b:k * (b + 1)]
                for channel, k in _BODY_CHANNELS.items() if channel in self.channels}

    @property
    def failures(self) -> int:
        """Bodies whose status is not ok."""
        return int(np.count_nonzero(self.status))

    def __repr__(self):
        shape = next(iter(self.channels.values())).shape if self.channels else ()
        return (f"Result({len(self.time)} samples, channels {list(self.channels)} {shape}, "
                f"statistics {list(self.statistics)}, "
                f"{self.failures if self.status is not None else '?'} failures)")


_RECORDS = ("status", "newton_iterations", "failed_step")
_STEP_RECORDS = ("accepted_steps", "rejected_steps", "smallest_step", "largest_step")  # adaptive steps
_ASSEMBLY = ("assembly_position_correction", "assembly_velocity_correction")  # mechanisms
_BODY_CHANNELS = {"quaternion": 4, "position": 3, "omega_body": 3, "velocity": 3}  # a mechanism's, per body
_SPLITTINGS = ("no_squish", "symmetric_splitting", "exact_free_splitting")  # compositions of order 2, 4, 6
_STATISTICS = ("count", "nonfinite", "mean", "std", "min", "max", "quantiles", "histogram", "below", "above")


def _read_file(path, scenario) -> Result:
    """A Result from the HDF5 file of a run: every dataset the file holds (needs h5py)."""
    import h5py

    with h5py.File(path, "r") as f:
        def optional(name):
            return f[name][:] if name in f else None

        statistics = {}
        if "statistics" in f:
            levels = f["statistics"].attrs["levels"]
            for name, group in f["statistics"].items():
                o = {"definition": group.attrs["definition"], "levels": list(levels)}
                o.update({key: group[key][:] for key in _STATISTICS if key in group})
                if "histogram" in group:
                    o["edges"] = list(group["histogram"].attrs["edges"])
                statistics[name] = o
        return Result(f["time"][:], {name: f[name][:] for name in scenario.channels if name in f},
                      *(f[name][:] for name in _RECORDS), f.attrs["backend"], scenario,
                      trajectory_bodies=optional("trajectory_bodies"), trajectories=f.attrs["trajectories"],
                      bodies=optional("bodies"),
                      parameters={name: d[:] for name, d in f["parameters"].items()} if "parameters" in f else {},
                      redraws=optional("redraws"), redrawn_bodies=int(f.attrs.get("redrawn_bodies", 0)),
                      redraw_count=int(f.attrs.get("redraws", 0)), statistics=statistics,
                      **{name: optional(name) for name in _STEP_RECORDS + _ASSEMBLY})


def run(scenario, *, t_end: float | None = None, backend: str | None = None, precision: str | None = None,
        stride: int | None = None, threads: int = 0, output: str | os.PathLike | None = None) -> Result:
    """Run a scenario to its end, as ``quatstep run`` does, and return its results as NumPy arrays.

    ``scenario``: a path, a TOML string, a dict of tables, or a :class:`Scenario` or
    :class:`MechanismScenario` from :func:`load`; a mechanism scenario runs through the command's
    mechanism run (CPU, double) and its result holds that file's datasets.
    ``t_end``, ``backend`` (``"auto"``, ``"cuda"``, ``"cpu"``), ``precision`` (``"double"``, ``"float"``)
    and ``stride`` replace the scenario's; ``threads`` > 0 sets the OpenMP threads (results do not depend on it).
    The run is the command's loop and honours the whole scenario: ``[output] trajectories`` (only the
    chosen bodies' samples are kept), ``[output.statistics]``, the drawn ``/parameters`` and redraws, and
    adaptive steps (``[time] adaptive = true``: the per-body step records).
    Without ``output`` nothing is written and the :class:`Result` holds what the file would (the
    trajectories of the chosen bodies: samples × M × channel scalars doubles). With ``output`` the run
    writes that HDF5 file and the result is read back from it (needs h5py). The GIL is released while
    it runs.
    """
    core = _require_core()
    if isinstance(scenario, (Scenario, MechanismScenario)):
        if (t_end, backend, precision, stride) != (None, None, None, None):
            raise ValueError("t_end, backend, precision and stride apply when a scenario is parsed: pass them to load()")
        sc = scenario
    else:
        sc = load(scenario, t_end=t_end, backend=backend, precision=precision, stride=stride)
    if output is None:
        r = core.run_in_memory(sc, threads)
        return Result(r["time"], r["channels"], *(r[name] for name in _RECORDS), r["backend"], sc,
                      **{key: r[key] for key in ("trajectory_bodies", "trajectories", "bodies", "parameters",
                                                 "redraws", "redrawn_bodies", "redraw_count", "statistics",
                                                 *_STEP_RECORDS)}, **r["body_values"])
    return _read_file(core.run_to_file(sc, os.fspath(output), threads), sc)


# ---------------------------------------------------------------- ensembles from arrays
def _model_keys(model):
    info = registry()["models"].get(model)
    return None if info is None else info


def _count(owner, name, value, least=0):
    """A count argument (bodies, mechanisms, steps) as an int: a whole number ≥ `least`, else ValueError
    or TypeError naming it (never truncated: 2.5 bodies is not 2)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{owner}: {name} = {value!r}: expected a whole number")
    if value < least:
        raise ValueError(f"{owner}: {name} = {value}: must be at least {least}")
    return int(value)


def _rows_of(owner, key, a, size, rows, row, rows_name):
    """Whether the value `a` of a key of `size` scalars is one per row ((rows, size), or (rows,) for a
    scalar key) rather than one for all ((size,) or a scalar), and the rows known after it (`rows`, or
    its row count); ScenarioError for any other shape or a row count that disagrees with `rows`."""
    # (1,) of a scalar key is its (size,) shape: one value for every row, as documented.
    per_row = (a.ndim == 2 and a.shape[1] == size) or (a.ndim == 1 and size == 1 and a.shape[0] != 1)
    if not per_row and a.shape not in ((), (size,)):
        raise ScenarioError(f"{owner}: key '{key}': expected one value of shape ({size},) or one per {row} "
                            f"({rows_name}, {size}), got an array of shape {a.shape}")
    if per_row:
        if rows is not None and a.shape[0] != rows:
            raise ScenarioError(f"{owner}: key '{key}': {a.shape[0]} rows, but {rows} {rows_name}")
        rows = a.shape[0]
    return per_row, rows


def _parameters(owner, model, parameters, bodies):
    """(bodies, P) float64 rows of the model's flat parameters from {key: array}, and the keys given.
    A key is the scenario's full name ("model.inertia", "initial.quaternion") or, when unambiguous, its
    name within its table ("inertia"); a value is one value for every body (shape (size,) or scalar)
    or one per body ((bodies, size), or (bodies,) for a scalar key)."""
    parameters = dict(parameters or {})
    info = _model_keys(model)
    if info is None:  # the core names the models in its message
        return np.zeros((0, 0)), list(parameters)
    keys = {k["name"]: k for k in info["keys"]}
    short = {}
    for name in keys:
        tail = name.split(".", 1)[1]
        short[tail] = name if tail not in short else None
    resolved, given = {}, []
    for name, value in parameters.items():
        full = name if name in keys else short.get(name) or name
        if full in given:
            raise ScenarioError(f"{owner}: key '{full}' is given twice (as '{name}' and by another name)")
        given.append(full)
        if full in keys:
            resolved[full] = np.asarray(value, dtype=np.float64)
    n = bodies
    for full, a in resolved.items():
        n = _rows_of(owner, full, a, keys[full]["size"], n, "body", "bodies")[1]
    n = 1 if n is None else int(n)
    flat = np.tile(np.asarray(info["defaults"], dtype=np.float64), (n, 1))
    for full, a in resolved.items():
        k = keys[full]
        flat[:, k["offset"]:k["offset"] + k["size"]] = a.reshape(-1, k["size"]) if a.ndim else a
    return np.ascontiguousarray(flat), given


class _Stepped:
    """What :class:`Ensemble` and :class:`MechanismEnsemble` share: their rows (bodies, mechanisms) stepped
    by the compiled ensemble ``self._core``, and the per-row records as read-only views of its storage."""

    @_one_call_at_a_time
    def advance(self, steps: int, stride: int | None = None) -> Result | None:
        """Advance every row by ``steps`` steps (the GIL is released meanwhile; calls from several threads
        run one after the other). With ``stride``, every
        stride-th state's channels come back as a :class:`Result` (time and channels, the file's shapes);
        ``steps`` and the steps done so far must then be multiples of ``stride``."""
        steps = _count("advance", "steps", steps)
        if stride is None:
            self._core.advance(steps)
            return None
        r = self._core.advance_sampled(steps, _count("advance", "stride", stride, least=1))
        return Result(r["time"], r["channels"], backend=self.backend, scenario=getattr(self, "scenario", None))

    @property
    def status(self) -> np.ndarray:
        """Per-row status codes (:data:`STATUS`), int32, a read-only view."""
        return self._core.status()

    @property
    def newton_iterations(self) -> np.ndarray:
        """Per-row Newton iterations over all steps, int64, a read-only view."""
        return self._core.newton_iterations()

    @property
    def failed_step(self) -> np.ndarray:
        """Per-row step of failure (−1: none), int64, a read-only view."""
        return self._core.failed_step()

    @property
    def failures(self) -> int:
        """Rows whose status is not ok."""
        return int(np.count_nonzero(self.status))

    steps_done = property(lambda self: self._core.steps_done, doc="Steps taken since the start.")
    time = property(lambda self: self._core.time, doc="t_start + steps_done·dt.")
    dt = property(lambda self: self._core.dt, doc="The step.")
    channels = property(lambda self: self._core.channels, doc="The channel names of observe() and samples.")


class Ensemble(_Stepped):
    """Bodies made from arrays, advanced step by step, on the CPU or the GPU.

    ``Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters={"inertia": I, "mass": 1.0,
    "center_of_mass": [0, 0, 1], "gravity": [0, 0, -9.81], "omega_body": w}, alpha=-0.1)``

    ``model``, ``method``: registry names (:func:`models`, :func:`methods`); ``parameters``: the model's
    keys (:func:`registry`, ``quatstep docs scenario``), full ("model.inertia") or short ("inertia"),
    each one value for all bodies or one row per body (``bodies`` sets the count when every value is
    shared); the method's settings as keywords (``alpha=-0.1``, ``inertia_shift=True``,
    ``newton_tolerance=1e-10``), ``variant`` for methods that have them; ``precision`` ``"double"`` or
    ``"float"``; ``backend`` ``"cpu"`` (the default), ``"cuda"`` (an error saying why where no GPU is
    usable) or ``"auto"`` (the GPU when one is usable: :attr:`backend` says which and why).
    ``adaptive=True`` gives each body steps of its own size (the HHT family, as a scenario's ``[time]
    adaptive = true``): ``dt`` is then the spacing of the output times that :meth:`advance` counts, and
    ``step_control`` holds ``[time]``'s step-control keys (``{"rotation_atol": 1e-8, "control":
    "per_unit_step"}``, ``quatstep docs scenario``); :attr:`step_records` are the steps taken. Inputs are
    checked as a scenario's are (:class:`ScenarioError`).

    No copy: :attr:`state` (the integrator's state, ``(state_size, bodies)``), :attr:`status`,
    :attr:`newton_iterations`, :attr:`failed_step`, and each kinematic quantity the method stores as is
    (:attr:`zero_copy` lists them: the quaternion but for the principal-axes splittings NO_SQUISH,
    the symmetric splitting and the exact free-flow splitting, which store q_body ∘ c, ``omega_body``
    for Simo–Vu-Quoc and Zupan3, position and velocity of free bodies; none with adaptive steps, which
    store each body at its own time) are read-only NumPy views of the ensemble's storage, in its
    precision, that follow it as it advances. The others (``omega_body`` of the HHT, Livens,
    Hamiltonian and Lie-group momentum schemes: computed from the stored rates or momenta) and
    :meth:`kinematics` and :meth:`observe` are computed copies.

    On the GPU the state stays in device memory: :attr:`state` and the stored kinematic quantities are
    read-only DLPack arrays there (``cupy.from_dlpack(ens.state)``, ``torch.from_dlpack(ens.quaternion)``),
    still without a copy and following the ensemble as it advances (:attr:`device` is the CUDA device);
    the per-body records, :meth:`kinematics`, :meth:`observe` and the samples of :meth:`advance` come
    back to the host as NumPy arrays. The GPU runs the same step code as ``quatstep run`` there.
    """

    def __init__(self, model: str, method: str, *, dt: float, parameters: Mapping | None = None,
                 bodies: int | None = None, variant: str | None = None, precision: str = "double",
                 backend: str = "cpu", t_start: float = 0.0, adaptive: bool = False,
                 step_control: Mapping | None = None, **settings):
        self._calls = threading.RLock()
        if bodies is not None:
            bodies = _count("quatstep.Ensemble", "bodies", bodies)
        flat, given = _parameters("quatstep.Ensemble", model, parameters, bodies)
        self._core = _require_core().make_ensemble(model, method, variant or "", settings, precision, backend,
                                                   float(dt), float(t_start), flat, given, bool(adaptive),
                                                   dict(step_control or {}))
        self.model, self.method = model, method

    @_one_call_at_a_time
    def observe(self) -> dict:
        """The channels at :attr:`time`, ``{name: (bodies,) or (bodies, k)}`` (NaN for failed bodies); with
        adaptive steps by each body's dense output there, the bits of :meth:`advance`'s sample (on the GPU
        in a strict-FP build: otherwise the device's FMAs differ in the last bits)."""
        return self._core.observe()

    @_one_call_at_a_time
    def kinematics(self) -> dict:
        """Quaternion (bodies, 4), omega_body (bodies, 3) and for free bodies position and velocity at
        :attr:`time` (adaptive steps: dense output, as :meth:`observe`), computed in double: copies."""
        return self._core.kinematics()

    # -- the state
    @property
    def state(self) -> np.ndarray:
        """The integrator's state as stored, ``(state_size, bodies)``, read-only view (no copy; on the GPU a
        DLPack array in device memory). The meaning of its rows is the method's (e.g. HHT: q, q̇, q̈, λ).
        With adaptive steps each body's state is at its own time, at or past :attr:`time` (a row holds it);
        :meth:`observe`, :meth:`kinematics` and ``quaternion``, ``omega_body``, … give them at :attr:`time`."""
        return self._core.state()

    @property
    def zero_copy(self) -> tuple:
        """The attributes that are views of the ensemble's storage for this model and method (on the GPU
        the per-body records are host copies, fetched when read)."""
        stored = tuple(k for k, first in self._core.layout.items() if first >= 0)
        records = ("status", "newton_iterations", "failed_step") if self.device < 0 else ()
        return ("state",) + records + stored

    @_one_call_at_a_time
    def _kinematic(self, name, size):
        first = self._core.layout[name]
        if first >= 0:
            return self._core.state_view(first, size)
        values = self._core.kinematics()
        if name not in values:
            raise AttributeError(f"a {self.model} model has no {name}")
        return values[name]

    @property
    def quaternion(self) -> np.ndarray:
        """(bodies, 4), scalar first."""
        return self._kinematic("quaternion", 4)

    @property
    def omega_body(self) -> np.ndarray:
        """(bodies, 3) body angular velocity."""
        return self._kinematic("omega_body", 3)

    @property
    def position(self) -> np.ndarray:
        """(bodies, 3) centre of mass (free bodies)."""
        return self._kinematic("position", 3)

    @property
    def velocity(self) -> np.ndarray:
        """(bodies, 3) velocity of the centre of mass (free bodies)."""
        return self._kinematic("velocity", 3)

    @property
    def step_records(self) -> dict | None:
        """Adaptive steps: per body ``{"accepted_steps", "rejected_steps", "smallest_step", "largest_step"}``
        (the datasets of a run's file, copies); None for fixed steps."""
        return self._core.step_records()

    bodies = property(lambda self: self._core.bodies, doc="Number of bodies.")
    precision = property(lambda self: self._core.precision, doc='"double" or "float".')
    backend = property(lambda self: self._core.backend, doc="What runs the bodies (and for \"auto\", why).")
    device = property(lambda self: self._core.device, doc="The CUDA device holding the state; -1: host memory.")
    bodies_in_lanes = property(
        lambda self: self._core.bodies_in_lanes,
        doc="The bodies the CPU steps together in SIMD lanes, bit for bit the scalar step "
            "(host/cpu_lanes.hpp): blocks of consecutive bodies — one register: AVX2 four in double, eight in float, AVX-512 twice that — whose loads take "
            "the same branches, with fixed steps; with adaptive steps (the HHT family) blocks of bodies without "
            "load windows, sorted by their next step size; 0 on the GPU and where "
            "``quatstep._quatstep.simd_lanes`` is False (a build without them, a CPU without AVX2, or "
            "``QUATSTEP_SIMD=off``).")

    def __repr__(self):
        return (f"Ensemble({self.model!r}, {self.method!r}, {self.bodies} bodies, {self.precision}, "
                f"step {self.steps_done})")


# ---------------------------------------------------------------- mechanisms from a scenario
def _mechanism_arrays(owner, keys, parameters, mechanisms, scenario_rows):
    """(rows, [key], [flat float64 array]) from {key: value}: a value is one for every mechanism (scalar or
    (size,)) or one row per mechanism ((mechanisms,) for a scalar key, (mechanisms, size)); the rows are
    ``mechanisms``, else the per-row values', else the scenario's (``scenario_rows``; 0 without values)."""
    rows, resolved = mechanisms, {}
    for key, value in dict(parameters or {}).items():
        a = np.asarray(value, dtype=np.float64)
        size = keys.get(key)
        if size is None:  # the core names the mechanism's keys in its message
            resolved[key] = (a, False)
            continue
        per_row, rows = _rows_of(owner, key, a, size, rows, "mechanism", "mechanisms")
        resolved[key] = (a, per_row)
    if not resolved:
        return int(rows or 0), [], []
    rows = int(scenario_rows if rows is None else rows)
    values = [np.ascontiguousarray((a if per_row else np.broadcast_to(a, (rows,) + a.shape)).reshape(-1))
              for a, per_row in resolved.values()]
    return rows, list(resolved), values


class MechanismEnsemble(_Stepped):
    """A mechanism scenario's mechanisms advanced step by step (double, fixed steps; CPU or GPU).

    ``MechanismEnsemble("slider_crank.toml", parameters={"spring.return spring.stiffness": k})``

    ``scenario``: a path, a TOML string, a dict or a :class:`MechanismScenario` (:func:`load`) with
    ``[mechanism]`` tables. Its mechanisms are built, assembled and initialised as ``quatstep run`` does
    them: the ensemble's sweeps, draws and overrides included. ``parameters`` replaces values of any
    numeric key of the mechanism (:attr:`MechanismScenario.parameter_keys`: "body.crank.mass",
    "joint.hinge.driver.ramp", "spring.s.stiffness", "load.0.value", "gravity", …) per mechanism: a value
    is one for every mechanism or one row per mechanism. There is one mechanism per row — the scenario's
    mechanisms one for one, or its single mechanism repeated — and ``mechanisms`` sets their number
    where no value does (``MechanismEnsemble(one_mechanism, mechanisms=1000)``). Every value is checked as the file's are (:class:`ScenarioError` naming
    the mechanism and the key). The scenario's ``[time] dt`` and ``t_start`` are the steps'.

    ``advance(n)`` takes n steps of every mechanism (the GIL is released); n steps, however split into
    calls, give the state of ``quatstep run`` after n steps, bit for bit. :meth:`observe` gives the
    channels of the run's file ({"quaternion": (mechanisms, 4·bodies), "energy": (mechanisms,), …}),
    :meth:`kinematics` the per-body ones as (mechanisms, bodies, k), :meth:`body` one body's.
    :attr:`status`, :attr:`newton_iterations`, :attr:`failed_step` and the assembly corrections are
    read-only views of the ensemble's records (no copy). :meth:`step` takes one step with a coupled
    code's loads on every body. Adaptive steps are :func:`run`'s (the ensemble refuses such scenarios,
    naming the key).

    ``backend``: ``"cpu"`` (the default), ``"cuda"`` (an error saying why where no GPU is usable) or
    ``"auto"`` (the GPU when one is usable: :attr:`backend` says which and why), as :class:`Ensemble`'s;
    the scenario's ``[run] backend`` is :func:`run`'s. On the GPU the mechanisms' states stay in device
    memory, the loads given to :meth:`step` (NumPy arrays) are copied there for each step and the
    records come back after every call; the results are the CPU's, bit for bit in a strict-mode build.
    """

    def __init__(self, scenario, *, parameters: Mapping | None = None, mechanisms: int | None = None,
                 backend: str = "cpu"):
        self._calls = threading.RLock()
        core = _require_core()
        sc = scenario if isinstance(scenario, MechanismScenario) else load(scenario)
        if not isinstance(sc, MechanismScenario):
            raise ScenarioError(f"{sc.source}: quatstep.MechanismEnsemble: not a mechanism scenario (it has no "
                                "[mechanism] table; quatstep.Ensemble makes single bodies)")
        if mechanisms is not None:
            mechanisms = _count("quatstep.MechanismEnsemble", "mechanisms", mechanisms, least=1)
        rows, keys, values = _mechanism_arrays(f"{sc.source}: quatstep.MechanismEnsemble", sc.parameter_keys,
                                               parameters, mechanisms, sc.mechanisms)
        self._core = core.make_mechanism_ensemble(sc, rows, keys, values, backend)
        self.scenario = sc

    @_one_call_at_a_time
    def step(self, force=None, body_torque=None, spatial_torque=None) -> None:
        """One step of every mechanism with a coupled code's loads held over it (zero-order hold), added to
        the scenario's own: ``force`` at each body's centre of mass and ``spatial_torque`` in spatial
        axes, ``body_torque`` in body axes; each ``(mechanisms, bodies, 3)``, or ``(bodies, 3)`` for every
        mechanism, the bodies in :attr:`body_names` order; None is no load. The loads act on this step
        only. A constant load passed every step (and to :meth:`initialize`) gives the run with that
        ``[[mechanism.load]]`` bit for bit; the Livens schemes, which evaluate loads at the step's
        midpoint, give the run with a load profile bit for bit when it is passed at ``time + dt/2``. A
        value that is not finite raises :class:`ScenarioError` naming the mechanism, the body and the
        load, and no mechanism steps.

        On the GPU (``backend="cuda"``) the loads may also be CUDA arrays (CuPy, PyTorch, any DLPack
        array on the ensemble's device; float64, C-contiguous, the full ``(mechanisms, bodies, 3)``),
        read in place after the work queued on the default stream: nothing goes through the host, the
        check for values that are not finite included."""
        self._core.step(*self._loads("step", force, body_torque, spatial_torque))

    @_one_call_at_a_time
    def initialize(self, force=None, body_torque=None, spatial_torque=None) -> None:
        """Before the first step: make the initial accelerations and Lagrange multipliers consistent with
        these loads acting at ``t_start`` besides the scenario's (arrays as for :meth:`step`). The HHT
        family keeps the accelerations in its state, so a coupled run starts as the scenario with those
        loads would; the Livens schemes start Newton from the multipliers. ``RuntimeError`` after a step."""
        self._core.initialize(*self._loads("initialize", force, body_torque, spatial_torque))

    def _loads(self, call, *arrays):
        """The loads of step() and initialize() as C-ordered float64 (mechanisms, bodies, 3) arrays or None;
        CUDA arrays are passed as they are, once their shape, type and layout are checked."""
        shape = (self.mechanisms, self.bodies, 3)

        def rows(name, a):
            if a is None:
                return None
            if _on_cuda(a):
                layout = "C-contiguous" if _c_contiguous(a) else "not C-contiguous"
                if tuple(a.shape) != shape or not str(a.dtype).endswith("float64") or layout != "C-contiguous":
                    raise ValueError(f"{call}(): {name}: a CUDA array must be float64, C-contiguous, of shape {shape}; "
                                     f"got {a.dtype}, {layout}, {tuple(a.shape)}")
                return a
            a = np.asarray(a, dtype=np.float64)
            if a.shape not in (shape, shape[1:]):
                raise ValueError(f"{call}(): {name}: expected shape {shape} or {shape[1:]} (every mechanism), "
                                 f"got {a.shape}")
            return np.ascontiguousarray(np.broadcast_to(a, shape))

        return [rows(name, a) for name, a in zip(("force", "body_torque", "spatial_torque"), arrays)]

    @_one_call_at_a_time
    def observe(self) -> dict:
        """The channels of the current state, as a sample of the run's file: ``{name: (mechanisms,) or
        (mechanisms, k)}``, the per-body ones with every body's components in turn, NaN for failed
        mechanisms; ``sample_newton_iterations`` are those of the latest :meth:`advance`."""
        return self._core.observe()

    @_one_call_at_a_time
    def kinematics(self) -> dict:
        """Quaternion (mechanisms, bodies, 4), position, omega_body and velocity (mechanisms, bodies, 3)
        of every body, in the ``[[mechanism.body]]`` order (:attr:`body_names`): copies."""
        values = self._core.observe()
        return {name: values[name].reshape(self.mechanisms, self.bodies, k) for name, k in _BODY_CHANNELS.items()}

    def body(self, name: str) -> dict:
        """One body's quaternion (mechanisms, 4), position, omega_body and velocity (mechanisms, 3)."""
        if name not in self.body_names:
            raise ValueError(f"body(): no body '{name}' in the mechanism (its bodies: {self.body_names})")
        b = self.body_names.index(name)
        return {channel: values[:, b] for channel, values in self.kinematics().items()}

    @property
    def assembly_position_correction(self) -> np.ndarray:
        """What assembly moved each mechanism's positions (0 with ``assemble = "reject"``), a read-only view."""
        return self._core.assembly_corrections()[0]

    @property
    def assembly_velocity_correction(self) -> np.ndarray:
        """What assembly changed each mechanism's velocities, a read-only view."""
        return self._core.assembly_corrections()[1]

    @_one_call_at_a_time
    def use_lanes(self, on: bool = True):
        """Turn the CPU's SIMD lanes off for :meth:`advance` and :meth:`step` (every mechanism its scalar
        step) or back on where this build, CPU and method have them; the same bits either way."""
        self._core.use_lanes(on)

    mechanisms_in_lanes = property(
        lambda self: self._core.mechanisms_in_lanes,
        doc="The mechanisms the latest :meth:`advance` or :meth:`step` stepped together in SIMD lanes (before "
            "either, those :meth:`advance` would), bit for bit the scalar step (host/cpu_mechanism_lanes.hpp): "
            "blocks of consecutive mechanisms of one kind — AVX2 four, AVX-512 eight; for :meth:`step`, of "
            "one kind with the step's loads held, made anew each step — with every mechanism method, of "
            "either capacity; 0 on the GPU and where ``quatstep._core.simd_lanes`` is False.")
    mechanisms = property(lambda self: self._core.mechanisms, doc="Number of mechanisms.")
    bodies = property(lambda self: self._core.bodies, doc="Bodies per mechanism.")
    body_names = property(lambda self: self.scenario.body_names, doc="The bodies, in the channels' order.")
    method = property(lambda self: self.scenario.method, doc="The scenario's [integrator] method.")
    backend = property(lambda self: self._core.backend, doc="What steps the mechanisms (and for \"auto\", why).")

    def __repr__(self):
        return (f"MechanismEnsemble({self.scenario.source!r}, {self.mechanisms} mechanisms of {self.bodies} bodies, "
                f"{self.method}, step {self.steps_done})")


# ---------------------------------------------------------------- the coupled-step API
def _on_cuda(a) -> bool:
    """Whether `a` is an array in CUDA device memory (DLPack device type kDLCUDA, or a
    __cuda_array_interface__ without DLPack)."""
    if hasattr(a, "__dlpack_device__"):
        return a.__dlpack_device__()[0] == 2  # kDLCUDA
    return hasattr(a, "__cuda_array_interface__")


def _c_contiguous(a) -> bool:
    """C-contiguity of a CuPy (flags) or PyTorch (is_contiguous) array; True where neither says."""
    if hasattr(a, "flags") and hasattr(a.flags, "c_contiguous"):
        return bool(a.flags.c_contiguous)
    if hasattr(a, "is_contiguous"):
        return bool(a.is_contiguous())
    return True


def _stream_handle(stream) -> int:
    """A cudaStream_t as an integer from None (the default stream), an int, a CuPy stream (.ptr) or a
    PyTorch stream (.cuda_stream)."""
    if stream is None:
        return 0
    if isinstance(stream, int):
        return stream
    for attribute in ("cuda_stream", "ptr"):
        if hasattr(stream, attribute):
            return int(getattr(stream, attribute))
    raise TypeError(f"not a CUDA stream: {stream!r}")


class BatchStepper:
    """One step of the whole batch at a time with the caller's loads: the coupled-step API for DEM
    codes, on the CPU (host/cpu_batch_stepper.hpp) or the GPU (kernels/batch_stepper.cuh), the same
    steps bit for bit in strict mode.

    Made as :class:`Ensemble` is (model, method, parameters, settings as keywords; no dt: each
    :meth:`step` gives its h). ``backend``: ``"auto"`` (the default: the GPU when this build has CUDA
    and a GPU is usable, else the CPU; :attr:`backend` says which and why), ``"cpu"`` or ``"cuda"``.
    Torques and forces are spatial, ``(3, bodies)`` arrays in the stepper's precision
    (component-major, C-contiguous) in the stepper's memory: NumPy arrays on the CPU; on the GPU CUDA
    arrays from any library that speaks DLPack (CuPy, PyTorch, JAX). :meth:`kinematics` writes into
    ``(4, bodies)`` / ``(3, bodies)`` arrays the caller owns. On the GPU every call is asynchronous on
    ``stream`` (a CuPy or PyTorch stream, or a cudaStream_t as an int) and nothing is copied to the
    host; on the CPU ``stream`` is ignored and the bodies are stepped by OpenMP threads (the same bits
    for any thread count).

    ``loads``: ``"at_start"`` (the default) — each step's torques and forces are those of the state it
    starts from, as a DEM code computes its contacts from the kinematics it just read; they also
    complete the last step's end impulse, so that the splittings at ``order=2`` and
    ``explicit_newmark_lie`` are velocity Verlet, second order in loads that depend on the state
    (higher compositions and the implicit methods are first order in such loads: they need them
    inside or at the end of the step; a splitting at its default ``order=4`` with ``"at_start"`` warns
    so). ``"held"`` — the loads stand for the whole step (a signal of time sampled at the step's
    midpoint).

    The first :meth:`step` initializes every body anew with its loads, so the initial accelerations
    of the HHT family and Simo–Vu-Quoc include them (a constant load given every step is that load in
    the model, bit for bit); before it, :meth:`kinematics` reads the initial state. A body given a
    load that is not finite (NaN, ±∞) fails alone with status ``non_finite`` and keeps its last state.
    Calls from several Python threads run one after the other.
    """

    def __init__(self, model: str, method: str, *, parameters: Mapping | None = None, bodies: int | None = None,
                 variant: str | None = None, precision: str = "double", backend: str = "auto", t_start: float = 0.0,
                 stream=None, loads: str = "at_start", **settings):
        if loads == "at_start" and method in _SPLITTINGS and settings.get("order", 4) != 2:
            warnings.warn(f"BatchStepper: {method} at order {settings.get('order', 4)} is first order in loads given at "
                          "the step's start (its inner stages need the loads there); order=2 is velocity Verlet, "
                          "second order (README, GPU)", UserWarning, stacklevel=2)
        self._calls = threading.RLock()
        if bodies is not None:
            bodies = _count("quatstep.BatchStepper", "bodies", bodies)
        flat, given = _parameters("quatstep.BatchStepper", model, parameters, bodies)
        self._core, self.backend = _require_core().make_batch_stepper(model, method, variant or "", settings, precision,
                                                                      backend, float(t_start), flat, given,
                                                                      _stream_handle(stream), loads)

    @_one_call_at_a_time
    def step(self, h: float, torque=None, force=None, stream=None) -> None:
        """One step of size h with the torques and forces of this step (as ``loads`` says): ``(3, bodies)``
        arrays or None; read, never written (read-only arrays are fine; other layouts are copied on the
        CPU)."""
        self._core.step(float(h), torque, force, _stream_handle(stream))

    @_one_call_at_a_time
    def kinematics(self, quaternion=None, omega_body=None, position=None, velocity=None, stream=None) -> None:
        """Write orientation ``(4, bodies)``, body angular velocity (and position, velocity of free bodies)
        ``(3, bodies)`` into the given arrays, in place: each writable, C-contiguous, in the stepper's
        precision and memory, no two overlapping; None skips one."""
        outputs = {"quaternion": quaternion, "omega_body": omega_body, "position": position, "velocity": velocity}
        for name, a in outputs.items():
            if isinstance(a, np.ndarray) and not a.flags.writeable:
                raise ValueError(f"kinematics(): {name}: a read-only array (it is written in place)")
            if a is not None and not (a.flags.c_contiguous if isinstance(a, np.ndarray) else _c_contiguous(a)):
                raise ValueError(f"kinematics(): {name}: not C-contiguous (it is written in place; "
                                 "np.ascontiguousarray would write a copy)")
        self._core.kinematics(quaternion, omega_body, position, velocity, _stream_handle(stream))

    def status(self):
        """Per-body status codes, no copy: a read-only NumPy array on the CPU; on the GPU a DLPack array
        (``cupy.from_dlpack``, ``torch.from_dlpack``)."""
        return self._core.status()

    def failed_step(self):
        """Per-body step at which each body failed (−1: none), int64, no copy, as :meth:`status`."""
        return self._core.failed_step()

    def newton_iterations(self):
        """Per-body Newton iterations over all steps, int64, no copy, as :meth:`status`."""
        return self._core.newton_iterations()

    bodies = property(lambda self: self._core.bodies, doc="Number of bodies.")
    steps_done = property(lambda self: self._core.steps_done, doc="Steps taken.")
    time = property(lambda self: self._core.time, doc="t_start plus the steps taken.")
    precision = property(lambda self: self._core.precision, doc='"double" or "float".')

    def __repr__(self):
        return (f"BatchStepper({self.bodies} bodies, {self.precision}, step {self.steps_done}, "
                f"t = {self.time:.17g}; {self.backend})")
