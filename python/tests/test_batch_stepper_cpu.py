"""quatstep.BatchStepper on the CPU: NumPy torques and forces, the kinematics written into the caller's
arrays in place; constant loads are the CPU ensemble's model loads bit for bit (the HHT family's initial
accelerations include the first step's loads); a caller's gravity torque
from the kinematics each step starts from is the top with gravity in the model (at_start), to round-off;
a body with NaN or infinite loads fails alone; wrong arrays and choices are refused with messages that
say why; threads sharing a stepper take their steps one after the other."""

import threading

import numpy as np
import pytest

from support import quatstep

PARAMETERS = {"inertia": [[0.4, 0.4, 0.3], [0.4, 0.4, 0.35], [1, 2, 3]], "gravity": [0, 0, -9.81],
              "omega_body": [0.1, -0.2, 1.0]}


def cpu_stepper(model, method, **keywords):
    return quatstep.BatchStepper(model, method, backend="cpu", **keywords)


def test_numpy_loads_and_arrays_in_place_are_the_ensembles_model_loads_bitwise():
    n = 3
    batch = cpu_stepper("free_rigid_body", "explicit_newmark_lie", parameters=PARAMETERS)
    assert batch.backend == "cpu" and batch.bodies == n
    torque, force = np.zeros((3, n)), np.zeros((3, n))
    torque[2] = 0.5
    force[2] = 9.81  # the weight carried: no translation
    quaternion, omega, position, velocity = np.empty((4, n)), np.empty((3, n)), np.empty((3, n)), np.empty((3, n))
    for _ in range(100):
        batch.step(1.0 / 1024, torque, force)
    batch.kinematics(quaternion, omega, position, velocity)
    assert batch.steps_done == 100 and batch.time == 100 / 1024
    status = batch.status()
    assert isinstance(status, np.ndarray) and status.dtype == np.int32 and not status.flags.writeable
    assert np.count_nonzero(status) == 0 and np.all(batch.failed_step() == -1)
    cpu = quatstep.Ensemble("free_rigid_body", "explicit_newmark_lie", dt=1.0 / 1024,
                            parameters=dict(PARAMETERS, spatial_torque=[0, 0, 0.5], force=[0, 0, 9.81]))
    cpu.advance(100)
    np.testing.assert_array_equal(quaternion.T, cpu.quaternion)
    np.testing.assert_array_equal(omega.T, cpu.omega_body)
    np.testing.assert_array_equal(position.T, cpu.position)
    np.testing.assert_array_equal(velocity.T, cpu.velocity)
    assert np.abs(omega[2] - np.asarray(PARAMETERS["omega_body"])[2]).max() > 0.01  # the torque acted


