"""quatstep.MechanismEnsemble: a mechanism scenario's mechanisms advanced step by step from Python give the
command's run bit for bit, however the steps are split; arrays over a key are the mechanisms a sweep makes;
the records are views of the ensemble's storage; bad arrays raise naming the mechanism and the key."""

import os

import numpy as np
import pytest

from support import EXAMPLES, assert_bitwise, pointer, quatstep, toml_loads

STIFFNESS = "spring.return spring.stiffness"


def sweep_text(t_end="0.1"):
    """The eight slider-cranks of examples/slider_crank_sweep.toml (stiffness 50 … 800) over 0.1 s: 100
    steps, a sample every 10, on the CPU."""
    with open(os.path.join(EXAMPLES, "slider_crank_sweep.toml")) as f:
        return f.read().replace("t_end = 2.0", f"t_end = {t_end}") + '\n[run]\nbackend = "cpu"\n'


def single(text):
    """The scenario as a dict with its one mechanism (stiffness 200): no [ensemble] table."""
    d = toml_loads(text)
    del d["ensemble"]
    return d


def test_steps_give_the_commands_samples_bit_for_bit():
    text = sweep_text()
    r = quatstep.run(text)
    e = quatstep.MechanismEnsemble(text)
    assert (e.mechanisms, e.bodies, e.dt, e.steps_done, e.backend) == (8, 3, 0.001, 0, "cpu")
    assert e.channels == list(r.channels) and e.body_names == ["crank", "conrod", "slider"]
    for j in range(11):  # one output interval per call
        if j:
            e.advance(10)
        now = e.observe()
        for name in e.channels:
            assert_bitwise(now[name], r[name][j], f"{name} at sample {j}")
        assert e.time == r.time[j]
    assert_bitwise(e.newton_iterations, r.newton_iterations, "newton_iterations")
    assert_bitwise(e.assembly_position_correction, r.assembly_position_correction, "assembly correction")
    assert e.failures == 0 and e.failed_step.tolist() == [-1] * 8
    # the samples kept by advance(steps, stride), in two calls
    f = quatstep.MechanismEnsemble(text)
    first, rest = f.advance(40, stride=10), f.advance(60, stride=10)
    assert_bitwise(np.concatenate([first.time, rest.time]), r.time[1:], "time")
    for name in e.channels:
        assert_bitwise(np.concatenate([first[name], rest[name]]), r[name][1:], name)
    # uneven calls end in the same state
    g = quatstep.MechanismEnsemble(quatstep.load(text))
    for steps in (3, 17, 1, 29, 50):
        g.advance(steps)
    assert_bitwise(g.observe()["quaternion"], r["quaternion"][-1], "quaternion after uneven calls")


def test_lanes_step_blocks_of_mechanisms_with_the_scalar_steps_bits():
    """Ten slider-cranks: one block of eight in AVX-512 lanes or two of four in AVX2 where this process
    has lanes (tests/mechanism_lanes_test.cpp checks them bit for bit in C++), none without; with the
    lanes off, the same bits, after advance() and after coupled steps."""
    isa = quatstep._core.simd_isa
    text = sweep_text().replace("size = 8", "size = 10")
    lanes, alone = quatstep.MechanismEnsemble(text), quatstep.MechanismEnsemble(text)
    alone.use_lanes(False)
    assert lanes.mechanisms_in_lanes == (8 if isa else 0) and alone.mechanisms_in_lanes == 0
    lanes.advance(100)
    alone.advance(100)
    now, then = lanes.observe(), alone.observe()
    for name in lanes.channels:
        assert_bitwise(now[name], then[name], name)
    # coupled steps with loads: the blocks are made with each step's loads held
    force = np.random.default_rng(5).normal(0, 0.5, (20, 10, 3, 3))
    for f in force:
        lanes.step(force=f)
        alone.step(force=f)
    assert lanes.mechanisms_in_lanes == (8 if isa else 0) and alone.mechanisms_in_lanes == 0
    now, then = lanes.observe(), alone.observe()
    for name in lanes.channels:
        assert_bitwise(now[name], then[name], f"{name} after coupled steps")
    assert lanes.failures == 0


