/**
 * Flow control's registers on DynamoDB (`throttle`, `rateLimit`, `debounce`; TABLE.md, "Flow
 * control registers"): one item per (function, gate, key), `pk=GATE#<function>#<gate>#<key>`,
 * `sk=GATE`, so a busy key is its own partition. A write is one conditional PutItem on the
 * item's `version` (1 WRU: the item is well under 1 KB); a read is one strongly consistent
 * GetItem (1 RRU). The item's `ttl` lets DynamoDB delete an idle register; until it does, a read
 * past `expiresAt` treats it as absent (DynamoDB deletes expired items late, DynamoDB Local never).
 */
import type { GateKey, GateRecord } from '@durable-lambda/engine';
import { PutCommand } from './commands';
import { isConditionFailure } from './errors';
import { Expressions } from './expressions';
import { PK, SK, TTL, ttlSeconds } from './layout';
import type { TableAccess } from './table-access';

/** The sort key of a register item. */
const GATE_SK = 'GATE';

/** The partition of a register. */
export function gatePk(gate: GateKey): string {
  return `GATE#${gate.functionName}#${gate.gate}#${gate.key}`;
}

/** The `Store` port's gate methods on the table. */
export class DynamoDbGates {
  constructor(
    private readonly access: TableAccess,
    private readonly now: () => number,
  ) {}

  /** `Store.readGate`. */
  async read(gate: GateKey): Promise<GateRecord | undefined> {
    const item = await this.access.getItem(gatePk(gate), GATE_SK, ['version', 'value', 'expiresAt']);
    if (!item || Number(item.expiresAt) <= this.now()) return undefined;
    return { version: Number(item.version), value: JSON.parse(String(item.value)) as GateRecord['value'] };
  }

  /**
   * `Store.writeGate`: a PutItem conditional on the version read (`expected`), or, for 0, on no
   * item or an expired one. A lost response retried finds the version moved and answers false;
   * the gates read again and find their own write (they record who wrote).
   */
  async write(gate: GateKey, value: GateRecord['value'], expected: number, expiresAt: number): Promise<boolean> {
    const e = new Expressions();
    const condition =
      expected === 0
        ? `attribute_not_exists(${e.name(PK)}) OR ${e.name('expiresAt')} <= ${e.value(this.now())}`
        : `${e.name('version')} = ${e.value(expected)} AND ${e.name('expiresAt')} > ${e.value(this.now())}`;
    try {
      await this.access.client.send(
        new PutCommand({
          TableName: this.access.tableName,
          Item: {
            [PK]: gatePk(gate),
            [SK]: GATE_SK,
            version: expected + 1,
            value: JSON.stringify(value),
            expiresAt,
            [TTL]: ttlSeconds(expiresAt),
          },
          ConditionExpression: condition,
          ...e.attributes(),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }
}
