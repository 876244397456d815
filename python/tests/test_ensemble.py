"""quatstep.Ensemble: bodies from arrays give exactly the scenario's run; the state views are the
ensemble's storage (pointer identity, no copy); bad input raises the parser's messages; the GIL is
released while it (and quatstep.MechanismEnsemble) advances; every registered method runs on every
model it declares, in both precisions."""

import os
import re
import threading
import time

import numpy as np
import pytest

from support import EXAMPLES, assert_bitwise, pointer, quatstep, toml_loads

HEAVY_TOP = {"inertia": [0.234375, 0.46875, 0.234375], "mass": 15.0, "center_of_mass": [0, 1, 0],
             "gravity": [0, 0, -9.81], "omega_body": [0, 150, -4.61538]}


def scenario_rows(scenario):
    """The scenario's per-body parameters as {key: (bodies, size)} for quatstep.Ensemble."""
    keys = quatstep.registry()["models"][scenario.model]["keys"]
    rows = np.array([scenario.body_parameters(i) for i in range(scenario.bodies)])
    return {k["name"]: rows[:, k["offset"]:k["offset"] + k["size"]] for k in keys}


@pytest.mark.parametrize("precision", ["double", "float"])
def test_arrays_give_the_scenarios_run_bit_for_bit(precision):
    """examples/spinning_ensemble.toml (a sweep and random draws) through run() and as arrays."""
    sc = quatstep.load(f"{EXAMPLES}/spinning_ensemble.toml", t_end=1.0, backend="cpu", precision=precision)
    expected = quatstep.run(sc)
    ens = quatstep.Ensemble(sc.model, sc.method, dt=sc.dt, parameters=scenario_rows(sc), precision=precision,
                            alpha=0.0)
    first = ens.observe()
    samples = ens.advance(sc.steps, stride=sc.stride)
    for name in sc.channels:
        assert_bitwise(first[name], expected[name][0], f"{name}, sample 0")
        assert_bitwise(samples[name], expected[name][1:], name)
    assert_bitwise(samples.time, expected.time[1:], "time")
    assert_bitwise(ens.status, expected.status, "status")
    assert_bitwise(ens.newton_iterations, expected.newton_iterations, "newton_iterations")
    assert_bitwise(ens.failed_step, expected.failed_step, "failed_step")
    assert ens.time == pytest.approx(1.0) and ens.steps_done == sc.steps


def test_adaptive_steps_give_the_scenarios_run_bit_for_bit():
    """examples/adaptive_heavy_tops.toml ([time] adaptive = true, a spin sweep) through run() and as
    arrays with the same step control: every sample and the step records bit for bit."""
    sc = quatstep.load(f"{EXAMPLES}/adaptive_heavy_tops.toml", t_end=0.1, backend="cpu")
    expected = quatstep.run(sc)
    control = {"control": "per_unit_step", "rotation_atol": 1e-6, "h_initial": 1e-5, "h_max": 1e-2}
    ens = quatstep.Ensemble(sc.model, sc.method, dt=sc.dt, parameters=scenario_rows(sc), alpha=-0.2,
                            inertia_shift=True, adaptive=True, step_control=control)
    first = ens.observe()
    samples = ens.advance(sc.steps, stride=sc.stride)
    for name in sc.channels:
        assert_bitwise(first[name], expected[name][0], f"{name}, sample 0")
        assert_bitwise(samples[name], expected[name][1:], name)
    # Each body is stored at its own time, past the ensemble's: what is read at the ensemble's time is
    # dense output there, the last sample's bits (before, each body's own state: 2e-5 … 7e-4 off).
    now = ens.observe()
    for name in sc.channels:
        assert_bitwise(now[name], expected[name][-1], f"{name}, observe() at the end")
    assert_bitwise(ens.kinematics()["quaternion"], expected["quaternion"][-1], "kinematics() at the end")
    assert_bitwise(ens.quaternion, expected["quaternion"][-1], "the quaternion property at the end")
    assert ens.zero_copy == ("state", "status", "newton_iterations", "failed_step")
    records = ens.step_records
    for name in ("accepted_steps", "rejected_steps", "smallest_step", "largest_step"):
        assert_bitwise(records[name], getattr(expected, name), name)
    assert records["accepted_steps"].min() > 0 and ens.time == pytest.approx(0.1)
    # Without the file's step control the defaults act: other steps.
    default = quatstep.Ensemble(sc.model, sc.method, dt=sc.dt, parameters=scenario_rows(sc), alpha=-0.2,
                                inertia_shift=True, adaptive=True)
    default.advance(sc.steps)
    assert not np.array_equal(default.step_records["accepted_steps"], records["accepted_steps"])
    assert quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters=HEAVY_TOP).step_records is None


