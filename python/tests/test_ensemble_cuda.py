"""quatstep.Ensemble on the GPU (backend="cuda"): the state stays in device memory and is read without a
copy through DLPack (pointer identity with CuPy, the same address after advancing); the samples,
observe(), kinematics() and records agree with the CPU ensemble of the same bodies. Skips with the
reason where the build has no CUDA or no GPU or CuPy is usable."""

import numpy as np
import pytest

from support import quatstep

if not quatstep._core.has_cuda:
    pytest.skip("this quatstep was built without CUDA (an ensemble on the GPU needs a CUDA build)",
                allow_module_level=True)
cupy = pytest.importorskip("cupy", reason="CuPy is not installed (the CUDA array library these tests use)")
try:
    cupy.cuda.runtime.getDeviceCount()
except Exception as e:  # noqa: BLE001  (any CUDA error means: no usable GPU)
    pytest.skip(f"no usable CUDA device: {e}", allow_module_level=True)

N = 256
RNG = np.random.default_rng(7)
PARAMETERS = {"inertia": RNG.uniform(0.5, 1.5, (N, 3)), "mass": 2.0, "center_of_mass": [0, 0, 0.3],
              "gravity": [0, 0, -9.81], "omega_body": RNG.normal(0, 5, (N, 3))}
# Not strict mode: the kernels keep nvcc's FMAs, the CPU has none (tests/gpu/backend_agreement_test.cpp:
# ≤ 2.7e-13 of each channel's scale in double after 1000 steps, but for the reduced Livens forms).
TOLERANCE = 1e-12


def pair(method, precision="double", **settings):
    return tuple(quatstep.Ensemble("heavy_top", method, dt=1e-3, parameters=PARAMETERS, precision=precision,
                                   backend=backend, **settings) for backend in ("cpu", "cuda"))


def close(a, b, scale=None):
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    scale = np.max(np.abs(a)) if scale is None else scale
    return np.max(np.abs(a - b)) <= TOLERANCE * max(scale, 1.0)


def test_state_is_device_memory_without_a_copy():
    cpu, gpu = pair("modified_hht", inertia_shift=True)
    assert gpu.backend.startswith("cuda: ") and gpu.device >= 0
    assert gpu.state.__dlpack_device__() == (2, gpu.device)  # kDLCUDA
    state = cupy.from_dlpack(gpu.state)
    assert state.shape == (gpu._core.state_size, N) and state.dtype == cupy.float64
    address = state.data.ptr
    q = cupy.from_dlpack(gpu.quaternion)  # stored as it is by the HHT family: a view of the state
    assert q.data.ptr == address + 8 * N * gpu._core.layout["quaternion"] and q.strides == (8, 8 * N)
    gpu.advance(100)
    cpu.advance(100)
    assert cupy.from_dlpack(gpu.state).data.ptr == address
    assert close(cupy.asnumpy(state), cpu.state)  # the array taken before advancing shows the new state
    assert close(cupy.asnumpy(q), cpu.quaternion)
    assert set(gpu.zero_copy) == {"state", "quaternion"}


def test_samples_observe_kinematics_and_records_agree_with_the_cpu():
    cpu, gpu = pair("livens_em", variant="full")  # the reduced forms agree to 6e-12 only (backend_agreement_test.cpp)
    a, b = cpu.advance(200, stride=50), gpu.advance(200, stride=50)
    for name in cpu.channels:
        assert close(a[name], b[name]), name
    oa, ob = cpu.observe(), gpu.observe()
    for name in cpu.channels:
        assert close(oa[name], ob[name]), name
    ka, kb = cpu.kinematics(), gpu.kinematics()
    assert close(ka["quaternion"], kb["quaternion"]) and close(ka["omega_body"], kb["omega_body"])
    np.testing.assert_array_equal(gpu.status, cpu.status)
    np.testing.assert_array_equal(gpu.failed_step, cpu.failed_step)
    assert gpu.steps_done == 200 and gpu.time == pytest.approx(0.2)


def test_float_state_is_float_on_the_device():
    _, gpu = pair("zupan3", precision="float")
    state = cupy.from_dlpack(gpu.state)
    assert state.dtype == cupy.float32
    assert cupy.from_dlpack(gpu.quaternion).data.ptr == state.data.ptr + 4 * N * gpu._core.layout["quaternion"]
