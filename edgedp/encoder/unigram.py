"""SentencePiece's unigram tokenizer in pure Python: the multilingual encoder's, on both tiers.

:class:`Unigram` reads the ``tokenizer.json`` of a multilingual encoder pack (written by
``edgedp-export encoder``) and gives the ids SentencePiece gives, ``<s>`` and ``</s>`` around
them:

1. **Normalization**, as SentencePiece's ``Normalizer``: at each byte, a user-defined piece
   passes as it is, else the longest key of the precompiled ``nmt_nfkc`` map (a darts-clone
   double-array trie over UTF-8 bytes) is replaced by its value, else one character passes;
   spaces at both ends are dropped and runs of spaces collapsed (spaces only), every space becomes
   U+2581 and one U+2581 is prepended (the dummy prefix).
2. **User-defined pieces** (``extra_token_id_1`` ...) are cut out whole.
3. **Viterbi** over the characters of each remaining stretch: the path of pieces with the highest
   total score; a character that begins no piece is an unknown node scored ``min score - 10``;
   ties keep the earlier start, and a run of unknown characters is one ``<unk>`` id.
4. ``<s> ... </s>``, truncated to ``max_length`` ids; a batch is padded to its longest sentence.

Both tiers use it: tokenizers' Unigram holds the 128,000 pieces in 140 MB, this module in 44 MB,
and only this module cuts grapheme clusters as SentencePiece does (below). Scores are summed in
float64, as tokenizers sums them. It matches SentencePiece id for id (tests/encoder/test_unigram.py:
text of eight languages, every code point, random Unicode) except on an exact tie: SentencePiece
sums in float32, so of two segmentations of equal score (``"''" + "'"`` or ``"'" + "''"``) it may
keep the other. Hugging Face tokenizers, run on the same ``tokenizer.json`` (the cross-check of
the tests), agrees with this module except on a grapheme cluster of several code points shorter
than 6 bytes whose first character is a key of the map (``"\\ufb01\\u0301"``): tokenizers
replaces the whole cluster by that character's value and drops the rest, SentencePiece and this
module keep it. Both are rare in text of the pack's languages (one tie in 480 public sentences,
no such cluster).
"""

from __future__ import annotations

import base64
import json
import re
from array import array
from collections.abc import Sequence
from typing import Any

from edgedp.encoder.wordpiece import Encoding, padded
from edgedp.errors import AssetError

#: SentencePiece's whitespace symbol (U+2581), as text and as UTF-8.
SPACE = "\u2581"
_SPACE_BYTES = SPACE.encode("utf-8")
#: SentencePiece scores an unknown character this much below the lowest piece.
UNKNOWN_PENALTY = 10.0
_LEAF = 1 << 8
_LABEL = (1 << 31) | 0xFF
_VALUE = (1 << 31) - 1
#: The normalizer steps after the precompiled map, as the exporter writes them.
_WHITESPACE_STEPS = [
    ("Replace", {"Regex": r"\A +| +\z"}, ""),
    ("Replace", {"Regex": " {2,}"}, " "),
    ("Replace", {"String": " "}, SPACE),
    ("Replace", {"Regex": f"\\A{SPACE}"}, SPACE + SPACE),
]


class CharsMap:
    """SentencePiece's precompiled normalization map: a darts-clone double-array trie of UTF-8
    keys whose values are offsets of NUL-terminated replacements.

    ``data`` is the map's bytes: a little-endian uint32 trie size in bytes, the trie's units, then
    the replacements. ``name`` is shown in errors.
    """

    def __init__(self, data: bytes, *, name: str) -> None:
        if len(data) < 4:
            raise AssetError(f"{name}: the normalization map is truncated")
        size = int.from_bytes(data[:4], "little")
        if size % 4 or size < 4 or 4 + size > len(data):
            raise AssetError(f"{name}: the normalization map's trie size is inconsistent")
        units = array("I")
        units.frombytes(data[4 : 4 + size])
        if units.itemsize != 4:
            raise AssetError("this platform has no 4-byte unsigned array type")
        if array("I", [1]).tobytes() != (1).to_bytes(4, "little"):
            units.byteswap()
        self._units = units
        self._replacements = data[4 + size :]
        self._cache: dict[int, bytes] = {}

    def longest(self, data: bytes, position: int) -> tuple[int, bytes] | None:
        """(bytes consumed, replacement) of the longest key that starts at ``position``."""
        units = self._units
        count = len(units)
        unit = units[0]
        node = (unit >> 10) << ((unit & 0x200) >> 6)
        found: tuple[int, int] | None = None
        for index in range(position, len(data)):
            byte = data[index]
            node ^= byte
            if node >= count:
                break
            unit = units[node]
            if unit & _LABEL != byte:
                break
            node ^= (unit >> 10) << ((unit & 0x200) >> 6)
            if unit & _LEAF:
                if node >= count:
                    break
                found = (index + 1 - position, units[node] & _VALUE)
        if found is None:
            return None
        return found[0], self._replacement(found[1])

    def _replacement(self, offset: int) -> bytes:
        cached = self._cache.get(offset)
        if cached is None:
            end = self._replacements.find(b"\0", offset)
            if offset >= len(self._replacements) or end < 0:
                raise AssetError("the normalization map points past its replacements")
            cached = self._replacements[offset:end]
            self._cache[offset] = cached
        return cached


