#!/bin/sh
# `make demo` and `make check` on a fresh machine, for `make check`: the
# build's missing packages are installed with .ci/install-deps when make
# may (root, or sudo without a password), and otherwise make stops with
# the one command to run.  Simulated without touching the system: a
# pkg-config that knows no package until a stand-in for install-deps has
# run, and `make -n`, so nothing is built.
#
#   tests/install/deps.sh        from the top of the tree
set -eu
cd "$(dirname "$0")/../.."
make=${MAKE:-make}
real_pc=$(command -v pkg-config) || {
	echo "SKIP: fresh-machine set-up: no pkg-config"
	exit 0
}
T=$(mktemp -d /tmp/wg-deps-XXXXXX)
chmod 0755 "$T"
trap 'rm -rf "$T"' EXIT
fail() {
	echo "FAIL: fresh-machine set-up: $*" >&2
	exit 1
}
cat >"$T/pkg-config" <<PC
#!/bin/sh
[ -e "$T/installed" ] && exec "$real_pc" "\$@"
exit 1
PC
cat >"$T/install-deps" <<ID
#!/bin/sh
echo "install-deps ran as uid \$(id -u)" >>"$T/ran"
touch "$T/installed"
ID
chmod 0755 "$T/pkg-config" "$T/install-deps"
fake="PKG_CONFIG=$T/pkg-config INSTALL_DEPS=$T/install-deps"

for goal in demo check; do
	rm -f "$T/installed" "$T/ran"
	if [ "$(id -u)" -eq 0 ]; then
		# root: installs, then goes on to the goal's own commands
		$make -n --no-print-directory $goal $fake >"$T/out" 2>&1 ||
			fail "make $goal as root: $(cat "$T/out")"
		grep -q "^install-deps ran" "$T/ran" 2>/dev/null ||
			fail "make $goal as root did not run install-deps"
		grep -q "installing them with" "$T/out" ||
			fail "make $goal as root did not say what it installs"
		case $goal in
		demo) want="bin/warpgrade grade tests/fixtures/good" ;;
		check) want="tests/run-tests" ;;
		esac
		grep -q "$want" "$T/out" ||
			fail "make $goal as root stopped after install-deps"
	fi
	# an account that may not install: the one command, nothing run
	rm -f "$T/installed" "$T/ran"
	if [ "$(id -u)" -eq 0 ]; then
		as_user="setpriv --reuid=65534 --regid=65534 --clear-groups"
		if ! command -v setpriv >/dev/null 2>&1 ||
			! $as_user test -r Makefile -a -x "$T" 2>/dev/null; then
			echo "SKIP: make $goal without rights: no setpriv, or" \
				"the tree is closed to other users"
			as_user=
		fi
	else
		as_user=env
		sudo -n true 2>/dev/null && as_user=
	fi
	if [ -n "$as_user" ]; then
		if $as_user $make -n --no-print-directory $goal $fake \
			>"$T/out" 2>&1; then
			fail "make $goal without rights went on: $(cat "$T/out")"
		fi
		[ ! -e "$T/ran" ] ||
			fail "make $goal without rights ran install-deps"
		grep -q "install them with 'sudo make deps'" "$T/out" ||
			fail "make $goal without rights: $(cat "$T/out")"
	fi
done
echo "PASS: make demo and make check install missing packages when they" \
	"may, else name the command"
