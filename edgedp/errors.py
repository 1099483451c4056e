"""The exceptions and warnings edgedp raises.

Every error a user can cause is one of these, with a message that says what was wrong and how to fix
it; the CLI prints that message on one line. Catch :class:`EdgedpError` to catch them all.
"""

from __future__ import annotations


class EdgedpError(Exception):
    """Base class of every error edgedp raises on purpose.

    Every error a user can cause is one of its subclasses, with a message that says what was wrong
    and how to fix it (the command line prints that message on one line). Catch ``EdgedpError`` to
    catch them all; the subclasses that are about a bad value are also ``ValueError``.

    See Also
    --------
    PrivacyParameterError, InputError, AssetError, BudgetError, RandomnessError

    Examples
    --------
    >>> import edgedp
    >>> issubclass(edgedp.AssetError, edgedp.EdgedpError)
    True
    >>> try:
    ...     edgedp.load_pack("no-such-pack")
    ... except edgedp.EdgedpError as error:
    ...     print(type(error).__name__)
    AssetError
    """


class PrivacyParameterError(EdgedpError, ValueError):
    """A privacy parameter (epsilon, delta, t, ...) is missing, of the wrong type or out of range.

    Raised at construction, before anything is released: mechanisms validate their privacy
    parameters once, in :mod:`edgedp.privacy.validation`. Also a ``ValueError``.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.BRR(edgedp.load_pack(), epsilon=-1.0)
    Traceback (most recent call last):
    ...
    edgedp.errors.PrivacyParameterError: epsilon must be > 0, got -1.0
    """


class InputError(EdgedpError, ValueError):
    """The text, array or option given to edgedp cannot be processed (wrong type, too large, invalid).

    Raised for a value that is not a privacy parameter: a policy name, a pack of the wrong kind
    for a mechanism, a text that is not a string. Also a ``ValueError``.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.BRR(edgedp.load_pack(), epsilon=1.0, oov="keep")
    Traceback (most recent call last):
    ...
    edgedp.errors.InputError: oov must be one of drop, mask, placeholder, sample; got 'keep'
    """


class AssetError(EdgedpError):
    """An asset pack is missing, incomplete, tampered with, of a newer format, or of the wrong kind.

    Raised by :func:`~edgedp.load_pack` (which verifies every file against the pack's manifest)
    and by mechanisms that need what a pack lacks (float vectors, a language model). The message
    names the pack and how to get the right one.

    Examples
    --------
    >>> import edgedp
    >>> edgedp.load_pack("no-such-pack")
    Traceback (most recent call last):
    ...
    edgedp.errors.AssetError: ...
    """


class BudgetError(EdgedpError):
    """A release would exceed the privacy budget recorded in the ledger; nothing was released.

    Raised by :class:`~edgedp.PrivacyLedger` (and mechanisms it guards) before the release, when
    the charge would exceed the scope's limit or mix accounting units; its subclass ``LedgerError``
    says the ledger itself cannot be read or written. Either way nothing was released.

    Examples
    --------
    >>> import os, tempfile
    >>> import edgedp
    >>> ledger = edgedp.PrivacyLedger(os.path.join(tempfile.mkdtemp(), "ledger.db"))
    >>> ledger.set_limit("bob", 1.0)
    >>> brr = ledger.guard(edgedp.BRR(edgedp.load_pack(), epsilon=0.6), "bob")
    >>> brr.privatize("the cat sat")
    Traceback (most recent call last):
    ...
    edgedp.errors.BudgetError: ...
    """


class LedgerError(BudgetError):
    """The privacy ledger cannot be read or written (missing, read-only, locked, disk full).

    A ``BudgetError``: a release that could not be charged does not happen.
    """


class RandomnessError(EdgedpError, RuntimeError):
    """A random source was used in a way that would repeat noise (e.g. a seeded source after fork).

    A seeded :class:`~edgedp.RandomSource` refuses to be pickled or used in a forked child: both
    copies would draw the same noise. Give each worker its own source with
    ``RandomSource.spawn(n)``. Also a ``RuntimeError``.

    Examples
    --------
    >>> import pickle, warnings
    >>> import edgedp
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", edgedp.NotPrivateWarning)
    ...     seeded = edgedp.RandomSource.seeded(7)
    >>> pickle.dumps(seeded)
    Traceback (most recent call last):
    ...
    edgedp.errors.RandomnessError: a seeded RandomSource cannot be pickled: ...
    """


#: The end of every message about a broken pack file: what to do about it.
REBUILD_HINT = "rebuild it with edgedp-export or reinstall edgedp for a bundled pack"

#: The message of a missing dependency of the sentence-level mechanisms (``{what}``: which one).
SENTENCES_EXTRA = (
    '{what}: the sentence-level mechanisms need the sentences extra: pip install ".[sentences]" '
    "in an edgedp checkout (onnxruntime, tokenizers, sentencex)"
)


class DependencyError(EdgedpError, ImportError):
    """An optional dependency needed for this feature is not installed (the message says which)."""


class NotPrivateWarning(UserWarning):
    """Emitted when output is reproducible (explicit seed) or otherwise not differentially private.

    A seed (``rng=7``, :meth:`RandomSource.seeded <edgedp.RandomSource.seeded>`) makes the noise
    reproducible, so it protects nothing: use seeds for tests and benchmarks only. Non-private
    baselines warn with it too.

    Examples
    --------
    >>> import warnings
    >>> import edgedp
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     source = edgedp.RandomSource.seeded(7)
    >>> caught[0].category is edgedp.NotPrivateWarning, source.is_private
    (True, False)
    """


class UtilityWarning(UserWarning):
    """Emitted when a privacy parameter makes a release of little use or of little privacy.

    A word mechanism warns, at its first text, when its epsilon keeps more than 95 % of words
    unchanged (almost a copy) or fewer than 5 % (little utility), measured by a Monte Carlo on
    public words. The guarantee holds as stated; the warning is about what it buys (see
    :func:`~edgedp.explain` and ``edgedp tune``).

    Examples
    --------
    >>> import warnings
    >>> import edgedp
    >>> brr = edgedp.BRR(edgedp.load_pack(), epsilon=20.0)
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     text = brr.privatize("the cat sat")
    >>> caught[0].category is edgedp.UtilityWarning
    True
    """


class ShortDocumentWarning(UserWarning):
    """Emitted when a sentence-level mechanism releases a document too short to keep much of it.

    With fewer than 2 sentences the document is protected whole: DeepCandidate's output is then a
    uniformly random candidate, SubspaceMean's one sentence under noise that hides it. The release
    is still private; it is of little use.

    Examples
    --------
    >>> import edgedp
    >>> issubclass(edgedp.ShortDocumentWarning, UserWarning)
    True
    """
