#!/usr/bin/env bash
# Proof on ARM: install the runtime's dependencies from the package index's aarch64 wheels into a
# Debian bookworm arm64 root and run the runtime test subset on aarch64 under qemu-user emulation.
#
#   sudo bench/platforms/arm64_qemu.sh [WORKDIR]        (default WORKDIR: /tmp/edgedp-arm64)
#
# Needs root (apt-get, debootstrap) and network access to Debian's mirror and the package index.
# Every aarch64 binary is started explicitly through qemu-aarch64-static with QEMU_LD_PREFIX=ROOT.
# If binfmt_misc can be mounted and qemu's aarch64 entry registered (root in most containers), a
# child interpreter started with sys.executable (multiprocessing spawn, subprocess tests) runs too;
# without it those tests are deselected. Takes 40-90 minutes on 2 cores (the sentence encoder under
# emulation is the slow part); not part of the default CI run.
# Results and versions are recorded in bench/README.md ("Platforms").
set -euo pipefail
WORK=${1:-/tmp/edgedp-arm64}
shift || true  # the rest of the arguments go to pytest
ROOT_FS=$WORK/root
SITE=$WORK/site
REPO=$(cd "$(dirname "$0")/../.." && pwd)
TESTS=(tests/words/test_vocabulary.py tests/words/test_randomized_response.py tests/words/test_hamming.py
       tests/words/test_brr.py tests/text/test_text.py tests/privacy/test_noise.py tests/privacy/test_randomness.py
       tests/packs/test_packs.py tests/words/test_madlib.py tests/words/test_vickrey.py tests/documents/test_encoder.py
       tests/documents/test_tukey.py tests/documents/test_deepcandidate.py)
mkdir -p "$WORK"

command -v qemu-aarch64-static >/dev/null && command -v debootstrap >/dev/null ||
    apt-get install -y -q qemu-user-static debootstrap
if [ ! -x "$ROOT_FS/usr/bin/python3.11" ]; then
    # first stage only (the second needs binfmt_misc): download, then unpack every .deb ourselves
    debootstrap --arch=arm64 --foreign --variant=minbase \
        --include=python3,python3-venv,python3-pip,ca-certificates bookworm "$ROOT_FS" \
        http://deb.debian.org/debian
    for deb in "$ROOT_FS"/var/cache/apt/archives/*.deb; do dpkg-deb -x "$deb" "$ROOT_FS"; done
fi
# onnxruntime's cpuinfo parses /proc/cpuinfo for the ARM "CPU part" fields; under qemu-user it reads
# the x86 host's file and dereferences NULL (SIGSEGV on import). qemu -L serves files that exist
# under the prefix first, so give it the cpuinfo of a 2-core Cortex-A72 (a Raspberry Pi 4's cores).
mkdir -p "$ROOT_FS/proc"
for cpu in 0 1; do
    printf 'processor\t: %s\nBogoMIPS\t: 108.00\nFeatures\t: fp asimd evtstrm crc32 cpuid\nCPU implementer\t: 0x41\nCPU architecture: 8\nCPU variant\t: 0x0\nCPU part\t: 0xd08\nCPU revision\t: 3\n\n' "$cpu"
done > "$ROOT_FS/proc/cpuinfo"
export QEMU_LD_PREFIX=$ROOT_FS
PY=(qemu-aarch64-static "$ROOT_FS/usr/bin/python3.11" -s)
SELECT="not subprocess and not console_script"
BINFMT=/proc/sys/fs/binfmt_misc
if [ -f /usr/lib/binfmt.d/qemu-aarch64.conf ] && { [ -f $BINFMT/register ] ||
        mount -t binfmt_misc binfmt_misc $BINFMT 2>/dev/null; }; then
    [ -f $BINFMT/qemu-aarch64 ] || cat /usr/lib/binfmt.d/qemu-aarch64.conf > $BINFMT/register || true
fi
if [ -f $BINFMT/qemu-aarch64 ]; then
    SELECT="not console_script"   # the aarch64 interpreter can exec itself; no edgedp script in ROOT
fi
"${PY[@]}" -c 'import platform, sys; print("python", sys.version.split()[0], platform.machine())'
if [ ! -d "$SITE/numpy" ]; then
    # Debian's pip, run on aarch64: it selects the index's manylinux aarch64 wheels
    "${PY[@]}" -c "import sys; sys.path.insert(0, '$ROOT_FS/usr/lib/python3/dist-packages'); \
from pip._internal.cli.main import main; sys.exit(main())" install --no-cache-dir \
        --only-binary=:all: --target "$SITE" "numpy>=2.0" "faiss-cpu>=1.11" "onnxruntime>=1.17" \
        "tokenizers>=0.15" "sentencex>=1.0" pytest hypothesis scipy tqdm   # sentencex: aarch64 wheel
fi
rm -rf "$WORK/repo" && mkdir -p "$WORK/repo"
git -C "$REPO" archive HEAD | tar -x -C "$WORK/repo"
cd "$WORK/repo"
PYTHONPATH="$SITE:$WORK/repo:$WORK/repo/export" OMP_NUM_THREADS=1 "${PY[@]}" -c \
    'import numpy, faiss, onnxruntime, tokenizers, platform
print("aarch64 wheels:", platform.machine(), "numpy", numpy.__version__, "faiss", faiss.__version__,
      "onnxruntime", onnxruntime.__version__, "tokenizers", tokenizers.__version__)'
PYTHONPATH="$SITE:$WORK/repo:$WORK/repo/export" OMP_NUM_THREADS=1 "${PY[@]}" -m pytest -q \
    -p no:cacheprovider -k "$SELECT" "${TESTS[@]}" "$@"
