#!/bin/bash
# rawr's agent-hook client: `hook.sh <node> hooks <claude|codex> <Event>`, hook input JSON on stdin; what
# rawr's installed hook commands run (src/cli/hookCommand.ts, the extension's launcher), copied beside
# dist/hook.js by scripts/bundle.mjs.
#
# Why bash: Claude Code runs the steering PreCompact hook before every model request while rawr defers
# a compaction, and a Node process's own start is most of a hook's time (~100 ms on a slow machine).
# Bash starts in a few. This hands the run to rawr's resident hook engine over loopback TCP (bash has
# /dev/tcp, no Unix sockets; src/cli/hookTcp.ts is the other side and documents the protocol) and
# prints its answer.
#
# Never a change of behaviour, only of speed: until the engine has said it will run this hook, nothing
# of the input has been read here, and any miss (no engine, an old bash, a terminal on stdin, another
# program on the port, a rebuilt rawr) runs the Node hook (dist/hook.js), which answers exactly as the
# engine would (and starts one for the next run). Once the input was sent it is never run twice: a lost
# answer prints nothing (Claude Code reads "go on") and says so on stderr.
trap '' PIPE
rawr_node=$1
shift
case ${BASH_SOURCE[0]} in
*/*) rawr_here=${BASH_SOURCE[0]%/*} ;;
*) rawr_here=. ;;
esac
rawr_node_hook() {
  exec 3>&-
  # a hook makes no TLS connection; Node would read this bundle on every start (hooksConfig.ts)
  NODE_EXTRA_CA_CERTS='' exec "$rawr_node" "$rawr_here/hook.js" "$@"
}

# Only hook events (install and --help are the Node CLI's). Bash ≥ 4.1 (macOS's 3.2: the Node hook).
case $1:$2:$3:$# in
hooks:claude:PreCompact:3 | hooks:claude:PostCompact:3 | hooks:claude:UserPromptSubmit:3 | hooks:claude:SessionStart:3 | \
  hooks:claude:PostToolUse:3 | hooks:codex:PreCompact:3 | hooks:codex:PostCompact:3 | hooks:codex:UserPromptSubmit:3 | \
  hooks:codex:SessionStart:3 | hooks:codex:PostToolUse:3) ;;
*) rawr_node_hook "$@" ;;
esac
((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 1))) || rawr_node_hook "$@"
# RAWR_HOOK_SERVER=0: no resident engine (hookResident.ts). A terminal: a person typing, no hook input.
[[ ${RAWR_HOOK_SERVER-} == 0 || -t 0 ]] && rawr_node_hook "$@"
# head streams the input below, cat the answer: found now, or the input is still the Node hook's.
hash head cat 2>/dev/null || rawr_node_hook "$@"

# Where the resident engine for this copy of rawr says it listens (hookTcp.ts tcpFile): rawr's per-user
# cache folder, a file named after this folder. Only this user's own folder and file: whoever could
# write them could point the hook (its input, its environment) at their own program.
case $rawr_here in /*) ;; *) rawr_node_hook "$@" ;; esac
case ${XDG_CACHE_HOME-} in
/*) rawr_cache=$XDG_CACHE_HOME/rawr ;;
*) rawr_cache=${HOME-}/.cache/rawr ;;
esac
# The name byte by byte (C locale), as hookTcp.ts computes it.
rawr_door() {
  local LC_ALL=C
  rawr_file=$rawr_cache/hooks-${rawr_here//[^A-Za-z0-9._-]/_}.tcp
}
rawr_door
[[ -d $rawr_cache && -O $rawr_cache && -f $rawr_file && ! -h $rawr_file && -O $rawr_file ]] || rawr_node_hook "$@"
IFS=' ' read -r rawr_port rawr_ctok rawr_stok <"$rawr_file" 2>/dev/null
[[ $rawr_port =~ ^[0-9]{1,5}$ && ${#rawr_ctok} -eq 32 && ${#rawr_stok} -eq 32 ]] || rawr_node_hook "$@"
{ exec 3<>"/dev/tcp/127.0.0.1/$rawr_port"; } 2>/dev/null || rawr_node_hook "$@"

# 1. The engine proves itself before anything else is sent: a program that took the port of an engine
#    that has exited learns only that engine's dead token.
printf '%s\n' "$rawr_ctok" >&3 2>/dev/null || rawr_node_hook "$@"
rawr_line=
IFS= read -r -t 2 rawr_line <&3 2>/dev/null
[[ $rawr_line == "$rawr_stok" ]] || rawr_node_hook "$@"

# 2. The run: NUL-separated fields (version, this folder, agent, event, working folder), the environment
#    the Node hook would have (exported variables), an empty field. One printf: a few large writes.
#    The engine says whether it runs it ("go") or not ("again": a rebuilt rawr, another copy's folder).
rawr_env=()
for rawr_n in $(compgen -e); do rawr_env+=("$rawr_n=${!rawr_n}"); done
printf '%s\0' 'rawr-hook 2' "$rawr_here" "$2" "$3" "$PWD" "${rawr_env[@]}" '' >&3 2>/dev/null || rawr_node_hook "$@"
rawr_line=
IFS= read -r -t 5 rawr_line <&3 2>/dev/null
rawr_line=${rawr_line##*.} # the engine's acknowledgements of the request's chunks (hookTcp.ts onData)
[[ $rawr_line == go ]] || rawr_node_hook "$@"

# 3. The input, streamed by head (bash would read it a byte at a time) up to the Node hook's cap (16 MB),
#    ended by a NUL (the agents' JSON holds none), in the background: the wait below is the time limit.
#    An input that does not end leaves the engine without news, and it drops the connection in 5 s.
#    From here on the engine may act on the input: no fallback.
{ head -c 16777216 && printf '\0'; } <&0 >&3 2>/dev/null &

# 4. The answer, once the input is complete: `rawr-answer <stdout bytes>` and a line, then stdout,
#    stderr and a final `.` (a command substitution drops trailing newlines), then the end.
rawr_line=
IFS= read -r -t 20 rawr_line <&3 2>/dev/null
rawr_line=${rawr_line##*.}
rawr_body=
[[ $rawr_line == 'rawr-answer '* ]] && rawr_body=$(cat <&3 2>/dev/null)
exec 3>&-
rawr_print() {
  local LC_ALL=C # byte offsets
  [[ $1 =~ ^[0-9]+$ && $rawr_body == *. ]] && ((${#rawr_body} > $1)) || return 1
  printf '%s' "${rawr_body:0:$1}"
  rawr_body=${rawr_body:$1}
  printf '%s' "${rawr_body%.}" >&2
}
[[ $rawr_line == 'rawr-answer '* ]] && rawr_print "${rawr_line#rawr-answer }" && exit 0
printf 'rawr hooks %s %s: the resident hook engine did not answer (%s); nothing done\n' "$2" "$3" \
  "${rawr_line:-the connection closed without an answer}" >&2
exit 0
