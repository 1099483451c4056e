"""The mechanism step of ``privatize``: text through one mechanism, charged first where a ledger
is given (the ledger step, :mod:`edgedp.cli.charging`).

Plain text without a ledger is one stream (:meth:`Release.stream`: casing and the guard's sentence
state carry from line to line). With a ledger, and for JSON Lines, each line or record is a
:class:`~edgedp.cli.reading.Message` released on its own (:meth:`Release.messages`): messages are
gathered into batches of about :data:`~edgedp.words.streaming.BATCH_CHARS` characters (a batch
also closes at a message that ends what a pipe held), each message of a batch is charged on its
own, through one call, and the batch's accepted messages are released. A message the budget
refuses is not released: one ``edgedp: line N not released`` line on stderr, and the run goes on
(``--on-error stop``: the run ends there, after the messages before it).
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from edgedp.cli.charging import Charges
from edgedp.cli.reading import Message
from edgedp.errors import BudgetError, UtilityWarning
from edgedp.progress import PROGRAM, message
from edgedp.text.segmentation import batches
from edgedp.words.mechanism import KeptCount, WordMechanism
from edgedp.words.multilingual import Multilingual
from edgedp.words.streaming import BATCH_CHARS, privatize_stream

#: A function from the pieces of one text to its released text.
Privatizer = Callable[[Iterable[str]], Iterator[str]]


class Release:
    """How one run releases text through ``mechanism`` (see the module docstring): ``privatize``
    turns the pieces of one text into its release, ``charges`` (``None``: no ledger) charges each
    message first; with ``stops`` a refusal ends the run (:attr:`failure`)."""

    def __init__(
        self,
        mechanism: Any,
        privatize: Privatizer,
        *,
        charges: Charges | None = None,
        stops: bool = False,
    ) -> None:
        self.mechanism = mechanism
        self.privatize = privatize
        self.charges = charges
        self.stops = stops
        #: Messages the budget refused.
        self.refused = 0
        #: Under ``--on-error stop``, the refusal that ended the run.
        self.failure: BudgetError | None = None

    def stream(self, pieces: Iterable[str]) -> Iterator[str]:
        """The release of the text ``pieces`` make up, uncharged, as it comes."""
        yield from self.privatize(pieces)

    def messages(self, messages: Iterable[Message]) -> Iterator[tuple[Message, str | None]]:
        """Each message and its release, in order (``None``: a message without text, or one the
        budget refused); see the module docstring. Under ``--on-error stop`` the messages end
        before the first refused one."""
        for batch in batches(messages, limit=BATCH_CHARS, size=_size, closes=_drained):
            texts = [item for item in batch if item.text is not None]
            # charged, each message is read once: its release reuses what the charge counted
            with self.mechanism.reading_once() if self.charges else contextlib.nullcontext():
                outcomes = self._charge(texts)
                accepted = [item for item, no in zip(texts, outcomes, strict=False) if not no]
                released = dict(zip(map(id, accepted), self._release(accepted), strict=True))
            refused = {id(item) for item, refusal in zip(texts, outcomes, strict=False) if refusal}
            for item in batch:
                if self.failure is not None and id(item) in refused:
                    return
                yield item, released.get(id(item))

    def _charge(self, texts: list[Message]) -> list[BudgetError | None]:
        """Charge each message of ``texts`` (stop: up to the first refusal); report refusals."""
        if self.charges is None:
            return [None] * len(texts)
        events = [self.charges.cost([item.text]) for item in texts]
        outcomes = self.charges.charge_each(events, stop=self.stops)
        for item, refusal in zip(texts, outcomes, strict=False):
            if refusal is not None:
                if self.stops:
                    self.failure = refusal
                    break
                self.refused += 1
                message(f"{PROGRAM}: {item.where} not released: {refusal}")
        return outcomes

    def _release(self, texts: list[Message]) -> list[str]:
        """The releases of ``texts``: records in one batch, lines each as a text of its own."""
        if not texts:
            return []
        if texts[0].record is not None:
            return list(self.mechanism.privatize_batch([item.text for item in texts]))
        return ["".join(self.privatize([str(item.text)])) for item in texts]


def _size(item: Message) -> int:
    return len(item.text or "")


def _drained(item: Message) -> bool:
    return item.drained


class WordRelease(Release):
    """:class:`Release` through a word mechanism: the warning of an epsilon that keeps almost
    every word or almost none (said once, after the first batch released), and, for
    ``--summary``, the word slots released and the words kept unchanged."""

    def __init__(
        self,
        mechanism: WordMechanism | Multilingual,
        *,
        charges: Charges | None = None,
        stops: bool = False,
        summary: bool = False,
    ) -> None:
        super().__init__(mechanism, self._privatize, charges=charges, stops=stops)
        self.word_mechanism = mechanism
        #: The mechanism whose parameters and figures speak for every language's.
        self.speaker = mechanism.primary if isinstance(mechanism, Multilingual) else mechanism
        self.slots = 0  # word slots released (counted for --summary)
        self.kept: KeptCount | None = mechanism.count_kept() if summary else None
        self._warning: list[str | None] = []  # the keep-rate warning, decided before batch one

    def _before(self, batch: list[str]) -> None:
        if not self._warning:
            from edgedp.evaluation.keep_rate import keep_warning

            # warn if epsilon keeps < 5 % or > 95 % of words: a small Monte Carlo on public
            # words of the first batch's language, cached in memory per pack and parameters.
            # Computed before the first batch, whose work then reuses its freed memory (less peak
            # RSS), and said once that batch is released (not if the ledger refuses it).
            mechanism = self.word_mechanism
            measured = (
                mechanism.first_mechanism(batch)
                if isinstance(mechanism, Multilingual)
                else mechanism
            )
            self._warning.append(keep_warning(measured))
        if self.kept is not None:
            self.slots += self.word_mechanism.units(batch)

    def _announce(self) -> None:
        if self._warning and self._warning[0] is not None:
            message(f"edgedp: warning: {self._warning[0]}")
            self._warning[0] = None

    def _privatize(self, pieces: Iterable[str]) -> Iterator[str]:
        with warnings.catch_warnings():  # the library's UtilityWarning: said once, as a line
            warnings.simplefilter("ignore", UtilityWarning)
            for text in privatize_stream(self.word_mechanism, pieces, before_release=self._before):
                yield text
                self._announce()

    def _release(self, texts: list[Message]) -> list[str]:
        if not texts or texts[0].record is None:
            return super()._release(texts)
        batch = [item.text for item in texts if item.text is not None]
        self._before(batch)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UtilityWarning)
            released = self.word_mechanism.privatize_batch(batch)
        self._announce()
        return released

    def summary(self) -> str:
        """What ``--summary`` prints: the release, its guarantee, and what the epsilon did to the
        text released (counted as it was released; nothing of it is released)."""
        from edgedp.evaluation.keep_rate import words_kept

        mechanism, slots, kept = self.speaker, self.slots, self.kept or KeptCount()
        guarantee = self.word_mechanism.guarantee()
        per = f" per {guarantee.metric_unit}" if guarantee.metric_unit else ""
        bound = f"epsilon * d_{guarantee.metric} metric DP" if guarantee.metric else "epsilon-DP"
        guarded = ",".join(sorted(mechanism.protect)) or "none"
        name, epsilon = mechanism.name, f"{mechanism.epsilon:g}"
        decoded = (
            f", decoded with --decode {mechanism.decode} (post-processing: the same guarantee)"
            if mechanism.decoder is not None
            else ""
        )
        figure = f"{words_kept(mechanism).value:.0%}"
        if kept.released:
            measured = (
                f"{kept.unchanged / kept.released:.0%} of the {kept.released:,} vocabulary words of "
                "this text came back unchanged (`edgedp explain`'s words-kept figure at this "
                f"epsilon, words released alone: {figure})"
            )
        else:
            measured = (
                "no vocabulary word went through the mechanism (`edgedp explain`'s words-kept "
                f"figure at this epsilon: {figure})"
            )
        languages = ""
        if isinstance(self.word_mechanism, Multilingual):
            used = ", ".join(self.word_mechanism.used()) or "none"
            languages = (
                f"; packs of the languages found: {used} (a line in a language without an "
                "installed pack is protected whole)"
            )
        return "\n".join(
            [
                f"edgedp: released {slots:,} word slots with {name} at epsilon {epsilon}{per}: "
                f"{bound} for each vocabulary word{decoded}{languages}",
                f"edgedp: out-of-vocabulary tokens and protected spans (--protect {guarded}) are "
                "replaced without being read",
                f"edgedp: {measured}; see `edgedp explain --mechanism {name} --epsilon {epsilon}` "
                f"and `edgedp tune --mechanism {name} --keep K`",
            ]
        )