def test_loads_of_the_start_state_are_the_models_own():
    """The heavy top's gravity torque computed with NumPy from the kinematics each step starts from:
    with loads="at_start" NO_SQUISH at order 2 is the ensemble with gravity in the model, to round-off;
    with loads="held" it is first order, far from it."""
    top = {"inertia": [0.234375, 0.46875, 0.234375], "mass": 15.0, "center_of_mass": [0.1, 1.0, 0.05],
           "omega_body": [0.0, 150.0, -4.61538], "gravity": [0, 0, -9.81]}
    h, steps = 1.0 / 1024, 1024
    cpu = quatstep.Ensemble("heavy_top", "no_squish", dt=h, parameters=top, order=2)
    cpu.advance(steps)
    lever, weight = np.asarray(top["center_of_mass"]), 15.0 * np.asarray(top["gravity"])
    expected = cpu.quaternion[0]
    for loads, near in (("at_start", True), ("held", False)):
        batch = cpu_stepper("heavy_top", "no_squish", parameters=dict(top, gravity=[0, 0, 0]), order=2, loads=loads)
        q, torque = np.empty((4, 1)), np.empty((3, 1))
        for _ in range(steps):
            batch.kinematics(q)
            e0, e1, e2, e3 = q[:, 0]
            r = np.array([[1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
                          [2 * (e1 * e2 + e0 * e3), 1 - 2 * (e1 * e1 + e3 * e3), 2 * (e2 * e3 - e0 * e1)],
                          [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 1 - 2 * (e1 * e1 + e2 * e2)]])
            torque[:, 0] = np.cross(r @ lever, weight)
            batch.step(h, torque)
        batch.kinematics(q)
        distance = min(np.linalg.norm(q[:, 0] - expected), np.linalg.norm(q[:, 0] + expected))
        assert (distance < 1e-9) if near else (distance > 1e-2), (loads, distance)


def test_the_hht_family_starts_from_the_callers_first_loads():
    """The first step initializes the bodies with its loads: under a constant force from the caller,
    the velocity of an HHT-family body is v0 + t·(g + F/m), as with the force in the model (bit for
    bit); initialized with the model's own loads alone it kept an offset of (1 − γ)h·F/m ever after."""
    n, h, steps, mass = 3, 1.0 / 512, 256, 2.0
    force = np.array([1.0, -2.0, 3.0])
    params = dict(PARAMETERS, mass=mass)
    for method in ("hht", "modified_hht", "simo_vu_quoc"):
        batch = cpu_stepper("free_rigid_body", method, parameters=params)
        loads = np.repeat(force[:, None], n, axis=1)
        for _ in range(steps):
            batch.step(h, None, loads)
        velocity = np.empty((3, n))
        batch.kinematics(velocity=velocity)
        expected = steps * h * (np.asarray(PARAMETERS["gravity"]) + force / mass)
        np.testing.assert_allclose(velocity.T, np.tile(expected, (n, 1)), rtol=0, atol=1e-12, err_msg=method)
        cpu = quatstep.Ensemble("free_rigid_body", method, dt=h, parameters=dict(params, force=force.tolist()))
        cpu.advance(steps)
        np.testing.assert_array_equal(velocity.T, cpu.velocity, err_msg=method)


@pytest.mark.parametrize("load", ["torque", "force"])
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_a_body_with_non_finite_loads_fails_alone(load, value):
    """Status non_finite at that step, whatever the load: an infinite force used to leave the HHT
    body's position infinite with status ok, a NaN torque to read as a singular Newton matrix."""
    n = 4
    params = {"inertia": [[1, 2, 3]] * n, "omega_body": [[0.3, -1.0, 2.0]] * n}
    clean = cpu_stepper("free_rigid_body", "modified_hht", parameters=params)
    poisoned = cpu_stepper("free_rigid_body", "modified_hht", parameters=params)
    rng = np.random.default_rng(3)
    for k in range(30):
        loads = {"torque": rng.normal(size=(3, n)), "force": rng.normal(size=(3, n))}
        clean.step(1e-3, **loads)
        if k == 11:
            loads[load][1, 2] = value
        poisoned.step(1e-3, **loads)
    status = poisoned.status()
    assert quatstep.STATUS[status[2]] == "non_finite" and poisoned.failed_step()[2] == 11
    assert np.all(np.delete(status, 2) == 0) and np.all(np.delete(poisoned.failed_step(), 2) == -1)
    q, q_clean = np.empty((4, n)), np.empty((4, n))
    poisoned.kinematics(q)
    clean.kinematics(q_clean)
    np.testing.assert_array_equal(np.delete(q, 2, axis=1), np.delete(q_clean, 2, axis=1))
    assert np.all(np.isfinite(q[:, 2])), "the failed body keeps its last good state"
    assert np.all(poisoned.newton_iterations() > 0)


def test_float_steps_in_float32_arrays():
    batch = cpu_stepper("heavy_top", "no_squish", parameters=PARAMETERS, precision="float", order=2, loads="held")
    torque = np.full((3, 3), 0.25, dtype=np.float32)
    for _ in range(10):
        batch.step(1e-3, torque)
    q = np.empty((4, 3), dtype=np.float32)
    batch.kinematics(q)
    assert batch.precision == "float"
    np.testing.assert_allclose(np.linalg.norm(q, axis=0), 1, atol=1e-6)
    with pytest.raises(ValueError, match="float32"):
        batch.step(1e-3, np.zeros((3, 3)))


def test_wrong_arrays_and_choices_are_refused():
    batch = cpu_stepper("heavy_top", "modified_hht", parameters=PARAMETERS)
    with pytest.raises(ValueError, match=r"torque: expected a host \(NumPy\) array of shape \(3, 3\)"):
        batch.step(1e-3, np.zeros((3, 4)))
    with pytest.raises(ValueError, match="float64"):
        batch.step(1e-3, np.zeros((3, 3), dtype=np.float32))
    with pytest.raises(ValueError, match="does not translate"):
        batch.step(1e-3, None, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="h = "):
        batch.step(float("nan"), np.zeros((3, 3)))
    with pytest.raises(ValueError, match=r"h = -1e-12, must be finite and > 0"):  # not -0.000000
        batch.step(-1e-12)
    # written in place: a strided, Fortran-ordered or read-only array is not swapped for a copy
    with pytest.raises(ValueError, match="quaternion: not C-contiguous"):
        batch.kinematics(np.empty((4, 6))[:, ::2])
    with pytest.raises(ValueError, match="omega_body: not C-contiguous"):
        batch.kinematics(None, np.empty((3, 3), order="F"))
    frozen = np.empty((4, 3))
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="quaternion: a read-only array"):
        batch.kinematics(frozen)
    shared = np.empty((4, 3))
    with pytest.raises(ValueError, match="quaternion and omega_body share memory"):
        batch.kinematics(shared, shared[1:])
    assert batch.steps_done == 0
    with pytest.raises(ValueError, match="loads"):
        cpu_stepper("heavy_top", "modified_hht", parameters=PARAMETERS, loads="later")
    with pytest.raises(ValueError, match="^quatstep.BatchStepper: body 0: key 'model.inertia'"):
        cpu_stepper("heavy_top", "modified_hht", parameters=dict(PARAMETERS, inertia=[[1, 1, 3]] * 3))
    for bodies, error in ((2.5, TypeError), (True, TypeError), ("3", TypeError), (-1, ValueError)):
        with pytest.raises(error, match="quatstep.BatchStepper: bodies = "):
            cpu_stepper("heavy_top", "modified_hht", bodies=bodies)


