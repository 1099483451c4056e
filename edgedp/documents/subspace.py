"""SubspaceMean: a noisy clipped mean of sentence embeddings in a public low-dimensional subspace."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from edgedp.documents.mechanism import Document, DocumentMechanism, sentence_embeddings
from edgedp.documents.subspace_pack import SubspacePack
from edgedp.errors import InputError, PrivacyParameterError
from edgedp.privacy.guarantee import Guarantee
from edgedp.privacy.noise import KNORM_MAX_DIMS, LatticeRelease, lattice_release, zcdp_epsilon
from edgedp.privacy.randomness import RandomSource
from edgedp.privacy.validation import (
    check_delta,
    check_epsilon,
    check_positive,
    check_positive_int,
)

_UNIT_ROUNDOFF = 2.0**-53
#: The float error of a clipped sum must stay below this many grid steps per coordinate (half a
#: step is what the proof needs; the bound is evaluated in floats, so a margin is kept).
_MAX_SUM_ERROR = 0.25


@dataclass(frozen=True, slots=True)
class SubspaceRelease:
    """What :class:`SubspaceMean` releases for one document, with the settings it used.

    Returned by ``SubspaceMean.release`` for code that needs more than the embedding: which
    d' and C a document of its length got. Everything in it is the DP release or public.

    Parameters
    ----------
    coordinates : ndarray
        The noisy mean in the pack's basis (float32, the mechanism's output width; entries past
        ``dims`` are 0, not estimated).
    dims : int
        The number of directions d' used (>= 0).
    clip : float
        The clip radius C used (>= 0).
    sentences : int
        The number of sentences k (>= 0), which the release reveals.

    Notes
    -----
    A document with no sentence gets the public mean: all zeros, ``dims`` 0 and ``clip`` 0. The
    guarantee is :class:`SubspaceMean`'s. A full example needs the ``subspace-general`` pack,
    which is not bundled with edgedp: the example below builds one by hand.

    Examples
    --------
    >>> import numpy as np
    >>> import edgedp
    >>> empty = edgedp.SubspaceRelease(np.zeros(4, np.float32), dims=0, clip=0.0, sentences=0)
    >>> empty.dims, empty.sentences
    (0, 0)
    """

    coordinates: np.ndarray
    dims: int
    clip: float
    sentences: int


class SubspaceMean(DocumentMechanism[SubspacePack]):
    """Sentence-level DP document embeddings: the mean of clipped sentence projections, plus noise.

    Each sentence s_i of a document (k sentences, each encoded on its own by the pack's encoder G)
    is centred on the pack's public mean mu, projected on the first d' public directions P and
    clipped to the L2 ball of radius C; the k clipped projections are summed on a lattice, exact
    integer noise is added (:class:`edgedp.privacy.noise.LatticeRelease`), and the sum is divided
    by k. d' and C are the pack's recommendation for (epsilon, delta, k), chosen on public
    documents. :meth:`embed` / :meth:`embed_batch` release the noisy mean in the basis
    coordinates (float32, width :attr:`output_dims`; coordinates past a document's d' are 0);
    :meth:`lift` maps it back to the encoder's 384-d space as mu + P^T z.

    Parameters
    ----------
    pack : ~edgedp.SubspacePack
        A subspace pack: ``edgedp.load_pack("subspace-general", kind="subspace")`` (a pack
        distribution, not bundled).
    epsilon : float
        The privacy parameter per document: a finite number > 0. Keyword only.
    delta : float or None, default None
        ``None``: pure epsilon-SentDP (discrete K-norm noise, at most 16 directions); a number in
        (0, 1): (epsilon, delta)-SentDP with discrete Gaussian noise.
    dims : int or None, default None
        How many directions d' (>= 1, at most the pack's; at most 16 without ``delta``);
        ``None``: the pack's choice per document length.
    clip : float or None, default None
        The clip radius C (> 0, at most the pack's largest projected norm; needs ``dims``);
        ``None``: the pack's, with ``dims``.
    rng : ~edgedp.RandomSource, int or None, default None
        ``None`` for OS entropy (private) or an int seed (tests only; NOT private, warns).

    Raises
    ------
    ~edgedp.PrivacyParameterError
        If ``epsilon`` is not a finite number > 0, ``delta`` is outside (0, 1), or pure epsilon is
        asked with more than 16 ``dims``.
    ~edgedp.InputError
        If ``pack`` is not a subspace pack, ``dims`` or ``clip`` is out of range, or ``clip`` is
        given without ``dims``.
    ~edgedp.errors.DependencyError
        From :meth:`embed`, when the sentences extra (onnxruntime, tokenizers) is not installed.

    Warns
    -----
    ~edgedp.ShortDocumentWarning
        For a document of fewer than 2 sentences: still private, mostly noise.

    Notes
    -----
    **Guarantee.** For two documents with the same number of sentences k that differ in any *one*
    sentence, replaced by any other: pure epsilon-SentDP (``delta=None``), or (epsilon, delta)-SentDP
    via rho-zCDP (discrete Gaussian, Canonne, Kamath and Steinke, Corollary 13). One sentence moves
    the exact sum by at most 2C in L2; the noise is calibrated to that sensitivity on the lattice,
    rounding included, and drawn exactly on the integers, so the guarantee holds for the bits that
    leave the machine. k is **revealed**; m sentences replaced give m epsilon (pure) or m^2 rho
    (:meth:`group_guarantee`); every further release of the same document spends again. Proof:
    :doc:`/theory`.

    A full example needs the ``subspace-general`` pack, which is not bundled with edgedp (see
    :doc:`/guide/documents`); the example below only shows the refusal of a words pack.

    References
    ----------
    * M. Hardt, K. Talwar. "On the Geometry of Differential Privacy", STOC 2010 (the K-norm
      mechanism).
    * C. Canonne, G. Kamath, T. Steinke. "The Discrete Gaussian for Differential Privacy",
      NeurIPS 2020.
    * C. Meehan, K. Mrini, K. Chaudhuri. "Sentence-level Privacy for Document Embeddings",
      ACL 2022 (SentDP, the neighbouring relation).

    Examples
    --------
    >>> import edgedp
    >>> edgedp.SubspaceMean(edgedp.load_pack(), epsilon=1.0)
    Traceback (most recent call last):
    ...
    edgedp.errors.InputError: SubspaceMean needs a SubspacePack (a subspace pack: ...), got WordPack
    """

    name = "subspace-mean"
    embedding_space = "sentence"
    pack_type = SubspacePack
    pack_hint = "a subspace pack: edgedp.load_pack('subspace-general', kind='subspace')"

    def __init__(
        self,
        pack: SubspacePack,
        *,
        epsilon: float,
        delta: float | None = None,
        dims: int | None = None,
        clip: float | None = None,
        rng: RandomSource | int | None = None,
    ) -> None:
        super().__init__(pack, rng=rng)
        self.epsilon = check_epsilon(epsilon)
        self.delta = None if delta is None else check_delta(delta)
        self.dims = None if dims is None else check_positive_int(dims, "dims")
        self.clip = None if clip is None else check_positive(clip, "clip")
        if self.clip is not None and self.clip > pack.largest_clip:
            raise InputError(
                f"clip must be at most {pack.largest_clip:.4g}, the largest norm a projected "
                "sentence can have in this pack (a larger radius clips nothing, only adds noise)"
            )
        if self.dims is None and self.clip is not None:
            raise InputError("clip= needs dims= (the default clip radius is chosen with d')")
        if self.dims is not None:
            if self.dims > pack.count:
                raise InputError(f"dims must be at most {pack.count} (the pack's directions)")
            if self.delta is None and self.dims > KNORM_MAX_DIMS:
                raise PrivacyParameterError(
                    f"pure epsilon supports at most {KNORM_MAX_DIMS} dims; give a delta"
                )
            if self.clip is None:
                self.clip = pack.clip_for(self.dims)
        self._basis = np.asarray(pack.basis, dtype=np.float64)
        self._mean = np.asarray(pack.mean, dtype=np.float64)
        self._lattices: dict[tuple[int, float], LatticeRelease] = {}
        self._width = (
            self.dims if self.dims is not None else pack.widest(self.epsilon, self.delta or 0.0)
        )
        # Fail here, not at the first document, on parameters no lattice can serve.
        for sentences in sorted({row.sentences for row in pack.recommendations} | {1}):
            self.lattice(*self.setting(sentences))

    def parameters(self) -> dict[str, object]:
        return {"epsilon": self.epsilon, "delta": self.delta, "dims": self.dims, "clip": self.clip}

    @property
    def output_dims(self) -> int:
        """Width of the released coordinates: ``dims``, or the most the pack recommends here."""
        return self._width

    def group_guarantee(self, sentences: int) -> Guarantee:
        """The guarantee when any ``sentences`` sentences of a document are replaced (group
        privacy): m epsilon for pure epsilon; for the Gaussian, the epsilon of m^2 rho-zCDP at
        the same delta (:func:`edgedp.privacy.noise.zcdp_epsilon`)."""
        count = check_positive_int(sentences, "sentences")
        single = self.guarantee()
        if self.delta is None:
            epsilon = self.epsilon * count
        else:
            rho = self.lattice(*self.setting(1)).rho or 0.0  # the Gaussian variant has one
            epsilon = zcdp_epsilon(rho * count * count, self.delta)
        return Guarantee(
            protects=f"any {count} sentences of a document (the number of sentences is not "
            "protected)",
            relation=f"two documents with the same number of sentences that differ in {count} "
            "sentences",
            unit="document",
            epsilon=epsilon,
            delta=single.delta,
        )

    def setting(self, sentences: int) -> tuple[int, float]:
        """(d', C) for a document of ``sentences`` sentences."""
        if self.dims is not None and self.clip is not None:
            return self.dims, self.clip
        row = self.pack.recommendation(self.epsilon, self.delta or 0.0, max(sentences, 1))
        return row.dims, row.clip

    def lattice(self, dims: int, clip: float) -> LatticeRelease:
        """The exact lattice release for (d', C) at this epsilon and delta (computed once)."""
        key = (dims, clip)
        if key not in self._lattices:
            self._lattices[key] = lattice_release(clip, dims, self.epsilon, self.delta)
        return self._lattices[key]

    def clipped_sums(self, embeddings: Iterable[np.ndarray], dims: int, clip: float) -> np.ndarray:
        """NOT PRIVATE: the integer lattice sums (int64, (documents, d')) of the clipped
        projections of each document's sentence embeddings, before noise.

        The float sum is within a rigorous bound of the exact sum of the exactly clipped
        projections (the dot products, the clipping and the summation each bounded by the
        standard error analysis, whatever the order of the operations); the bound must stay below
        a quarter grid step, else PrivacyParameterError.
        """
        arrays = self._checked(embeddings)
        lattice = self.lattice(dims, clip)
        radius = float(lattice.radius)  # exact: clip / grid, a power-of-two division
        scaled = self._basis[:dims] / lattice.grid  # exact scaling by a power of two
        lengths = [array.shape[0] for array in arrays]
        sums = np.zeros((len(arrays), dims), dtype=np.float64)
        errors = np.zeros(len(arrays), dtype=np.float64)
        if sum(lengths):
            centred = np.concatenate(arrays).astype(np.float64) - self._mean
            projected = centred @ scaled.T
            norms = np.sqrt(np.einsum("ij,ij->i", projected, projected))
            factors = np.minimum(1.0, radius / np.where(norms > 0, norms, 1.0))
            clipped = projected * factors[:, None]
            # Per sentence: the dot products are within gamma_(n + 2) sum_l |a_jl| |x_l| of the
            # exact ones (n = 384 terms and the centring), the clip map is 1-Lipschitz and its
            # float evaluation adds at most 2 (d' + 4) u R in L2.
            terms = scaled.shape[1] + 2
            gamma = terms * _UNIT_ROUNDOFF / (1.0 - terms * _UNIT_ROUNDOFF)
            magnitudes = (np.abs(centred) @ np.abs(scaled).T).max(axis=1)
            sentence_error = (
                math.sqrt(dims) * gamma * magnitudes * (1.0 + 2.0**-40)
                + 2.0 * (dims + 4) * _UNIT_ROUNDOFF * radius
            )
            starts = np.cumsum([0, *lengths[:-1]])
            for row, (start, length) in enumerate(zip(starts, lengths, strict=True)):
                if length:
                    block = slice(start, start + length)
                    sums[row] = clipped[block].sum(axis=0)
                    summing = length * _UNIT_ROUNDOFF / (1.0 - length * _UNIT_ROUNDOFF)
                    errors[row] = sentence_error[block].sum() + summing * length * (radius + 1.0)
        if errors.max(initial=0.0) * (1.0 + 2.0**-40) > _MAX_SUM_ERROR:
            raise PrivacyParameterError(
                "the float error of the clipped sum could reach a quarter grid step: document "
                "too long or embeddings too large for an exact release"
            )
        rounded: np.ndarray = np.rint(sums).astype(np.int64)
        return rounded

    def _noisy_rows(self, arrays: list[np.ndarray]) -> tuple[np.ndarray, list[tuple[int, float]]]:
        """Released coordinates (float64, (n, output width)) and each document's (d', C)."""
        lengths = [array.shape[0] for array in arrays]
        settings = [self.setting(length) for length in lengths]
        out = np.zeros((len(arrays), self.output_dims), dtype=np.float64)
        for dims, clip in sorted(set(settings)):
            rows = [i for i, s in enumerate(settings) if s == (dims, clip) and lengths[i] > 0]
            if not rows:
                continue
            lattice = self.lattice(dims, clip)
            sums = self.clipped_sums([arrays[i] for i in rows], dims, clip)
            noisy = lattice.release(sums, self.rng)
            counts = np.array([lengths[i] for i in rows], dtype=np.float64)[:, None]
            out[rows, :dims] = noisy.astype(np.float64) * lattice.grid / counts
        return out, settings

    def _release(self, embeddings: list[np.ndarray]) -> np.ndarray:
        rows, _ = self._noisy_rows(embeddings)
        return rows.astype(np.float32)

    def release(self, document: Document) -> SubspaceRelease:
        """The release of one document, with the d' and C used and k."""
        return self.release_batch([document])[0]

    def release_batch(self, documents: Iterable[Document]) -> list[SubspaceRelease]:
        """:meth:`release` for many documents, encoded in one pass (same guarantee for each)."""
        split = self._split(documents)
        arrays = self._checked(sentence_embeddings(self.pack, split, self.embedding_space))
        rows, settings = self._noisy_rows(arrays)
        # A document with no sentence is released as the public mean: no direction, no clip.
        return [
            SubspaceRelease(row.astype(np.float32), dims, clip, len(sentences))
            if sentences
            else SubspaceRelease(row.astype(np.float32), 0, 0.0, 0)
            for row, (dims, clip), sentences in zip(rows, settings, split, strict=True)
        ]

    def lift(self, coordinates: np.ndarray) -> np.ndarray:
        """Map released coordinates back to the encoder's space: mu + P^+ z (float32, (n, 384)).

        Post-processing (no privacy cost). P^+ is the pseudo-inverse of the first
        :attr:`output_dims` directions (P^T for orthonormal directions). See the class docstring
        for what the lifted vector does and does not mean.
        """
        array = np.asarray(coordinates, dtype=np.float64)
        width = self.output_dims
        if array.ndim != 2 or array.shape[1] != width:
            raise InputError(f"coordinates must have shape (n, {width}), got {array.shape}")
        inverse = np.linalg.pinv(self._basis[:width])
        lifted: np.ndarray = (self._mean + array @ inverse.T).astype(np.float32)
        return lifted
