/**
 * The deploy world's defects, each scripted without random faults (the memory store, the
 * production backend, the control API and the reconciler on the simulated cloud): a run runs only
 * on the qualifier it is recorded with.
 */
import type { VersionPinning } from '@durable-lambda/aws';
import type { RunRecord } from '@durable-lambda/engine';
import { describe, expect, it } from 'vitest';
import { mulberry32 } from '../support/seeded-random';
import { type ContainerFaults, memoryKit, NO_FAULTS } from './deploys/container-stores';
import { DeployRig, NO_CLOUD_FAULTS } from './deploys/deploy-rig';
import { Dice, SimTime } from './deploys/sim-time';

const START = Date.UTC(2032, 0, 1);

function scripted(policy: VersionPinning, containerFaults: () => ContainerFaults = () => NO_FAULTS) {
  const dice = new Dice(mulberry32(7));
  const time = new SimTime(START, dice, 0);
  const kit = memoryKit(time.clock);
  const rig = new DeployRig({
    time,
    dice,
    kit,
    policy,
    functionName: 'orders',
    cloudFaults: NO_CLOUD_FAULTS,
    containerFaults,
    callbackDelayMs: () => 60_000,
  });
  rig.reconcileEvery(120_000);
  /** Runs the world until the run ends (checked each virtual minute). */
  const untilEnded = async (runId: string): Promise<RunRecord> => {
    let ended: RunRecord | undefined;
    const check = async () => {
      const run = await kit.shared.getRun(runId);
      if (run && run.status !== 'RUNNING') ended = run;
      else time.after(60_000, 'check', check);
    };
    time.after(60_000, 'check', check);
    const outcome = await time.runUntil(() => ended !== undefined, START + 86_400_000);
    if (!ended) throw new Error(`run ${runId} did not end (${outcome}); ${rig.errors.join('; ')}`);
    expect(time.taskErrors).toEqual([]);
    expect(rig.errors).toEqual([]);
    return ended;
  };
  /** Where each step of the run ran: `step@invoked/version`. */
  const placesOf = (runId: string) =>
    rig.executions
      .filter((e) => e.runId === runId || e.runId.startsWith(`${runId}.`))
      .map((e) => `${e.step}@${e.container.invoked}/${e.container.version}`);
  return { rig, time, untilEnded, placesOf };
}

describe('deploys: a run runs only on the qualifier it is recorded with', () => {
  it('a run opted out of pinning waits on the wake-up queue (fed through the alias) and still runs on $LATEST', async () => {
    const { rig, time, untilEnded, placesOf } = scripted('version');
    const started = await rig.apiStart('latest-run', true);
    expect(started.status).toBe(201);
    const runId = (JSON.parse(started.body) as { runId: string }).runId;
    // A deploy while it waits: the alias and $LATEST move to version 2.
    time.after(60_000, 'deploy', async () => void rig.deploy());
    const run = await untilEnded(runId);
    expect(run.functionName).toBe('orders:$LATEST');
    expect(run.status).toBe('SUCCEEDED');
    const places = placesOf(runId);
    expect(places.length).toBeGreaterThanOrEqual(5);
    // Every step on $LATEST: its 3-minute wait and its retry came back through the queue's alias,
    // which handed them on, and its 20-minute wait through Scheduler.
    expect(places.filter((p) => !p.includes('@$LATEST/$LATEST'))).toEqual([]);
    expect(rig.cloud.invocations.some((i) => i.via === 'sqs' && i.container.invoked === 'live')).toBe(true);
  });

  it('a start event delivered again after a deploy hands its run to the version it is pinned to', async () => {
    const { rig, time, untilEnded, placesOf } = scripted('version');
    const runId = rig.invokeStart('again', 'alias');
    // The callback completes (a minute after it is handed out) and its wake-up is lost; the alias
    // moves to version 2; then Lambda delivers the run's start event again, through the alias.
    rig.cloud.dropWhen = (_arn, payload) =>
      (payload as { durableLambda?: { runId?: string } }).durableLambda?.runId === runId && rig.callbacks.size > 0;
    let redelivered = false;
    const watch = async () => {
      if (rig.completions.size > 0 && !redelivered) {
        redelivered = true;
        rig.cloud.dropWhen = undefined;
        rig.deploy();
        await rig.cloud.deliverStartAgain(runId);
      } else time.after(1_000, 'watch', watch);
    };
    time.after(1_000, 'watch', watch);
    const run = await untilEnded(runId);
    expect(redelivered).toBe(true);
    expect(run.functionName).toBe('orders:1');
    expect(run.status).toBe('SUCCEEDED');
    expect(placesOf(runId).filter((p) => !p.endsWith('/1'))).toEqual([]);
    expect(rig.cloud.invocations.some((i) => i.via === 'start again' && i.container.version === '2')).toBe(true);
  });

  it('a run whose pin write failed at its first lease runs nothing until it is pinned', async () => {
    let pinWrites = 0;
    const failFirstPinWrite = (): ContainerFaults => ({
      ...NO_FAULTS,
      pinWriteFault: () => (pinWrites++ === 0 ? 'throw' : undefined),
    });
    const { rig, time, untilEnded, placesOf } = scripted('version', failFirstPinWrite);
    const started = await rig.apiStart('unpinned', false);
    const runId = (JSON.parse(started.body) as { runId: string }).runId;
    // Its first invocation (on version 1) leases it and fails to pin it; version 2 is deployed
    // before the run comes back.
    time.after(3_000, 'deploy', async () => void rig.deploy());
    const run = await untilEnded(runId);
    expect(pinWrites).toBeGreaterThanOrEqual(2);
    expect(run.functionName).toBe('orders:2');
    expect(run.status).toBe('SUCCEEDED');
    expect(placesOf(runId).filter((p) => !p.endsWith('/2'))).toEqual([]);
  });
});