def test_arrays_over_a_key_are_the_sweeps_mechanisms():
    text = sweep_text()
    r = quatstep.run(text)
    k = 50.0 + (800.0 - 50.0) * (np.arange(8) / 7.0)  # the sweep's values
    e = quatstep.MechanismEnsemble(single(text), parameters={STIFFNESS: k})
    assert e.mechanisms == 8
    e.advance(90)
    e.advance(10)  # observe() counts the Newton iterations of the latest advance: the last output interval's
    for name in e.channels:
        assert_bitwise(e.observe()[name], r[name][-1], name)
    # a shared value is every mechanism's; `mechanisms` sets the count; the file's keys are listed
    sc = quatstep.load(single(text))
    assert sc.parameter_keys[STIFFNESS] == 1 and sc.parameter_keys["body.crank.inertia"] == 3
    heavy = quatstep.MechanismEnsemble(sc, parameters={"body.slider.mass": 2.0, STIFFNESS: k})
    heavier = quatstep.MechanismEnsemble(sc, parameters={"body.slider.mass": np.full(8, 2.0), STIFFNESS: k})
    shared = quatstep.MechanismEnsemble(sc, parameters={"body.crank.inertia": [0.001, 0.001, 0.0005]}, mechanisms=5)
    assert (heavy.mechanisms, shared.mechanisms, quatstep.MechanismEnsemble(sc).mechanisms) == (8, 5, 1)
    assert quatstep.MechanismEnsemble(sc, mechanisms=6).mechanisms == 6  # the one mechanism, repeated
    for bad in (-2, 0):  # were taken as 1 mechanism
        with pytest.raises(ValueError, match=f"mechanisms = {bad}: must be at least 1"):
            quatstep.MechanismEnsemble(sc, mechanisms=bad)
    # a shared value reaches every mechanism of a scenario of eight: the same as those values per row
    g = [0.0, -9.0, 0.0]
    both = [quatstep.MechanismEnsemble(text, parameters={"gravity": v}) for v in (g, np.tile(g, (8, 1)))]
    assert [b.mechanisms for b in both] == [8, 8]
    for b in both:
        b.advance(20)
    assert_bitwise(both[0].observe()["position"], both[1].observe()["position"], "shared and per-row gravity")
    with pytest.raises(quatstep.ScenarioError, match="5 rows, but the scenario has 8 mechanisms"):
        quatstep.MechanismEnsemble(text, mechanisms=5)
    for ens in (heavy, heavier, e):
        ens.advance(50)
    assert_bitwise(heavy.observe()["position"], heavier.observe()["position"], "shared and per-row values")
    assert not np.array_equal(heavy.observe()["position"], e.observe()["position"])  # the mass reached the run


def test_kinematics_per_body_and_records_are_views():
    e = quatstep.MechanismEnsemble(sweep_text())
    status, iterations = e.status, e.newton_iterations
    assert not status.flags.writeable and status.dtype == np.int32 and iterations.dtype == np.int64
    e.advance(20)
    assert pointer(e.status) == pointer(status) and pointer(e.newton_iterations) == pointer(iterations)
    assert (iterations > 0).all()  # the view made before the steps shows them
    k = e.kinematics()
    now = e.observe()
    assert k["quaternion"].shape == (8, 3, 4) and k["velocity"].shape == (8, 3, 3)
    assert_bitwise(k["position"].reshape(8, 9), now["position"], "position")
    slider = e.body("slider")
    assert_bitwise(slider["position"], now["position"][:, 6:9], "slider position")
    assert np.abs(slider["position"][:, 1:]).max() < 1e-9  # on its guide, the x axis
    with pytest.raises(ValueError, match="no body 'piston'"):
        e.body("piston")


@pytest.mark.parametrize("parameters, message", [
    ({STIFFNESS: [100.0, 200.0, -1.0, 300.0]},
     "mechanism 2: key 'spring.return spring.stiffness': -1, must be >= 0"),
    ({"body.crank.inertia": [[1.0, 1.0, 3.0]]}, "key 'body.crank.inertia'"),
    ({"spring.return.stiffness": 1.0}, "'spring.return.stiffness' is not a numeric key of the mechanism"),
    ({"body.crank.inertia": np.ones((2, 2))}, "key 'body.crank.inertia': expected one value of shape \\(3,\\)"),
    ({STIFFNESS: [1.0, 2.0], "body.crank.mass": [1.0, 2.0, 3.0]}, "3 rows, but 2 mechanisms"),
])
def test_bad_arrays_raise_naming_the_key(parameters, message):
    with pytest.raises(quatstep.ScenarioError, match=message):
        quatstep.MechanismEnsemble(single(sweep_text()), parameters=parameters)


