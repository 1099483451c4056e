"""What every word-level mechanism shares: text in, privatized text out, vocabulary words only.

A word mechanism privatizes each word of a text independently. Subclasses implement one step,
:meth:`WordMechanism._release`, mapping vocabulary ids to randomly chosen vocabulary ids; this base
class does the rest: splitting text (:mod:`edgedp.text`), the out-of-vocabulary policy, batching and
reassembly.

**What reaches the output.** Only (a) whitespace and the public punctuation of
:data:`edgedp.text.PASS_THROUGH_PUNCTUATION`, and (b) words sampled by the mechanism from the pack's
public vocabulary (or, with ``oov="mask"``, the fixed marker :data:`OOV_MASK`). No character of an
input word is ever copied to the output.

**Out-of-vocabulary tokens** (names, typos, numbers or scripts missing from the vocabulary):

* ``"sample"`` (default): replaced by a word drawn uniformly from the vocabulary, independently of
  the token. The content of OOV tokens is perfectly hidden; the replacement is noise to a reader.
* ``"mask"``: replaced by ``[OOV]``. Content hidden; the fact that the token was OOV is released.
* ``"drop"``: removed (surrounding whitespace stays). Content hidden; the position is released.

What the metric-DP bound covers: any two *vocabulary* words (epsilon times their distance). Any two
OOV tokens are perfectly indistinguishable (the output does not depend on them). An OOV token and
a vocabulary word are not neighbours under any metric of the pack: with ``"sample"`` the output
only weakly suggests that a slot held an OOV token (a uniform word rather than one near the input),
with ``"mask"`` and ``"drop"`` that fact is released outright.

**Threads and processes.** A mechanism is safe to share between threads: the pack is read-only,
FAISS searches do not modify the index, and OS-entropy randomness has no user-space state (a seeded
source serializes its draws). :func:`edgedp.words.parallel.privatize_parallel` spreads a batch over
processes with independent random streams and keeps the input order.

**Composition.** Words are privatized independently, so for two texts with the same layout and
words w_1..w_n and w'_1..w'_n, the guarantee is epsilon * sum_i d(w_i, w'_i), where d is the
mechanism's metric. The layout (token count, separators) is released as is.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from typing import ClassVar

import numpy as np

from edgedp.errors import InputError
from edgedp.randomness import RandomSource, resolve_rng
from edgedp.text import CASINGS, Segmented, SentenceState, assemble, check_text, segment
from edgedp.validation import check_choice, check_epsilon
from edgedp.words.pack import WordPack

OOV_POLICIES = ("sample", "mask", "drop")
OOV_MASK = "[OOV]"
_DROPPED = -1
_MASKED = -2


class WordMechanism(ABC):
    """Base class of the word-level metric-DP mechanisms (see the module docstring)."""

    #: Name used by the CLI's ``--mechanism`` switch.
    name: ClassVar[str]

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        rng: RandomSource | int | None = None,
        oov: str = "sample",
        casing: str = "lower",
    ) -> None:
        if not isinstance(pack, WordPack):
            raise InputError(
                f"{type(self).__name__} needs a words pack from edgedp.load_pack(), "
                f"got {type(pack).__name__}"
            )
        self.pack = pack
        self.epsilon = check_epsilon(epsilon)
        self.oov = check_choice(oov, "oov", OOV_POLICIES)
        self.casing = check_choice(casing, "casing", CASINGS)
        self.rng = resolve_rng(rng)

    def parameters(self) -> dict[str, object]:
        """The keyword arguments that rebuild this mechanism on its pack (without ``rng``)."""
        return {"epsilon": self.epsilon, "oov": self.oov, "casing": self.casing}

    @property
    def is_private(self) -> bool:
        """False when the mechanism draws from a seeded (reproducible) source."""
        return self.rng.is_private

    def __repr__(self) -> str:
        return (
            f"{type(self).__name__}(pack={self.pack.name!r}, epsilon={self.epsilon!r}, "
            f"oov={self.oov!r}, rng={self.rng!r})"
        )

    # -- the one mechanism-specific step --------------------------------------------------------

    @abstractmethod
    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        """Privatize valid vocabulary ids (int64, 1-D) into vocabulary ids of the same shape."""

    def privatize_ids(self, word_ids: Iterable[int] | np.ndarray) -> np.ndarray:
        """Privatize vocabulary ids; each output id is sampled by the mechanism."""
        ids = np.asarray(word_ids)
        if ids.ndim != 1 or (ids.size and not np.issubdtype(ids.dtype, np.integer)):
            raise InputError("word_ids must be a 1-D sequence of integers")
        ids = ids.astype(np.int64)
        if ids.size and (ids.min() < 0 or ids.max() >= len(self.pack.vocabulary)):
            raise InputError(f"word ids must be in [0, {len(self.pack.vocabulary)})")
        if ids.size == 0:
            return ids
        return self._release(ids)

    # -- text -----------------------------------------------------------------------------------

    def privatize(self, text: str) -> str:
        """Privatize one text; its layout is kept, every word is replaced by a sampled word."""
        return self.privatize_batch([text])[0]

    def privatize_batch(
        self, texts: Iterable[str], *, continued: SentenceState | None = None
    ) -> list[str]:
        """Privatize many texts in one vectorized pass (same guarantee per text as ``privatize``).

        ``continued`` treats the texts as consecutive pieces of one text whose casing state is
        carried over (and updated): streaming uses it so that ``casing="sentence"`` does not
        capitalize at the piece boundaries. Privacy is unaffected (casing is post-processing).
        """
        if isinstance(texts, str | bytes):
            raise InputError("privatize_batch takes an iterable of texts, not a single text")
        segmented = [segment(check_text(text)) for text in texts]
        keys = [word for item in segmented for word in item.words]
        ids = self.pack.vocabulary.ids(keys)
        released = np.empty_like(ids)
        known = ids >= 0
        released[known] = self.privatize_ids(ids[known])
        released[~known] = self._replace_unknown(int((~known).sum()))
        return self._assemble_all(segmented, released, continued)

    def privacy_cost(self, texts: Sequence[str]) -> tuple[float, float]:
        """(epsilon, 0) charged for privatizing ``texts``: epsilon per word slot (see edgedp.ledger)."""
        slots = sum(len(segment(check_text(text)).words) for text in texts)
        return self.epsilon * slots, 0.0

    def _replace_unknown(self, count: int) -> np.ndarray:
        if self.oov == "sample":
            return self.rng.integers(len(self.pack.vocabulary), count)
        return np.full(count, _MASKED if self.oov == "mask" else _DROPPED, dtype=np.int64)

    def _assemble_all(
        self, segmented: list[Segmented], released: np.ndarray, state: SentenceState | None
    ) -> list[str]:
        words = self.pack.vocabulary  # by id: never materializes the whole word list
        spelled = [
            words[i] if i >= 0 else (OOV_MASK if i == _MASKED else None) for i in released.tolist()
        ]
        out, start = [], 0
        for item in segmented:
            end = start + len(item.words)
            out.append(assemble(item, spelled[start:end], self.casing, state))
            start = end
        return out