@pytest.mark.parametrize("method, adaptive, control, message", [
    ("zupan3", True, {}, "key 'time.adaptive': method 'zupan3' takes fixed steps only; adaptive steps run with "
                         "the HHT family"),
    ("modified_hht", False, {"rotation_atol": 1e-8}, "key 'time.rotation_atol': read only with adaptive = true"),
    ("modified_hht", True, {"rotation_atol": -1.0}, "key 'time.rotation_atol': -1, must be > 0"),
    ("modified_hht", True, {"control": "per_second"}, "key 'time.control': "),
    ("modified_hht", True, {"tolerance": 1e-8}, "key 'time.tolerance': unknown key"),
    ("modified_hht", True, {"hmin": 1e-6}, "key 'time.hmin': unknown key (did you mean 'h_min'?)"),
])
def test_bad_step_control_raises_the_parsers_message(method, adaptive, control, message):
    with pytest.raises(quatstep.ScenarioError, match="^" + re.escape("quatstep.Ensemble: " + message)):
        quatstep.Ensemble("heavy_top", method, dt=1e-3, parameters=HEAVY_TOP, adaptive=adaptive,
                          step_control=control)


def test_settings_keywords_reach_the_integrator():
    """alpha and inertia_shift given as keywords are the scenario's [integrator] keys."""
    text = open(f"{EXAMPLES}/heavy_top.toml").read()
    sc = quatstep.load(text, t_end=0.01, backend="cpu")  # alpha = -0.2, inertia_shift = true
    expected = quatstep.run(sc)
    ens = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters=HEAVY_TOP, alpha=-0.2,
                            inertia_shift=True)
    ens.advance(100)
    assert_bitwise(ens.observe()["energy"], expected["energy"][-1], "energy")
    default = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters=HEAVY_TOP)
    default.advance(100)
    assert not np.array_equal(default.observe()["energy"], expected["energy"][-1])


def test_state_views_are_the_ensembles_storage():
    n = 64
    w = np.zeros((n, 3))
    w[:, 1] = np.linspace(1, 2, n)
    ens = quatstep.Ensemble("free_rigid_body", "simo_vu_quoc", dt=1e-3, parameters={"inertia": [1, 2, 3], "omega_body": w,
                            "velocity": [1, 0, 0]})
    state, q, omega, r = ens.state, ens.quaternion, ens.omega_body, ens.position
    assert set(ens.zero_copy) >= {"state", "quaternion", "omega_body", "position", "velocity", "status"}
    assert state.shape == (ens._core.state_size, n) and not state.flags.writeable
    layout = ens._core.layout
    # Pointer identity: each kinematic view starts at its rows of the state, the state stays put.
    assert pointer(q) == pointer(state) + 8 * n * layout["quaternion"]
    assert pointer(omega) == pointer(state) + 8 * n * layout["omega_body"]
    assert pointer(r) == pointer(state) + 8 * n * layout["position"]
    assert q.strides == (8, 8 * n)
    before = q.copy()
    ens.advance(50)
    assert pointer(ens.state) == pointer(state) and pointer(ens.status) == pointer(ens.status)
    assert not np.array_equal(before, q)  # the same array object shows the advanced state
    k = ens.kinematics()  # the computed copy agrees with the views
    assert_bitwise(np.ascontiguousarray(q), k["quaternion"], "quaternion")
    assert_bitwise(np.ascontiguousarray(omega), k["omega_body"], "omega_body")
    assert_bitwise(np.ascontiguousarray(ens.position), k["position"], "position")
    assert np.allclose(ens.position[:, 0], 0.05)


def test_backend_choice_says_where_and_why():
    """"cpu" runs on the host (device -1); "auto" takes the GPU only where one is usable and says why
    not otherwise; "cuda" without a usable GPU is an error with that reason (tests/test_ensemble_cuda.py
    runs the GPU itself)."""
    cpu = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters=HEAVY_TOP)
    assert cpu.backend == "cpu" and cpu.device == -1
    auto = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters=HEAVY_TOP, backend="auto")
    if auto.backend.startswith("cuda"):
        assert auto.device >= 0
        return
    assert auto.backend.startswith("cpu (auto: ") and auto.device == -1
    reason = auto.backend[len("cpu (auto: "):-1]
    with pytest.raises(RuntimeError, match=r'backend "cuda" requested, but ') as e:
        quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters=HEAVY_TOP, backend="cuda")
    assert str(e.value).endswith(reason)
    with pytest.raises(ValueError, match="gpu"):
        quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters=HEAVY_TOP, backend="gpu")


