/**
 * A clock the test moves by hand (the Clock of src/host/participant/clock.ts): `advance` moves time and
 * runs every timer that has come due, in time order. Nothing runs on its own, so a test decides exactly
 * when a deadline passes relative to the model's replies.
 */
import type { Clock } from '../../src/host/participant/clock';

export class FakeClock implements Clock {
  private timers: Array<{ at: number; fn: () => void; seq: number }> = [];
  private seq = 0;

  constructor(private t = 1_760_000_000_000) {}

  now(): number {
    return this.t;
  }

  setTimer(fn: () => void, ms: number): { dispose(): void } {
    const timer = { at: this.t + Math.max(0, ms), fn, seq: this.seq++ };
    this.timers.push(timer);
    return { dispose: () => (this.timers = this.timers.filter((x) => x !== timer)) };
  }

  /** Moves time forward by `ms`, running the timers that come due on the way. */
  advance(ms: number): void {
    const end = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = Math.max(this.t, due.at);
      due.fn();
    }
    this.t = end;
  }

  /** Timers still waiting (for assertions). */
  get pending(): number {
    return this.timers.length;
  }
}
