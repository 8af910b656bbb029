# shellcheck shell=bash
# Shared by the entry points: find or install Debian's python3, report errors.

# Exit statuses: see scripts/rxalign/exitcodes.py (the README quotes them).
EXIT_ENVIRONMENT=4

die_env() {
	echo "$(basename "$0"): error: $*" >&2
	exit "$EXIT_ENVIRONMENT"
}

# apt_ensure PKG...: install the Debian packages that are missing.
apt_ensure() {
	local missing=() pkg
	for pkg in "$@"; do
		dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' ||
			missing+=("$pkg")
	done
	[ "${#missing[@]}" -eq 0 ] && return 0
	if [ -n "${RXALIGN_NO_INSTALL:-}" ] || [ "$(id -u)" -ne 0 ]; then
		die_env "missing Debian packages: ${missing[*]}; install them with: sudo apt-get install ${missing[*]}"
	fi
	echo "installing ${missing[*]} (apt-get)"
	if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; then
		apt-get update -q >/dev/null 2>&1 || true
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
			die_env "apt-get install ${missing[*]} failed; check the apt sources and run apt-get update"
	fi
}

# Debian's interpreter, not whatever python3 comes first on PATH: the
# Debian packages we use (pytest, yaml) are installed for it.
PYTHON=/usr/bin/python3
ensure_python() {
	[ -x "$PYTHON" ] || apt_ensure python3
}
