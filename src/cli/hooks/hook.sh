#!/bin/bash
# rawr's agent-hook client: `hook.sh <node> hooks <claude|codex> <Event>`, hook input JSON on stdin; what
# rawr's installed hook commands run (src/cli/hookCommand.ts, the extension's launcher), copied beside
# dist/hook.js by scripts/bundle.mjs. Why bash: Claude Code runs the steering PreCompact hook before every
# model request while rawr defers, and Node's own start is most of a hook's time (~100 ms on a slow
# machine); bash starts in a few. It hands the run to rawr's resident hook engine over its loopback TCP
# door (src/cli/hooks/door.ts: the protocol) and prints its answer.
#
# Never a change of behaviour, only of speed: until the engine has said it will run this hook, nothing
# of the input has been read here, and any miss runs the Node hook (dist/hook.js), which answers exactly
# as the engine would (and starts one for the next run). Once the input was sent it is never run twice:
# a lost answer says so on stderr and prints nothing (Claude Code reads "go on"), except to an automatic
# PreCompact, where the Node hook gives the verdict from the transcript's tail alone (at the end).
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
# The engine is there but does not take this run now (stopped, hung, or busy with another session's run): the Node
# hook runs it alone, never asking that engine again (waiting in vain, then printing nothing, lets Claude Code compact).
rawr_alone() {
  export RAWR_HOOK_SERVER=0
  rawr_node_hook "$@"
}

# Only hook events (install and --help are the Node CLI's). Bash ≥ 4.4 (${!v@a}; macOS's 3.2: the Node hook).
case $1:$2:$3:$# in
hooks:claude:PreCompact:3 | hooks:claude:PostCompact:3 | hooks:claude:UserPromptSubmit:3 | hooks:claude:SessionStart:3 | \
  hooks:claude:PostToolUse:3 | hooks:codex:PreCompact:3 | hooks:codex:PostCompact:3 | hooks:codex:UserPromptSubmit:3 | \
  hooks:codex:SessionStart:3 | hooks:codex:PostToolUse:3) ;;
*) rawr_node_hook "$@" ;;
esac
((BASH_VERSINFO[0] > 4 || (BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4))) || rawr_node_hook "$@"
# RAWR_HOOK_SERVER=0: no resident engine (resident.ts). A terminal: a person typing, no hook input.
[[ ${RAWR_HOOK_SERVER-} == 0 || -t 0 ]] && rawr_node_hook "$@"
# head streams an input over 4 KB below: found now, or the input is still the Node hook's.
hash head 2>/dev/null || rawr_node_hook "$@"

