"""quatstep.BatchStepper, the coupled-step API on CUDA arrays: CuPy (or PyTorch) torques on the caller's
stream, kinematics written into the caller's arrays in place; the same bodies without loads as the
CPU ensemble. Skips with the reason where the build has no CUDA or no GPU or CUDA array library is
usable."""

import numpy as np
import pytest

from support import quatstep

if not quatstep._core.has_cuda:
    pytest.skip("this quatstep was built without CUDA (BatchStepper needs a CUDA build)", allow_module_level=True)
cupy = pytest.importorskip("cupy", reason="CuPy is not installed (the CUDA array library these tests use)")
try:
    cupy.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001  (any CUDA error means: no usable GPU)
    pytest.skip(f"no usable CUDA device: {e}", allow_module_level=True)

PARAMETERS = {"inertia": [[0.4, 0.4, 0.3], [0.4, 0.4, 0.35], [1, 2, 3]], "gravity": [0, 0, -9.81],
              "omega_body": [0.1, -0.2, 1.0]}


def test_loads_on_the_callers_stream_and_arrays_in_place():
    """CuPy torques and forces on the caller's stream; the kinematics land in the caller's arrays,
    and equal the CPU ensemble's with the same loads as constant model loads."""
    n = 3
    stream = cupy.cuda.Stream(non_blocking=True)
    batch = quatstep.BatchStepper("free_rigid_body", "explicit_newmark_lie", parameters=PARAMETERS, stream=stream)
    with stream:
        torque, force = cupy.zeros((3, n)), cupy.zeros((3, n))
        torque[2] = 0.5
        force[2] = 9.81  # the weight carried: no translation
        quaternion, omega, position = cupy.empty((4, n)), cupy.empty((3, n)), cupy.empty((3, n))
    addresses = (quaternion.data.ptr, omega.data.ptr, position.data.ptr)
    for _ in range(100):
        batch.step(1e-3, torque, force, stream=stream)
    batch.kinematics(quaternion, omega, position, stream=stream)
    stream.synchronize()
    assert (quaternion.data.ptr, omega.data.ptr, position.data.ptr) == addresses  # in place, no new arrays
    assert batch.steps_done == 100 and batch.time == pytest.approx(0.1)
    assert int(cupy.count_nonzero(cupy.from_dlpack(batch.status()))) == 0
    cpu = quatstep.Ensemble("free_rigid_body", "explicit_newmark_lie", dt=1e-3,
                            parameters=dict(PARAMETERS, spatial_torque=[0, 0, 0.5], force=[0, 0, 9.81]))
    cpu.advance(100)
    # The kernels keep nvcc's FMAs (not strict mode): agreement to round-off, not bits.
    assert np.allclose(cupy.asnumpy(quaternion).T, cpu.quaternion, rtol=0, atol=1e-12)
    assert np.allclose(cupy.asnumpy(omega).T, cpu.omega_body, rtol=0, atol=1e-11)
    assert np.allclose(cupy.asnumpy(position).T, 0, atol=1e-12)


def test_without_loads_the_cpu_ensemble():
    batch = quatstep.BatchStepper("free_rigid_body", "simo_vu_quoc", parameters=PARAMETERS)
    ens = quatstep.Ensemble("free_rigid_body", "simo_vu_quoc", dt=1e-3, parameters=PARAMETERS)
    for _ in range(200):
        batch.step(1e-3)
    ens.advance(200)
    quaternion = cupy.empty((4, 3))
    batch.kinematics(quaternion)
    cupy.cuda.Device().synchronize()
    # BatchStepper's time is a running sum and the kernels keep nvcc's FMAs: agreement, not bits.
    assert np.allclose(cupy.asnumpy(quaternion).T, ens.quaternion, rtol=0, atol=1e-11)


def test_wrong_arrays_are_refused():
    batch = quatstep.BatchStepper("heavy_top", "modified_hht", parameters=PARAMETERS)
    with pytest.raises(ValueError, match=r"torque: expected a CUDA array on device \d+ of shape \(3, 3\)"):
        batch.step(1e-3, cupy.zeros((3, 4)))
    with pytest.raises(ValueError, match="float64"):
        batch.step(1e-3, cupy.zeros((3, 3), dtype=cupy.float32))
    with pytest.raises((ValueError, TypeError)):
        batch.step(1e-3, np.zeros((3, 3)))  # host memory
    with pytest.raises(ValueError, match="does not translate"):
        batch.step(1e-3, None, cupy.zeros((3, 3)))  # a heavy top takes no force


def test_loads_of_the_start_state_are_the_models_own():
    """A heavy top whose gravity torque the caller computes with CuPy from the kinematics each step
    starts from: with loads="at_start" (the default) NO_SQUISH at order 2 is the CPU ensemble with
    gravity in the model, to round-off; with loads="held" it is first order, far from it."""
    top = {"inertia": [0.234375, 0.46875, 0.234375], "mass": 15.0, "center_of_mass": [0.1, 1.0, 0.05],
           "omega_body": [0.0, 150.0, -4.61538], "gravity": [0, 0, -9.81]}
    h, steps = 1.0 / 1024, 1024
    cpu = quatstep.Ensemble("heavy_top", "no_squish", dt=h, parameters=top, order=2)
    cpu.advance(steps)
    lever, weight = cupy.asarray(top["center_of_mass"]), 15.0 * cupy.asarray(top["gravity"])
    results = {}
    for loads in ("at_start", "held"):
        batch = quatstep.BatchStepper("heavy_top", "no_squish", parameters=dict(top, gravity=[0, 0, 0]), order=2,
                                      loads=loads)
        q, w, torque = cupy.empty((4, 1)), cupy.empty((3, 1)), cupy.empty((3, 1))
        for _ in range(steps):
            batch.kinematics(q, w)
            e0, e1, e2, e3 = q[:, 0]
            r = cupy.stack([cupy.stack([1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)]),
                            cupy.stack([2 * (e1 * e2 + e0 * e3), 1 - 2 * (e1 * e1 + e3 * e3), 2 * (e2 * e3 - e0 * e1)]),
                            cupy.stack([2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 1 - 2 * (e1 * e1 + e2 * e2)])])
            torque[:, 0] = cupy.cross(r @ lever, weight)
            batch.step(h, torque)
        batch.kinematics(q, w)
        results[loads] = cupy.asnumpy(q[:, 0])
    expected = cpu.quaternion[0]

    def distance(a):  # |Δq| ≈ half the angle between the orientations (q and −q are one)
        return min(np.linalg.norm(a - expected), np.linalg.norm(a + expected))
    assert distance(results["at_start"]) < 1e-9
    assert distance(results["held"]) > 1e-2
