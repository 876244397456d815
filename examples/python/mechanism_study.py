"""Monte-Carlo study of a mechanism: the slider-crank of examples/slider_crank_sweep.toml with the slider's
mass and the return spring's stiffness drawn, 300 mechanisms stepped from Python, the spread of the
slider's stroke over time.

    python3 examples/python/mechanism_study.py [OUT.png]
"""
import os
import sys

import matplotlib
import numpy as np

import quatstep

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

here = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(1)
n = 300
with open(os.path.join(here, "..", "slider_crank_sweep.toml"), "rb") as f:
    scenario = tomllib.load(f)
del scenario["ensemble"]  # its sweep of 8: the arrays below make each mechanism instead
cranks = quatstep.MechanismEnsemble(scenario, parameters={
    "body.slider.mass": rng.uniform(0.5, 1.2, n), "spring.return spring.stiffness": rng.lognormal(np.log(200), 0.5, n)})
run = cranks.advance(1000, stride=10)  # 1 s at dt = 1e-3, 100 samples
x = run["position"][..., 6]  # the slider's x: body 2, component 0
bands = np.percentile(x, [5, 50, 95], axis=1)
plt.fill_between(run.time, bands[0], bands[2], alpha=0.3, label="5–95 %")
plt.plot(run.time, bands[1], label="median")
plt.xlabel("t [s]"), plt.ylabel("slider x [m]"), plt.legend(), plt.title(f"{n} slider-cranks, drawn mass and spring")
plt.savefig(sys.argv[1] if len(sys.argv) > 1 else "mechanism_study.png", dpi=120)
print(f"{n} mechanisms, {cranks.steps_done} steps, failures: {cranks.failures}, "
      f"largest position residual {run['position_residual'].max():.1e}")
