/**
 * The SQS side of on-time wake-ups for the bench's world: a fake SQS queue that keeps each
 * message invisible until its DelaySeconds have passed on the virtual clock (the driver delivers
 * it then, as Lambda's event source would, one message per invocation), and the backend the
 * deployed function runs: the engine behind the production `WakeQueueReceiver`.
 */
import { type WakeHint, WakeQueueReceiver } from '@durable-lambda/aws';
import type { Engine, Invoker, WakeRequest } from '@durable-lambda/engine';
import type { DurableBackend } from '@durable-lambda/protocol';

/** One message the fake queue holds. */
export interface QueuedMessage {
  messageId: string;
  body: string;
  /** When it becomes visible (virtual epoch ms). */
  visibleAt: number;
}

/** SQS: `SendMessage` keeps the message invisible for `DelaySeconds`; the driver receives it. */
export class FakeSqs {
  readonly messages: QueuedMessage[] = [];
  sends = 0;
  /** ReceiveMessage and DeleteMessage requests Lambda's event source made (one of each per message). */
  receives = 0;
  deletes = 0;
  private seq = 0;

  constructor(private readonly now: () => number) {}

  reset(): void {
    this.sends = 0;
    this.receives = 0;
    this.deletes = 0;
  }

  send = async (command: unknown): Promise<unknown> => {
    const input = (command as { input?: { MessageBody?: string; DelaySeconds?: number } }).input;
    if ((command as object).constructor?.name !== 'SendMessageCommand' || input?.MessageBody === undefined) {
      throw new Error(`FakeSqs: unexpected ${String(command)}`);
    }
    this.sends++;
    const messageId = `m-${++this.seq}`;
    this.messages.push({
      messageId,
      body: input.MessageBody,
      visibleAt: this.now() + (input.DelaySeconds ?? 0) * 1000,
    });
    return { MessageId: messageId };
  };

  /** When the next message becomes visible, if any. */
  nextVisibleAt(): number | undefined {
    return this.messages.reduce<number | undefined>(
      (t, m) => (t === undefined || m.visibleAt < t ? m.visibleAt : t),
      undefined,
    );
  }

  /** Removes the next message and returns the SQS event Lambda invokes the function with. */
  receiveNext(): { Records: unknown[] } | undefined {
    const at = this.nextVisibleAt();
    const index = this.messages.findIndex((m) => m.visibleAt === at);
    if (index < 0) return undefined;
    const [message] = this.messages.splice(index, 1);
    this.receives++;
    // The event source deletes the message once the invocation reports it done.
    this.deletes++;
    return {
      Records: [
        {
          messageId: message?.messageId,
          receiptHandle: `rh-${message?.messageId}`,
          body: message?.body,
          attributes: { ApproximateReceiveCount: '1' },
          eventSource: 'aws:sqs',
          eventSourceARN: 'arn:aws:sqs:us-east-1:123456789012:durable-bench-wake-ups',
        },
      ],
    };
  }
}

/**
 * The backend the deployed function runs: SQS events and timed wake-ups first go through the
 * production `WakeQueueReceiver` (re-armed when early; held until due on the virtual clock), the
 * rest straight to the engine, as `ProductionBackend.open` does.
 */
export function queueReceivingBackend(options: {
  engine: Engine;
  rearm(request: WakeRequest, hint?: WakeHint): Promise<void>;
  invoker: Invoker;
  /** This function's name, for a wake-up that does not say whose it is. */
  functionName: string;
  /** Whether a run's recorded function name is one this world plays (default: `functionName`'s). */
  isOwn?: (name: string) => boolean;
  clock: { now(): number; advanceTo(t: number): void };
}): DurableBackend {
  const { engine, clock } = options;
  const isOwn = options.isOwn ?? ((name: string) => name.split(':')[0] === options.functionName);
  const receiver = new WakeQueueReceiver({
    rearm: (request, hint) => options.rearm(request, hint),
    forward: (name, event) => options.invoker.invoke(name, event),
    opensHere: isOwn,
    ownName: () => options.functionName,
    now: () => clock.now(),
    sleep: async (ms) => clock.advanceTo(clock.now() + ms),
  });
  return {
    async open(event, context) {
      return (await receiver.receive(event, (wake) => engine.open(wake, context))) ?? engine.open(event, context);
    },
  };
}
