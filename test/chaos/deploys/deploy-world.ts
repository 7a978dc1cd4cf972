/**
 * The deploy world: a {@link DeployRig} driven at random by a seed. Runs start through the alias,
 * through the control API (pinned at their first invocation; the start sometimes repeated later),
 * opted out of pinning (`$LATEST`), or on `$LATEST` directly; new versions are deployed at random
 * times while they run (the alias moves, sometimes back to an older version), old versions are
 * kept or deleted (after the README's check that no run is on them, or, in a careless world,
 * whatever runs there); events come twice or never, start events and wake-ups come again through
 * the alias, queue messages early, late, twice or never, processes die between any two store
 * calls, and pin writes fail.
 */
import type { VersionPinning } from '@durable-lambda/aws';
import type { RunRecord } from '@durable-lambda/engine';
import type { Operation } from '@durable-lambda/protocol';
import { mulberry32 } from '../../support/seeded-random';
import type { ContainerFaults, StoreKit } from './container-stores';
import { DeployRig, type StepExecution } from './deploy-rig';
import type { SimCloud } from './sim-cloud';
import type { CloudFaults, SimFunction } from './sim-functions';
import { Dice, SimTime } from './sim-time';

/** A run the world started, and how. */
export interface StartedRun {
  tag: string;
  how: 'alias invoke' | 'control API' | 'control API, latest' | '$LATEST invoke';
  runId: string;
  payload: string;
}

/** Rates of the container faults. */
export interface ContainerFaultRates {
  /** An invocation's process dies, between two store calls. */
  kill: number;
  /** A store call refused or its answer lost (each). */
  storeCall: number;
  /** The pin write of a first lease refused or its answer lost (each). */
  pinWrite: number;
}

/** The fault mix of the deploy suites. */
export const DEPLOY_FAULTS: { cloud: CloudFaults; containers: ContainerFaultRates; race: number } = {
  cloud: {
    throttle: 0.03,
    lostResponse: 0.03,
    eventTwice: 0.15,
    eventDropped: 0.05,
    messageEarly: 0.1,
    messageLate: 0.1,
    messageTwice: 0.1,
    messageLost: 0.05,
    scheduleLate: 0.1,
    startAgainAtWake: 0.15,
    wakeThroughAlias: 0.15,
  },
  containers: { kill: 0.04, storeCall: 0.005, pinWrite: 0.2 },
  race: 0.05,
};

/** Everything one seed's world did, for the checks. */
export interface DeployEvidence {
  seed: number;
  policy: VersionPinning;
  functionName: string;
  fn: SimFunction;
  cloud: SimCloud;
  runs: StartedRun[];
  /** The runs as stored at the end (by run id). */
  finals: Map<string, RunRecord | undefined>;
  /** Each run's operations at the end. */
  operations: Map<string, Operation[]>;
  executions: StepExecution[];
  /** Callback id to the payload the outside completes it with. */
  callbacks: Map<string, string>;
  /** Callback completions the control API accepted, by id. */
  completions: Map<string, number>;
  /** Versions deleted, with when. */
  deletions: Array<{ version: string; at: number; careless: boolean }>;
  deploys: Array<{ version: string; alias: string; at: number }>;
  outcome: 'done' | 'idle' | 'timeout';
  /** Runs an operator cancelled through the control API while they ran (it answered them CANCELLED). */
  cancelled: Set<string>;
  /** Errors of the world itself (a task that threw, an API answer not expected). */
  worldErrors: string[];
  /** Faults injected in containers, by kind. */
  containerFaults: Record<string, number>;
}

const START = Date.UTC(2031, 0, 1);
const DAY = 86_400_000;

/** Options of one seed. */
export interface DeploySeedOptions {
  kit: (clock: SimTime['clock']) => StoreKit;
  faults?: typeof DEPLOY_FAULTS;
  /**
   * Virtual ms between the reconciler's passes. Default 120,000 (the construct's default period); a
   * pass reads every shard of the DynamoDB store's due index, so the DynamoDB suite passes less often.
   */
  reconcilePeriodMs?: number;
}

