/**
 * Helpers of the CDK tests: stacks synthesized in-process with asset bundling skipped (fast; the
 * CLI synth test bundles for real), and lookups in a synthesized template.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * True for a bundled asset that registers its production backend itself: a `DurableFunction`'s,
 * whose injected runtime/backend-inject.ts calls `registerProductionBackend` (identifiers are kept
 * in the bundles); a reconciler's builds its backend directly and leaves that function out.
 */
export function registersItsBackend(asset: string): boolean {
  return readFileSync(join(asset, 'index.mjs'), 'utf8').includes('registerProductionBackend(');
}

/** CDK's own switch: bundle the assets of no stack (a dummy asset is used instead). */
export const SKIP_BUNDLING = { 'aws:cdk:bundling-stacks': [] as string[] };

/**
 * A fresh app writing to a temporary directory (under the run's scratch directory, which the
 * global setup removes at the end), bundling skipped unless asked. CDK's built-in template
 * validation is off: in a test it can only print (its findings are warnings, never a failed
 * synth), and it cost ~5 CPU-s per worker to start plus ~1 CPU-s each time a stack brings new
 * resource types. It runs in the CLI synth of the repository's app (synth-cli.test.ts), which
 * checks that it found nothing.
 */
export function newApp(options: { bundle?: boolean; context?: Record<string, unknown> } = {}): App {
  return new App({
    outdir: mkdtempSync(join(process.env.DURABLE_TEST_SCRATCH ?? tmpdir(), 'cdk-test-')),
    builtinCloudFormationValidation: false,
    context: { ...(options.bundle ? {} : SKIP_BUNDLING), ...options.context },
  });
}

/** A stack in a fresh app (no environment: account and region stay tokens). */
export function newStack(id = 'Test'): Stack {
  return new Stack(newApp(), id);
}

type Resource = { Type: string; Properties?: Record<string, any>; DependsOn?: string[]; [key: string]: unknown };

/** The template's resources. */
export function resources(template: Template): Record<string, Resource> {
  return template.toJSON().Resources as Record<string, Resource>;
}

/** The logical id of the only resource of `type` whose id starts with `prefix`. */
export function logicalId(template: Template, type: string, prefix: string): string {
  const ids = Object.entries(resources(template))
    .filter(([id, r]) => r.Type === type && id.startsWith(prefix))
    .map(([id]) => id);
  if (ids.length !== 1)
    throw new Error(`expected one ${type} starting with ${prefix}, found ${ids.join(', ') || 'none'}`);
  return ids[0] as string;
}

/** The statements of the IAM policies attached to `roleId`, by policy logical id. */
export function policiesOfRole(template: Template, roleId: string): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [id, r] of Object.entries(resources(template))) {
    if (r.Type !== 'AWS::IAM::Policy') continue;
    const roles = (r.Properties?.Roles ?? []) as unknown[];
    if (roles.some((ref) => JSON.stringify(ref) === JSON.stringify({ Ref: roleId }))) {
      out[id] = r.Properties?.PolicyDocument.Statement as unknown[];
    }
  }
  return out;
}

/** Every statement granted to `roleId`, in policy order. */
export function statementsOfRole(template: Template, roleId: string): unknown[] {
  return Object.values(policiesOfRole(template, roleId)).flat();
}

/** `{ Fn::GetAtt: [id, Arn] }`. */
export const arnOf = (id: string) => ({ 'Fn::GetAtt': [id, 'Arn'] });
/** The ARN of `id` with `:*` (any version or alias). */
export const qualifiedArnOf = (id: string) => ({ 'Fn::Join': ['', [arnOf(id), ':*']] });
