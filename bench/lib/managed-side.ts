/**
 * The managed service's side of the cost rows, measured rather than assumed: the same workloads
 * written with AWS's SDK (@aws/durable-execution-sdk-js, what a managed durable function runs),
 * played on the bench's world through our compatibility transport, counting per invocation the
 * CheckpointDurableExecution and GetDurableExecutionState calls the SDK makes and the bytes of the
 * updates it checkpoints: what it would send the managed service, and wait for.
 */
import { type DurableContext as AwsContext, withDurableExecution as awsDurable } from '@aws/durable-execution-sdk-js';
import { selfHosted } from '@durable-lambda/aws';
import { EngineDurableExecutionClient } from '@durable-lambda/engine';
import type { DurableLambdaHandler } from '@durable-lambda/sdk';
import type { DriveHooks, Measured, Order, World } from './dynamodb-world';

/** What AWS's SDK sent its service in one invocation. */
export interface ManagedInvocation {
  /** CheckpointDurableExecution calls (each one round trip the invocation waits for). */
  checkpoints: number;
  /** GetDurableExecutionState calls (pages of a long history). */
  stateReads: number;
  /** Bytes of the checkpointed updates (JSON): the data the service writes. */
  updateBytes: number;
}

let current: ManagedInvocation | undefined;
let patched = false;

/** Counts the transport's calls into {@link current} (once per process; the calls run as before). */
function countTransportCalls(): void {
  if (patched) return;
  patched = true;
  const proto = EngineDurableExecutionClient.prototype;
  const checkpoint = proto.checkpoint;
  proto.checkpoint = async function (this: EngineDurableExecutionClient, request) {
    if (current) {
      current.checkpoints++;
      current.updateBytes += Buffer.byteLength(JSON.stringify(request.Updates ?? []), 'utf8');
    }
    return checkpoint.call(this, request);
  };
  const getState = proto.getExecutionState;
  proto.getExecutionState = async function (this: EngineDurableExecutionClient, request) {
    if (current) current.stateReads++;
    return getState.call(this, request);
  };
}

/**
 * Drives one run of `handler` (wrapped by AWS's SDK) on `world`, as `World.drive` does; returns what
 * our side measured and, per invocation in which AWS's SDK ran (not a hop the receiver re-armed),
 * what it sent.
 */
export async function driveManaged(
  world: World,
  handler: ReturnType<typeof awsDurable>,
  payload: unknown,
  hooks: DriveHooks = {},
): Promise<{ measured: Measured; invocations: ManagedInvocation[] }> {
  countTransportCalls();
  const hosted = selfHosted(handler, { backend: world.backend });
  const invocations: ManagedInvocation[] = [];
  const counted = (async (event: unknown, context: Parameters<typeof hosted>[1]) => {
    const mine: ManagedInvocation = { checkpoints: 0, stateReads: 0, updateBytes: 0 };
    current = mine;
    try {
      return await hosted(event, context);
    } finally {
      current = undefined;
      if (mine.checkpoints + mine.stateReads > 0) invocations.push(mine);
    }
  }) as unknown as DurableLambdaHandler;
  const measured = await world.drive(counted, payload, hooks);
  return { measured, invocations };
}

/** The 4-step, 1-wait workflow (`workflowHandler`) written with AWS's SDK. */
export const awsWorkflow = () =>
  awsDurable(async (order: Order, ctx: AwsContext) => {
    const reservation = await ctx.step('reserve-stock', async () => ({
      reservationId: `res-${order.orderId}`,
      lines: order.items.length,
    }));
    const charge = await ctx.step('charge-card', async () => ({
      chargeId: `ch-${order.orderId}`,
      amountCents: order.amountCents,
    }));
    await ctx.wait('cooling-off', { hours: 1 });
    const shipment = await ctx.step('ship', async () => ({ trackingId: `trk-${order.orderId}` }));
    await ctx.step('notify', async () => ({ sentTo: order.email }));
    return {
      orderId: order.orderId,
      reservationId: reservation.reservationId,
      chargeId: charge.chargeId,
      trackingId: shipment.trackingId,
    };
  });

/** `k` one-hour waits, with AWS's SDK. */
export const awsWaits = (k: number) =>
  awsDurable(async (_event: unknown, ctx: AwsContext) => {
    for (let i = 0; i < k; i++) await ctx.wait(`w${i}`, { hours: 1 });
    return k;
  });

/** `k` callbacks one after the other, with AWS's SDK; each id goes to `pending` to be answered. */
export const awsCallbacks = (k: number, pending: string[]) =>
  awsDurable(async (_event: unknown, ctx: AwsContext) => {
    for (let i = 0; i < k; i++) {
      await ctx.waitForCallback(`c${i}`, async (id: string) => {
        pending.push(id);
      });
    }
    return k;
  });
