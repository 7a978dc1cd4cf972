import type { DurableOperation } from './operation-view';

/** Which columns `print` shows (each default true), as AWS's testing package takes them. */
export interface PrintConfig {
  parentId?: boolean;
  name?: boolean;
  type?: boolean;
  subType?: boolean;
  status?: boolean;
  startTime?: boolean;
  endTime?: boolean;
  duration?: boolean;
}

const ALL: Required<PrintConfig> = {
  parentId: true,
  name: true,
  type: true,
  subType: true,
  status: true,
  startTime: true,
  endTime: true,
  duration: true,
};

/** The rows `print` hands `console.table`: AWS's columns, `-` where a value is missing. */
export function printRows(operations: readonly DurableOperation[], config?: PrintConfig): Record<string, string>[] {
  const show = { ...ALL, ...config };
  return operations.map((op) => {
    const start = op.getStartTimestamp();
    const end = op.getEndTimestamp();
    const row: Record<string, string> = {};
    if (show.parentId) row.parentId = op.getParentId() ?? '-';
    if (show.name) row.name = op.getName() ?? '-';
    if (show.type) row.type = op.getType() ?? '-';
    if (show.subType) row.subType = op.getSubType() ?? '-';
    if (show.status) row.status = op.getStatus() ?? '-';
    if (show.startTime) row.startTime = start ? start.toISOString() : '-';
    if (show.endTime) row.endTime = end ? end.toISOString() : '-';
    if (show.duration) row.duration = start && end ? `${end.getTime() - start.getTime()}ms` : '-';
    return row;
  });
}

/** Prints the operations as AWS's `TestResult.print` does: a `console.table`, or a line when there are none. */
export function printOperations(operations: readonly DurableOperation[], config?: PrintConfig): void {
  if (operations.length === 0) {
    console.log('No operations found.');
    return;
  }
  console.table(printRows(operations, config));
}
