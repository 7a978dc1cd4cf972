import type { RunCompensationsWire } from '@durable-lambda/api';
import { table } from './format';

/** Whether a run has anything to say about compensations (a round planned, or a summary). */
export function hasCompensations(c: RunCompensationsWire | undefined): c is RunCompensationsWire {
  return c !== undefined && (c.rounds.length > 0 || c.summary !== undefined);
}

/**
 * A run's compensations under `durable show`: the steps that registered an undo, each round's
 * plan and each compensation's status and attempts, then what the run's error says was undone.
 */
export function formatCompensations(c: RunCompensationsWire): string {
  const lines: string[] = ['', 'compensations'];
  if (c.registered.length > 0) {
    lines.push(`  registered undo: ${c.registered.map((r) => `${r.step} (${r.stepId})`).join(', ')}`);
  }
  for (const round of c.rounds) {
    const where = round.contextId === undefined ? 'the handler' : `context ${round.contextId}`;
    lines.push(`  round ${round.planId} in ${where}: ${round.status === 'planning' ? 'planning' : 'plan'}`);
    if (round.compensations.length === 0) {
      lines.push(round.status === 'planned' ? '    nothing to undo' : '    (not planned yet)');
      continue;
    }
    const rows = round.compensations.map((x, i) => [
      String(i + 1),
      x.step,
      x.status,
      String(x.attempts),
      x.operationId ?? '-',
      x.error ? `${x.error.code}: ${x.error.message}` : '',
    ]);
    lines.push(
      ...table(['#', 'UNDO OF', 'STATUS', 'ATTEMPTS', 'OPERATION', 'ERROR'], rows)
        .split('\n')
        .map((l) => `    ${l}`),
    );
  }
  if (c.summary) {
    const failed = c.summary.failed.map((f) => `${f.step} (${f.error})`);
    lines.push(`  undone: ${c.summary.compensated.length > 0 ? c.summary.compensated.join(', ') : 'none'}`);
    lines.push(`  failed to undo: ${failed.length > 0 ? failed.join(', ') : 'none'}`);
  }
  return lines.join('\n');
}
