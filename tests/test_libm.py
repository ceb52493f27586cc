"""Powers and exponentials of the generators come from the C library, value by value, so an
instance is the same whichever SIMD kernels NumPy picks (gridsim/libm.py).

The generators are run here and in a process with every SIMD kernel NumPy could dispatch to
turned off; their numbers must agree bit for bit (NumPy's own ``**`` and ``exp`` of arrays
differ in the last bit on AVX-512 processors).
"""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
from window_choices import without_simd

from gridsim.faults.config import FaultsConfig, LocalOverrunsConfig
from gridsim.faults.draws import FailureLaw, local_overruns
from gridsim.libm import exp, power
from gridsim.workloads.batch_generators import (
    BatchParameters,
    SlotListParameters,
    generate_batch,
    generate_slot_list,
)
from gridsim.workloads.environment import EnvironmentSpec, PriceModel, generate_environment


def test_powers_and_exponentials_are_the_c_library_s():
    rng = np.random.default_rng(4)
    base, exponent = rng.uniform(0.5, 3.0, 2000), rng.uniform(-4.0, 12.0, 2000)
    assert power(base, exponent).tolist() == [
        math.pow(b, e) for b, e in zip(base, exponent, strict=True)
    ]
    assert power(1.7, exponent).tolist() == [1.7**e for e in exponent]
    x = rng.uniform(-20.0, 20.0, 2000)
    assert exp(x).tolist() == [math.exp(v) for v in x]
    with np.errstate(over="ignore"):  # overflow gives inf, as NumPy's own, not an exception
        assert exp(np.array([-np.inf, 800.0])).tolist() == [0.0, math.inf]
        assert power(np.array([10.0]), 400.0).tolist() == [math.inf]


def generated() -> dict[str, list[float]]:
    """Numbers of every generator that takes a power or an exponential."""
    spec = EnvironmentSpec(nodes=40, price=PriceModel(model="exponential"))
    environment = generate_environment(spec, np.random.default_rng(1))
    slots = generate_slot_list(np.random.default_rng(2), SlotListParameters())
    batch = generate_batch(np.random.default_rng(3), BatchParameters())
    law = FailureLaw(up_scale=100.0, up_shape=0.7, down_scale=10.0, down_shape=1.5)
    outages = list(itertools.islice(law.outages(np.random.SeedSequence(5)), 200))
    lognormal = LocalOverrunsConfig(probability=1.0, distribution="lognormal", sigma=1.0)
    overruns = local_overruns(
        FaultsConfig(local_overruns=lognormal),
        [[(0.0, float(k)) for k in range(1, 50)]],
        np.random.SeedSequence(6),
    )
    return {
        "environment prices": [node.price for node in environment.nodes],
        "slot prices": [node.price for node in slots.nodes],
        "price caps": [job.price_cap for job in batch],
        "outages": [t for pair in outages for t in pair],
        "lognormal overruns": list(overruns[0]),
    }


def test_the_generators_draw_the_same_bits_without_simd_kernels():
    script = (
        "import json, test_libm as t, window_choices as w; "
        "print(json.dumps([w.simd_features(), t.generated()]))"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=without_simd(), cwd=Path(__file__).parent)  # fmt: skip
    assert done.returncode == 0, done.stderr
    features, numbers = json.loads(done.stdout)
    assert features["on"] == []  # the process ran without SIMD kernels
    for name, values in generated().items():
        assert values == numbers[name], name  # floats as JSON numbers: read back bit for bit
