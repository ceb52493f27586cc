"""A small policy-gradient agent for job selection, in NumPy, against the heuristics and EASY.

    python examples/rl/policy_gradient.py [--iterations 60] [--out examples/rl/output]

The agent scores every visible waiting job with the same small network (8 features -> 16
tanh units -> 1, RLScheduler's kernel idea: the score of a job does not depend on its row),
picks by a softmax over the allowed rows, and learns by REINFORCE: each iteration plays
``--episodes`` Lublin-256 episodes of 256 jobs ``--rollouts`` times each, and a rollout's
advantage is its return (minus the episode's mean bounded slowdown) against the other
rollouts of the same episode, so that hard and easy episodes do not drown the signal. The
environment is ``JobSelectionEnv`` with EASY backfilling around the chosen job.

Training episodes start in the first half of the model's 10,000-job flow, held-out ones in
the second half. On the held-out episodes the greedy agent, FCFS, SJF and F1 (acting through
the same environment) and gridsim's EASY and conservative replays of the same jobs are
compared with gridsim's paired statistics. Writes ``learning_curve.png`` and
``learning_curve.csv``, ``held_out.csv`` (one row per episode and policy) and ``paired.csv`` to
``--out``; prints the training time.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from gridsim.analysis.stats import mean_interval, paired_comparison
from gridsim.rl import LUBLIN_256
from gridsim.rl.baselines import HeuristicPolicy, play, replay_episode, schedule_metrics
from gridsim.rl.compare import compare_on_episodes
from gridsim.rl.episodes import EpisodeSource
from gridsim.rl.features import JOB_FEATURES
from gridsim.rl.job_selection import JobSelectionEnv

F1 = HeuristicPolicy("f1")


class ScoringNetwork:
    """score(job) = v . tanh(W x + b) for every row; a softmax over the allowed rows."""

    def __init__(self, features: int, hidden: int, rng: np.random.Generator) -> None:
        self.params = {
            "W": rng.normal(0.0, 1.0 / np.sqrt(features), (hidden, features)),
            "b": np.zeros(hidden),
            "v": rng.normal(0.0, 1.0 / np.sqrt(hidden), hidden),
        }
        self.moments = {k: (np.zeros_like(p), np.zeros_like(p)) for k, p in self.params.items()}
        self.updates = 0

    def probabilities(self, rows: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Hidden units and action probabilities for rows ``(..., K, F)``."""
        hidden = np.tanh(rows @ self.params["W"].T + self.params["b"])
        scores = np.where(mask, hidden @ self.params["v"], -np.inf)
        scores = scores - scores.max(axis=-1, keepdims=True)
        weights = np.exp(scores)
        return hidden, weights / weights.sum(axis=-1, keepdims=True)

    def gradient(self, rows, masks, actions) -> dict[str, np.ndarray]:
        """d/dparams of the sum over steps of log pi(action | rows)."""
        hidden, probabilities = self.probabilities(rows, masks)
        chosen = np.zeros_like(probabilities)
        chosen[np.arange(len(actions)), actions] = 1.0
        weight = chosen - probabilities  # d log pi / d score, (T, K)
        back = weight[..., None] * self.params["v"] * (1.0 - hidden**2)  # (T, K, H)
        return {"W": np.einsum("tkh,tkf->hf", back, rows), "b": back.sum(axis=(0, 1)),
                "v": np.einsum("tk,tkh->h", weight, hidden)}  # fmt: skip

    def ascend(self, gradient: dict[str, np.ndarray], rate: float) -> None:
        """One Adam step up ``gradient``."""
        self.updates += 1
        for name, grad in gradient.items():
            first, second = self.moments[name]
            first[:] = 0.9 * first + 0.1 * grad
            second[:] = 0.999 * second + 0.001 * grad**2
            unbiased = first / (1 - 0.9**self.updates)
            scale = np.sqrt(second / (1 - 0.999**self.updates)) + 1e-8
            self.params[name] += rate * unbiased / scale


def rollout(env, network, first_job: int, rng: np.random.Generator | None):
    """One episode; sampled actions with ``rng``, greedy without. Returns the return and
    the steps' rows, masks and actions."""
    observation, info = env.reset(options={"first_job": first_job})
    rows, masks, actions, total, done = [], [], [], 0.0, False
    while not done:
        mask = info["action_mask"].astype(bool)
        _, probabilities = network.probabilities(observation, mask)
        if rng is None:
            action = int(np.argmax(probabilities))
        else:
            action = int(rng.choice(len(probabilities), p=probabilities))
        rows.append(observation)
        masks.append(mask)
        actions.append(action)
        observation, reward, done, _, info = env.step(action)
        total += reward
    return total, np.stack(rows), np.stack(masks), np.array(actions)


