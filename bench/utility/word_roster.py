"""Every edgedp word mechanism, as a Python object and as a CLI command, at matched epsilons.

Speed and memory suites use this one list, so that every word mechanism is measured the same way.
Epsilons: Euclidean mechanisms at a Madlib epsilon; Hamming-space mechanisms (BRR,
Vickrey-Hamming) at the per-bit epsilon with the same average privacy-loss bound (privacy ratio,
BRR paper Sec. 5). Mahalanobis runs at the Madlib epsilon itself (its privacy ratio to Madlib is
within a few percent of 1 on GloVe, and its cost does not depend on epsilon).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import edgedp
from edgedp.evaluation.calibration import equivalent_epsilon

MADLIB_EPSILON = 10.0


@dataclass(frozen=True)
class WordMechanismSpec:
    label: str
    cli: tuple[str, ...]  # ``edgedp privatize`` flags, without --epsilon and --pack
    hamming: bool  # epsilon per bit (matched by the privacy ratio)
    build: Callable[..., edgedp.WordMechanism]  # (pack, *, epsilon, rng=None)
    needs_vectors: bool = True


ROSTER = (
    WordMechanismSpec("BRR", ("--mechanism", "brr"), True, edgedp.BRR, needs_vectors=False),
    WordMechanismSpec("Madlib", ("--mechanism", "madlib"), False, edgedp.Madlib),
    WordMechanismSpec(
        "Mahalanobis (lam 0.2)",
        ("--mechanism", "mahalanobis", "--lam", "0.2"),
        False,
        lambda pack, **kw: edgedp.Mahalanobis(pack, lam=0.2, **kw),
    ),
    WordMechanismSpec(
        "Vickrey (t 0.5)",
        ("--mechanism", "vickrey", "--t", "0.5"),
        False,
        lambda pack, **kw: edgedp.Vickrey(pack, t=0.5, **kw),
    ),
    WordMechanismSpec(
        "Generalized Vickrey (k 3)",
        ("--mechanism", "generalized-vickrey", "--weights", "1,1,1"),
        False,
        lambda pack, **kw: edgedp.GeneralizedVickrey(pack, weights=[1.0, 1.0, 1.0], **kw),
    ),
    WordMechanismSpec(
        "Vickrey-Hamming (t 0.5)",
        ("--mechanism", "vickrey", "--t", "0.5", "--geometry", "hamming"),
        True,
        lambda pack, **kw: edgedp.Vickrey(pack, t=0.5, geometry="hamming", **kw),
        needs_vectors=False,
    ),
)


def epsilon_for(spec: WordMechanismSpec, pack: edgedp.WordPack, madlib_epsilon: float) -> float:
    if not spec.hamming:
        return madlib_epsilon
    return equivalent_epsilon(pack, madlib_epsilon, source="madlib", target="brr")


def usable(pack: edgedp.WordPack) -> tuple[WordMechanismSpec, ...]:
    """The mechanisms a pack supports (Euclidean ones need float vectors)."""
    return tuple(spec for spec in ROSTER if pack.vectors is not None or not spec.needs_vectors)


def build(
    spec: WordMechanismSpec, pack: edgedp.WordPack, madlib_epsilon: float = MADLIB_EPSILON
) -> edgedp.WordMechanism:
    return spec.build(pack, epsilon=epsilon_for(spec, pack, madlib_epsilon))


def cli_command(
    spec: WordMechanismSpec, pack: edgedp.WordPack | None, madlib_epsilon: float = MADLIB_EPSILON
) -> list[str]:
    """``python -m edgedp.cli privatize ...`` arguments (pack None: the bundled default pack)."""
    from edgedp.registry import load_pack

    epsilon = epsilon_for(spec, pack or load_pack(), madlib_epsilon)
    command = ["-m", "edgedp.cli", "privatize", *spec.cli, "--epsilon", f"{epsilon:.6g}"]
    command += ["--threads", "1"]
    return command + ([] if pack is None else ["--pack", str(pack.path)])
