"""Task turnaround model: consumes a chunk size, a pilot's performance and bandwidth, the
application profile and the middleware intervals; produces turnaround times and overheads.

This is the simple turnaround model of "A simple model to exploit reliable algorithms in cloud
federations" [RRM, eq. 2-3]:

    tau(p, s) = t_si/2 + t_pi + D / BW_p + (C_eff + s * S_eff) / P_p

The same pure functions are used by the self-schedulers to *predict* a task's turnaround from
estimated pilot parameters, and by the simulation to *realise* it from the pilot's real
parameters (plus the drawn scheduling phase, execution noise and failures). With noise and
failures switched off, a simulated task therefore lasts exactly what the model predicts.

Every function works on Python floats and, element-wise, on NumPy arrays.
"""

from __future__ import annotations

from dataclasses import dataclass

from numpy.typing import ArrayLike

__all__ = [
    "NAGANO",
    "ApplicationProfile",
    "MiddlewareIntervals",
    "execution_time",
    "middleware_overhead",
    "overhead_fraction",
    "transfer_time",
    "turnaround",
]


@dataclass(frozen=True)
class ApplicationProfile:
    """What a Monte Carlo application costs, measured in benchmark units [RRM, Sec. 4.2.1].

    Efforts are in whetstone-seconds (written "w" in the paper): a pilot whose benchmarked
    performance is ``P`` whetstones runs an effort ``E`` in ``E / P`` seconds.

    Attributes:
        total_samples: samples the whole run must compute (``S`` at the start).
        constant_effort_w: effort paid once per task whatever its size (``C_eff``).
        sample_effort_w: effort per sample (``S_eff``).
        data_size_mb: data staged in and out per task (``D``), in megabytes.
    """

    total_samples: int
    constant_effort_w: float
    sample_effort_w: float
    data_size_mb: float


NAGANO = ApplicationProfile(
    total_samples=20_000_000,
    constant_effort_w=375.07,
    sample_effort_w=156.26,
    data_size_mb=0.5,
)
"""The Nagano fluorescence code profiled in [RRM, Sec. 5.1]: 2e7 samples, 500 KB of data."""


@dataclass(frozen=True)
class MiddlewareIntervals:
    """The two pilot-framework settings that make up ``T_sched`` [RRM, eq. 2].

    Attributes:
        scheduling_interval_s: time between two scheduler cycles; a task waits half of it on
            average (``t_si/2``) before being matched to a pilot.
        pilot_interval_s: time between two notifications of a pilot to the server (``t_pi``);
            a matched task reaches its pilot one interval later.
    """

    scheduling_interval_s: float = 10.0
    pilot_interval_s: float = 30.0


def execution_time(
    samples: ArrayLike, performance_w: ArrayLike, application: ApplicationProfile
) -> ArrayLike:
    """Seconds to compute ``samples`` samples on a pilot of ``performance_w`` whetstones
    (``t_e`` of eq. 3): ``(C_eff + s * S_eff) / P``."""
    return (application.constant_effort_w + samples * application.sample_effort_w) / performance_w


def transfer_time(bandwidth_mb_s: ArrayLike, application: ApplicationProfile) -> ArrayLike:
    """Seconds to stage one task's data in and out (``t_x = D / BW``)."""
    return application.data_size_mb / bandwidth_mb_s


def middleware_overhead(intervals: MiddlewareIntervals) -> float:
    """Expected ``T_sched = t_si/2 + t_pi`` in seconds, the same for every task."""
    return intervals.scheduling_interval_s / 2.0 + intervals.pilot_interval_s


def turnaround(
    samples: ArrayLike,
    performance_w: ArrayLike,
    bandwidth_mb_s: ArrayLike,
    application: ApplicationProfile,
    intervals: MiddlewareIntervals,
) -> ArrayLike:
    """Idealised turnaround ``tau(p, s)`` of eq. 2-3 in seconds (no failures, a free pilot).

    Args:
        samples: chunk size ``s``.
        performance_w: pilot performance ``P`` in whetstones.
        bandwidth_mb_s: pilot bandwidth ``BW`` in MB/s.
        application: the profile giving ``C_eff``, ``S_eff`` and ``D``.
        intervals: scheduling and pilot-notification intervals.
    """
    return (
        middleware_overhead(intervals)
        + transfer_time(bandwidth_mb_s, application)
        + execution_time(samples, performance_w, application)
    )


def overhead_fraction(
    samples: ArrayLike,
    performance_w: ArrayLike,
    bandwidth_mb_s: ArrayLike,
    application: ApplicationProfile,
    intervals: MiddlewareIntervals,
) -> ArrayLike:
    """Share of the expected turnaround not spent computing: ``(tau - t_e) / tau``.

    This is the quantity of [RRM, Fig. 1] (scheduling, notification and transfer time over
    the turnaround of eq. 3); it falls as tasks grow and as pilots slow down.
    """
    total = turnaround(samples, performance_w, bandwidth_mb_s, application, intervals)
    return (total - execution_time(samples, performance_w, application)) / total
