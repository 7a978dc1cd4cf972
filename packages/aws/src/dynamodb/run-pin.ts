import { UpdateCommand } from './commands';
import { isConditionFailure } from './errors';
import { FUNCTION_BASE, functionBaseOf, PK, RUN_SK, runPk, SK } from './layout';
import type { TableAccess } from './table-access';

/**
 * Re-records a run as `to` (a version policy's pin, `Store.pinRun`): one UpdateItem conditional
 * on the name read (`from`), the lease just taken (`leaseToken`) and the run still RUNNING, so it
 * never overwrites a newer lease's pin. It sets the `functionBase` the `byFunctionBase` index lists
 * the run by in the same write, so a run listed by its bare name is never missing in between.
 * A retry of a write that succeeded (its answer lost) finds the name already changed: that is
 * success too, read back by `readName`.
 */
export async function pinRun(
  access: TableAccess,
  runId: string,
  from: string,
  to: string,
  leaseToken: string,
  readName: (runId: string) => Promise<string | undefined>,
): Promise<boolean> {
  const base = functionBaseOf(to);
  try {
    await access.client.send(
      new UpdateCommand({
        TableName: access.tableName,
        Key: { [PK]: runPk(runId), [SK]: RUN_SK },
        UpdateExpression: base === undefined ? 'SET #fn = :to REMOVE #base' : 'SET #fn = :to, #base = :base',
        ConditionExpression: '#fn = :from AND #token = :token AND #status = :running',
        ExpressionAttributeNames: {
          '#fn': 'functionName',
          '#base': FUNCTION_BASE,
          '#token': 'leaseToken',
          '#status': 'status',
        },
        ExpressionAttributeValues: {
          ':to': to,
          ':from': from,
          ':token': leaseToken,
          ':running': 'RUNNING',
          ...(base === undefined ? {} : { ':base': base }),
        },
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return (await readName(runId)) === to;
    throw error;
  }
}
