# shellcheck shell=bash
# Shared by the entry points: find or install Debian's python3, report errors.

# Exit statuses: scripts/rxalign/exitcodes.py's, held to it by
# scripts/tests/test_docs.py (the shell cannot ask Python before it has one).
# shellcheck disable=SC2034 # used by the scripts that source this one
EXIT_USAGE=2
EXIT_ENVIRONMENT=4
LIB_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

die_env() {
	echo "$(basename "$0"): error: $*" >&2
	exit "$EXIT_ENVIRONMENT"
}

# apt_ensure PKG...: install the Debian packages that are missing; the
# logic is rxalign/deps.py's, the one run-kunit uses.
apt_ensure() {
	ensure_python
	PYTHONPATH="$LIB_DIR${PYTHONPATH:+:$PYTHONPATH}" "$PYTHON" -m rxalign.deps_main "$@"
}

# Debian's interpreter, not whatever python3 comes first on PATH: the
# Debian packages we use (pytest, yaml) are installed for it.
PYTHON=/usr/bin/python3
# Only python3 itself is installed from here: everything else goes through it.
ensure_python() {
	[ -x "$PYTHON" ] && return 0
	if [ -n "${RXALIGN_NO_INSTALL:-}" ] || [ "$(id -u)" -ne 0 ]; then
		die_env "$PYTHON is missing; install it with: sudo apt-get install python3"
	fi
	{ apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3; } >/dev/null ||
		die_env "apt-get install python3 failed; check the apt sources"
}