/** A container's faults: maybe a death between two store calls, rare refused or lost calls. */
function randomContainerFaults(dice: Dice, rates: ContainerFaultRates, tally: (kind: string) => void) {
  return (): ContainerFaults => {
    let alive = true;
    const killAt = dice.chance(rates.kill) ? dice.between(1, 14) : Number.POSITIVE_INFINITY;
    let calls = 0;
    const either = (p: number, what: string): 'throw' | 'lost' | undefined => {
      if (dice.chance(p)) {
        tally(`${what} refused`);
        return 'throw';
      }
      if (dice.chance(p)) {
        tally(`${what} answer lost`);
        return 'lost';
      }
      return undefined;
    };
    return {
      alive: () => alive,
      beforeCall: () => {
        calls += 1;
        if (alive && calls >= killAt) {
          alive = false;
          tally('process killed');
        }
      },
      storeFault: () => either(rates.storeCall, 'store call'),
      pinWriteFault: () => either(rates.pinWrite, 'pin write'),
    };
  };
}

/** Runs one seed's world to its end and returns what happened. */
export async function runDeployWorld(seed: number, options: DeploySeedOptions): Promise<DeployEvidence> {
  const rates = options.faults ?? DEPLOY_FAULTS;
  const dice = new Dice(mulberry32(seed * 2_654_435_761));
  const policy: VersionPinning = dice.chance(0.7) ? 'version' : dice.pick(['alias', 'latest'] as const);
  const careless = dice.chance(0.1);
  const time = new SimTime(START + (seed % 10_000) * 30 * DAY, dice, rates.race);
  const containerFaults: Record<string, number> = {};
  const tally = (kind: string) => {
    containerFaults[kind] = (containerFaults[kind] ?? 0) + 1;
  };
  const kit = options.kit(time.clock);
  const rig = new DeployRig({
    time,
    dice,
    kit,
    policy,
    // A name of its own: worlds sharing a table never meet.
    functionName: `orders-${seed}`,
    cloudFaults: rates.cloud,
    containerFaults: randomContainerFaults(dice, rates.containers, tally),
    callbackDelayMs: () => dice.between(1_000, 30 * 60_000),
  });
  const { fn, cloud } = rig;
  const deploys: DeployEvidence['deploys'] = [{ version: '1', alias: '1', at: time.now() }];

  // The runs: two to four, started within the first ten minutes, each its own way.
  const runs: StartedRun[] = [];
  const count = dice.between(2, 4);
  let startsPending = count;
  for (let i = 0; i < count; i++) {
    const tag = `s${seed}-r${i}`;
    const how: StartedRun['how'] = rig.startsOnAlias
      ? dice.pick(['alias invoke', 'alias invoke', 'control API', 'control API, latest', '$LATEST invoke'] as const)
      : dice.pick(['$LATEST invoke', 'control API', 'control API, latest'] as const);
    time.after(dice.between(0, 10 * 60_000), `start ${tag}`, async () => {
      try {
        const runId = await start(tag, how);
        if (runId) runs.push({ tag, how, runId, payload: `ok-${tag}` });
      } finally {
        startsPending -= 1;
      }
    });
  }

  async function start(tag: string, how: StartedRun['how']): Promise<string | undefined> {
    if (how === 'alias invoke' || how === '$LATEST invoke') {
      return rig.invokeStart(tag, how === 'alias invoke' ? 'alias' : '$LATEST');
    }
    const latest = how === 'control API, latest';
    for (let attempt = 1; attempt <= 20; attempt++) {
      const answer = await rig.apiStart(tag, latest, `start-${tag}`);
      if (answer.status === 201 || answer.status === 200) {
        const runId = (JSON.parse(answer.body) as { runId: string }).runId;
        // A client repeats the start later (same key and input): it finds the run, pinned or not.
        if (dice.chance(0.3)) {
          time.after(dice.between(1_000, 3_600_000), `start ${tag} again`, async () => {
            const again = await rig.apiStart(tag, latest);
            const id = again.status === 200 ? (JSON.parse(again.body) as { runId: string }).runId : undefined;
            if (id !== runId && again.status < 500) {
              rig.errors.push(`start of ${tag} repeated answered ${again.status} ${again.body}`);
            }
          });
        }
        return runId;
      }
      if (answer.status < 500) {
        rig.errors.push(`start of ${tag} answered ${answer.status} ${answer.body}`);
        return undefined;
      }
      time.clock.advanceBy(1_000);
    }
    rig.errors.push(`start of ${tag} never answered`);
    return undefined;
  }

  // Deploys: one to four, within the first hour, half of them while runs are still starting
  // (between a run's first invocation and its next).
  const deletions: DeployEvidence['deletions'] = [];
  const deployCount = dice.between(1, 4);
  for (let i = 0; i < deployCount; i++) {
    const at = dice.chance(0.5) ? dice.between(10_000, 15 * 60_000) : dice.between(10_000, 3_600_000);
    time.after(at, 'deploy', async () => {
      const live = fn.aliases.get('live') as string;
      const existing = [...fn.versions.keys()].filter((v) => !fn.deleted.has(v));
      // Mostly forward; sometimes a rollback to an older version still there.
      const rollback = dice.chance(0.15) ? dice.pick(existing) : undefined;
      const version = rig.deploy(rollback);
      const target = rollback ?? version;
      deploys.push({ version, alias: target, at: time.now() });
      if (!dice.chance(0.4)) return;
      const candidates = existing.filter((v) => v !== target && v !== live);
      if (candidates.length === 0) return;
      const victim = dice.pick(candidates);
      if (!careless) {
        const page = await rig.apiEngine.listRuns({
          functionName: `${rig.functionName}:${victim}`,
          status: 'RUNNING',
          limit: 1,
        });
        if (page.runs.length > 0) return;
      }
      fn.deleted.add(victim);
      deletions.push({ version: victim, at: time.now(), careless });
    });
  }

  // An operator (in a third of the worlds, on dice of its own so the rest of the world is as
  // without it) cancels a run through the control API at a random time, invocations in flight.
  const cancelled = rig.cancelled;
  const operator = new Dice(mulberry32(seed * 40_503 + 17));
  if (operator.chance(1 / 3)) {
    const tree = operator.chance(0.5);
    time.after(operator.between(10_000, 45 * 60_000), 'operator cancel', async () => {
      const target = runs.length > 0 ? operator.pick(runs) : undefined;
      if (!target) return;
      for (let attempt = 1; attempt <= 10; attempt++) {
        const answer = await rig.apiCancel(target.runId, tree, `cancel-${target.tag}`);
        // 409: the run had ended first; a 5xx (an injected fault) is sent again.
        if (answer.status < 500) {
          if (answer.status !== 200 && answer.status !== 409) {
            rig.errors.push(`cancel of ${target.tag} answered ${answer.status} ${answer.body}`);
          }
          return;
        }
        time.clock.advanceBy(1_000);
      }
    });
  }

  // The reconciler; the world ends at the first pass that finds every run ended (or stranded).
  let allEnded = false;
  const stranded = (run: RunRecord) => {
    const qualifier = run.functionName.split(':')[1];
    return qualifier !== undefined && fn.deleted.has(qualifier);
  };
  const period = options.reconcilePeriodMs ?? 120_000;
  const pass = async () => {
    await rig.reconcile();
    if (startsPending === 0) {
      let ended = true;
      for (const run of runs) {
        const stored = await kit.shared.getRun(run.runId);
        if (stored?.status === 'RUNNING' && !stranded(stored)) ended = false;
      }
      allEnded = ended;
    }
    time.after(period, 'reconciler', pass);
  };
  time.after(period, 'reconciler', pass);

  const outcome = await time.runUntil(() => allEnded, time.now() + 5 * DAY);
  // A key begins with its run's id (and, past it, whatever tells re-creations of the run apart).
  for (const e of rig.executions) {
    const run = runs.find((r) => e.runId === r.runId || e.runId.startsWith(`${r.runId}.`));
    if (run) e.runId = run.runId;
  }
  const finals = new Map<string, RunRecord | undefined>();
  const operations = new Map<string, Operation[]>();
  for (const run of runs) {
    finals.set(run.runId, await kit.shared.getRun(run.runId));
    operations.set(run.runId, await kit.shared.loadOperations(run.runId));
  }
  // Leave nothing due on a shared table: a stranded run is cancelled (the next world's reconciler
  // would find it otherwise).
  for (const run of finals.values()) {
    if (run?.status === 'RUNNING') await rig.apiEngine.cancelRun(run.runId).catch(() => undefined);
  }
  return {
    seed,
    policy,
    functionName: rig.functionName,
    fn,
    cloud,
    runs,
    finals,
    operations,
    executions: rig.executions,
    callbacks: rig.callbacks,
    completions: rig.completions,
    deletions,
    deploys,
    outcome,
    cancelled,
    worldErrors: [...rig.errors, ...time.taskErrors],
    containerFaults,
  };
}
