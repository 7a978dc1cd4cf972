/**
 * The packages' import graph keeps its shape: no file of a package imports itself back round a
 * circle of other files (types a circle needs go in a leaf module), and no package imports one on
 * its own floor or above (the floors the packages' package.json files declare; see MAY_IMPORT).
 * Type-only imports count: a circle of types is still a knot a reader must untie.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type ImportCycle, importCycles, importEdges, ROOT } from './import-graph';

/**
 * What each package may import of ours, floor by floor: protocol at the bottom; sdk and engine on
 * it; otel beside the sdk it plugs into; api over the engine; aws and local (the adapters) over
 * engine and sdk, local also over api (its dev server serves the control API, its cloud runner
 * speaks through the api's client); cdk and cli on top. A new package must be placed here.
 */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  protocol: [],
  sdk: ['protocol'],
  engine: ['protocol'],
  otel: ['protocol', 'sdk'],
  api: ['protocol', 'engine'],
  aws: ['protocol', 'sdk', 'engine'],
  local: ['protocol', 'sdk', 'engine', 'api'],
  cdk: ['protocol', 'sdk', 'engine', 'api', 'aws'],
  cli: ['protocol', 'sdk', 'engine', 'api', 'aws', 'local'],
};

/**
 * KNOWN EXCEPTIONS, empty and to stay so: a cycle that must be allowed for a while (a knot being
 * untied across several changes) is listed here by its files exactly; a knot that grows, or a new
 * one, fails. Once a knot is untied its entry fails too, asking to be deleted, so the list only
 * shrinks.
 */
const KNOWN_CYCLES: readonly (readonly string[])[] = [];

const PACKAGES = readdirSync(join(ROOT, 'packages'))
  .filter((name) => existsSync(join(ROOT, 'packages', name, 'src')))
  .sort();

const graphs = new Map(PACKAGES.map((pkg) => [pkg, importEdges(`packages/${pkg}/src`)]));
const cyclesOf = new Map(PACKAGES.map((pkg) => [pkg, importCycles(graphs.get(pkg) ?? [])]));

const sameFiles = (cycle: ImportCycle, known: readonly string[]) =>
  cycle.files.length === known.length && cycle.files.every((file, i) => file === known[i]);
const isKnown = (cycle: ImportCycle) => KNOWN_CYCLES.some((known) => sameFiles(cycle, known));

/** The package a specifier names (`@durable-lambda/local/testing` is `local`), or undefined. */
const ourPackage = (specifier: string) => /^@durable-lambda\/([^/]+)/.exec(specifier)?.[1];

describe('the import graph of every package', () => {
  it('finds the packages and their imports', () => {
    expect(PACKAGES).toEqual(expect.arrayContaining(['protocol', 'sdk', 'engine', 'aws', 'local', 'api']));
    // The walker reads what it should: the engine imports the protocol by name and its ports by path.
    const engine = graphs.get('engine') ?? [];
    expect(engine.some((edge) => edge.specifier === '@durable-lambda/protocol')).toBe(true);
    expect(engine.some((edge) => edge.to === 'packages/engine/src/ports.ts')).toBe(true);
  });

  it.each(PACKAGES)('%s: no import cycle among its files (but the known exceptions)', (pkg) => {
    const cycles = (cyclesOf.get(pkg) ?? []).filter((cycle) => !isKnown(cycle));
    expect(cycles.map((cycle) => cycle.loop.join(' -> '))).toEqual([]);
  });

  it('every known exception is still a cycle (delete the entry of one untied)', () => {
    const found = [...cyclesOf.values()].flat();
    const untied = KNOWN_CYCLES.filter((known) => !found.some((cycle) => sameFiles(cycle, known)));
    expect(untied).toEqual([]);
  });

  it.each(PACKAGES)('%s: imports only packages below its floor, by name, and none of its own by name', (pkg) => {
    const allowed = MAY_IMPORT[pkg];
    expect(allowed, `packages/${pkg} has no floor in MAY_IMPORT`).toBeDefined();
    const wrong: string[] = [];
    for (const edge of graphs.get(pkg) ?? []) {
      const target = ourPackage(edge.specifier);
      if (target !== undefined && !allowed?.includes(target)) wrong.push(`${edge.from} imports ${edge.specifier}`);
      // A relative path out of the package's src would bypass its dependencies (and the floors).
      if (edge.specifier.startsWith('.') && !edge.to?.startsWith(`packages/${pkg}/src/`)) {
        wrong.push(`${edge.from} imports ${edge.specifier} (${edge.to ?? 'not found'}), outside packages/${pkg}/src`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
