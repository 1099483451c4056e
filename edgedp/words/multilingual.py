"""Word mechanisms in the user's language: each message privatized with the word pack of its language.

:class:`Multilingual` holds one word mechanism per language (the same class and parameters on each
language's pack, built on first use) and routes text to them:

* each text (a chat message; on the command line, each line) is cut by
  :func:`edgedp.languages.identification.language_runs` into runs of one language at sentence ends
  (a message that mixes languages, ``hola maría! see you at 5.``, is two runs);
* a run in a language with a pack is privatized by that language's mechanism, as a text of its own
  (it starts a sentence); text the identifier leaves undetermined (``ok``, ``lol``, ``14:30``) goes
  to ``default_language``;
* a run in a language without a pack (or in a script the identifier does not know) is *protected*:
  every word slot is replaced as the ``oov`` policy replaces a protected span (kind
  ``other-language``; ``[OTHER-LANGUAGE]`` with ``oov="placeholder"``), never privatized as noise
  of another language.

**Guarantee.** Within a run, the word mechanism's own: epsilon * d metric DP per vocabulary word
of that language's pack (a protected run: epsilon 0 for its content). **What the routing
releases**: the language found for each run and where the runs start, a deterministic function of
the raw text (like the layout and the pattern of protected slots, it is not covered by epsilon).
``language=`` fixes the language instead: then nothing is identified and nothing about the language
is released beyond the choice the caller made.

A line longer than :data:`LINE_CHARACTERS` is one run, in the language of its beginning (what
:func:`~edgedp.languages.identification.identify` finds in its first characters), so that a stream
need not hold it whole; every shorter line is cut as :func:`language_runs` cuts it. A stream
(:meth:`Multilingual.privatize_pieces`) gives exactly the output of its lines released one by one.
"""

from __future__ import annotations

import contextlib
import functools
import threading
import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from edgedp.errors import InputError, NotPrivateWarning
from edgedp.languages.identification import OTHER, UNCODED, UNDETERMINED, identify, language_runs
from edgedp.languages.lexicon import LANGUAGES
from edgedp.languages.packs import DEFAULT_LANGUAGE, installed_languages, word_pack
from edgedp.privacy.guarantee import DpEvent, Guarantee
from edgedp.privacy.randomness import RandomSource, resolve_rng
from edgedp.privacy.validation import check_iterable
from edgedp.runtime.native import ScopedMemo
from edgedp.text.segmentation import Segmented, SentenceState, check_text, segment
from edgedp.words.mechanism import KeptCount, WordMechanism
from edgedp.words.pack import WordPack

#: ``language=`` for a language found per run (the default).
AUTO = "auto"
#: The kind of the word slots of a run whose language has no pack (``[OTHER-LANGUAGE]``).
OTHER_LANGUAGE = "other-language"
#: Lines at most this long have their language runs remembered (:data:`CACHED_LINES` of them).
CACHED_LINE_CHARACTERS = 256
CACHED_LINES = 4096
#: A line longer than this is one run, in the language of its beginning (see the module docstring).
LINE_CHARACTERS = 1 << 14


@dataclass(frozen=True, slots=True)
class Run:
    """A stretch of a text released by one language's mechanism: ``text[start:end]`` and its
    language, or ``None`` where the language has no pack (the run is protected)."""

    start: int
    end: int
    language: str | None


