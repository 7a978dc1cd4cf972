/**
 * Runs the deploy world's seeds and sums them up: runs, invocations, faults by kind, deploys and
 * deletions, runs stranded by a deletion, and every violation with its seed.
 */

import { WorldKeys } from '../world-invariants';
import { checkDeployInvariants } from './deploy-invariants';
import { type DeploySeedOptions, runDeployWorld } from './deploy-world';

/** Totals over a deploy suite. */
export class DeployTotals {
  seeds = 0;
  runs = 0;
  invocations = 0;
  deploys = 0;
  deletions = 0;
  stranded = 0;
  cancelled = 0;
  readonly policies: Record<string, number> = {};
  readonly starts: Record<string, number> = {};
  readonly faults: Record<string, number> = {};
  readonly failures: Array<{ seed: number; policy: string; violations: string[] }> = [];
  readonly invocationErrors = new Map<string, number>();
  /** Every idempotency key of the suite: none is issued in two worlds. */
  readonly keys = new WorldKeys();

  get violations(): number {
    return this.failures.reduce((n, f) => n + f.violations.length, 0);
  }

  async run(seed: number, options: DeploySeedOptions): Promise<void> {
    const evidence = await runDeployWorld(seed, options);
    const violations = [
      ...checkDeployInvariants(evidence),
      ...this.keys.add(
        seed,
        evidence.executions.map((e) => e.idempotencyKey),
      ),
    ];
    this.seeds += 1;
    this.runs += evidence.runs.length;
    this.invocations += evidence.cloud.invocations.length;
    this.deploys += evidence.deploys.length - 1;
    this.deletions += evidence.deletions.length;
    this.cancelled += evidence.cancelled.size;
    this.policies[evidence.policy] = (this.policies[evidence.policy] ?? 0) + 1;
    for (const r of evidence.runs) this.starts[r.how] = (this.starts[r.how] ?? 0) + 1;
    for (const run of evidence.finals.values()) {
      const qualifier = run?.functionName.split(':')[1];
      if (run?.status === 'RUNNING' && qualifier !== undefined && evidence.fn.deleted.has(qualifier))
        this.stranded += 1;
    }
    for (const source of [evidence.cloud.faults, evidence.containerFaults]) {
      for (const [kind, n] of Object.entries(source)) this.faults[kind] = (this.faults[kind] ?? 0) + n;
    }
    for (const e of evidence.cloud.invocationErrors) {
      this.invocationErrors.set(e, (this.invocationErrors.get(e) ?? 0) + 1);
    }
    if (violations.length > 0) this.failures.push({ seed, policy: evidence.policy, violations });
  }

  /** The printed summary. */
  report(label: string): string {
    const total = Object.values(this.faults).reduce((a, b) => a + b, 0);
    const kinds = Object.entries(this.faults)
      .sort()
      .map(([k, n]) => `${k}=${n}`)
      .join(', ');
    const lines = [
      `chaos deploys ${label}: ${this.seeds} worlds (${JSON.stringify(this.policies)}), ${this.runs} runs ` +
        `(${JSON.stringify(this.starts)}), ${this.invocations} invocations, ${this.deploys} deploys, ` +
        `${this.deletions} versions deleted, ${this.stranded} runs stranded on a deleted version, ` +
        `${this.cancelled} runs cancelled by the operator mid-run, ` +
        `${total} faults (${kinds}), ${this.keys.size} idempotency keys (none issued twice across worlds), ` +
        `violations ${this.violations}`,
    ];
    for (const [message, n] of [...this.invocationErrors].slice(0, 10)) {
      lines.push(`  invocation error not injected (${n}x): ${message}`);
    }
    for (const f of this.failures.slice(0, 20)) {
      lines.push(`  seed ${f.seed} (${f.policy}):`, ...f.violations.slice(0, 12).map((v) => `    ${v}`));
    }
    return lines.join('\n');
  }
}
