/**
 * `rawr replay` and `rawr handoff` on a synthetic transcript of RAWR_BENCH_REPLAY_MB (default 1024 MB):
 * a real Claude Code recording repeated (ids made unique) into a temp folder at bench time, replayed, and
 * handed off at its last line (every record fed), by the CLI in a child process, each one's peak resident
 * memory read from the child itself (process.resourceUsage().maxRSS at exit), then the file deleted. A
 * smaller run of the same recording (1/16 of the size) beside it shows that the peak does not grow with
 * the file: both commands stream (src/core/replay/stream.ts: two passes over the lines, each item used as
 * soon as it is read; the handoff keeps only the thread a recent tail can reach, handoffAt.ts).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const CLI = resolve(__dirname, '../../src/cli/main.js');

/** Writes `mb` megabytes of the recording repeated, streaming (the bench itself holds one copy); its size and lines. */
function synthesize(source: string, file: string, mb: number): { bytes: number; lines: number } {
  const fd = openSync(file, 'w');
  let size = 0;
  let lines = 0;
  try {
    for (let copy = 0; size < mb * 1024 * 1024; copy++) {
      const t = source.replace(/"(uuid|parentUuid|id|tool_use_id)":"([^"]+)"/g, (_m, k: string, v: string) => `"${k}":"${v}-${copy}"`);
      const buf = Buffer.from(t.endsWith('\n') ? t : `${t}\n`);
      writeSync(fd, buf);
      size += buf.length;
      for (let at = buf.indexOf(10); at >= 0; at = buf.indexOf(10, at + 1)) lines++;
    }
  } finally {
    closeSync(fd);
  }
  return { bytes: size, lines };
}

/** One CLI run (`args` after `rawr`), its time and the child's own peak RSS. */
function cliPeak(args: string[], dir: string): { ok: boolean; seconds: number; maxRssMb: number; error?: string } {
  const probe = join(dir, 'peak.js');
  writeFileSync(probe, "process.on('exit', () => process.stderr.write(`\\nRAWR_MAXRSS_KB=${process.resourceUsage().maxRSS}\\n`));\n");
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--require', probe, CLI, ...args], { encoding: 'utf8', maxBuffer: 1024 * 1024 * 1024 });
  const seconds = (Date.now() - t0) / 1000;
  const kb = Number(/RAWR_MAXRSS_KB=(\d+)/.exec(r.stderr ?? '')?.[1] ?? NaN);
  return { ok: r.status === 0, seconds, maxRssMb: kb / 1024, ...(r.status === 0 ? {} : { error: (r.stderr ?? '').split('\n').slice(-5).join(' ') }) };
}

export function replayMemoryBench(transcriptsDir: string): string {
  const mb = Number(process.env.RAWR_BENCH_REPLAY_MB ?? 1024);
  let source: string;
  try {
    source = readFileSync(join(transcriptsDir, 'claude-spotter-258c7280.jsonl'), 'utf8');
  } catch {
    return `replay memory: skipped (no claude-spotter-258c7280.jsonl in ${transcriptsDir})`;
  }
  const dir = mkdtempSync(join(tmpdir(), 'rawr-bench-replay-'));
  try {
    const lines: string[] = [
      `replay and handoff memory (rawr replay --json, and rawr handoff --json at the last line, on a synthetic transcript; RAWR_BENCH_REPLAY_MB=${mb}):`,
    ];
    for (const size of [Math.max(1, Math.round(mb / 16)), mb]) {
      const file = join(dir, `synthetic-${size}MB.jsonl`);
      const { bytes, lines: fileLines } = synthesize(source, file, size);
      const runs: Array<[string, string[]]> = [
        ['replay ', ['replay', file, '--json']],
        ['handoff', ['handoff', file, '--line', String(fileLines + 1), '--json']],
      ];
      for (const [name, args] of runs) {
        const r = cliPeak(args, dir);
        lines.push(
          `  ${name} ${(bytes / 1024 / 1024).toFixed(0).padStart(5)} MB file: ${r.ok ? `peak RSS ${r.maxRssMb.toFixed(0)} MB, ${r.seconds.toFixed(1)} s (${(bytes / 1024 / 1024 / r.seconds).toFixed(1)} MB/s)` : `FAILED after ${r.seconds.toFixed(1)} s, peak RSS ${r.maxRssMb.toFixed(0)} MB: ${r.error}`}`,
        );
      }
      rmSync(file, { force: true });
    }
    return lines.join('\n');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