class Multilingual:
    """A word mechanism per language, chosen for each message by the language it is in.

    Every language's mechanism is ``mechanism(pack, epsilon=epsilon, rng=rng, **options)`` on that
    language's word pack, built on first use; the command line's ``privatize`` runs one by default.

    Parameters
    ----------
    mechanism : type of WordMechanism
        The word mechanism (:class:`~edgedp.BRR`, :class:`~edgedp.Madlib`, ...).
    epsilon : float
        Its privacy parameter, the same in every language (per bit for BRR). Keyword only.
    languages : Mapping of str to WordPack or str, Iterable of str, or None, default None
        The languages to serve and, in a mapping, their packs (loaded, or a name or directory);
        ``None``: every language whose word pack is installed
        (:func:`edgedp.languages.packs.installed_languages`). Keyword only.
    language : str, default "auto"
        ``"auto"``: the language of each run is found by the identifier; a language code: every
        text is in that language (nothing is identified, no other pack is loaded). Keyword only.
    default_language : str, default "en"
        The language of text the identifier leaves undetermined; if it is not served, such text is
        protected. Its pack is the one loaded at once (another language's when a run of it comes):
        an app sets it to its user's language so that one language costs one pack's memory.
        Keyword only.
    rng : ~edgedp.RandomSource, int or None, default None
        ``None`` for OS entropy (private); an int seed for tests (NOT private; warns once), shared
        by every language's mechanism. Keyword only.
    **options
        The mechanism's other keyword arguments (``oov``, ``protect``, ``decode``, ``t``, ...),
        the same in every language; ``language_model`` is each pack's own (given only where one
        language is served).

    Raises
    ------
    ~edgedp.InputError
        If ``language`` is neither ``"auto"`` nor a served language, no language is served, or
        ``language_model`` is given with several languages.
    ~edgedp.PrivacyParameterError
        From the mechanism, for a bad ``epsilon`` (when the first language's mechanism is built).

    Notes
    -----
    Guarantee: each run gets its language's mechanism's epsilon * d metric DP per vocabulary word;
    a run in a language without a pack is replaced independently of its content. The language
    found and the run boundaries are released (a deterministic function of the text). See
    :mod:`edgedp.words.multilingual`.

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.Multilingual(edgedp.BRR, epsilon=0.5, languages=["en"], oov="placeholder")
    >>> brr.languages
    ('en',)
    >>> brr.privatize("tot straks, ik bel je nog")  # Dutch: no pack here, protected
    '[OTHER-LANGUAGE] [OTHER-LANGUAGE], [OTHER-LANGUAGE] [OTHER-LANGUAGE] [OTHER-LANGUAGE] [OTHER-LANGUAGE]'
    """

    def __init__(
        self,
        mechanism: type[WordMechanism],
        *,
        epsilon: float,
        languages: Mapping[str, WordPack | str] | Iterable[str] | None = None,
        language: str = AUTO,
        default_language: str = DEFAULT_LANGUAGE,
        rng: RandomSource | int | None = None,
        **options: Any,
    ) -> None:
        if not (isinstance(mechanism, type) and issubclass(mechanism, WordMechanism)):
            raise InputError(f"mechanism must be a word mechanism class, got {mechanism!r}")
        if languages is None:
            languages = installed_languages()
        if isinstance(languages, str):
            raise InputError(
                f"languages takes a collection of codes, not a string: [{languages!r}]"
            )
        packs = (
            dict(languages)
            if isinstance(languages, Mapping)
            else {code: word_pack(code) for code in languages}
        )
        if not packs:
            raise InputError("a multilingual mechanism needs at least one language with a pack")
        if "language_model" in options and len(packs) > 1:
            raise InputError(
                "language_model is each language's own pack in a multilingual mechanism (give it "
                "only where one language is served)"
            )
        if language != AUTO and language not in packs:
            raise InputError(
                f"language={language!r}: not one of the languages served ({', '.join(packs)}) "
                "nor 'auto'"
            )
        if not isinstance(default_language, str):
            raise InputError(f"default_language must be a language code, got {default_language!r}")
        self.mechanism_class = mechanism
        self.epsilon = epsilon
        self.options = options
        self.rng = resolve_rng(rng)
        self._packs = packs
        self.language = language
        self.default_language = default_language
        self._mechanisms: dict[str, WordMechanism] = {}
        self._lock = threading.Lock()
        self.kept: KeptCount | None = None
        #: Inside :meth:`reading_once`: each text's runs, and the languages' cuts kept till its end.
        self._runs: ScopedMemo[str, list[Run]] = ScopedMemo()
        self._reading: contextlib.ExitStack | None = None
        self.primary  # noqa: B018 - validates the parameters now, with the first mechanism

    @property
    def languages(self) -> tuple[str, ...]:
        """The languages served (their packs are loaded on first use)."""
        return tuple(self._packs)

    def mechanism(self, language: str) -> WordMechanism:
        """The mechanism of ``language`` (built from its pack on first use)."""
        if language not in self._packs:
            raise InputError(f"no pack for language {language!r} here ({', '.join(self._packs)})")
        with self._lock:
            built = self._mechanisms.get(language)
            if built is None:
                pack = self._packs[language]
                loaded = pack if isinstance(pack, WordPack) else WordPack.load(pack)
                with warnings.catch_warnings():  # a seed warned once, when it was resolved
                    warnings.simplefilter("ignore", NotPrivateWarning)
                    built = self.mechanism_class(
                        loaded, epsilon=self.epsilon, rng=self.rng, **self.options
                    )
                if self.kept is not None:
                    built.kept = self.kept
                self._mechanisms[language] = built
                if self._reading is not None:
                    self._reading.enter_context(built.reading_once())
            return built

    @property
    def protect(self) -> frozenset[str]:
        """The identifier guard's kinds (the same in every language)."""
        return self.primary.protect

    def stream_guards(self) -> dict[str, Callable[..., Segmented]]:
        """The guard of every language served: a stream is cut only where each of them decides
        every slot as on the whole text (a line's language is known once it has been read)."""
        primary = self.primary
        return {
            language: functools.partial(
                segment, protect=primary.protect, deny=primary.deny, language=language
            )
            for language in self._packs
            if language in LANGUAGES
        }

    @property
    def primary(self) -> WordMechanism:
        """The mechanism that speaks for all of them (parameters, guarantee, protected runs): the
        fixed ``language``'s (no other pack is loaded then), else the default language's if it is
        served, else the first served language's."""
        if self.language != AUTO:
            return self.mechanism(self.language)
        served = self.default_language if self.default_language in self._packs else None
        return self.mechanism(served or next(iter(self._packs)))

    def first_mechanism(self, texts: Iterable[str]) -> WordMechanism:
        """The mechanism of the first run of ``texts`` in a served language (the first to release
        a word of them), else :attr:`primary`: what a figure about the words about to be released
        is measured on, without loading a language none of them is in."""
        for text in texts:
            for run in self.runs(text):
                if run.language is not None:
                    return self.mechanism(run.language)
        return self.primary

    def __getattr__(self, name: str) -> Any:
        """The parameters every language's mechanism shares (``epsilon``, ``oov``, ``protect``,
        ``decode``, ``name``, ...), read from :attr:`primary`."""
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self.primary, name)

    # -- routing --------------------------------------------------------------------------------

    def runs(self, text: str) -> list[Run]:
        """``text`` cut into :class:`Run` s, line by line (see the module docstring); inside
        :meth:`reading_once`, once."""
        text = check_text(text)
        return self._runs.get(text, lambda: self._cut_runs(text))

    @contextlib.contextmanager
    def reading_once(self) -> Iterator[None]:
        """A context in which each message is read once: the languages of its runs and each
        run's cut into slots are what a ledger's charge counted (:meth:`privacy_cost`) and what
        the release then uses; nothing of it is kept after the context (see
        :meth:`WordMechanism.reading_once <edgedp.words.mechanism.WordMechanism.reading_once>`)."""
        with self._runs.scope() as opened, contextlib.ExitStack() as stack:
            if not opened:  # inside one already
                yield
                return
            with self._lock:  # the mechanisms built so far, and those built inside (mechanism)
                for built in self._mechanisms.values():
                    stack.enter_context(built.reading_once())
                self._reading = stack
            try:
                yield
            finally:
                with self._lock:
                    self._reading = None

    def _cut_runs(self, text: str) -> list[Run]:
        runs: list[Run] = []
        offset = 0
        for line in _lines(text):
            runs.extend(Run(offset + r.start, offset + r.end, r.language) for r in self._line(line))
            offset += len(line)
        return [run for run in runs if run.end > run.start]

    def _line(self, line: str) -> list[Run]:
        if self.language != AUTO:
            return [Run(0, len(line), self.language)]
        served = list(self._packs)
        default = self.default_language
        if len(line) > LINE_CHARACTERS:
            route = identify(line, served, prefer=self._prefer()).route
            return [Run(0, len(line), self._served(route))]
        found = (
            _short_line_runs(line, tuple(served), default)
            if len(line) <= CACHED_LINE_CHARACTERS
            else language_runs(line, served, default=default)
        )
        return [Run(start, end, self._served(label)) for start, end, label in found]

    def _prefer(self) -> str:
        from edgedp.languages.identification import known_languages

        return self.default_language if self.default_language in known_languages() else "en"

    def _served(self, label: str) -> str | None:
        if label == UNDETERMINED:
            label = self.default_language
        if label in (OTHER, UNCODED) or label not in self._packs:
            return None
        return label

    # -- release --------------------------------------------------------------------------------

    def privatize(self, text: str) -> str:
        """Privatize one message: each run by its language's mechanism (see the class)."""
        return self.privatize_batch([text])[0]

    def privatize_batch(self, texts: Iterable[str]) -> list[str]:
        """Privatize many messages; each run of each is a text of its own for its language's
        mechanism (the runs of one language are released in one vectorized batch)."""
        batch = [check_text(text) for text in check_iterable(texts, "privatize_batch", "text")]
        plans = [self.runs(text) for text in batch]
        by_language: dict[str | None, list[tuple[int, int]]] = {}
        for index, plan in enumerate(plans):
            for position, run in enumerate(plan):
                by_language.setdefault(run.language, []).append((index, position))
        released: dict[tuple[int, int], str] = {}
        for language, places in by_language.items():
            pieces = [batch[i][plans[i][p].start : plans[i][p].end] for i, p in places]
            if language is None:
                outputs = self.primary.protect_all(pieces, OTHER_LANGUAGE)
            else:
                outputs = self.mechanism(language).privatize_batch(pieces)
            released.update(zip(places, outputs, strict=True))
        return ["".join(released[(i, p)] for p in range(len(plan))) for i, plan in enumerate(plans)]

    def privatize_pieces(
        self,
        batches: Iterable[list[str]],
        *,
        before_release: Callable[[list[str]], None] | None = None,
    ) -> Iterator[str]:
        """Privatize consecutive pieces of a text (a stream), line by line, in order.

        Each line is released as :meth:`privatize_batch` releases it alone (the complete lines of
        one batch of pieces together, in one vectorized call); a line longer than
        :data:`LINE_CHARACTERS` is released piece by piece by the mechanism of the language its
        beginning is in, never held whole. ``before_release(pieces)`` runs before pieces are
        released (a ledger charge); if it raises, nothing more is.
        """
        parts = _line_parts(batches)
        lines: list[list[str]] = []  # complete lines of the current batch, not released yet
        pending: list[str] = []  # the current line's pieces, not released yet
        held = 0
        for part in parts:
            if part is None:  # the end of a batch of pieces: what it completed goes out now
                yield from self._release_lines(lines, before_release)
                lines = []
                continue
            pending.append(part)
            held += len(part)
            if part.endswith("\n"):
                lines.append(pending)
                pending, held = [], 0
            elif held > LINE_CHARACTERS:
                yield from self._release_lines(lines, before_release)
                lines = []
                yield from self._stream_line("".join(pending), parts, before_release)
                pending, held = [], 0
        if pending:
            lines.append(pending)
        yield from self._release_lines(lines, before_release)

    def _release_lines(
        self, lines: list[list[str]], before_release: Callable[[list[str]], None] | None
    ) -> Iterator[str]:
        if not lines:
            return
        if before_release is not None:
            before_release([piece for line in lines for piece in line])
        yield from self.privatize_batch(["".join(line) for line in lines])

    def _stream_line(
        self,
        head: str,
        parts: Iterator[str | None],
        before_release: Callable[[list[str]], None] | None,
    ) -> Iterator[str]:
        """An overlong line released piece by piece: ``head`` (its first pieces) decides the
        language; the rest of the line is read from ``parts`` up to its end."""
        language = self._line(head)[0].language

        def rest() -> Iterator[list[str]]:
            yield [head]
            for part in parts:
                if part is None:
                    continue
                yield [part]
                if part.endswith("\n"):
                    return

        if language is not None:
            yield from self.mechanism(language).privatize_pieces(
                rest(), before_release=before_release
            )
            return
        state = SentenceState()
        for group in rest():
            if before_release is not None:
                before_release(group)
            yield "".join(self.primary.protect_all(group, OTHER_LANGUAGE, state=state))

    # -- accounting -----------------------------------------------------------------------------

    def guarantee(self) -> Guarantee:
        """The word mechanisms' guarantee (the same class and parameters in every language), with
        what the routing releases."""
        own = self.primary.guarantee()
        return Guarantee(
            protects=own.protects
            + "; the language found for each run of a message, and where the runs start, are "
            "released (a run in a language without a pack is replaced without being read)",
            relation=own.relation,
            unit=own.unit,
            epsilon=own.epsilon,
            delta=own.delta,
            metric=own.metric,
            metric_unit=own.metric_unit,
        )

    def units(self, inputs: Sequence[str]) -> int:
        """The word slots of ``inputs`` that go through a mechanism (protected runs cost none)."""
        total = 0
        for text in inputs:
            for run in self.runs(text):
                if run.language is not None:
                    total += self.mechanism(run.language).units([text[run.start : run.end]])
        return total

    def privacy_cost(self, inputs: Sequence[Any]) -> DpEvent:
        """The event a ledger charges before ``inputs`` are released."""
        return DpEvent(self.primary.name, self.guarantee(), self.units(inputs))

    def count_kept(self) -> KeptCount:
        """Count, over every language, the words released unchanged (``--summary``)."""
        self.kept = KeptCount()
        for built in self._mechanisms.values():
            built.kept = self.kept
        return self.kept

    def used(self) -> tuple[str, ...]:
        """The languages whose mechanism has been built (those that released something)."""
        return tuple(self._mechanisms)


def _lines(text: str) -> list[str]:
    """``text``'s lines with their breaks, at the breaks the tokenizer splits at (not the
    separators U+001C-U+001E, which ``str.splitlines`` also breaks at: inside a token there)."""
    lines: list[str] = []
    for piece in text.splitlines(keepends=True) or [""]:
        if lines and lines[-1][-1] in "\x1c\x1d\x1e":
            lines[-1] += piece
        else:
            lines.append(piece)
    return lines


@functools.lru_cache(maxsize=CACHED_LINES)
def _short_line_runs(
    line: str, served: tuple[str, ...], default: str
) -> tuple[tuple[int, int, str], ...]:
    """:func:`language_runs` of a short line, remembered (chat repeats its short lines: ``ok``,
    ``lol``; a deterministic function of the line, so remembering it changes nothing)."""
    return tuple(language_runs(line, served, default=default))


def _line_parts(batches: Iterable[list[str]]) -> Iterator[str | None]:
    """The pieces of ``batches``, each cut after every line break it holds, and ``None`` after
    each batch."""
    for batch in batches:
        for piece in batch:
            while piece:
                cut = piece.find("\n") + 1 or len(piece)
                yield piece[:cut]
                piece = piece[cut:]
        yield None
