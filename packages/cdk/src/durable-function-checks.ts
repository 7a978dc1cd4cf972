/**
 * The checks of a `DurableFunction`'s properties at synth: each returns the value the construct
 * uses (its default filled in) or throws naming the construct's path and the prop, so a bad value
 * fails the synth before anything is deployed. The construct calls them where it needs the value.
 */
import { Duration } from 'aws-cdk-lib/core';
import {
  DURABLE_VERSION_PINNINGS,
  type DurableFunctionOwnProps,
  type DurableVersionPinning,
} from './durable-function-props';

/** Whether the function has alarms and publishes metrics: alarms need metrics, and turn them on. */
export function checkedAlarmsAndMetrics(
  path: string,
  props: Pick<DurableFunctionOwnProps, 'alarms' | 'alarmActions' | 'metrics'>,
): { alarms: boolean; metrics: boolean } {
  const alarms = props.alarms ?? (props.alarmActions?.length ?? 0) > 0;
  if (alarms && props.metrics === false) {
    throw new Error(
      `${path}: alarms need metrics (the failed-runs and stuck-runs alarms watch them): drop metrics: false, or alarms`,
    );
  }
  return { alarms, metrics: props.metrics ?? alarms };
}

/** The alias runs start on (`live` by default): a name Lambda accepts for an alias. */
export function checkedAliasName(path: string, aliasName: string | undefined): string {
  const name = aliasName ?? 'live';
  if (!/^(?!\d+$)[a-zA-Z0-9_-]{1,128}$/.test(name) || name === '$LATEST') {
    throw new Error(`${path}: aliasName must be 1-128 of [a-zA-Z0-9_-] and not a number, got ${JSON.stringify(name)}`);
  }
  return name;
}

/** The pinning policy (`version` by default), one of {@link DURABLE_VERSION_PINNINGS}. */
export function checkedPinning(path: string, pinning: DurableVersionPinning | undefined): DurableVersionPinning {
  const policy = pinning ?? 'version';
  if (!DURABLE_VERSION_PINNINGS.includes(policy)) {
    throw new Error(
      `${path}: pinning must be one of ${DURABLE_VERSION_PINNINGS.join(', ')}, got ${JSON.stringify(policy)}`,
    );
  }
  return policy;
}

/** What stands behind an invocation's lease, when given (undefined: the backend's default). */
export function checkedLeaseWakeUp(
  path: string,
  leaseWakeUp: DurableFunctionOwnProps['leaseWakeUp'],
): DurableFunctionOwnProps['leaseWakeUp'] {
  if (leaseWakeUp !== undefined && leaseWakeUp !== 'reconciler' && leaseWakeUp !== 'scheduler') {
    throw new Error(`${path}: leaseWakeUp must be reconciler or scheduler, got ${JSON.stringify(leaseWakeUp)}`);
  }
  return leaseWakeUp;
}

/** How long a finished run is kept, in days (30 by default; fractions allowed), positive. */
export function checkedRetentionDays(path: string, retention: Duration | undefined): number {
  const retentionDays = (retention ?? Duration.days(30)).toDays({ integral: false });
  if (!(retentionDays > 0)) throw new Error(`${path}: retention must be positive`);
  return retentionDays;
}
