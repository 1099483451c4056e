"""A loaded pack computes with the bytes that were verified, whatever happens to its files later.

Threat: someone who can write the pack directory *after* edgedp verified it (another process of the
same user, a sync client, a compromised updater). Before issue 14 the files were hashed by path and
then memory-mapped by path, so a rewrite after load silently changed the running mechanism (crafted
codes made BRR return the input word 99 % of the time) and a swap between hashing and mapping was
loaded unverified. Each test below fails on that code.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import numpy as np
import pytest
from helpers import write_word_pack

import edgedp
import edgedp.packs.manifest
from edgedp.errors import AssetError

WORDS = [f"w{c}" for c in "abcdefgh"]
HONEST = (np.arange(8, dtype=np.uint8) * 0x11).reshape(8, 1).repeat(2, axis=1)
# every word gets the same code: BRR would then return word 0 for every input
CRAFTED = np.zeros((8, 2), dtype=np.uint8)


def npy(array: np.ndarray, tmp_path: Path) -> bytes:
    np.save(tmp_path / "scratch.npy", array)
    return (tmp_path / "scratch.npy").read_bytes()


@pytest.fixture
def pack_dir(tmp_path: Path) -> Path:
    return write_word_pack(tmp_path / "pack", WORDS, HONEST)


def overwrite_in_place(path: Path, content: bytes) -> None:
    """Rewrite a file's bytes in place (same inode: what a memory map would show)."""
    with path.open("r+b") as handle:
        handle.write(content)


def test_a_file_rewritten_after_load_does_not_change_the_mechanism(pack_dir, tmp_path):
    pack = edgedp.load_pack(pack_dir)
    crafted = npy(CRAFTED, tmp_path)
    assert len(crafted) == (pack_dir / "codes.npy").stat().st_size
    overwrite_in_place(pack_dir / "codes.npy", crafted)
    assert np.array_equal(pack.codes, HONEST)
    _, ids = pack.index.search(HONEST)
    assert ids[:, 0].tolist() == list(range(8))  # each code still finds its own word


class _RewriteAfterHashing:
    """A stand-in for the SHA-256 of edgedp.packs.manifest (``sha256_hasher``): hashes honestly, and
    as soon as it has hashed the ``.npy`` file it swaps that file on disk (the window between hash
    and use)."""

    def __init__(self, target: Path, content: bytes) -> None:
        self.target, self.content, self.fired = target, content, False

    def sha256(self, expected_bytes: int = 0, data: bytes = b""):
        real = hashlib.sha256(data)
        outer = self

        class Hasher:
            def update(self, chunk) -> None:
                real.update(chunk)
                if bytes(chunk[:6]) == b"\x93NUMPY" and not outer.fired:
                    outer.fired = True
                    overwrite_in_place(outer.target, outer.content)

            def hexdigest(self) -> str:
                return real.hexdigest()

        hasher = Hasher()
        if data:
            hasher.update(data)
        return hasher


def test_a_file_swapped_between_hash_and_use_is_not_used(pack_dir, tmp_path, monkeypatch):
    hook = _RewriteAfterHashing(pack_dir / "codes.npy", npy(CRAFTED, tmp_path))
    monkeypatch.setattr(edgedp.packs.manifest, "sha256_hasher", hook.sha256)
    pack = edgedp.load_pack(pack_dir)
    assert hook.fired  # the swap happened after the codes were hashed ...
    assert (pack_dir / "codes.npy").read_bytes() == npy(CRAFTED, tmp_path)
    assert np.array_equal(pack.codes, HONEST)  # ... and the pack uses what was hashed


def test_a_file_swapped_before_hashing_is_refused(pack_dir, tmp_path):
    overwrite_in_place(pack_dir / "codes.npy", npy(CRAFTED, tmp_path))
    with pytest.raises(AssetError, match="does not match its SHA-256"):
        edgedp.load_pack(pack_dir)


def test_brr_is_unaffected_by_a_rewrite_after_load(pack_dir, tmp_path, seeded):
    pack = edgedp.load_pack(pack_dir)
    # 50 per bit: practically no flips; no guard ("wa" is also a name)
    brr = edgedp.BRR(pack, epsilon=50.0, rng=seeded(0), protect=())
    overwrite_in_place(pack_dir / "codes.npy", npy(CRAFTED, tmp_path))
    assert brr.privatize(" ".join(WORDS)) == " ".join(WORDS)


def test_a_model_rewritten_before_its_lazy_session_is_made_is_not_used(tmp_path, encoder_pack):
    """ONNX sessions are made on first use, long after load: they must use the verified bytes."""
    copy = tmp_path / "sentences"
    shutil.copytree(edgedp.load_pack("sentences-bbc").path, copy)
    pack = edgedp.load_pack(copy)
    (copy / "recoder.onnx").write_bytes(encoder_pack.encoder_path.read_bytes())  # replaced by path
    embeddings = np.asarray(pack.reference_embeddings[:2])
    recoded = pack.recoder.recode(embeddings)
    assert np.allclose(recoded, pack.reference_recoded[:2], atol=1e-4)


def test_the_manifest_digest_is_the_digest_of_the_bytes_parsed(pack_dir):
    raw = (pack_dir / "manifest.json").read_bytes()
    assert edgedp.load_pack(pack_dir).manifest.digest == hashlib.sha256(raw).hexdigest()
