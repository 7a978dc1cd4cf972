import { type Invoker, isWakeEvent, type WakeRequest, type Waker } from '@durable-lambda/engine';
import { parseFunctionArn } from './lambda-targets';
import type { ProductionWiring } from './production';

/**
 * The functions a reconciler may wake: the durable functions of its own stack. A table shared by
 * several stacks has a reconciler in each, and each may invoke only its own stack's functions, so
 * a wake-up or invoke of any other function is not sent but recorded here: that run stays due,
 * and the reconciler of the stack that deploys its function wakes it.
 */
export class ServedFunctions {
  private readonly names: ReadonlySet<string> | undefined;
  /** Runs (or, for a non-wake invoke, functions) passed over since the last {@link drain}. */
  private passedOver = new Set<string>();

  /** `names`: unqualified function names; undefined serves every function. */
  constructor(names: readonly string[] | undefined) {
    this.names = names === undefined ? undefined : new Set(names);
  }

  /** Whether `functionName` (a run's name, `name:qualifier`, or an ARN) is one of those served. */
  serves(functionName: string): boolean {
    if (this.names === undefined) return true;
    const name = functionName.startsWith('arn:')
      ? parseFunctionArn(functionName)?.name
      : (functionName.split(':', 1)[0] ?? functionName);
    return name !== undefined && this.names.has(name);
  }

  /** The runs passed over since the last call, and forgets them. */
  drain(): Set<string> {
    const out = this.passedOver;
    this.passedOver = new Set();
    return out;
  }

  /** Gates the production backend's invoker and waker by {@link serves}. */
  wiring(): ProductionWiring {
    return {
      invoker: (inner) => this.gateInvoker(inner),
      waker: (inner) => this.gateWaker(inner),
    };
  }

  private gateInvoker(inner: Invoker): Invoker {
    return {
      invoke: async (functionName, event) => {
        if (this.serves(functionName)) return inner.invoke(functionName, event);
        this.passedOver.add(isWakeEvent(event) ? event.durableLambda.runId : functionName);
      },
    };
  }

  private gateWaker(inner: Waker): Waker {
    const cancel = inner.cancel?.bind(inner);
    return {
      wakeAt: async (request: WakeRequest) => {
        if (this.serves(request.functionName)) return inner.wakeAt(request);
        this.passedOver.add(request.runId);
      },
      ...(cancel
        ? {
            cancel: async (request: WakeRequest) => {
              if (this.serves(request.functionName)) await cancel(request);
            },
          }
        : {}),
    };
  }
}
