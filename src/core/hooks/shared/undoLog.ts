/**
 * How to put back what a command changed, step by step: install and uninstall are all or nothing (a
 * demanding person wants "installed" / "removed" or "nothing changed", never half). Each write or
 * removal of a person's file adds the step that undoes it (configFile.ts); when a later write is
 * refused, the steps run newest first and the files are as they were. When putting one back is refused
 * too (the disk that filled up), the person is told which file is left changed, not "nothing written".
 */
export class UndoLog {
  private readonly steps: Array<{ run: () => void; file: string }> = [];

  /** `step` puts `file` (or folder) back as it was before this command. */
  add(step: () => void, file: string): void {
    this.steps.push({ run: step, file });
  }

  /** Runs every step, newest first (one the system refuses does not stop the others); what it could not put back, and why. */
  rollback(): NotPutBack[] {
    const failed: NotPutBack[] = [];
    for (const step of this.steps.splice(0).reverse()) {
      try {
        step.run();
      } catch (err) {
        failed.push({ file: step.file, why: inWords(err) });
      }
    }
    return failed;
  }

  /**
   * A refusal's lines after rolling back: `line` as it is when everything was put back; else its
   * "nothing written" / "nothing removed" made true, and a line per file left changed (`left`: the
   * caller keeps its record of those, so that Remove can still give every byte back).
   */
  refusal(line: string): { lines: string[]; left: NotPutBack[] } {
    const left = this.rollback();
    if (left.length === 0) return { lines: [line], left };
    return {
      lines: [
        line.replace(/nothing (written|removed)/, 'not everything could be put back'),
        ...left.map((f) => `rawr: could not put ${f.file} back as it was before this command: ${f.why}; it holds what this command changed`),
      ],
      left,
    };
  }
}

export interface NotPutBack {
  file: string;
  why: string;
}

/** What the system said, in words ("the file system is read-only"), for the refusals a person can act on; else its message. */
export function inWords(err: unknown): string {
  const e = err as NodeJS.ErrnoException;
  return (e?.code !== undefined ? REFUSALS[e.code] : undefined) ?? (err instanceof Error ? err.message : String(err));
}

const REFUSALS: Record<string, string> = {
  EACCES: 'permission denied (its folder is not writable by this user)',
  EPERM: 'not permitted (its folder is not writable by this user)',
  EROFS: 'the file system is read-only',
  ENOSPC: 'no space left on the device',
  EDQUOT: 'the disk quota is used up',
};