def test_computed_kinematics_are_copies():
    """The HHT family stores (e, ė): ω is computed, the quaternion is still a view."""
    ens = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, parameters=HEAVY_TOP)
    assert "quaternion" in ens.zero_copy and "omega_body" not in ens.zero_copy
    w1, w2 = ens.omega_body, ens.omega_body
    assert not np.shares_memory(w1, ens.state) and pointer(w1) != pointer(w2)
    assert_bitwise(w1, np.array([HEAVY_TOP["omega_body"]]), "omega_body at the start")
    assert np.shares_memory(ens.quaternion, ens.state)


def test_bodies_in_lanes_counts_the_blocks_the_cpu_steps_together():
    """Ten heavy tops alike: in double two blocks of four in AVX2 lanes where this process has them (the
    last two bodies step alone), one block of eight in AVX-512; in float one block of eight in AVX2, none
    in AVX-512 (a block is sixteen); none without lanes. Adaptive steps take the lanes as fixed ones
    (tests/cpu_lanes_test.cpp: bit for bit the bodies stepped alone)."""
    isa = quatstep._core.simd_isa
    assert isa in ("AVX2", "AVX-512", "") and (isa != "") == quatstep._core.simd_lanes
    ens = quatstep.Ensemble("heavy_top", "livens_em", dt=1e-3, parameters=HEAVY_TOP, bodies=10)
    assert ens.bodies_in_lanes == (8 if isa else 0)
    ens.advance(10)
    assert ens.bodies_in_lanes == (8 if isa else 0) and ens.failures == 0
    single = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-3, parameters=HEAVY_TOP, bodies=10,
                               precision="float")
    single.advance(10)
    assert single.bodies_in_lanes == (8 if isa == "AVX2" else 0) and single.failures == 0
    adaptive = quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-3, parameters=HEAVY_TOP, bodies=10,
                                 adaptive=True, inertia_shift=True)
    adaptive.advance(10)
    assert adaptive.bodies_in_lanes == (8 if isa else 0) and adaptive.failures == 0


def test_float_views_are_float():
    ens = quatstep.Ensemble("heavy_top", "zupan3", dt=1e-3, parameters=HEAVY_TOP, precision="float")
    assert ens.state.dtype == np.float32 and ens.quaternion.dtype == np.float32
    assert np.shares_memory(ens.quaternion, ens.state)


def test_per_body_and_shared_values():
    inertia = np.array([[1, 2, 2.5], [1, 1, 1], [3, 2, 2]])
    ens = quatstep.Ensemble("heavy_top", "hht", dt=1e-3, parameters={"model.inertia": inertia,
                            "initial.quaternion": [1, 0, 0, 0], "mass": np.array([0.0, 0.0, 0.0])})
    assert ens.bodies == 3
    assert quatstep.Ensemble("heavy_top", "hht", dt=1e-3, bodies=5, parameters={"inertia": [1, 1, 1]}).bodies == 5


BAD = [
    (dict(alpha=0.5), "quatstep.Ensemble: key 'integrator.alpha': 0.5, must be in [-1/3, 0]"),
    (dict(foo=1), "quatstep.Ensemble: key 'integrator.foo': unknown key"),
    (dict(alhpa=-0.1), "quatstep.Ensemble: key 'integrator.alhpa': unknown key (did you mean 'alpha'?)"),
    (dict(variant="reml"), "quatstep.Ensemble: key 'integrator.variant': not used by method 'modified_hht' "
                           "(only by livens_em)"),
    (dict(inertia_shift=1.0), "quatstep.Ensemble: key 'integrator.inertia_shift': expected a boolean, got a number"),
    (dict(parameters={"inertia": [[1, 2, 2.5], [1, -1, 1]]}),
     "quatstep.Ensemble: body 1: key 'model.inertia': component 1 is -1, must be > 0"),
    (dict(parameters={"inertia": [1, 1, 1], "quaternion": [1, 0.5, 0, 0]}), "key 'initial.quaternion'"),
    (dict(parameters={"inertia": [1, 1, 1], "position": [0, 0, 0]}),
     "quatstep.Ensemble: key 'position': not a key of a heavy_top model"),
    (dict(parameters={"inertai": [1, 1, 1]}),
     "quatstep.Ensemble: key 'inertai': not a key of a heavy_top model (did you mean 'inertia'?)"),
    (dict(parameters={"mass": 1.0}), "quatstep.Ensemble: key 'model.inertia': missing (required)"),
    (dict(parameters={"inertia": [1, 1]}), "key 'model.inertia': expected one value of shape (3,)"),
    (dict(parameters={"model.inertia": [3, 3, 3], "inertia": [1, 2, 2.5]}),
     "quatstep.Ensemble: key 'model.inertia' is given twice"),
    (dict(bodies=-1), "quatstep.Ensemble: bodies = -1: must be at least 0"),
    (dict(dt=-1.0), "quatstep.Ensemble: key 'time.dt': -1, must be > 0"),
    (dict(model="top"), "quatstep.Ensemble: key 'model.type': 'top' is not one of \"heavy_top\", \"free_rigid_body\""),
]


