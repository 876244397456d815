"""A DEM-style loop driving quatstep's coupled-step API from Python (the Python twin of
examples/dem_coupling.cu): the bodies' orientations live on the GPU, the "DEM code" (CuPy here) computes
torques each step from the current angular velocities — rolling friction against a floor plus a spin-up
drive on the even bodies — and hands them over as CuPy arrays on its own stream; the kinematics come back
into CuPy arrays it owns. Nothing goes through the host inside the loop.

    python3 examples/python/dem_loop.py [bodies] [steps]

Skips (exit 0, saying why) where quatstep was built without CUDA, CuPy is missing or no GPU is usable.
"""
import sys

import quatstep


def skip(reason):
    print(f"dem_loop: skipped, {reason}")
    sys.exit(0)


if not quatstep._core.has_cuda:
    skip("this quatstep was built without CUDA")
try:
    import cupy as cp

    cp.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001  (ImportError or any CUDA error)
    skip(f"no CuPy with a usable GPU ({e})")

n = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
h = 1e-4
grains = cp.asnumpy(cp.stack([cp.full(n, 0.4), cp.full(n, 0.4), 0.3 + 0.1 * (cp.arange(n) % 7) / 7], axis=1))
stream = cp.cuda.Stream(non_blocking=True)
batch = quatstep.BatchStepper("free_rigid_body", "explicit_newmark_lie", stream=stream, parameters={
    "inertia": grains, "gravity": [0, 0, -9.81], "omega_body": [0.0, -0.2, 1.0]})

quaternion, omega = cp.empty((4, n)), cp.empty((3, n))  # the DEM code's own arrays, component-major
torque, force = cp.zeros((3, n)), cp.zeros((3, n))
drive = cp.where(cp.arange(n) % 2 == 0, 0.5, 0.0)
with stream:
    force[2] = 9.81  # the floor carries the weight (mass 1)
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record(stream)
    for _ in range(steps):
        batch.kinematics(quaternion, omega, stream=stream)
        e0, e1, e2, e3 = quaternion
        # spatial angular velocity R(e) ω and the contact torque −c R(e) ω + drive e_z
        R = cp.stack([cp.stack([1 - 2 * (e2 * e2 + e3 * e3), 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)]),
                      cp.stack([2 * (e1 * e2 + e0 * e3), 1 - 2 * (e1 * e1 + e3 * e3), 2 * (e2 * e3 - e0 * e1)]),
                      cp.stack([2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 1 - 2 * (e1 * e1 + e2 * e2)])])
        torque[...] = -0.05 * cp.einsum("ijn,jn->in", R, omega)
        torque[2] += drive
        batch.step(h, torque, force, stream=stream)
    batch.kinematics(quaternion, omega, stream=stream)
    stop.record(stream)
stream.synchronize()
seconds = cp.cuda.get_elapsed_time(start, stop) / 1e3
failed = int(cp.count_nonzero(cp.from_dlpack(batch.status())))
print(f"dem_loop: {n} bodies, {steps} steps on the GPU: {n * steps / seconds:.3g} body-steps/s (CuPy loads + step + "
      f"readback); body 0: q = {cp.asnumpy(quaternion[:, 0]).round(6)}, failed bodies: {failed}")
sys.exit(1 if failed else 0)
