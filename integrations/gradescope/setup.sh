#!/usr/bin/env bash
# Gradescope autograder setup: runs once, as root, when Gradescope builds
# the autograder image.  The zip's contents are in /autograder/source.
# Installs the Debian/Ubuntu packages and the CUDA Toolkit warpgrade
# builds with, then builds warpgrade and installs it like any C tool
# (`make install`: /usr/local/bin/warpgrade, its data in
# /usr/local/lib/warpgrade with the reference sources readable by root
# alone, the man pages), which run_autograder runs.  Needs network access
# (it has it during setup).
set -euo pipefail
cd /autograder/source
export DEBIAN_FRONTEND=noninteractive

apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	build-essential pkg-config libarchive-dev libjansson-dev nettle-dev \
	bubblewrap ca-certificates curl

# The CUDA Toolkit (nvcc, the static runtime): from NVIDIA's repository
# for this Ubuntu release, unless the image already has one.
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
if [ ! -x "$CUDA_HOME/bin/nvcc" ]; then
	. /etc/os-release
	repo="ubuntu${VERSION_ID//./}"
	curl -fsSLo /tmp/cuda-keyring.deb \
		"https://developer.download.nvidia.com/compute/cuda/repos/$repo/x86_64/cuda-keyring_1.1-1_all.deb"
	dpkg -i /tmp/cuda-keyring.deb
	apt-get update -qq
	apt-get install -y -qq --no-install-recommends cuda-toolkit
fi

PREFIX=/usr/local
make -j"$(nproc)" CUDA_HOME="$CUDA_HOME"
make install PREFIX="$PREFIX" CUDA_HOME="$CUDA_HOME"
# The reference objects are built on the first grading (per GPU
# architecture, or for the emulator); build the emulator's now so that
# no student waits for it.
(cd / && "$PREFIX/bin/warpgrade" grade /autograder/source/student_template \
	--backend emu --quiet --format json --output /tmp/warm.json) \
	>/dev/null 2>&1 || true
rm -f /tmp/warm.json
# The installed copy is what grades: the sources (reference kernels
# included) stay the instructor's, closed to the uids student code runs
# as.
chmod -R go-rwx /autograder/source