def test_read_only_loads_are_read():
    """The loads are only read: a frozen array or a broadcast view steps as a writable copy does."""
    writable = cpu_stepper("heavy_top", "modified_hht", parameters=PARAMETERS)
    read_only = cpu_stepper("heavy_top", "modified_hht", parameters=PARAMETERS)
    torque = np.array([0.1, -0.3, 0.2])
    frozen = np.repeat(torque[:, None], 3, axis=1)
    frozen.flags.writeable = False
    for k in range(20):
        writable.step(1e-3, np.repeat(torque[:, None], 3, axis=1))
        read_only.step(1e-3, frozen if k % 2 else np.broadcast_to(torque[:, None], (3, 3)))
    q, q_read_only = np.empty((4, 3)), np.empty((4, 3))
    writable.kinematics(q)
    read_only.kinematics(q_read_only)
    np.testing.assert_array_equal(q, q_read_only)


def test_threads_sharing_a_stepper_step_one_after_the_other():
    """Two threads, 60 steps each, on one stepper of 2000 bodies: 120 steps, the bits of 120 in a row
    (two steps at once crashed the interpreter: the binding releases the GIL while it steps)."""
    n, h = 2000, 1e-3
    params = {"inertia": [[1, 2, 3]] * n, "omega_body": np.linspace(0.1, 5, 3 * n).reshape(n, 3)}
    shared = cpu_stepper("free_rigid_body", "no_squish", parameters=params, order=2)
    alone = cpu_stepper("free_rigid_body", "no_squish", parameters=params, order=2)
    torque = np.full((3, n), 0.2)

    def steps():
        for _ in range(60):
            shared.step(h, torque)

    threads = [threading.Thread(target=steps) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for _ in range(120):
        alone.step(h, torque)
    assert shared.steps_done == 120
    q, q_alone = np.empty((4, n)), np.empty((4, n))
    shared.kinematics(q)
    alone.kinematics(q_alone)
    np.testing.assert_array_equal(q, q_alone)


def test_the_backend_says_what_steps_the_bodies():
    batch = quatstep.BatchStepper("free_rigid_body", "simo_vu_quoc", parameters=PARAMETERS)
    if batch.backend.startswith("cpu"):
        assert batch.backend.startswith("cpu (auto: ")  # and why not the GPU
        with pytest.raises(RuntimeError, match="backend \"cuda\" requested, but"):
            quatstep.BatchStepper("free_rigid_body", "simo_vu_quoc", parameters=PARAMETERS, backend="cuda")
    else:
        assert batch.backend.startswith("cuda: ")