@pytest.mark.parametrize("change,message", BAD, ids=[m for _, m in BAD])
def test_bad_input_raises_the_parsers_message(change, message):
    args = dict(model="heavy_top", method="modified_hht", dt=1e-3, parameters={"inertia": [1, 2, 2.5]})
    args.update(change)
    with pytest.raises(ValueError) as error:
        quatstep.Ensemble(args.pop("model"), args.pop("method"), **args)
    assert message in str(error.value)


def test_a_scalar_keys_one_element_list_is_every_bodys_value():
    """(1,) is a scalar key's (size,) shape: one value for all bodies (it was taken as one body's row and
    refused against bodies = 5)."""
    ens = quatstep.Ensemble("heavy_top", "hht", dt=1e-3, bodies=5, parameters={"inertia": [1, 1, 1], "mass": [2.0],
                                                                               "center_of_mass": [0, 0, 0.1]})
    same = quatstep.Ensemble("heavy_top", "hht", dt=1e-3, bodies=5, parameters={"inertia": [1, 1, 1], "mass": 2.0,
                                                                                "center_of_mass": [0, 0, 0.1]})
    ens.advance(10), same.advance(10)
    assert ens.bodies == 5
    np.testing.assert_array_equal(ens.observe()["energy"], same.observe()["energy"])


def test_counts_are_whole_numbers():
    with pytest.raises(TypeError, match="bodies = 2.5: expected a whole number"):
        quatstep.Ensemble("heavy_top", "hht", dt=1e-3, bodies=2.5, parameters={"inertia": [1, 1, 1]})
    ens = quatstep.Ensemble("heavy_top", "hht", dt=1e-3, parameters={"inertia": [1, 1, 1]})
    with pytest.raises(TypeError, match="steps = 2.7: expected a whole number"):
        ens.advance(2.7)
    with pytest.raises(ValueError, match="stride = 0: must be at least 1"):
        ens.advance(2, stride=0)
    ens.advance(np.int64(3))
    assert ens.steps_done == 3


def test_the_same_messages_as_a_scenario():
    """The parser's wording for the same fault in a file."""
    text = "[model]\ntype = \"heavy_top\"\ninertia = [1, 2, 2.5]\n[integrator]\nmethod = \"hht\"\nalpha = 0.5\n" \
           "[time]\ndt = 0.01\nt_end = 0.1\n"
    with pytest.raises(ValueError) as from_file:
        quatstep.load(text)
    with pytest.raises(ValueError) as from_arrays:
        quatstep.Ensemble("heavy_top", "hht", dt=0.01, parameters={"inertia": [1, 2, 2.5]}, alpha=0.5)
    assert str(from_file.value).split(": ", 1)[1] == str(from_arrays.value).split(": ", 1)[1]


def slider_cranks(n):
    """n slider-cranks of examples/slider_crank_sweep.toml (its one mechanism, repeated) to step from Python."""
    with open(os.path.join(EXAMPLES, "slider_crank_sweep.toml")) as f:
        d = toml_loads(f.read())
    del d["ensemble"]
    return quatstep.MechanismEnsemble(d, parameters={"spring.return spring.stiffness": np.linspace(50, 800, n)})


@pytest.mark.parametrize("make", [
    lambda: quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, bodies=4000, parameters=HEAVY_TOP),
    lambda: slider_cranks(400)], ids=["bodies", "mechanisms"])
