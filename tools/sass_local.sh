#!/usr/bin/env bash
# tools/sass_local.sh FILE.cu [REGEX] [-- NVCC_FLAGS..]: the SASS of a CUDA file
# here, without a GPU: nvcc -cubin for sm_90 with the build's defines (PTX
# products on), then nvdisasm, then the instruction mix of the kernels that
# match REGEX (tools/sass_mix.py). The listing is kept as /tmp/sass_local/NAME.sass.
#
# nvdisasm: $NVDISASM, else on PATH. CUDA 13 writes cubins of ELF ABI 8, which
# the nvdisasm of Debian's nvidia-cuda-toolkit 11.8 (non-free; `apt-get
# download nvidia-cuda-toolkit` and `dpkg -x` it anywhere, nothing installed)
# does not read; a copy with the ABI 7 header (the same sm_90 code) is made for
# it. The mix matches `cuobjdump -sass` on the GPU machine for the same nvcc.
set -euo pipefail
[ $# -ge 1 ] || { sed -n 2,11p "$0" | sed 's/^# \{0,1\}//'; exit 2; }
src=$1; shift
re=""
[ $# -ge 1 ] && [ "$1" != "--" ] && { re=$1; shift; }
[ "${1:-}" = "--" ] && shift
root=$(cd "$(dirname "$0")/.." && pwd)
nvd=${NVDISASM:-$(command -v nvdisasm || true)}
[ -x "$nvd" ] || { echo "sass_local: no nvdisasm (set NVDISASM)" >&2; exit 2; }
d=/tmp/sass_local
mkdir -p $d
name=$(basename "$src" .cu)
nvcc -DCZ_HAVE_CUDA=1 -DCZ_PORTABLE -DCZ_CUDA_PTX=1 -I"$root" -I"$root/include" -O3 -arch=sm_90 \
  --expt-relaxed-constexpr -std=c++17 -cubin -x cu "$@" "$src" -o $d/$name.cubin
python3 - $d/$name.cubin $d/$name.7.cubin <<'PY'
import struct, sys
b = bytearray(open(sys.argv[1], "rb").read())
if b[:4] != b"\x7fELF":
    sys.exit("sass_local: %s is not an ELF file" % sys.argv[1])
if b[8] == 8:  # ELF ABI 8 -> 7: sm_90, 64-bit addresses, unified texture mode
    b[8] = 7
    struct.pack_into("<I", b, 0x30, 0x005A055A)
open(sys.argv[2], "wb").write(b)
PY
"$nvd" $d/$name.7.cubin >$d/$name.sass
python3 "$root/tools/sass_mix.py" $d/$name.sass $re --top=14