def _utf8_length(lead: int) -> int:
    """Bytes of the UTF-8 character that starts with ``lead`` (input is valid UTF-8)."""
    if lead < 0x80:
        return 1
    if lead < 0xE0:
        return 2
    return 3 if lead < 0xF0 else 4


class Unigram:
    """A SentencePiece unigram ``tokenizer.json`` run in pure Python (see the module docstring).

    ``data`` is the json's bytes (``name`` is shown in errors). Anything but the layout
    ``edgedp-export encoder`` writes (precompiled map and whitespace steps, Metaspace with the
    dummy prefix, user-defined pieces isolated, a Unigram model without byte fallback,
    ``<s> A </s>``, right truncation and padding) is refused with :class:`AssetError`.
    """

    def __init__(self, data: bytes, *, name: str = "tokenizer.json") -> None:
        try:
            config = json.loads(data.decode("utf-8"))
            model, template = config["model"], config["post_processor"]
            steps = config["normalizer"]["normalizers"]
            charsmap = base64.b64decode(steps[0]["precompiled_charsmap"], validate=True)
            whitespace = [(s["type"], s["pattern"], s["content"]) for s in steps[1:]]
            pre = config["pre_tokenizer"]["pretokenizers"]
            meta = pre[0]
            user_defined = _literals(pre[1]) if len(pre) == 2 else []
            layout = [item.get("SpecialToken", {}).get("id", "A") for item in template["single"]]
            special = template["special_tokens"]
            bos, eos = special[layout[0]]["ids"], special[layout[2]]["ids"]
            vocabulary: list[list[Any]] = model["vocab"]
            unk = int(model["unk_id"])
            truncation, padding = config["truncation"], config["padding"]
            #: Most ids per sentence, <s> and </s> included (None: no truncation).
            self.max_length: int | None = truncation and int(truncation["max_length"])
            #: Whether a batch is padded to its longest sentence (the json's BatchLongest).
            self.pads_to_longest = bool(padding) and padding["strategy"] == "BatchLongest"
            self.pad_id = int(padding["pad_id"]) if padding else 0
            directions = {
                (truncation or {}).get("direction", "Right"),
                (padding or {}).get("direction", "Right"),
            }
            kinds = (steps[0]["type"], meta["type"], model["type"], template["type"])
            pieces = {str(piece): index for index, (piece, _) in enumerate(vocabulary)}
            scores = array("d", (float(score) for _, score in vocabulary))
        except (UnicodeDecodeError, ValueError, KeyError, TypeError, IndexError) as error:
            raise AssetError(
                f"{name} is not a SentencePiece unigram tokenizer.json ({error})"
            ) from None
        if (
            kinds != ("Precompiled", "Metaspace", "Unigram", "TemplateProcessing")
            or whitespace != _WHITESPACE_STEPS
            or (meta.get("replacement"), meta.get("prepend_scheme"), meta.get("split"))
            != (SPACE, "always", False)
            or model.get("byte_fallback")
            or layout[1:2] != ["A"]
            or len(layout) != 3
            or directions != {"Right"}
            or config.get("added_tokens")
            or not 0 <= unk < len(vocabulary)
            or len(pieces) != len(vocabulary)
            or any(piece not in pieces for piece in user_defined)
        ):
            raise AssetError(
                f"{name}: the numpy tier reads the SentencePiece unigram layout of "
                "edgedp-export encoder only; use the native tier (onnxruntime + tokenizers)"
            )
        self._map = CharsMap(charsmap, name=name)
        self._pieces = pieces
        self._scores = scores
        self._unk = unk
        self._unknown_score = min(scores) - UNKNOWN_PENALTY
        self._longest = max(len(piece) for piece in pieces)
        self._bos, self._eos = list(bos), list(eos)
        self._user = sorted(user_defined, key=len, reverse=True)
        self._user_bytes = [(piece.encode("utf-8"), piece) for piece in self._user]
        self._user_pattern = (
            re.compile("(" + "|".join(map(re.escape, self._user)) + ")") if self._user else None
        )

    @property
    def truncation(self) -> dict[str, int] | None:
        """``{"max_length": n}`` if sentences are truncated (as ``tokenizers``' property)."""
        return None if self.max_length is None else {"max_length": self.max_length}

    @property
    def padding(self) -> dict[str, int | None] | None:
        """``{"length": None, ...}`` when padding to the longest (as ``tokenizers``' property)."""
        return {"length": None, "pad_id": self.pad_id} if self.pads_to_longest else None

    def normalize(self, text: str) -> str:
        """SentencePiece's normalized form of ``text`` (spaces as U+2581, the dummy prefix)."""
        data = text.encode("utf-8")
        position, end = 0, len(data)
        while position < end:  # spaces (and what the map makes a space) at the start go
            size, replaced = self._prefix(data, position)
            if replaced != b" ":
                break
            position += size
        if position == end:
            return ""
        out = bytearray(_SPACE_BYTES)
        after_space = True
        while position < end:
            size, replaced = self._prefix(data, position)
            position += size
            if after_space:
                replaced = replaced.lstrip(b" ")
            if replaced:
                out += replaced.replace(b" ", _SPACE_BYTES)
                after_space = replaced.endswith(b" ")
        while out.endswith(_SPACE_BYTES):
            del out[-len(_SPACE_BYTES) :]
        return out.decode("utf-8")

    def _prefix(self, data: bytes, position: int) -> tuple[int, bytes]:
        """(bytes consumed, their normalized bytes) at ``position``."""
        for raw, _ in self._user_bytes:
            if data.startswith(raw, position):
                return len(raw), raw
        found = self._map.longest(data, position)
        if found is not None:
            return found
        size = _utf8_length(data[position])
        return size, data[position : position + size]

    def piece_ids(self, text: str) -> list[int]:
        """The ids of ``text``'s pieces, without ``<s>``, ``</s>`` or truncation."""
        normalized = self.normalize(text)
        if self._user_pattern is None:
            return self._viterbi(normalized)
        ids: list[int] = []
        for index, stretch in enumerate(self._user_pattern.split(normalized)):
            if index % 2:
                ids.append(self._pieces[stretch])
            elif stretch:
                ids.extend(self._viterbi(stretch))
        return ids

    def encode(self, text: str) -> list[int]:
        """The ids of one sentence: ``<s>``, its pieces (truncated to fit ``max_length``), ``</s>``."""
        ids = self.piece_ids(text)
        if self.max_length is not None:
            del ids[max(self.max_length - len(self._bos) - len(self._eos), 0) :]
        return [*self._bos, *ids, *self._eos]

    def encode_batch(self, texts: Sequence[str]) -> list[Encoding]:
        """Every text encoded, in order, padded to the longest if the json pads (as ``tokenizers``'
        ``encode_batch``)."""
        return padded([self.encode(text) for text in texts], self.pads_to_longest, self.pad_id)

    def _viterbi(self, text: str) -> list[int]:
        """The best segmentation of ``text`` (module docstring, step 3)."""
        length = len(text)
        best = [0.0] + [-float("inf")] * length
        start_of = [-1] * (length + 1)
        piece_of = [0] * (length + 1)
        pieces, scores, longest = self._pieces, self._scores, self._longest
        for start in range(length):
            base = best[start]
            single = False
            for stop in range(start + 1, min(start + longest, length) + 1):
                piece = pieces.get(text[start:stop])
                if piece is None:
                    continue
                single = single or stop == start + 1
                score = base + scores[piece]
                if start_of[stop] < 0 or score > best[stop]:
                    best[stop], start_of[stop], piece_of[stop] = score, start, piece
            if not single:
                score = base + self._unknown_score
                if start_of[start + 1] < 0 or score > best[start + 1]:
                    best[start + 1], start_of[start + 1] = score, start
                    piece_of[start + 1] = self._unk
        ids: list[int] = []
        position = length
        while position > 0:
            piece = piece_of[position]
            if not (piece == self._unk and ids and ids[-1] == self._unk):
                ids.append(piece)
            position = start_of[position]
        ids.reverse()
        return ids


def _literals(split: dict[str, Any]) -> list[str]:
    """The pieces of the exporter's Split step: an alternation of escaped literals, isolated."""
    pattern = split["pattern"]["Regex"]
    if split["type"] != "Split" or split["behavior"] != "Isolated" or split.get("invert"):
        raise ValueError("the second pre-tokenizer must isolate the user-defined pieces")
    return [re.sub(r"\\(.)", r"\1", part) for part in pattern.split("|")]