# Where the resident engine for this copy of rawr says it listens (resident.ts tcpFile): a file named
# after this folder in rawr's per-user cache folder. Only this user's own folder and file: whoever could
# write them could point the hook (its input, its environment) at their own program.
case $rawr_here in /*) ;; *) rawr_node_hook "$@" ;; esac
case ${XDG_CACHE_HOME-} in
/*) rawr_cache=$XDG_CACHE_HOME/rawr ;;
*) rawr_cache=${HOME-}/.cache/rawr ;;
esac
# The name byte by byte (C locale), as resident.ts computes it.
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
IFS= read -r -t 2 rawr_line <&3 2>/dev/null || rawr_alone "$@"
[[ $rawr_line == "$rawr_stok" ]] || rawr_node_hook "$@"

# 2. The run: NUL-separated fields (version, this folder, agent, event, working folder), the environment
#    the Node hook would have (exported variables, listed without a subshell: a fork costs ~5 ms here),
#    an empty field. One printf: a few large writes.
rawr_env=()
for rawr_n in ${!A@} ${!B@} ${!C@} ${!D@} ${!E@} ${!F@} ${!G@} ${!H@} ${!I@} ${!J@} ${!K@} ${!L@} ${!M@} \
  ${!N@} ${!O@} ${!P@} ${!Q@} ${!R@} ${!S@} ${!T@} ${!U@} ${!V@} ${!W@} ${!X@} ${!Y@} ${!Z@} ${!_@} \
  ${!a@} ${!b@} ${!c@} ${!d@} ${!e@} ${!f@} ${!g@} ${!h@} ${!i@} ${!j@} ${!k@} ${!l@} ${!m@} \
  ${!n@} ${!o@} ${!p@} ${!q@} ${!r@} ${!s@} ${!t@} ${!u@} ${!v@} ${!w@} ${!x@} ${!y@} ${!z@}; do
  [[ ${!rawr_n@a} == *x* ]] && rawr_env+=("$rawr_n=${!rawr_n}")
done
printf '%s\0' 'rawr-hook 3' "$rawr_here" "$2" "$3" "$PWD" "${rawr_env[@]}" '' >&3 2>/dev/null || rawr_node_hook "$@"
#    The engine says "go" when the run is its turn, "again" when it will not run it (a rebuilt rawr,
#    another copy's folder), "busy" after 1.5 s behind another session's run: the Node hook runs it here.
rawr_line=
IFS= read -r -t 3 rawr_line <&3 2>/dev/null
rawr_line=${rawr_line##*.} # the engine's acknowledgements of the request's chunks (server.ts)
[[ $rawr_line == busy || $rawr_line == '' ]] && rawr_alone "$@"
[[ $rawr_line == go ]] || rawr_node_hook "$@"

# 3. The input, ended by a NUL. From here on the engine may act on it: no fallback. Its first 4 KB are read
#    here within the Node hook's time limit (5 s; bash's timed read costs ~2 µs a byte); a longer one is
#    streamed by head in the background (bash alone would wait for ever on an input that does not end), up
#    to the Node hook's cap (16 MB): an input that stops arriving, the engine drops 6 s after its "go".
rawr_read() {
  local LC_ALL=C # bytes
  IFS= read -r -N 4096 -t 5 rawr_in 2>/dev/null
}
rawr_in=
rawr_read
case $? in
0)
  printf '%s' "$rawr_in" >&3 2>/dev/null
  # The streaming head ends with the hook, whatever ends it: an input that never ends (or a hook
  # killed at its timeout) must leave no process behind, holding the engine's connection open.
  (
    trap 'kill "$rawr_h" 2>/dev/null; exit 0' TERM
    head -c 16773120 <&0 >&3 2>/dev/null &
    rawr_h=$!
    wait "$rawr_h" && printf '\0' >&3 2>/dev/null
  ) <&0 &
  rawr_head=$!
  trap 'kill "$rawr_head" 2>/dev/null' EXIT
  trap 'exit 0' TERM HUP
  ;;
1) printf '%s\0' "$rawr_in" >&3 2>/dev/null ;;
*)
  printf 'rawr hooks %s %s: the hook input did not end in 5 s; nothing done\n' "$2" "$3" >&2
  exit 0
  ;;
esac

# 4. The answer: `rawr-answer <stdout bytes> <stderr bytes>`, then both (read untimed: all on its way), then
#    `printed`: only then does the engine record what it gave the model (a hook killed before leaves the
#    handoff for the next one). Waited for until a little before the installed timeout, from this hook's
#    start (resident.ts answerWaitMs): it always ends on its own.
case $3 in
PreCompact) rawr_wait=25 ;;
*) rawr_wait=8 ;;
esac
((rawr_wait -= SECONDS, rawr_wait > 0)) || rawr_wait=1
rawr_line=
IFS= read -r -t $rawr_wait rawr_line <&3 2>/dev/null
rawr_line=${rawr_line##*.}
rawr_print() {
  local LC_ALL=C # byte counts
  [[ $1 =~ ^[0-9]+$ && $2 =~ ^[0-9]+$ ]] || return 1
  local body=
  (($1 + $2 == 0)) || IFS= read -r -N $(($1 + $2)) body <&3 2>/dev/null
  ((${#body} == $1 + $2)) || return 1
  printf '%s' "${body:$1}" >&2
  # A stdout nobody reads (EPIPE, ignored above): not printed, so not "printed".
  printf '%s' "${body:0:$1}" || exit 0
}
rawr_counts=${rawr_line#rawr-answer }
if [[ $rawr_line == 'rawr-answer '* ]] && rawr_print "${rawr_counts% *}" "${rawr_counts#* }"; then
  printf 'printed\n' >&3 2>/dev/null
  exit 0
fi
rawr_why=${rawr_line:-the connection closed without an answer}
# Not run again here (the engine may have acted on it). For an automatic compaction, printing nothing
# reads as "allow": Claude Code would compact at rawr's early ask line without rawr's decision (measured,
# claude-code-e2e/steer). So the Node hook gives the verdict from the transcript's tail alone
# (RAWR_HOOK_LOST_ANSWER: main.ts lostAnswer; it never asks the engine, runs nothing): a refusal only
# where rawr's own steering may refuse, never at the emergency line, Claude Code's blocking level or a
# reactive compaction. Only with the whole input here (one below 4 KB; a longer one went on to the engine).
if [[ $2:$3 == claude:PreCompact && -z ${rawr_head-} && $rawr_in =~ \"trigger\"[[:space:]]*:[[:space:]]*\"auto\" ]]; then
  export RAWR_HOOK_LOST_ANSWER=$rawr_why RAWR_HOOK_SERVER=0
  rawr_node_hook "$@" <<<"$rawr_in"
fi
printf 'rawr hooks %s %s: the resident hook engine did not answer (%s); nothing done\n' "$2" "$3" "$rawr_why" >&2
exit 0