def test_scenarios_it_does_not_take_say_why():
    with pytest.raises(quatstep.ScenarioError, match="3 rows, but the scenario has 8 mechanisms"):
        quatstep.MechanismEnsemble(sweep_text(), parameters={STIFFNESS: [1.0, 2.0, 3.0]})
    adaptive = single(sweep_text())
    adaptive["time"]["adaptive"] = True
    with pytest.raises(quatstep.ScenarioError, match="key 'time.adaptive': a mechanism ensemble takes fixed steps"):
        quatstep.MechanismEnsemble(adaptive)
    with open(os.path.join(EXAMPLES, "heavy_top.toml")) as f:
        with pytest.raises(quatstep.ScenarioError, match="not a mechanism scenario"):
            quatstep.MechanismEnsemble(f.read())
    e = quatstep.MechanismEnsemble(sweep_text())
    e.advance(5)
    with pytest.raises(ValueError, match="multiples of stride"):
        e.advance(10, stride=10)


def test_step_with_a_coupled_codes_loads_is_the_scenarios_loads_bit_for_bit():
    """step(): loads held over each step (and given to initialize()) are the file's constant
    [[mechanism.load]] tables bit for bit, shared ((bodies, 3)) or per mechanism ((mechanisms, bodies,
    3)); mechanism 0 without them stays the unloaded one; bad shapes and values that are not finite
    raise, and then nothing is stepped."""
    plain = single(sweep_text())
    loaded = single(sweep_text())
    loaded["mechanism"]["load"] = [
        {"body": "crank", "kind": "body_torque", "value": [0.0, 0.0, 0.8]},
        {"body": "slider", "kind": "force", "value": [-3.0, 0.0, 0.0]},
        {"body": "conrod", "kind": "spatial_torque", "value": [0.0, 0.1, 0.2]},
    ]
    force, body_torque, spatial_torque = np.zeros((3, 3)), np.zeros((3, 3)), np.zeros((3, 3))
    body_torque[0] = [0.0, 0.0, 0.8]
    force[2] = [-3.0, 0.0, 0.0]
    spatial_torque[1] = [0.0, 0.1, 0.2]
    reference, unloaded = quatstep.MechanismEnsemble(loaded), quatstep.MechanismEnsemble(plain)
    reference.advance(50)
    unloaded.advance(50)
    shared = quatstep.MechanismEnsemble(plain, mechanisms=2)
    rows = quatstep.MechanismEnsemble(plain, mechanisms=2)
    on = np.array([0.0, 1.0])[:, None, None]  # mechanism 0 unloaded, mechanism 1 loaded
    shared.initialize(force=force, body_torque=body_torque, spatial_torque=spatial_torque)
    rows.initialize(force * on, body_torque * on, spatial_torque * on)
    for _ in range(50):
        shared.step(force=force, body_torque=body_torque, spatial_torque=spatial_torque)
        rows.step(force * on, body_torque * on, spatial_torque * on)
    assert shared.steps_done == 50 and shared.failures == 0
    want, free = reference.observe(), unloaded.observe()
    for name in set(reference.channels) - {"sample_newton_iterations"}:  # those of the latest call
        assert_bitwise(shared.observe()[name][1], want[name][0], f"{name}, shared loads")
        assert_bitwise(rows.observe()[name][1], want[name][0], f"{name}, per-mechanism loads")
        assert_bitwise(rows.observe()[name][0], free[name][0], f"{name}, the unloaded mechanism")
    assert np.abs(want["position"] - free["position"]).max() > 1e-4  # the loads act

    before = rows.observe()["position"].copy()
    with pytest.raises(ValueError, match=r"force: expected shape \(2, 3, 3\) or \(3, 3\)"):
        rows.step(force=np.zeros((2, 3)))
    bad = np.zeros((2, 3, 3))
    bad[1, 2, 0] = np.inf
    with pytest.raises(quatstep.ScenarioError,
                       match=r"mechanism 1, body 'slider': body_torque\[0\] = inf is not finite"):
        rows.step(body_torque=bad)
    assert rows.steps_done == 50
    assert_bitwise(rows.observe()["position"], before, "positions after refused steps")
    with pytest.raises(RuntimeError, match="initialize: after 50 steps"):
        rows.initialize()


def test_backend_choice_says_where_and_why():
    """The ensemble steps where its ``backend`` says, "cpu" by default whatever the scenario's [run] backend
    (``quatstep run``'s); "auto" takes the GPU only where one is usable and says why not otherwise; "cuda"
    without a usable GPU is an error with that reason."""
    text = sweep_text().replace('backend = "cpu"', 'backend = "cuda"')
    assert quatstep.MechanismEnsemble(text).backend == "cpu"
    auto = quatstep.MechanismEnsemble(text, backend="auto")
    if auto.backend.startswith("cuda"):
        assert auto.mechanisms_in_lanes == 0
        return
    assert auto.backend.startswith("cpu (auto: ")
    reason = auto.backend[len("cpu (auto: "):-1]
    with pytest.raises(RuntimeError, match=r'backend "cuda" requested, but ') as e:
        quatstep.MechanismEnsemble(text, backend="cuda")
    assert str(e.value).endswith(reason)


