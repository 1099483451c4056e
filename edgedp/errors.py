"""The exceptions and warnings edgedp raises.

Every error a user can cause is one of these, with a message that says what was wrong and how to fix
it; the CLI prints that message on one line. Catch :class:`EdgedpError` to catch them all.
"""

from __future__ import annotations


class EdgedpError(Exception):
    """Base class of every error edgedp raises on purpose."""


class PrivacyParameterError(EdgedpError, ValueError):
    """A privacy parameter (epsilon, delta, t, ...) is missing, of the wrong type or out of range."""


class InputError(EdgedpError, ValueError):
    """The text or array given to a mechanism cannot be processed (wrong type, too large, invalid)."""


class AssetError(EdgedpError):
    """An asset pack is missing, incomplete, tampered with, of a newer format, or of the wrong kind."""


class BudgetError(EdgedpError):
    """A release would exceed the privacy budget recorded in the ledger; nothing was released."""


class LedgerError(BudgetError):
    """The privacy ledger cannot be read or written (missing, read-only, locked, disk full).

    A ``BudgetError``: a release that could not be charged does not happen.
    """


class RandomnessError(EdgedpError, RuntimeError):
    """A random source was used in a way that would repeat noise (e.g. a seeded source after fork)."""


#: The message of a missing dependency of the sentence-level mechanisms (``{what}``: which one).
SENTENCES_EXTRA = (
    '{what}: the sentence-level mechanisms need the sentences extra: pip install ".[sentences]" '
    "in an edgedp checkout (onnxruntime, tokenizers, sentencex)"
)


class DependencyError(EdgedpError, ImportError):
    """An optional dependency needed for this feature is not installed (the message says which)."""


class NotPrivateWarning(UserWarning):
    """Emitted when output is reproducible (explicit seed) or otherwise not differentially private."""


class UtilityWarning(UserWarning):
    """Emitted when a privacy parameter makes a release of little use or of little privacy (a word
    mechanism whose epsilon keeps more than 95 % or fewer than 5 % of words unchanged). The
    guarantee holds as stated; the warning is about what it buys."""


class ShortDocumentWarning(UserWarning):
    """Emitted when a sentence-level mechanism releases a document too short for the release to keep
    much of it (fewer than 2 sentences: the document is protected whole; DeepCandidate's output is
    then a uniformly random candidate, SubspaceMean's one sentence under noise that hides it). The
    release is still private; it is of little use."""