def test_gil_is_released_while_advancing(make):
    """A Python thread keeps running while another advances: the longest pause between its ticks
    is a small part of the advance (with the GIL held it would stall for the whole advance)."""
    ens = make()
    ens.advance(20)
    t0 = time.perf_counter()
    ens.advance(20)
    steps = max(20, int(20 * 0.6 / max(time.perf_counter() - t0, 1e-6)))  # an advance of ~0.6 s
    done = threading.Event()
    span = []

    def work():
        start = time.perf_counter()
        ens.advance(steps)
        span.extend([start, time.perf_counter()])
        done.set()

    ticks = []
    worker = threading.Thread(target=work)
    worker.start()
    while not done.is_set():
        ticks.append(time.perf_counter())
        sum(range(200))  # Python bytecode, needs the GIL
    worker.join()
    start, end = span
    inside = [t for t in ticks if start <= t <= end]
    gaps = np.diff([start, *inside, end])
    print(f"advance {end - start:.3f} s, {len(inside)} Python ticks meanwhile, longest pause {gaps.max() * 1e3:.1f} ms")
    assert end - start > 0.2
    assert len(inside) > 100 and gaps.max() < 0.5 * (end - start)


@pytest.mark.parametrize("make", [
    lambda: quatstep.Ensemble("heavy_top", "modified_hht", dt=1e-4, bodies=2000, parameters=HEAVY_TOP),
    lambda: slider_cranks(64)], ids=["bodies", "mechanisms"])
def test_threads_sharing_an_ensemble_advance_one_after_the_other(make):
    """Two threads advancing one ensemble 30 steps each, 10 at a time: the state of 60 steps in a row,
    bit for bit (both advancing at once stepped one state from two threads: wrong numbers, no error)."""
    shared, alone = make(), make()

    def work():
        for _ in range(3):
            shared.advance(10)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    alone.advance(60)
    assert shared.steps_done == alone.steps_done == 60
    for name, values in alone.observe().items():
        if name != "sample_newton_iterations":  # those of the latest advance (10 steps against 60)
            np.testing.assert_array_equal(shared.observe()[name], values, err_msg=name)


def combinations():
    reg = quatstep.registry()
    for method, info in reg["methods"].items():
        for variant in [v for v, _ in info["variants"]] or [None]:
            for model in info["models"]:
                for precision in ("double", "float"):
                    yield method, variant, model, precision


@pytest.mark.parametrize("method,variant,model,precision", list(combinations()))
def test_every_registered_method_and_model(method, variant, model, precision):
    parameters = {"inertia": [[1, 2, 2.5], [2, 2, 3]], "omega_body": [0.3, 2, 0.1]}
    if model == "heavy_top":
        parameters.update(mass=2.0, center_of_mass=[0, 0, 0.1], gravity=[0, 0, -9.81])
    try:
        ens = quatstep.Ensemble(model, method, dt=1e-3, parameters=parameters, variant=variant, precision=precision)
    except ValueError as e:  # a variant that does not run on this model says so
        assert "does not run on" in str(e)
        return
    ens.advance(20)
    assert list(ens.status) == [0, 0]
    q = ens.kinematics()["quaternion"]
    assert np.allclose(np.linalg.norm(q, axis=1), 1, atol=1e-6)
    assert not np.allclose(q, [1, 0, 0, 0])  # it turned
    energy = ens.observe()["energy"]
    assert np.all(np.isfinite(energy))
    assert np.asarray(ens.newton_iterations).min() >= 0
    # Each kinematic attribute: a view of the state where the method stores it as is, else a copy;
    # either way the values of kinematics().
    computed = ens.kinematics()
    # every method stores the quaternion as is but the principal-axes splittings, whose state holds
    # q_body ∘ c (rigid_body_splitting.hpp)
    assert ("quaternion" in ens.zero_copy) == (method not in ("no_squish", "symmetric_splitting", "exact_free_splitting"))
    for name, values in computed.items():
        a = getattr(ens, name)
        assert np.shares_memory(a, ens.state) == (name in ens.zero_copy), name
        assert_bitwise(a.astype(np.float64), values, name)


def test_registry_lists_every_model_and_method():
    reg = quatstep.registry()
    assert set(quatstep.models()) == {"heavy_top", "free_rigid_body"}
    assert {"hht", "modified_hht", "simo_vu_quoc", "zupan3", "livens_em"} <= set(quatstep.methods())
    for name, model in reg["models"].items():
        keys = model["keys"]
        assert sum(k["size"] for k in keys) == len(model["defaults"])
        assert {c["name"] for c in model["channels"]} >= {"quaternion", "energy"}