def test_on_the_gpu_steps_as_on_the_cpu():
    """backend="cuda": coupled steps with loads that change every step, then advance() with samples, agree
    with the CPU ensemble (the kernels keep nvcc's FMAs outside strict mode: within 1e-8 of each channel's
    scale, as tests/gpu/backend_agreement_test.cpp asks of mechanism runs). Skips without a usable GPU."""
    text = sweep_text()
    if not quatstep.MechanismEnsemble(text, backend="auto").backend.startswith("cuda"):
        pytest.skip("no usable GPU (MechanismEnsemble(backend=\"auto\") stays on the CPU)")
    pair = [quatstep.MechanismEnsemble(text, backend=b) for b in ("cpu", "cuda")]
    rng = np.random.default_rng(3)
    forces = rng.normal(0, 0.5, (20, 8, 3, 3))
    results = []
    for e in pair:
        e.initialize(force=forces[0])
        for f in forces:
            e.step(force=f, body_torque=0.1 * f)
        sampled = e.advance(30, stride=10)
        results.append((e.observe(), sampled, np.array(e.status), np.array(e.newton_iterations)))
    (cpu, cpu_sampled, cpu_status, cpu_it), (gpu, gpu_sampled, gpu_status, gpu_it) = results
    assert (cpu_status == gpu_status).all() and (cpu_status == 0).all()
    assert np.allclose(gpu_it, cpu_it, rtol=0.01, atol=0)

    def close(a, b, name):
        a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
        tolerance = 1e-10 if "residual" in name else 1e-8 * np.max(np.abs(a))
        return np.max(np.abs(a - b)) <= tolerance

    for name in cpu:
        assert close(cpu[name], gpu[name], name), name
        assert close(cpu_sampled[name], gpu_sampled[name], name), f"{name} (sampled)"


class _FakeCudaArray:
    """What _loads() reads of a CUDA array: its DLPack device, shape, dtype and flags (never its data)."""

    def __init__(self, shape, dtype="float64", c_contiguous=True):
        self.shape, self.dtype = shape, dtype
        self.flags = type("Flags", (), {"c_contiguous": c_contiguous})()

    def __dlpack_device__(self):
        return (2, 0)  # kDLCUDA, device 0


def test_cuda_loads_are_checked_before_they_reach_the_core():
    """CUDA arrays as loads (for an ensemble on the GPU) must be float64, C-contiguous and of the full shape:
    no broadcasting on the device. Runs without a GPU: the checks are the wrapper's."""
    e = quatstep.MechanismEnsemble(sweep_text())
    shape = (e.mechanisms, e.bodies, 3)
    for bad, what in ((_FakeCudaArray(shape[1:]), r"\(3, 3\)"), (_FakeCudaArray(shape, "float32"), "float32"),
                      (_FakeCudaArray(shape, c_contiguous=False), "not C-contiguous")):
        with pytest.raises(ValueError, match=r"step\(\): force: a CUDA array must be float64, C-contiguous, of shape "
                                             r"\(8, 3, 3\); got .*" + what):
            e.step(force=bad)


def test_cupy_loads_on_the_gpu_step_as_numpy_loads():
    """backend="cuda": CuPy loads, read in place on the device, step bit for bit as the same NumPy loads; a
    NaN among them is found on the GPU and named, and nothing steps; the CPU ensemble refuses them."""
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed (the CUDA array library this test uses)")
    text = sweep_text()
    if not quatstep.MechanismEnsemble(text, backend="auto").backend.startswith("cuda"):
        pytest.skip("no usable GPU (MechanismEnsemble(backend=\"auto\") stays on the CPU)")
    host, device = (quatstep.MechanismEnsemble(text, backend="cuda") for _ in range(2))
    forces = np.random.default_rng(5).normal(0, 0.5, (20, host.mechanisms, host.bodies, 3))
    for f in forces:
        host.step(force=f, spatial_torque=0.1 * f)
        device.step(force=cupy.asarray(f), spatial_torque=cupy.asarray(0.1 * f))
    a, b = host.observe(), device.observe()
    for name in a:
        assert_bitwise(a[name], b[name], name)
    bad = cupy.asarray(forces[0])
    bad[2, 1, 0] = cupy.nan
    steps = device.steps_done
    with pytest.raises(quatstep.ScenarioError, match=rf"mechanism 2, body '{device.body_names[1]}': force\[0\] = nan"):
        device.step(force=bad)
    assert device.steps_done == steps
    with pytest.raises(ValueError, match="need the ensemble on the GPU"):
        quatstep.MechanismEnsemble(text).step(force=cupy.asarray(forces[0]))