def train(env, network, args, rng) -> dict[str, np.ndarray]:
    """REINFORCE with a per-episode baseline; the learning curve, one value per iteration:
    the sampled agent's and F1's mean bounded slowdown over EASY's on the same episodes."""
    half = env.source.starts // 2
    curve = []
    for iteration in range(args.iterations):
        firsts = rng.integers(0, half, args.episodes)
        gradient = {name: np.zeros_like(p) for name, p in network.params.items()}
        ratios, f1_ratios = [], []
        for first_job in firsts:
            runs = [rollout(env, network, int(first_job), rng) for _ in range(args.rollouts)]
            returns = np.array([run[0] for run in runs])
            advantage = (returns - returns.mean()) / (returns.std() + 1e-9)
            for weight, (_, rows, masks, actions) in zip(advantage, runs, strict=True):
                for name, grad in network.gradient(rows, masks, actions).items():
                    gradient[name] += weight * grad / len(actions)
            easy = replay_episode(env.source.episode(int(first_job)), "easy")
            easy_slowdown = schedule_metrics(easy, 256).mean_bounded_slowdown
            ratios.append(-returns.mean() / easy_slowdown)
            f1 = play(env, F1, options={"first_job": int(first_job)})[0]
            f1_ratios.append(-f1 / easy_slowdown)
        network.ascend({k: g / len(firsts) for k, g in gradient.items()}, args.rate)
        curve.append((float(np.mean(ratios)), float(np.mean(f1_ratios))))
        print(f"iteration {iteration:3d}: bounded slowdown / EASY's {np.mean(ratios):.3f}")
    agent, f1 = np.array(curve).T
    return {"iteration": np.arange(len(curve)), "agent_over_easy": agent, "f1_over_easy": f1}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--iterations", type=int, default=60)
    parser.add_argument("--episodes", type=int, default=6, help="episodes per iteration")
    parser.add_argument("--rollouts", type=int, default=4, help="rollouts per episode")
    parser.add_argument("--rate", type=float, default=0.02, help="Adam's step size")
    parser.add_argument("--held-out", type=int, default=40, help="held-out episodes")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("examples/rl/output"))
    args = parser.parse_args()

    rng = np.random.default_rng(args.seed)
    env = JobSelectionEnv(EpisodeSource(LUBLIN_256, episode_jobs=256), backfill="easy")
    network = ScoringNetwork(len(JOB_FEATURES), 16, rng)
    began = time.process_time()
    curve = train(env, network, args, rng)
    trained_in = time.process_time() - began  # with the F1 and EASY reference runs
    print(f"trained in {trained_in:.0f} s of processor time")

    half = env.source.starts // 2
    held_out = np.linspace(half, env.source.starts - 1, args.held_out).astype(int).tolist()
    policies: dict[str, Callable[[np.ndarray, Any], int]] = {
        "agent": lambda observation, info: rollout_step(network, observation, info),
        **{name.upper(): HeuristicPolicy(name) for name in ("fcfs", "sjf", "f1")},
    }
    runs = compare_on_episodes(env, policies, held_out)
    paired = paired_comparison(runs, "mean_bounded_slowdown", "agent")
    args.out.mkdir(parents=True, exist_ok=True)
    runs.to_csv(args.out / "held_out.csv", index=False)
    paired.to_csv(args.out / "paired.csv", index=False)
    for policy, part in runs.groupby("policy", sort=False):
        mean, half_width, count = mean_interval(part.mean_bounded_slowdown)
        print(f"{policy:28} bounded slowdown {mean:8.2f} +- {half_width:.2f} ({count} episodes)")
    print(paired[["policy", "difference_mean", "difference_ci95", "relative_mean"]].to_string())
    np.savetxt(args.out / "learning_curve.csv", np.column_stack(list(curve.values())),
               delimiter=",", header=",".join(curve), comments="", fmt="%.6g")  # fmt: skip
    plot(curve, args.out / "learning_curve.png", trained_in)


def rollout_step(network: ScoringNetwork, observation: np.ndarray, info) -> int:
    """The greedy agent's action."""
    _, probabilities = network.probabilities(observation, info["action_mask"].astype(bool))
    return int(np.argmax(probabilities))


def running_mean(values: np.ndarray, width: int) -> np.ndarray:
    """Mean of each value and the ``width - 1`` before it (fewer at the start)."""
    sums = np.concatenate([[0.0], np.cumsum(values)])
    ends = np.arange(1, len(values) + 1)
    starts = np.maximum(ends - width, 0)
    return (sums[ends] - sums[starts]) / (ends - starts)


def plot(curve: dict[str, np.ndarray], path: Path, seconds: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.2))
    iteration, agent = curve["iteration"], curve["agent_over_easy"]
    axes.plot(iteration, agent, color="0.8", label="agent, per iteration")
    axes.plot(iteration, running_mean(agent, 5), color="C0", label="agent, mean of 5")
    axes.plot(iteration, running_mean(curve["f1_over_easy"], 5), color="C2", linestyle=":",
              label="F1, mean of 5")  # fmt: skip
    axes.axhline(1.0, color="C3", linestyle="--", label="EASY (= FCFS here)")
    axes.set(xlabel="iteration", ylabel="bounded slowdown / EASY's",
             title=f"Lublin-256, 256-job episodes (trained in {seconds:.0f} s CPU)")  # fmt: skip
    axes.legend(frameon=False)
    figure.tight_layout()
    figure.savefig(path, dpi=120)


if __name__ == "__main__":
    main()
