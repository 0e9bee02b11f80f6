/**
 * How to put back what a command changed, step by step: install and uninstall are all or nothing (a
 * demanding person wants "installed" / "removed" or "nothing changed", never half). Each write or
 * removal of a person's file adds the step that undoes it (configFile.ts); when a later write is
 * refused, the steps run newest first and the files are as they were.
 */
export class UndoLog {
  private readonly steps: Array<() => void> = [];

  add(step: () => void): void {
    this.steps.push(step);
  }

  /** Runs every step, newest first (one the system refuses does not stop the others); what it could not put back. */
  rollback(): string[] {
    const failed: string[] = [];
    for (const step of this.steps.splice(0).reverse()) {
      try {
        step();
      } catch (err) {
        failed.push((err as Error).message);
      }
    }
    return failed;
  }

  /** Rolls back, and the line to add when the system refused part of that (the person must know what is left). */
  rollbackLines(): string[] {
    const failed = this.rollback();
    return failed.length ? [`rawr: and rawr could not put back everything it had changed before that: ${failed.join('; ')}`] : [];
  }
}
