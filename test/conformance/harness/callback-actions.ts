/**
 * The outside party of a requirement: when a callback whose name matches one of its actions has
 * started, it sends that action's success, failure or heartbeat.
 *
 * AWS's validator polls the history every few seconds and acts on each `CallbackStarted` it has
 * not handled yet, so it always acts after the invocation that started the callback suspended.
 * Here the actions are sent at that very point: when an invocation releases its run (the commit
 * that clears the lease), before the test driver may move its clock, so a callback's timeout is
 * never jumped past before the outside party had its turn. Each action is used once; a heartbeat
 * leaves its callback open for the next action (AWS's rule). At most one callback is completed
 * per release: AWS's validator waits (its `Delay`) before each completion, long enough for the
 * run to replay and suspend again before the next one.
 */
import type { Store } from '@durable-lambda/engine';
import type { ErrorObject, Operation } from '@durable-lambda/protocol';
import type { Bindings } from './match';
import type { CallbackAction } from './requirement';

/** Where the actions are sent (the test driver's callback API). */
export interface CallbackSink {
  success(callbackId: string, result?: string): Promise<void>;
  failure(callbackId: string, error: ErrorObject & { ErrorMessage: string }): Promise<void>;
  heartbeat(callbackId: string): Promise<void>;
}

/** The callback's name as the history shows it: its own, or its waitForCallback's. */
function callbackName(op: Operation, all: readonly Operation[]): string {
  if (op.Name) return op.Name;
  const parent = all.find((candidate) => candidate.Id === op.ParentId);
  return parent?.SubType === 'WaitForCallback' ? (parent.Name ?? '') : '';
}

function nameMatches(wanted: string | RegExp, name: string, bindings: Bindings): boolean {
  if (wanted instanceof RegExp) return wanted.test(name);
  const resolved = bindings.substitute(wanted);
  return resolved === '*' || resolved === name;
}

/**
 * Wraps `store.commit` so that each commit releasing a run's lease is followed, before it
 * returns, by the actions due for that run's started callbacks. Returns what was sent, in order.
 */
export function actOnCallbacks(
  store: Store,
  actions: readonly CallbackAction[],
  sink: () => CallbackSink,
  bindings: Bindings,
): string[] {
  const sent: string[] = [];
  if (actions.length === 0) return sent;
  const used = new Set<number>();
  const handled = new Set<string>();
  const commit = store.commit.bind(store);
  let acting = false;
  store.commit = async (runId, fence, write) => {
    await commit(runId, fence, write);
    if (acting || write.run?.leaseExpiresAt !== null) return;
    acting = true;
    try {
      for (let round = 0; round < actions.length; round++) {
        const ops = await store.loadOperations(runId);
        const open = ops.filter((op) => op.Type === 'CALLBACK' && op.Status === 'STARTED' && !handled.has(op.Id));
        let acted = false;
        for (const op of open) {
          const name = callbackName(op, ops);
          const index = actions.findIndex((action, i) => !used.has(i) && nameMatches(action.name, name, bindings));
          const action = actions[index];
          const id = op.CallbackDetails?.CallbackId;
          if (!action || !id) continue;
          used.add(index);
          if (action.send !== 'heartbeat') handled.add(op.Id);
          await send(sink(), id, action, bindings);
          sent.push(`${action.send} ${name}`);
          acted = true;
          if (action.send !== 'heartbeat') return;
        }
        // A heartbeat left its callback open: the next action may be for it.
        if (!acted) break;
      }
    } finally {
      acting = false;
    }
  };
  return sent;
}

/**
 * JSON as AWS's validator sends a callback result (Python's `json.dumps` defaults: `", "` between
 * items, `": "` after keys), so a result's text is byte for byte what the service would store.
 */
export function validatorJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(validatorJson).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${validatorJson(v)}`);
    return `{${entries.join(', ')}}`;
  }
  return JSON.stringify(value);
}

async function send(sink: CallbackSink, id: string, action: CallbackAction, bindings: Bindings): Promise<void> {
  const payload = bindings.substitute(action.payload);
  if (action.send === 'heartbeat') return sink.heartbeat(id);
  if (action.send === 'success') return sink.success(id, payload === undefined ? undefined : validatorJson(payload));
  const error = (payload ?? {}) as Partial<ErrorObject>;
  return sink.failure(id, {
    ...(error.ErrorType === undefined ? {} : { ErrorType: error.ErrorType }),
    ...(error.ErrorData === undefined ? {} : { ErrorData: error.ErrorData }),
    ErrorMessage: error.ErrorMessage ?? '',
  });
}
