"""What every word-level mechanism shares: text in, privatized text out, public words only.

A word mechanism privatizes each word of a text independently. Subclasses implement one step,
:meth:`WordMechanism._release`, mapping vocabulary ids to randomly chosen vocabulary ids; this base
class does the rest: splitting text (:mod:`edgedp.text.segmentation`), the out-of-vocabulary
policy, batching and reassembly.

**What reaches the output.** Only (a) whitespace and the public punctuation of
:data:`edgedp.text.segmentation.PASS_THROUGH_PUNCTUATION`, (b) words sampled by the mechanism
from the pack's public vocabulary (or, with ``oov="mask"``, the fixed marker :data:`OOV_MASK`), and
(c) the public filler words and emoji of :mod:`edgedp.words.replacements`. No character of an input
word or emoji is ever copied to the output.

**Chat spellings** (``tmrw``, ``idk``, ``doesnt``) are looked up as the word they stand for in the
pack's language (:mod:`edgedp.languages.slang`) and privatized as that word: the guarantee holds
for the normalized word, so a spelling and its word (``tmrw``, ``tomorrow``) are indistinguishable.

**Out-of-vocabulary tokens** (names, typos, numbers or scripts missing from the vocabulary), and
**emoji** (:mod:`edgedp.text.emoji`: each emoji is a slot of its own, never a word):

* ``"sample"`` (default): replaced by a public filler word drawn uniformly, independently of the
  token (:func:`edgedp.words.replacements.filler_ids`: common words that are no name and hold no
  digit, so a replacement never looks like an identifier), an emoji by a uniform filler emoji. The
  content is perfectly hidden; the replacement is noise to a reader, and an emoji stays an emoji.
* ``"mask"``: replaced by ``[OOV]``. Content hidden; the fact that the token was OOV is released.
* ``"drop"``: removed (surrounding whitespace stays). Content hidden; the position is released.
* ``"placeholder"``: like ``"mask"``, but a slot the identifier guard protects says why: ``[EMAIL]``,
  ``[PHONE]``, ``[DATE]``, ``[NAME]``, ``[PROPER-NOUN]``, ... (the kind of
  :mod:`edgedp.text.guard_report`), and an emoji is ``[EMOJI]``; other OOV tokens, and words only
  the ``deny`` list protects, are ``[OOV]``. Content hidden; the position and the kind the guard's
  public rules recognised (a function of the raw text, like the pattern of slots) are released,
  never membership of the deny-list.

**Identifier guard** (``protect``, default :data:`edgedp.text.identifiers.DEFAULT_PROTECT`: every
kind): e-mail addresses, URLs, handles, phone numbers, digit groups, dates and numbers
(``"identifiers"``), street addresses (``"addresses"``), public first names and surnames
(``"names"``), cities and towns (``"places"``) and capitalized words that are not
sentence-initial common words (``"proper-nouns"``) are recognised before word splitting and
released through the OOV policy above, never through the mechanism, even when they are made of
vocabulary words; ``protect=("identifiers",)`` keeps names, places and capitalized words in the
mechanism, ``protect=()`` turns the guard off. See :mod:`edgedp.text.identifiers` for exactly
what this adds (their content is protected with epsilon 0) and reveals (which slots were
protected).

What the metric-DP bound covers: any two *vocabulary* words (epsilon times their distance). Any two
OOV tokens are perfectly indistinguishable (the output does not depend on them). An OOV token and
a vocabulary word are not neighbours under any metric of the pack: with ``"sample"`` the output
only weakly suggests that a slot held an OOV token (a uniform filler word rather than one near the
input), with ``"mask"`` and ``"drop"`` that fact is released outright. Which slots are emoji is
released (an emoji comes out where one was, or ``[EMOJI]``), like the layout; which emoji, never.

**Threads and processes.** A mechanism is safe to share between threads: the pack is read-only,
FAISS searches do not modify the index, and OS-entropy randomness has no user-space state (a seeded
source serializes its draws). After ``edgedp.set_num_threads(n)``, a large batch is itself spread
over n worker threads (:func:`edgedp.runtime.native.map_in_threads`): runs of texts, or of word ids,
of at least :data:`WORDS_PER_TASK` words each, every one privatized exactly as alone (each word's
noise is drawn independently, so the guarantee and the output law do not change), reassembled in
order. A seeded mechanism stays on the calling thread, so that its output is reproducible.
:func:`edgedp.words.parallel.privatize_parallel` spreads a batch over processes with independent
random streams and keeps the input order.

**Composition.** Words are privatized independently, so for two texts with the same layout and
words w_1..w_n and w'_1..w'_n, the guarantee is epsilon * sum_i d(w_i, w'_i), where d is the
mechanism's metric. The layout (token count, separators) is released as is.
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import ClassVar, TypedDict, TypeVar

import numpy as np

from edgedp.errors import AssetError, InputError, UtilityWarning
from edgedp.languages.lexicon import LANGUAGES
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.mechanism import Mechanism
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.validation import check_choice, check_epsilon, check_iterable
from edgedp.progress import ProgressCallback
from edgedp.runtime.native import Lazy, ScopedMemo, map_in_threads, worker_threads
from edgedp.text.emoji import EMOJI
from edgedp.text.identifiers import DEFAULT_PROTECT, check_protect
from edgedp.text.segmentation import (
    CASINGS,
    Segmented,
    SentenceState,
    assemble,
    check_deny,
    check_text,
    segment,
)
from edgedp.words.decoding import (
    AUTO,
    DEFAULT_CANDIDATES,
    PERTURBED,
    Decoder,
    NoisyRelease,
    check_decoder,
    load_language_model,
)
from edgedp.words.language_model import LanguageModelPack, finished_slots, slot_sentences
from edgedp.words.pack import WordPack
from edgedp.words.replacements import (
    EMOJI_BASE,
    EMOJI_SLOT,
    draw_replacements,
    filler_emoji_of,
    pack_language,
    pack_slang,
)
from edgedp.words.spaces import Space


class WordOptions(TypedDict, total=False):
    """The keyword arguments every word mechanism takes besides its privacy parameters.

    ``rng``: ``None`` for OS entropy (private) or an int seed (tests only, warns); ``oov``:
    ``"sample"``, ``"mask"``, ``"drop"`` or ``"placeholder"``; ``casing``: ``"lower"`` or
    ``"sentence"``; ``protect``: the identifier guard's kinds (:mod:`edgedp.text.identifiers`);
    ``deny``: words always protected, whatever the guard's kinds (an app's contact names; kind
    ``deny``); ``decode``: which word is printed for each noisy release, ``"auto"`` (default:
    ``"context"`` for BRR where ``lm-general`` fits the pack, else ``"nearest"``), ``"nearest"``,
    ``"map"`` or ``"context"`` (:mod:`edgedp.words.decoding`: post-processing, the guarantee is
    unchanged), with
    ``candidates`` words weighed per slot and the public ``language_model`` pack (default
    ``lm-general``). Subclasses take them as ``**options: Unpack[WordOptions]`` and pass them on.
    """

    rng: RandomSource | int | None
    oov: str
    casing: str
    protect: Iterable[str] | None
    deny: Iterable[str] | None
    decode: str
    candidates: int
    language_model: LanguageModelPack | str | Path | None


OOV_POLICIES = ("sample", "mask", "drop", "placeholder")
#: Fewest words worth a worker thread: a thread hop costs far less than this many words
#: (bench/README.md, "Measurements behind the code").
WORDS_PER_TASK = 256
#: Characters per word slot of English text, to size runs of texts before they are split.
_CHARS_PER_WORD = 6
#: What a worker-thread task takes: texts, or texts already segmented.
_Item = TypeVar("_Item", str, Segmented)
OOV_MASK = "[OOV]"


def placeholder(kind: str) -> str:
    """What ``oov="placeholder"`` prints for a protected slot of ``kind`` (``email``: ``[EMAIL]``).

    A slot only an app's deny-list protects prints :data:`OOV_MASK`, as an out-of-vocabulary token
    does: whoever knows or guesses the list (a patient list) must not learn that a slot held one of
    its few words. A denied word the public rules also protect has their kind (``[NAME]``).
    """
    return OOV_MASK if kind == "deny" else f"[{kind.upper()}]"


#: The guard's kinds whose rules read words of the pack's language (not kept by protect_all).
_LANGUAGE_KINDS = frozenset(
    {"name", "proper-noun", "deny", "place", "address", "rare-word", "password"}
)
_DROPPED = -1
_MASKED = -2


@dataclass
class KeptCount:
    """Of the words a mechanism released from text, how many went through it (``released``) and
    how many came out as the input word (``unchanged``): measured on the text, for its owner."""

    released: int = 0
    unchanged: int = 0


class WordMechanism(Mechanism[WordPack]):
    """Base class of the word-level mechanisms: text in, privatized text out, vocabulary words only.

    A word mechanism privatizes each word of a text independently and keeps the layout
    (whitespace, public punctuation). A subclass names its space (:meth:`_build_space`, called once
    at construction) and, if it does more than release the nearest word to the perturbed point,
    overrides :meth:`_release`; this class does the rest: splitting text, the identifier guard, the
    out-of-vocabulary policy, decoding, batching, threads and reassembly. Use a subclass
    (:class:`~edgedp.BRR`, :class:`~edgedp.TEM`, ...); this class releases nothing itself.

    Parameters
    ----------
    pack : ~edgedp.WordPack
        A words pack, e.g. the bundled default ``edgedp.load_pack()``.
    epsilon : float
        The privacy parameter, in the unit of the subclass's metric: a finite number > 0.
        Keyword only, as every privacy parameter (given by position it is refused).
    rng : ~edgedp.RandomSource, int or None, default None
        Where the noise comes from. ``None`` draws from OS entropy (private); an int seed makes
        the output reproducible and NOT private (tests and benchmarks only; it warns with
        :class:`~edgedp.NotPrivateWarning`).
    oov : {"sample", "mask", "drop", "placeholder"}, default "sample"
        What replaces an out-of-vocabulary token, a span the guard protects or an emoji,
        independently of its content: a uniform filler word (a common word, no name, no digit; for
        an emoji, a filler emoji), the marker :data:`~edgedp.OOV_MASK`, nothing, or a placeholder
        naming the guard's kind (``[EMAIL]``, ``[NAME]``, ``[EMOJI]``; ``[OOV]`` otherwise). No
        policy copies a character of the token.
    casing : {"lower", "sentence"}, default "lower"
        How released words are cased: all lower case, or capitalized at sentence starts.
    protect : Iterable of str or None, default DEFAULT_PROTECT
        The kinds (default: all of them) the identifier guard (:mod:`edgedp.text.identifiers`)
        recognises before word splitting and releases through ``oov``, never through the
        mechanism; ``None`` or ``()`` turns the guard off.
    deny : Iterable of str or None, default None
        Words always protected, whatever ``protect`` says (an app's contact names).
    decode : {"auto", "nearest", "map", "context"}, default "auto"
        Which word is printed for each noisy release (:mod:`edgedp.words.decoding`;
        post-processing, the guarantee is unchanged). ``"nearest"``: the mechanism's own rule;
        ``"map"``: the most probable word given the noisy point and a public unigram prior;
        ``"context"``: the most probable sentence under a public bigram language model.
        ``"auto"``: ``"context"`` for BRR where the public language model ``lm-general`` fits the
        pack, else ``"nearest"``. Only mechanisms that release a noisy point (BRR, Madlib,
        Mahalanobis, the Vickrey mechanisms) decode otherwise than ``"nearest"``.
    candidates : int, default 16
        The words (>= 1) weighed per slot by ``"map"`` and ``"context"``.
    language_model : LanguageModelPack, str, Path or None, default None
        The public language model of ``"map"`` and ``"context"``: a pack, its name or its
        directory; ``None`` is the one the pack names (``lm-general`` for ``words-small``). It is
        found and checked against the pack's vocabulary now, read at the first decode.

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0, or ``protect`` names an unknown kind.
    ~edgedp.InputError
        If ``pack`` is not a words pack, or ``oov``, ``casing``, ``deny``, ``decode`` or
        ``candidates`` is not one of the values above, or ``decode`` is not ``"nearest"`` for a
        mechanism that releases a sampled word.
    ~edgedp.AssetError
        If ``decode`` is ``"map"`` or ``"context"`` and no language model fits the pack.

    Notes
    -----
    **What reaches the output.** Only whitespace, public punctuation, words sampled from the
    pack's public vocabulary and the public filler words and emoji (or the ``oov`` markers); no
    character of an input word is ever copied. **Guarantee.** epsilon * d metric DP per
    vocabulary word, d the subclass's metric (:attr:`metric`; plain DP, d = 1 for any two words,
    where it is ``None``). Words are privatized independently, so for two texts with the same
    layout the bound is epsilon * sum_i d(w_i, w'_i); the layout is released as is.
    Out-of-vocabulary tokens, guarded spans and emoji are replaced independently of their
    content; a chat spelling is privatized as its word (the bound holds for the normalized
    words). Details: :mod:`edgedp.words.mechanism` and :doc:`/theory`.

    Examples
    --------
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.6)
    >>> isinstance(brr, edgedp.WordMechanism)
    True
    >>> guarantee = brr.guarantee()
    >>> guarantee.unit, guarantee.epsilon, guarantee.metric
    ('word', 0.6, 'hamming')
    """

    pack_type = WordPack
    pack_hint = "a words pack: edgedp.load_pack()"

    def __init__(
        self,
        pack: WordPack,
        *,
        epsilon: float,
        rng: RandomSource | int | None = None,
        oov: str = "sample",
        casing: str = "lower",
        protect: Iterable[str] | None = DEFAULT_PROTECT,
        deny: Iterable[str] | None = None,
        decode: str = AUTO,
        candidates: int = DEFAULT_CANDIDATES,
        language_model: LanguageModelPack | str | Path | None = None,
    ) -> None:
        super().__init__(pack, rng=rng)
        self.epsilon = check_epsilon(epsilon)
        self.oov = check_choice(oov, "oov", OOV_POLICIES)
        self.casing = check_choice(casing, "casing", CASINGS)
        self.protect = check_protect(protect)
        self.deny = check_deny(deny)
        #: The language of the pack's words, whose lexicon the identifier guard reads.
        self.language = pack_language(self.pack)
        if self.protect and self.language not in LANGUAGES:
            raise InputError(
                f"pack {pack.name!r} is in language {self.language!r}, for which the identifier "
                f"guard has no lexicon (it has: {', '.join(LANGUAGES)}); protect=() runs without "
                "the guard"
            )
        self._slang = pack_slang(self.pack)
        self.decode, self.candidates = check_decoder(decode, candidates)
        self.space = self._build_space()
        self.decoder: Decoder | None = None
        #: The name or path of the decoder's language model pack (``None`` without a decoder).
        self.language_model: str | None = None
        #: Words released through the mechanism and those printed unchanged, counted after
        #: :meth:`count_kept` (what ``--summary`` reports of the text it released).
        self.kept: KeptCount | None = None
        self._checked_epsilon = False
        #: Inside :meth:`reading_once`: each text's cut into slots, by (text, sentence start).
        self._cuts: ScopedMemo[tuple[str, bool], Segmented] = ScopedMemo()
        loaded = None
        if self.decode == AUTO:
            self.decode, loaded = self._auto_decoder(language_model)
        if self.decode != "nearest":
            if self.space is None:
                raise InputError(
                    f"decode={self.decode!r}: {type(self).__name__} releases a sampled word, "
                    "not a noisy point to decode (see edgedp.words.decoding); use 'nearest'"
                )
            model, self.language_model = loaded or load_language_model(language_model, pack)
            self.decoder = Decoder(self.space, model, mode=self.decode, candidates=self.candidates)

    #: What ``decode="auto"`` (the default) decodes with where the pack's public language model is
    #: installed: ``nearest`` unless a mechanism's measurements chose otherwise (BRR: ``context``).
    auto_decode: ClassVar[str] = "nearest"

    def _auto_decoder(
        self, language_model: LanguageModelPack | str | Path | None
    ) -> tuple[str, tuple[Lazy[LanguageModelPack], str] | None]:
        """:attr:`auto_decode` and its language model if one is installed for this pack, else
        nearest (decoding is post-processing: the choice changes readability, never the
        guarantee)."""
        if self.auto_decode == "nearest" or self.space is None:
            return "nearest", None
        try:
            return self.auto_decode, load_language_model(language_model, self.pack)
        except AssetError:
            if language_model is not None:
                raise
            return "nearest", None  # no public model for this vocabulary is installed

    def segment(self, text: str, *, sentence_start: bool = True) -> Segmented:
        """``text`` cut into slots under this mechanism's guard (its kinds and deny-list); inside
        :meth:`reading_once`, cut once."""
        return self._cuts.get(
            (text, sentence_start),
            lambda: segment(
                text,
                self.protect,
                sentence_start=sentence_start,
                deny=self.deny,
                language=self.language,
            ),
        )

    @contextlib.contextmanager
    def reading_once(self) -> Iterator[None]:
        """A context in which each text is cut into slots once: a ledger's charge of a batch
        (:meth:`privacy_cost`, which counts its slots) and the batch's release read the same cut,
        a pure function of the text. It keeps every cut until it ends, so it belongs around one
        batch (as the command line, ``PrivacyLedger.guard`` and the corpus jobs use it); inside
        one already, nothing changes.

        Examples
        --------
        >>> import edgedp
        >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=0.5)
        >>> with brr.reading_once():
        ...     cost = brr.privacy_cost(["see you at noon"])
        ...     released = brr.privatize_batch(["see you at noon"])
        >>> cost.count
        4
        """
        with self._cuts.scope():
            yield

    def stream_guards(self) -> dict[str, Callable[..., Segmented]]:
        """The guard's segmentation of a stream of this mechanism's text, by language: a stream
        is cut only where it decides every slot as on the whole text
        (:mod:`edgedp.words.streaming`)."""
        return {self.language: self.segment}

    def count_kept(self) -> KeptCount:
        """Start counting, in :attr:`kept`, the words of the texts released from now on that come
        back unchanged (``privatize --summary`` reports it; nothing of it is released)."""
        self.kept = KeptCount()
        return self.kept

    def _check_epsilon_once(self) -> None:
        """Warn (:class:`~edgedp.errors.UtilityWarning`), at the first text released, if epsilon
        keeps more than 95 % of words (almost a copy) or fewer than 5 % (little utility), as the
        command line does; a Monte Carlo on public words, cached per pack and parameters."""
        if self._checked_epsilon:
            return
        self._checked_epsilon = True
        from edgedp.evaluation.keep_rate import keep_warning

        warning = keep_warning(self)
        if warning is not None:
            warnings.warn(warning, UtilityWarning, stacklevel=3)

    def _build_space(self) -> Space | None:
        """The space this mechanism perturbs in (built once, at construction).

        ``None`` for a mechanism that samples from the vocabulary directly: it then implements
        :meth:`_release` itself and states its metric through :attr:`metric`.
        """
        return None

    @property
    def metric(self) -> str | None:
        """The metric of the guarantee: the space's, or ``None`` (plain DP: any two words)."""
        return None if self.space is None else self.space.metric

    @property
    def metric_unit(self) -> str | None:
        """What epsilon is per in the metric (``"bit"`` in Hamming space), or ``None``."""
        return None if self.space is None else self.space.metric_unit

    def parameters(self) -> dict[str, object]:
        """The keyword arguments that rebuild this mechanism on its pack (without ``rng``)."""
        decoding: dict[str, object] = {"decode": self.decode}  # "auto" may decode otherwise
        if self.decoder is not None:
            decoding |= {"candidates": self.candidates, "language_model": self.language_model}
        return {
            "epsilon": self.epsilon,
            "oov": self.oov,
            "casing": self.casing,
            "protect": sorted(self.protect),
            "deny": sorted(self.deny),
            **decoding,
        }

    def guarantee(self) -> Guarantee:
        """epsilon * d metric DP per word, d the metric of the mechanism's space."""
        return Guarantee(
            protects="each vocabulary word of a text, a chat spelling as its word (an "
            "out-of-vocabulary token, a protected identifier span or an emoji is replaced "
            "independently of its content)",
            relation="two texts with the same layout; the bound adds up over word slots, "
            "epsilon * sum_i d(w_i, w'_i)"
            + ("" if self.metric else ", with d = 1 for any two different words"),
            unit="word",
            epsilon=self.epsilon,
            metric=self.metric,
            metric_unit=self.metric_unit,
        )

    def units(self, inputs: Sequence[str]) -> int:
        """The number of word slots of ``inputs`` that go through the mechanism: vocabulary words
        the identifier guard does not protect (each text released on its own, as
        :meth:`privatize_batch` does).

        Out-of-vocabulary tokens and protected spans are replaced independently of their content
        (epsilon 0) and are not counted; which slots they are is layout, released as is. A piece
        of a stream that continues a sentence (:meth:`privatize_pieces`) protects at least these
        slots (a capitalized word is a name or proper noun inside a sentence more often than at
        its start, never less), so this count bounds its charge too.
        """
        segmented = [self.segment(check_text(text)) for text in inputs]
        return int((self._slot_ids(segmented) >= 0).sum()) if segmented else 0

    def prepare(self, progress: ProgressCallback | None = None) -> None:
        """Do the mechanism's one-time set-up now rather than at its first release (tables built
        from public data; nothing for most mechanisms), telling ``progress`` how it goes."""

    # -- the one mechanism-specific step --------------------------------------------------------

    def _release(self, word_ids: np.ndarray) -> np.ndarray:
        """Privatize valid vocabulary ids (int64, 1-D) into vocabulary ids of the same shape.

        By default the nearest word to each perturbed point (BRR, Madlib, Mahalanobis).
        """
        if self.space is None:
            raise NotImplementedError(f"{type(self).__name__} has no space: define _release")
        return self.space.neighbours(word_ids, 1)[1][:, 0]

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
        release = self._release if self.decoder is None else self.decoder.release_alone
        tasks = self._tasks(ids.size)
        if tasks == 1:
            return release(ids)
        return np.concatenate(map_in_threads(release, np.array_split(ids, tasks)))

    def _tasks(self, words: int) -> int:
        """How many worker-thread tasks ``words`` words are split into (1: the calling thread)."""
        if not self.rng.is_private:  # a seeded stream drawn by several threads is not reproducible
            return 1
        return max(1, min(2 * worker_threads(), words // WORDS_PER_TASK))

    # -- text -----------------------------------------------------------------------------------

    def privatize(self, text: str) -> str:
        """Privatize one text; its layout is kept, every word is replaced by a sampled word."""
        return self.privatize_batch([text])[0]

    def privatize_batch(self, texts: Iterable[str]) -> list[str]:
        """Privatize many texts in one vectorized pass (same guarantee per text as ``privatize``)."""
        batch = [check_text(text) for text in check_iterable(texts, "privatize_batch", "text")]
        self._check_epsilon_once()
        sizes = [len(text) / _CHARS_PER_WORD for text in batch]
        parts = map_in_threads(self._release_texts, self._runs(batch, sizes))
        segmented = [item for part, _ in parts for item in part]
        released = np.concatenate([ids for _, ids in parts])
        return self._assemble_all(segmented, released, None)

    def protect_all(
        self, texts: Sequence[str], kind: str, *, state: SentenceState | None = None
    ) -> list[str]:
        """``texts`` released with every word slot protected: the layout and the ``oov`` policy's
        replacements, independent of every word's content (epsilon 0; nothing is charged).

        An identifier span the guard recognised keeps its kind (``[EMAIL]`` with
        ``oov="placeholder"``) and an emoji stays an emoji slot; every other slot is of kind
        ``kind`` (``"other-language"``: a text in a language without a pack,
        :mod:`edgedp.words.multilingual`; the guard's rules for names, capitalized words, places
        and addresses read the pack's language, so their findings are not kept). With ``state``
        the texts are consecutive pieces of one text (a stream), and sentence casing carries
        across.
        """
        segmented = []
        for text in texts:
            item = self.segment(check_text(text))
            found = {i: k for i, k in item.kinds.items() if k not in _LANGUAGE_KINDS}
            kinds = {index: found.get(index, kind) for index in range(len(item.words))}
            segmented.append(dataclasses.replace(item, kinds=MappingProxyType(kinds)))
        return self._assemble_all(
            segmented, self._replace_unknown(self._slot_ids(segmented)), state
        )

    def privatize_pieces(
        self,
        batches: Iterable[list[str]],
        *,
        before_release: Callable[[list[str]], None] | None = None,
    ) -> Iterator[str]:
        """Privatize consecutive pieces of one text, a batch of pieces at a time, in order.

        The pieces must be cut where the text's segmentation splits anyway (whitespace,
        pass-through punctuation; :func:`edgedp.words.streaming.privatize_stream` cuts them so).
        Casing and the proper-noun guard's sentence starts are carried across pieces, so the
        output is that of the whole text. ``before_release(batch)`` runs before each batch is
        privatized (a ledger charge); if it raises, nothing more is released.

        With ``decode="context"`` a word is decoded once its sentence is finished
        (:func:`edgedp.words.language_model.finished_slots`: a released sentence end, a line end,
        or the end of input), whatever the pieces: the decoder reads only the release, so the
        output may lag a batch by the rest of a sentence.
        """
        state = SentenceState()
        held = Segmented.join([])  # context decoding: the released slots of an unfinished sentence
        points: list[np.ndarray] = []  # their noisy points, in slot order
        fixed = np.empty(0, dtype=np.int64)
        for batch in batches:
            if before_release is not None:
                before_release(batch)
            self._check_epsilon_once()
            pieces = []
            for text in batch:
                pieces.append(self.segment(text, sentence_start=state.word_starts_sentence))
                state.word_starts_sentence = pieces[-1].ends_at_sentence_start
            if self.decoder is None or self.decode != "context":
                sizes = [len(piece.words) for piece in pieces]
                parts = map_in_threads(self._release_segmented, self._runs(pieces, sizes))
                released = np.concatenate([ids for _, ids in parts])
                yield "".join(self._assemble_all(pieces, released, state))
                continue
            batch_points, batch_fixed = self._perturbed_slots(self.decoder.space, pieces)
            held = Segmented.join([held, *pieces])
            points.append(batch_points)
            fixed = np.concatenate([fixed, batch_fixed])
            done = finished_slots(held)
            finished, held = held.split(done)
            if finished.pieces:
                yield self._decode_finished(self.decoder, finished, points, fixed[:done], state)
                fixed = fixed[done:]
        if self.decoder is not None and held.pieces:
            yield self._decode_finished(self.decoder, held, points, fixed, state)

    def _decode_finished(
        self,
        decoder: Decoder,
        text: Segmented,
        points: list[np.ndarray],
        fixed: np.ndarray,
        state: SentenceState,
    ) -> str:
        """``text``, whose sentences are finished, decoded and assembled. Its noisy points are the
        first rows of ``points`` (consecutive batches' points), which keeps the rest."""
        stacked = np.concatenate(points)
        count = int((fixed == PERTURBED).sum())
        points[:] = [stacked[count:]]
        release = NoisyRelease(
            points=stacked[:count],
            fixed=fixed,
            sentences=tuple(tuple(run) for run in slot_sentences(text)),
        )
        return self._assemble_all([text], decoder.decode(release), state)[0]

    def _runs(self, items: list[_Item], words: Sequence[float]) -> list[list[_Item]]:
        """``items`` (of about ``words`` words each) cut into consecutive runs of about equal
        length, one per worker-thread task."""
        sizes = np.cumsum(words)
        tasks = self._tasks(int(sizes[-1])) if items else 1
        if tasks == 1:
            return [items]
        cuts: list[int] = np.searchsorted(sizes, sizes[-1] * np.arange(1, tasks) / tasks).tolist()
        bounds = [0, *sorted(set(cuts) - {0, len(items)}), len(items)]
        return [items[start:end] for start, end in itertools.pairwise(bounds)]

    def _release_texts(self, texts: list[str]) -> tuple[list[Segmented], np.ndarray]:
        """The texts' segmentation (each starting a sentence) and :meth:`_release_segmented`."""
        return self._release_segmented([self.segment(text) for text in texts])

    def _release_segmented(self, segmented: list[Segmented]) -> tuple[list[Segmented], np.ndarray]:
        """``segmented`` and one released id per word slot (see :meth:`_assemble_all`)."""
        if self.decoder is not None:
            return segmented, self.decoder.decode(
                self._noisy_release(self.decoder.space, segmented)
            )
        ids = self._slot_ids(segmented)
        known = ids >= 0
        released = np.empty_like(ids)
        released[known] = self.privatize_ids(ids[known])
        released[~known] = self._replace_unknown(ids[~known])
        return segmented, released

    def lookup(self, words: Iterable[str]) -> np.ndarray:
        """The vocabulary id of each slot key (:attr:`Segmented.words`), -1 where it is unknown.

        A chat spelling of the pack's language is looked up as its word
        (:func:`edgedp.words.replacements.pack_slang`: ``tmrw`` as ``tomorrow``), and a word with
        ``ß`` the pack lacks as written is looked up with ``ss`` (``weiß`` as ``weiss``: packs
        built from wordfreq's lists, which casefold, write it so).
        """
        keys = [self._slang.get(word, word) for word in words]
        ids = self.pack.vocabulary.ids(keys)
        eszett = [i for i, key in enumerate(keys) if "ß" in key and ids[i] < 0]
        if eszett:
            ids[eszett] = self.pack.vocabulary.ids([keys[i].replace("ß", "ss") for i in eszett])
        return ids

    def _slot_ids(self, segmented: list[Segmented]) -> np.ndarray:
        """The vocabulary id of every slot; -1 where it is out of vocabulary or protected,
        :data:`~edgedp.words.replacements.EMOJI_SLOT` where it is an emoji."""
        ids = self.lookup(word for item in segmented for word in item.words)
        offset = 0
        for item in segmented:  # protected slots take the OOV path, whatever their key
            for index, kind in item.kinds.items():
                ids[offset + index] = EMOJI_SLOT if kind == EMOJI else -1
            offset += len(item.words)
        return ids

    def noisy_release(self, texts: Iterable[str]) -> NoisyRelease:
        """The DP release of ``texts`` itself, undecoded (each text starts a sentence): the noisy
        code of every vocabulary slot, the replacement of every other slot, the sentence layout.

        It carries this mechanism's guarantee whoever decodes it (:mod:`edgedp.words.decoding`):
        an app may send it, rather than text, to be decoded elsewhere. Only mechanisms in Hamming
        space have one (BRR, Vickrey with ``geometry="hamming"``): randomized response releases exact
        bits. Madlib's and Mahalanobis's noisy vectors are floating-point numbers whose support has
        holes (points one word can produce and a neighbour cannot), so they never leave the
        process: decode them there (``decode=``). Mechanisms that release sampled words (TEM,
        SanText, CusText) have no noisy points.

        ``fixed`` marks every slot that was not perturbed (an out-of-vocabulary token or a
        protected span), whatever the ``oov`` policy: with ``oov="sample"`` the printed text only
        weakly suggests such slots, this release states them.

        Raises
        ------
        InputError
            For a mechanism whose noisy points are not a release (see above), or bad ``texts``.
        """
        if self.space is None:
            raise InputError(f"{type(self).__name__} releases sampled words, not noisy points")
        if not self.space.releasable_points:
            raise InputError(
                f"{type(self).__name__}'s noisy points are floating-point vectors, not a release: "
                "their support has holes (points one word can produce and a neighbour cannot), so "
                "no epsilon holds for them; decode them in the process (decode='map' or "
                "'context') and send the text, or use a Hamming-space mechanism (BRR)"
            )
        batch = [check_text(text) for text in check_iterable(texts, "noisy_release", "text")]
        return self._noisy_release(self.space, [self.segment(text) for text in batch])

    def _noisy_release(self, space: Space, segmented: list[Segmented]) -> NoisyRelease:
        """The noisy points and fixed slots of :meth:`_perturbed_slots`, with the sentences of the
        released separators."""
        points, fixed = self._perturbed_slots(space, segmented)
        sentences: list[tuple[int, ...]] = []
        offset = 0
        for item in segmented:
            sentences.extend(tuple(offset + slot for slot in run) for run in slot_sentences(item))
            offset += len(item.words)
        return NoisyRelease(points=points, fixed=fixed, sentences=tuple(sentences))

    def _perturbed_slots(
        self, space: Space, segmented: list[Segmented]
    ) -> tuple[np.ndarray, np.ndarray]:
        """The noisy points of the known slots (the same draws as ``nearest`` decoding) and, per
        slot, :data:`PERTURBED` or the out-of-vocabulary policy's replacement."""
        ids = self._slot_ids(segmented)
        known = ids >= 0
        points = space.perturb(ids[known])
        fixed = np.full(len(ids), PERTURBED, dtype=np.int64)
        fixed[~known] = self._replace_unknown(ids[~known])
        return points, fixed

    def _replace_unknown(self, slots: np.ndarray) -> np.ndarray:
        """What the ``oov`` policy releases for slots no mechanism releases (``slots``: their slot
        ids, -1 or :data:`~edgedp.words.replacements.EMOJI_SLOT`), independently of their content:
        with ``sample`` a filler word or emoji (:func:`~edgedp.words.replacements.
        draw_replacements`), else the policy's marker."""
        if self.oov == "sample":
            return draw_replacements(self.pack, self.rng, slots == EMOJI_SLOT)
        masked = self.oov in ("mask", "placeholder")
        return np.full(len(slots), _MASKED if masked else _DROPPED, dtype=np.int64)

    def _spell(self, released: int) -> str | None:
        """The text of a released id: a vocabulary word, a filler emoji, [OOV], or None (dropped)."""
        if released >= 0:
            return self.pack.vocabulary[released]  # by id: never materializes the word list
        if released <= EMOJI_BASE:
            return filler_emoji_of(released)
        return OOV_MASK if released == _MASKED else None

    def _assemble_all(
        self, segmented: list[Segmented], released: np.ndarray, state: SentenceState | None
    ) -> list[str]:
        if self.kept is not None:
            ids = self._slot_ids(segmented)
            known = ids >= 0
            self.kept.released += int(known.sum())
            self.kept.unchanged += int((released[known] == ids[known]).sum())
        spelled = [self._spell(i) for i in released.tolist()]
        out, start = [], 0
        for item in segmented:
            end = start + len(item.words)
            replacements = spelled[start:end]
            if self.oov == "placeholder":
                for index, kind in item.kinds.items():
                    replacements[index] = placeholder(kind)
            out.append(assemble(item, replacements, self.casing, state))
            start = end
        return out
