"""The Lublin-Feitelson model of rigid parallel jobs [LF03]: sizes, run times, arrivals.

Consumes a :class:`LublinParameters` (the machine size, the load, which parameter set) and a
``numpy.random.Generator``; produces the jobs of one synthetic flow (:func:`lublin_jobs`):
submit time, processors, run time and class (batch or interactive). Jobs are drawn as the
model and its reference implementation (``m_lublin99.c``, published with the model in the
Parallel Workloads Archive) define them; every constant below is the reference
implementation's, named after its ``#define`` (docs/model.md, "Published workload models",
tells what each is and why the paper's tables themselves are not cited by number).

* **Size.** With probability ``serial``, one processor. Otherwise ``par`` is drawn from a
  two-stage uniform distribution over log2 of the size: uniform on ``[low, median]`` with
  probability ``first_stage``, on ``[median, high]`` otherwise; with probability
  ``power_of_two`` (of all jobs, counted with the serial ones as in the reference) ``par`` is
  rounded to an integer. The size is ``round(2**par)``, at most the machine.
* **Run time.** ``log(run time)`` follows a hyper-gamma distribution: gamma(a1, b1) with
  probability ``p = pa * size + pb`` (clipped to [0, 1]), else gamma(a2, b2), drawn again
  while above 12 (``TOO_MUCH_TIME``: 45 h); the run time is ``floor(exp(value))`` s.
* **Arrivals.** Each class has its own stream. A day is 48 half-hour buckets whose weights
  come from the gamma(anum, bnum) distribution of arrivals over the day (the day starting at
  bucket 11, ``CYCLIC_DAY_START``), normalised to a mean of 1. A gap is drawn as
  ``exp(gamma(aarr * arar, barr))`` seconds (drawn again while the gamma is above 13,
  ``TOO_MUCH_ARRIVE_TIME``), becomes ``gap / 1800`` points, and the points are spent
  bucket by bucket at each bucket's weight: a quiet bucket costs few points and is crossed
  fast, a busy one holds arrivals close together. The next job is the class whose next
  arrival comes first; arrival times are whole seconds, as the reference keeps them (but
  without the reference's clock drift, unless ``arrival_clock="reference"``).

Knobs [LF03, and the reference's comments]: the machine size moves ``high`` (log2 of the
largest job) and ``median`` by log2(size / 128), keeping the distances the parameters were
fitted with; ``load`` sets the offered load by scaling every gap by one factor
(``arrival_scale``), which keeps the daily cycle and the jobs (:func:`expected_load`).

Cost: O(jobs) draws; the arrival walk is a Python loop (about 2 s for a million jobs).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

import numpy as np

from gridsim.workloads.gamma import gamma_cdf, truncated_exp_mean

if TYPE_CHECKING:
    import pandas as pd

#: The reference's constants (m_lublin99.c).
TOO_MUCH_TIME = 12.0  # largest log(run time): exp(12) s = 45.2 h
TOO_MUCH_ARRIVE_TIME = 13.0  # largest log(gap): exp(13) s = 5.1 days
BUCKETS = 48  # half hours in a day
SECONDS_IN_BUCKET = 1800
CYCLIC_DAY_START = 11  # the bucket the fitted day starts at
REFERENCE_MACHINE = 128  # 2**UHI: the machine the parameters describe


@dataclass(frozen=True)
class ClassParameters:
    """The parameters of one class of jobs (m_lublin99.c's names in brackets)."""

    serial: float  # [SERIAL_PROB] share of one-processor jobs
    power_of_two: float  # [POW2_PROB] share of jobs whose log2(size) is rounded
    low: float  # [ULOW] log2 of the smallest parallel size
    median: float  # [UMED] where the two uniform stages meet
    high: float  # [UHI] log2 of the largest size
    first_stage: float  # [UPROB] probability of the first (lower) stage
    a1: float  # [A1] first gamma of log(run time): shape
    b1: float  # [B1] and scale
    a2: float  # [A2] second gamma: shape
    b2: float  # [B2] and scale
    pa: float  # [PA] p = pa * size + pb: share of the first gamma
    pb: float  # [PB]
    arrival_shape: float  # [AARR] gamma of log(gap) at rush hours: shape
    arrival_scale: float  # [BARR] and scale
    rush_to_all: float  # [ARAR] shape factor from rush hours to the whole day
    daily_shape: float  # [ANUM] gamma of arrivals over the day (half hours): shape
    daily_scale: float  # [BNUM] and scale


#: Batch jobs [m_lublin99.c: *_BATCH].
BATCH = ClassParameters(
    serial=0.2927, power_of_two=0.6686, low=1.2, median=5.0, high=7.0, first_stage=0.875,
    a1=6.57, b1=0.823, a2=639.1, b2=0.0156, pa=-0.003, pb=0.6986,
    arrival_shape=6.0415, arrival_scale=0.8531, rush_to_all=1.0519,
    daily_shape=6.1271, daily_scale=5.2740,
)  # fmt: skip
#: Interactive jobs [m_lublin99.c: *_ACTIVE].
INTERACTIVE = ClassParameters(
    serial=0.1541, power_of_two=0.625, low=1.0, median=3.0, high=5.5, first_stage=0.705,
    a1=3.8351, b1=0.6605, a2=7.073, b2=0.6856, pa=-0.0118, pb=0.9156,
    arrival_shape=6.5510, arrival_scale=0.6621, rush_to_all=0.9797,
    daily_shape=8.9186, daily_scale=3.6680,
)  # fmt: skip
#: The whole sample, batch and interactive together [m_lublin99.c: the unsuffixed names].
TYPELESS = ClassParameters(
    serial=0.244, power_of_two=0.576, low=0.8, median=4.5, high=7.0, first_stage=0.86,
    a1=4.2, b1=0.94, a2=312.0, b2=0.03, pa=-0.0054, pb=0.78,
    arrival_shape=10.2303, arrival_scale=0.4871, rush_to_all=1.0225,
    daily_shape=8.1737, daily_scale=3.9631,
)  # fmt: skip
#: SWF queue numbers of the classes, as the reference writes them (field 15).
INTERACTIVE_QUEUE, BATCH_QUEUE = 0, 1


@dataclass(frozen=True)
class LublinParameters:
    """One flow's settings.

    Attributes:
        machine_processors: the machine; sizes are drawn for it (module docstring).
        job_classes: "batch_and_interactive" (the reference's default: two streams with
            their own parameters) or "typeless" (the whole-sample parameters, one stream;
            the "Lublin-256" flows of reinforcement-learning schedulers use these on 256).
        arrival_scale: every gap is multiplied by it (above 1: a lighter load).
        start_hour: the hour of the day the flow starts at (the reference's START, 0).
        arrival_clock: "exact" keeps the arrival clock exact and gives each arrival time in
            whole seconds (rounded down), so arrivals follow the fitted daily cycle;
            "reference" adds each gap to a whole-second clock, dropping the gap's fraction
            every time as the reference's ``unsigned long`` does: its clock falls behind the
            daily cycle by half a second a job on average (docs/model.md).
    """

    machine_processors: int = REFERENCE_MACHINE
    job_classes: Literal["batch_and_interactive", "typeless"] = "batch_and_interactive"
    arrival_scale: float = 1.0
    start_hour: int = 0
    arrival_clock: Literal["exact", "reference"] = "exact"

    def classes(self) -> dict[int, ClassParameters]:
        """Queue number -> the class's parameters, sizes moved to the machine."""
        shift = math.log2(self.machine_processors / REFERENCE_MACHINE)
        chosen = {INTERACTIVE_QUEUE: TYPELESS}
        if self.job_classes == "batch_and_interactive":
            chosen = {INTERACTIVE_QUEUE: INTERACTIVE, BATCH_QUEUE: BATCH}
        return {queue: replace(p, median=p.median + shift, high=p.high + shift)
                for queue, p in chosen.items()}  # fmt: skip


def smallest_machine(job_classes: str) -> int:
    """The fewest processors the model's sizes can be moved to: below it, a class's median
    (moved by log2(P / 128)) falls under its smallest parallel size ``low``."""
    classes = [TYPELESS] if job_classes == "typeless" else [INTERACTIVE, BATCH]
    return max(math.ceil(REFERENCE_MACHINE * 2.0 ** (p.low - p.median)) for p in classes)


def lublin_jobs(rng: np.random.Generator, jobs: int, parameters: LublinParameters) -> pd.DataFrame:
    """``jobs`` jobs of the model: columns ``submit_time`` (s, whole), ``processors``,
    ``run_time`` (s, whole, at least 1) and ``queue`` (0 interactive, 1 batch), sorted by
    submit time. Draw order: each class's arrivals, then sizes, then run times."""
    import pandas as pd

    classes = parameters.classes()
    times, queues = [], []
    for queue, values in classes.items():
        stream = _arrivals(rng, jobs, values, parameters)
        times.append(stream)
        queues.append(np.full(jobs, queue))
    submit = np.concatenate(times)
    queue = np.concatenate(queues)
    # the next job is the class whose next arrival is first; on a tie, interactive (the
    # reference's comparison), so the stable order of (time, queue) is the flow's order
    order = np.lexsort((queue, submit))[:jobs]
    submit, queue = submit[order], queue[order]
    processors = np.zeros(jobs, np.int64)
    run_time = np.zeros(jobs, np.float64)
    for number, values in classes.items():
        chosen = queue == number
        sizes = _sizes(rng, int(chosen.sum()), values, parameters.machine_processors)
        processors[chosen] = sizes
        run_time[chosen] = _run_times(rng, sizes, values)
    return pd.DataFrame({"submit_time": submit, "processors": processors,
                         "run_time": run_time, "queue": queue})  # fmt: skip


def _sizes(rng: np.random.Generator, count: int, p: ClassParameters, machine: int) -> np.ndarray:
    u = rng.random(count)
    stage = rng.random(count)
    first = rng.uniform(p.low, p.median, count)
    second = rng.uniform(p.median, p.high, count)
    par = np.where(stage <= p.first_stage, first, second)
    par = np.where(u <= p.serial + p.power_of_two, np.floor(par + 0.5), par)
    sizes = np.array([math.floor(2.0**x + 0.5) for x in par], dtype=np.int64)
    sizes = np.where(u <= p.serial, 1, sizes)
    return np.minimum(sizes, machine)  # a non-integer log2(machine) can round above it


def _run_times(rng: np.random.Generator, sizes: np.ndarray, p: ClassParameters) -> np.ndarray:
    """floor(exp(hyper-gamma)), each drawn again while its log is above TOO_MUCH_TIME."""
    share = np.clip(p.pa * sizes + p.pb, 0.0, 1.0)
    values = np.empty(len(sizes))
    pending = np.arange(len(sizes))
    while len(pending):
        first = rng.random(len(pending)) <= share[pending]
        drawn = np.where(first, rng.gamma(p.a1, p.b1, len(pending)),
                         rng.gamma(p.a2, p.b2, len(pending)))  # fmt: skip
        values[pending] = drawn
        pending = pending[drawn > TOO_MUCH_TIME]
    # math.exp, not numpy's: its vector code differs from one processor to another
    return np.array([float(math.floor(math.exp(v))) for v in values])


def bucket_weights(p: ClassParameters) -> np.ndarray:
    """Each half hour's share of the day's arrivals, over its mean (the reference's
    ``arrive_init``): the gamma(anum, bnum) mass of [i - 0.5, i + 0.5] for i from
    CYCLIC_DAY_START to CYCLIC_DAY_START + 47, bucket (i - 1) mod 48."""
    weights = np.zeros(BUCKETS)
    for i in range(CYCLIC_DAY_START, CYCLIC_DAY_START + BUCKETS):
        weights[(i - 1) % BUCKETS] = gamma_cdf(i + 0.5, p.daily_shape, p.daily_scale) - gamma_cdf(
            i - 0.5, p.daily_shape, p.daily_scale
        )
    return weights / weights.mean()


def _arrivals(rng: np.random.Generator, count: int, p: ClassParameters,
              parameters: LublinParameters) -> np.ndarray:  # fmt: skip
    """``count`` arrival times of one class's stream (the reference's calc_next_arrive)."""
    weights = bucket_weights(p).tolist()
    shape = p.arrival_shape * p.rush_to_all
    logs = _truncated_gammas(rng, count, shape, p.arrival_scale, TOO_MUCH_ARRIVE_TIME)
    bucket = parameters.start_hour * BUCKETS // 24
    points = remainder = clock = 0.0
    reference = parameters.arrival_clock == "reference"
    times = np.empty(count)
    for k, value in enumerate(logs.tolist()):
        points += math.exp(value) * parameters.arrival_scale / SECONDS_IN_BUCKET
        gap = 0.0
        while points > weights[bucket]:
            points -= weights[bucket]
            bucket = (bucket + 1) % BUCKETS
            gap += SECONDS_IN_BUCKET
        new_remainder = points / weights[bucket]
        gap += SECONDS_IN_BUCKET * (new_remainder - remainder)
        remainder = new_remainder
        clock = math.floor(clock + gap) if reference else clock + gap
        times[k] = math.floor(clock)
    return times


def _truncated_gammas(rng: np.random.Generator, count: int, shape: float, scale: float,
                      most: float) -> np.ndarray:  # fmt: skip
    """gamma(shape, scale) draws, each drawn again while above ``most``."""
    values = rng.gamma(shape, scale, count)
    while (values > most).any():
        redo = values > most
        values[redo] = rng.gamma(shape, scale, int(redo.sum()))
    return values


def expected_load(parameters: LublinParameters) -> float:
    """The offered load the model gives on average: sum of size x run time over the machine
    x time, from the parameters (every rate and mean in closed form; ``floor`` of a run time
    counted as the value less 1/2, of a gap not at all: both shift the means by well under
    a thousandth)."""
    rates, work = _rates_and_work(parameters)
    offered = sum(rate * w for rate, w in zip(rates, work, strict=True))
    return offered / parameters.machine_processors


def expected_work(parameters: LublinParameters) -> float:
    """E[size x run time] of a job (processor-seconds), over the classes as they arrive."""
    rates, work = _rates_and_work(parameters)
    return sum(rate * w for rate, w in zip(rates, work, strict=True)) / sum(rates)


def _rates_and_work(parameters: LublinParameters) -> tuple[list[float], list[float]]:
    """Per class: arrivals per second and E[size x run time]."""
    rates, work = [], []
    for values in parameters.classes().values():
        gap = truncated_exp_mean(values.arrival_shape * values.rush_to_all, values.arrival_scale,
                                 TOO_MUCH_ARRIVE_TIME)  # fmt: skip
        rates.append(1.0 / (gap * parameters.arrival_scale))
        sizes, probabilities = size_distribution(values, parameters.machine_processors)
        pairs = zip(sizes, probabilities, strict=True)
        work.append(sum(chance * size * (_mean_run_time(values, size) - 0.5)
                        for size, chance in pairs))  # fmt: skip
    return rates, work


def expected_statistics(parameters: LublinParameters) -> dict[str, float]:
    """What the parameters give on average, in closed form (over the classes, weighted by
    their arrival rates): shares of serial and power-of-two jobs, mean size, mean and median
    run time (s), mean gap between arrivals (s) and the offered load (:func:`expected_load`)."""
    classes = list(parameters.classes().values())
    gaps = [truncated_exp_mean(v.arrival_shape * v.rush_to_all, v.arrival_scale,
                               TOO_MUCH_ARRIVE_TIME) * parameters.arrival_scale
            for v in classes]  # fmt: skip
    weights = np.array([1 / gap for gap in gaps]) / sum(1 / gap for gap in gaps)
    totals = dict.fromkeys(("serial_share", "power_of_two_share", "mean_size",
                            "mean_run_time_s"), 0.0)  # fmt: skip
    mixture: list[tuple[float, ClassParameters, int]] = []
    for weight, values in zip(weights, classes, strict=True):
        sizes, chances = size_distribution(values, parameters.machine_processors)
        power = (sizes & (sizes - 1)) == 0
        totals["serial_share"] += weight * chances[sizes == 1].sum()
        totals["power_of_two_share"] += weight * chances[power].sum()
        totals["mean_size"] += weight * float((sizes * chances).sum())
        for size, chance in zip(sizes.tolist(), chances.tolist(), strict=True):
            totals["mean_run_time_s"] += weight * chance * (_mean_run_time(values, size) - 0.5)
            mixture.append((weight * chance, values, size))
    low, high = 1.0, math.exp(TOO_MUCH_TIME)
    for _ in range(60):  # the median of floor(exp(g)) by bisection on its CDF
        middle = math.sqrt(low * high)
        below = sum(w * _run_time_cdf(v, s, math.floor(middle)) for w, v, s in mixture)
        low, high = (low, middle) if below >= 0.5 else (middle, high)
    return {**{k: float(v) for k, v in totals.items()},
            "median_run_time_s": float(math.floor(high)),
            "mean_gap_s": 1 / sum(1 / gap for gap in gaps),
            "offered_load": float(expected_load(parameters))}  # fmt: skip


def _run_time_cdf(p: ClassParameters, size: int, seconds: int) -> float:
    """P(floor(exp(g)) <= seconds) for a job of ``size``: g < log(seconds + 1)."""
    share = min(1.0, max(0.0, p.pa * size + p.pb))
    x = math.log(seconds + 1)
    parts = [(share, p.a1, p.b1), (1 - share, p.a2, p.b2)]
    kept = sum(w * gamma_cdf(TOO_MUCH_TIME, a, b) for w, a, b in parts)
    return sum(w * gamma_cdf(min(x, TOO_MUCH_TIME), a, b) for w, a, b in parts) / kept


def _mean_run_time(p: ClassParameters, size: int) -> float:
    """E[exp(hyper-gamma) | below TOO_MUCH_TIME] for a job of ``size``."""
    share = min(1.0, max(0.0, p.pa * size + p.pb))
    kept = [gamma_cdf(TOO_MUCH_TIME, p.a1, p.b1), gamma_cdf(TOO_MUCH_TIME, p.a2, p.b2)]
    means = [truncated_exp_mean(p.a1, p.b1, TOO_MUCH_TIME),
             truncated_exp_mean(p.a2, p.b2, TOO_MUCH_TIME)]  # fmt: skip
    weights = [share * kept[0], (1 - share) * kept[1]]
    return sum(w * m for w, m in zip(weights, means, strict=True)) / sum(weights)


def size_distribution(p: ClassParameters, machine: int) -> tuple[np.ndarray, np.ndarray]:
    """The sizes a class draws and their probabilities, exactly (from the two-stage uniform
    distribution and the rounding rules)."""

    def below(x: float) -> float:  # P(par < x)
        first = np.clip((x - p.low) / (p.median - p.low), 0, 1) if p.median > p.low else 1.0
        second = np.clip((x - p.median) / (p.high - p.median), 0, 1) if p.high > p.median else 1.0
        return p.first_stage * first + (1 - p.first_stage) * second

    largest = min(machine, math.floor(2.0**p.high + 0.5))
    probability = {1: p.serial}
    rounded = p.power_of_two  # P(serial < u <= serial + pow2): log2(size) rounded
    plain = max(0.0, 1.0 - p.serial - p.power_of_two)
    for exponent in range(0, math.floor(p.high + 0.5) + 1):
        size = min(machine, 2**exponent)
        mass = below(exponent + 0.5) - below(exponent - 0.5)
        probability[size] = probability.get(size, 0.0) + rounded * mass
    for size in range(1, largest + 1):  # round(2**par) = size: par in [log2(size - 1/2), ...)
        low = math.log2(size - 0.5) if size > 1 else -math.inf
        high = math.log2(size + 0.5) if size < largest else math.inf
        probability[size] = probability.get(size, 0.0) + plain * (below(high) - below(low))
    sizes = np.array(sorted(probability), dtype=np.int64)
    return sizes, np.array([probability[s] for s in sizes])
