#!/bin/sh
# Run a command (e.g. tests/run-gpu-tests) on a GPU host that has the
# CUDA Toolkit but not the packages warpgrade was built against.  LIBDIR
# is what device-libs.sh filled: the shared libraries, and optionally a
# bubblewrap binary with its own libraries under LIBDIR/bwrap-deps, which
# is installed as /usr/local/bin/bwrap (where the grader looks) when the
# host has none, so that the GPU runs are isolated as in production.
#
#   tests/gpu/device-env.sh LIBDIR COMMAND [ARG ...]
set -eu
libdir=$(cd "${1:?usage: device-env.sh LIBDIR COMMAND [ARG ...]}" && pwd)
shift
if [ -x "$libdir/bwrap" ] && ! command -v bwrap >/dev/null 2>&1; then
	# the grader runs bwrap with a clean environment: the wrapper
	# brings the libraries that came with it
	cat >/usr/local/bin/bwrap <<WRAP
#!/bin/sh
LD_LIBRARY_PATH=$libdir/bwrap-deps exec $libdir/bwrap "\$@"
WRAP
	chmod 755 /usr/local/bin/bwrap
fi
echo "bubblewrap: $(command -v bwrap || echo none)"
export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
exec "$@"
