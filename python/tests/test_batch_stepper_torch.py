"""quatstep.BatchStepper with PyTorch CUDA tensors (test_batch_stepper.py's CuPy test, on torch): loads on
the caller's torch stream, kinematics written in place into tensors the caller owns, equal to the CPU
ensemble's with the same constant loads. Skips with the reason without a CUDA build, PyTorch or a GPU."""

import numpy as np
import pytest

from support import quatstep

if not quatstep._core.has_cuda:
    pytest.skip("this quatstep was built without CUDA (BatchStepper needs a CUDA build)", allow_module_level=True)
torch = pytest.importorskip("torch", reason="PyTorch is not installed")
if not torch.cuda.is_available():
    pytest.skip("PyTorch sees no usable CUDA device", allow_module_level=True)

PARAMETERS = {"inertia": [[0.4, 0.4, 0.3], [0.4, 0.4, 0.35], [1, 2, 3]], "gravity": [0, 0, -9.81],
              "omega_body": [0.1, -0.2, 1.0]}


def test_torch_loads_on_the_callers_stream_and_tensors_in_place():
    n = 3
    stream = torch.cuda.Stream()
    batch = quatstep.BatchStepper("free_rigid_body", "explicit_newmark_lie", parameters=PARAMETERS, stream=stream)
    with torch.cuda.stream(stream):
        torque = torch.zeros((3, n), dtype=torch.float64, device="cuda")
        force = torch.zeros((3, n), dtype=torch.float64, device="cuda")
        torque[2] = 0.5
        force[2] = 9.81  # the weight carried: no translation
        quaternion = torch.empty((4, n), dtype=torch.float64, device="cuda")
        omega = torch.empty((3, n), dtype=torch.float64, device="cuda")
        position = torch.empty((3, n), dtype=torch.float64, device="cuda")
    addresses = (quaternion.data_ptr(), omega.data_ptr(), position.data_ptr())
    for _ in range(100):
        batch.step(1e-3, torque, force, stream=stream)
    batch.kinematics(quaternion, omega, position, stream=stream)
    stream.synchronize()
    assert (quaternion.data_ptr(), omega.data_ptr(), position.data_ptr()) == addresses  # in place
    assert batch.steps_done == 100 and batch.time == pytest.approx(0.1)
    assert int(torch.count_nonzero(torch.from_dlpack(batch.status()))) == 0
    cpu = quatstep.Ensemble("free_rigid_body", "explicit_newmark_lie", dt=1e-3,
                            parameters=dict(PARAMETERS, spatial_torque=[0, 0, 0.5], force=[0, 0, 9.81]))
    cpu.advance(100)
    # The kernels keep nvcc's FMAs (not strict mode): agreement to round-off, not bits.
    assert np.allclose(quaternion.cpu().numpy().T, cpu.quaternion, rtol=0, atol=1e-12)
    assert np.allclose(omega.cpu().numpy().T, cpu.omega_body, rtol=0, atol=1e-11)
    assert np.allclose(position.cpu().numpy().T, 0, atol=1e-12)


def test_wrong_tensors_are_refused():
    batch = quatstep.BatchStepper("free_rigid_body", "explicit_newmark_lie", parameters=PARAMETERS)
    with pytest.raises(ValueError, match="float64"):
        batch.step(1e-3, torch.zeros((3, 3), dtype=torch.float32, device="cuda"))
    with pytest.raises((ValueError, TypeError)):
        batch.step(1e-3, torch.zeros((3, 3), dtype=torch.float64))  # host memory
