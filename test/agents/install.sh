#!/usr/bin/env bash
# Installs the real agent CLIs the agent-hooks tiers (test/agents/) drive. Idempotent; safe to re-run.
#
#   <repo>/.claude-test/  (git-ignored cache): @anthropic-ai/claude-code, pinned (its native binary
#                         comes with it; the blocked postinstall does not matter)
#   <repo>/.codex-test/   (git-ignored cache): @openai/codex, pinned (native binary in the optional
#                         dependency @openai/codex-linux-x64; no postinstall)
#
# Warm: well under a second (the pinned version is already there). Cold: ~1 min, ~250 MB.
# Env: CLAUDE_TEST_CACHE / CODEX_TEST_CACHE override the folders.
set -euo pipefail
exec </dev/null

CLAUDE_CODE_VERSION=2.1.332
CODEX_VERSION=0.171.0

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
START=$(date +%s)
log() { echo "[agents-install $(( $(date +%s) - START ))s] $*"; }
# `npm test` leaks the outer npm's per-run settings into this script; drop them (see test/vscode/install.sh).
unset npm_config_user_agent npm_node_execpath npm_execpath npm_lifecycle_event npm_lifecycle_script npm_package_json
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false npm_config_yes=true

# install CACHE PACKAGE VERSION BIN: npm-installs PACKAGE@VERSION into CACHE unless that version is there.
install() {
  local cache=$1 pkg=$2 version=$3 bin=$4
  mkdir -p "$cache"
  exec 9>"$cache/.install.lock"
  command -v flock >/dev/null && flock 9
  local have
  have=$(node -e 'try{process.stdout.write(require(process.argv[1]).version)}catch{}' "$cache/node_modules/$pkg/package.json")
  if [ "$have" = "$version" ] && [ -x "$cache/node_modules/.bin/$bin" ]; then
    log "$pkg@$version already in $cache"
  else
    log "installing $pkg@$version into $cache"
    [ -f "$cache/package.json" ] || printf '{ "name": "rawr-agent-cache", "private": true }\n' > "$cache/package.json"
    (cd "$cache" && npm install --no-save --no-package-lock --loglevel=error "$pkg@$version")
  fi
  "$cache/node_modules/.bin/$bin" --version >/dev/null || { echo "test/agents/install.sh: $cache/node_modules/.bin/$bin does not run" >&2; exit 1; }
  exec 9>&-
}

install "${CLAUDE_TEST_CACHE:-$ROOT/.claude-test}" @anthropic-ai/claude-code "$CLAUDE_CODE_VERSION" claude
install "${CODEX_TEST_CACHE:-$ROOT/.codex-test}" @openai/codex "$CODEX_VERSION" codex
log "done"
