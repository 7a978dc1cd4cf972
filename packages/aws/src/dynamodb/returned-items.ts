import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import type { Item } from './table-access';

/**
 * The item DynamoDB returned with a failed condition (`ReturnValuesOnConditionCheckFailure:
 * ALL_OLD`), as the document client would read it; undefined when none came back (the item does
 * not exist). The document client leaves these in DynamoDB's wire format, so they are converted
 * here: a write that finds its condition failed tells from this item, without another read,
 * whether the item already holds its own earlier success (a retry after a lost response).
 */
export function conditionFailureItem(error: unknown): Item | undefined {
  return wireItem((error as { Item?: unknown } | undefined)?.Item);
}

/** The same for the item at `index` of a cancelled transaction. */
export function cancelledItem(error: unknown, index: number): Item | undefined {
  const reasons = (error as { CancellationReasons?: Array<{ Item?: unknown }> } | undefined)?.CancellationReasons;
  return wireItem(reasons?.[index]?.Item);
}

function wireItem(raw: unknown): Item | undefined {
  if (raw === null || typeof raw !== 'object') return undefined;
  return Object.fromEntries(
    Object.entries(raw as Record<string, AttributeValue>).map(([name, value]) => [name, fromWire(value)]),
  );
}

/** One attribute value, with the document client's defaults (numbers as numbers, sets as Sets). */
function fromWire(value: AttributeValue): unknown {
  if (value.S !== undefined) return value.S;
  if (value.N !== undefined) return Number(value.N);
  if (value.BOOL !== undefined) return value.BOOL;
  if (value.NULL !== undefined) return null;
  if (value.B !== undefined) return value.B;
  if (value.M !== undefined) return wireItem(value.M);
  if (value.L !== undefined) return value.L.map(fromWire);
  if (value.SS !== undefined) return new Set(value.SS);
  if (value.NS !== undefined) return new Set(value.NS.map(Number));
  if (value.BS !== undefined) return new Set(value.BS);
  throw new Error(`an attribute value of an unknown type: ${Object.keys(value).join(', ')}`);
}
