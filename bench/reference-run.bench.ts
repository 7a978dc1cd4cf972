/**
 * The reference run alone (4 steps and a 1-hour wait, `workflowHandler`) on DynamoDB Local, with
 * every write's item sizes: `npm --prefix bench run bench:reference`. A quick check that a change
 * to what the run item holds adds no write unit (issue 21's cost design; issue 23's history order).
 */
import { createDurableTable } from '@durable-lambda/aws';
import { type DynamoDbLocal, startDynamoDbLocal } from '../test/support/dynamodb-local-process';
import { fmt } from './lib/dynamodb-meter';
import { expectRun, ORDER, TABLE, World, workflowHandler } from './lib/dynamodb-world';

async function main(): Promise<void> {
  let local: DynamoDbLocal;
  try {
    local = await startDynamoDbLocal();
  } catch (error) {
    console.log(`Cannot run: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
    return;
  }
  try {
    const world = new World(local.endpoint);
    await createDurableTable(world.raw, TABLE);
    // A throwaway run first (the function registry's put, connections), unmetered.
    world.meter.trace = false;
    await world.drive(workflowHandler(world), ORDER);
    world.meter.trace = true;
    const flow = await world.drive(workflowHandler(world), ORDER);
    const expected = {
      orderId: ORDER.orderId,
      reservationId: `res-${ORDER.orderId}`,
      chargeId: `ch-${ORDER.orderId}`,
      trackingId: `trk-${ORDER.orderId}`,
    };
    expectRun(flow, 'workflow', expected, 6);
    const t = flow.totals;
    console.log(
      `reference run: ${fmt(t.wru)} WRU (${fmt(t.tableWru)} table + ${fmt(t.indexWru)} index), ${fmt(t.rru)} RRU, ` +
        `${fmt(t.writeRequests)} write requests`,
    );
  } finally {
    await local.stop();
  }
}

await main();
