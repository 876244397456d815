"""A DEM-style loop driving quatstep's coupled-step API from Python (the Python twin of
examples/dem_coupling.cu): the "DEM code" computes torques each step from the current angular
velocities — rolling friction against a floor plus a spin-up drive on the even bodies — and hands them
over; the kinematics come back into arrays it owns. On a GPU (a CUDA build, CuPy and a usable device)
the bodies live there and the loads are CuPy arrays on the code's own stream: nothing goes through the
host inside the loop. Elsewhere the same loop runs on the CPU with NumPy arrays.

    python3 examples/python/dem_loop.py [bodies] [steps]
"""
import sys
import time

import numpy as np

import quatstep


def cupy_on_a_gpu():
    """CuPy where this quatstep has CUDA and a GPU is usable, else None and why not."""
    if not quatstep._quatstep.has_cuda:
        return None, "this quatstep was built without CUDA"
    try:
        import cupy

        cupy.cuda.runtime.getDeviceCount()
        return cupy, None
    except Exception as e:  # noqa: BLE001  (ImportError or any CUDA error)
        return None, f"no CuPy with a usable GPU ({e})"


cp, why_not = cupy_on_a_gpu()
xp = cp if cp is not None else np
n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
h = 1e-4
grains = np.stack([np.full(n, 0.4), np.full(n, 0.4), 0.3 + 0.1 * (np.arange(n) % 7) / 7], axis=1)
spins = np.stack([0.1 * (np.arange(n) % 11), np.full(n, -0.2), np.ones(n)], axis=1)  # toy_dem.hpp's grains
stream = cp.cuda.Stream(non_blocking=True) if cp is not None else None
batch = quatstep.BatchStepper("free_rigid_body", "explicit_newmark_lie", backend="cuda" if cp is not None else "cpu",
                              stream=stream, parameters={"inertia": grains, "gravity": [0, 0, -9.81],
                                                         "omega_body": spins})

quaternion, omega = xp.empty((4, n)), xp.empty((3, n))  # the DEM code's own arrays, component-major
torque, force = xp.zeros((3, n)), xp.zeros((3, n))
drive = xp.where(xp.arange(n) % 2 == 0, 0.5, 0.0)
force[2] = 9.81  # the floor carries the weight (mass 1)


def loop():
    for _ in range(steps):
        batch.kinematics(quaternion, omega, stream=stream)
        e0, e1, e2, e3 = quaternion
        # spatial angular velocity R(e) ω and the contact torque −c R(e) ω + drive e_z
        R = xp.stack([xp.stack([1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)]),
                      xp.stack([2 * (e1 * e2 + e0 * e3), 1 - 2 * (e1 * e1 + e3 * e3), 2 * (e2 * e3 - e0 * e1)]),
                      xp.stack([2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 1 - 2 * (e1 * e1 + e2 * e2)])])
        torque[...] = -0.05 * xp.einsum("ijn,jn->in", R, omega)
        torque[2] += drive
        batch.step(h, torque, force, stream=stream)
    batch.kinematics(quaternion, omega, stream=stream)


if cp is not None:
    with stream:
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record(stream)
        loop()
        stop.record(stream)
    stream.synchronize()
    seconds = cp.cuda.get_elapsed_time(start, stop) / 1e3
    failed = int(cp.count_nonzero(cp.from_dlpack(batch.status())))
    where, loads, q0 = "the GPU", "CuPy", cp.asnumpy(quaternion[:, 0])
else:
    t0 = time.perf_counter()
    loop()
    seconds = time.perf_counter() - t0
    failed = int(np.count_nonzero(batch.status()))
    where, loads, q0 = f"the CPU ({why_not})", "NumPy", quaternion[:, 0]
print(f"dem_loop: {n} bodies, {steps} steps on {where}: {n * steps / seconds:.3g} body-steps/s ({loads} loads + step "
      f"+ readback); body 0: q = {q0.round(6)}, spin of the driven body 0 about z: {float(omega[2, 0]):.4f} rad/s, "
      f"failed bodies: {failed}")
sys.exit(1 if failed else 0)
