import { clearTimeout, setTimeout } from 'node:timers';

/**
 * Runs `pass` every `everyMs` while started, never two passes at once (the next one is armed
 * when the last ends). A pass that throws is the caller's to report: the loop goes on.
 */
export class ReconcileLoop {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private current: Promise<void> | undefined;
  private started = false;

  constructor(
    private readonly everyMs: number,
    private readonly pass: () => Promise<void>,
  ) {}

  /**
   * Arms the first pass `everyMs` from now; with `first`, runs `first` at once instead and arms the
   * next pass `everyMs` after it ends (`stop()` waits for it like any pass). No-op when started.
   */
  start(first?: () => Promise<void>): void {
    if (this.started) return;
    this.started = true;
    if (first) this.run(first);
    else this.arm();
  }

  /** Disarms the loop and waits for a pass under way to end. */
  async stop(): Promise<void> {
    this.started = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.current;
  }

  private arm(): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.run(this.pass);
    }, this.everyMs);
  }

  private run(pass: () => Promise<void>): void {
    this.current = pass()
      .catch(() => {})
      .finally(() => {
        this.current = undefined;
        if (this.started) this.arm();
      });
  }
}
