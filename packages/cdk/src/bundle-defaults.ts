import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';

/**
 * The banner an ESM bundle gets: CommonJS code bundled into it (some of the AWS SDK's
 * dependencies) calls `require` for Node's built-in modules, which ES modules do not have. Scoped
 * to the bundle's module, not set on `globalThis`.
 */
export const ESM_REQUIRE_BANNER =
  "import{createRequire as __durableCreateRequire}from'node:module';const require=__durableCreateRequire(import.meta.url);";

/** esbuild's minification of whitespace and syntax, identifiers left as they are (no renaming). */
export const MINIFY_KEEPING_IDENTIFIERS: Readonly<Record<string, boolean>> = {
  '--minify-whitespace': true,
  '--minify-syntax': true,
};

/** The `mainFields` of an ESM bundle: a package's ES module build first, its CommonJS one otherwise. */
export const ESM_MAIN_FIELDS: readonly string[] = ['module', 'main'];

/**
 * The esbuild `define` that leaves the AWS SDK's DynamoDB client (`@aws-sdk/client-dynamodb`,
 * `@aws-sdk/lib-dynamodb`) out of a bundle whose production backend uses the light client: the
 * only `import()`s of them (`@durable-lambda/aws`'s `dynamodb/sdk-modules.ts`) become dead code
 * esbuild drops. A handler that imports them itself still has them.
 */
export const DYNAMODB_SDK_LEFT_OUT: Readonly<Record<string, string>> = {
  'process.env.DURABLE_DYNAMODB_SDK_BUNDLED': '"false"',
};

/**
 * `bundling` with {@link DYNAMODB_SDK_LEFT_OUT} under the user's own `define`, unless `environment`
 * asks the production backend for the AWS SDK's client (`DURABLE_DYNAMODB_CLIENT: 'sdk'`), which
 * then is bundled and loaded at the first request.
 */
export function withoutDynamoDbSdk(
  bundling: nodejs.BundlingOptions,
  environment: Readonly<Record<string, string>> | undefined,
): nodejs.BundlingOptions {
  if (environment?.DURABLE_DYNAMODB_CLIENT?.trim() === 'sdk') return bundling;
  return { ...bundling, define: { ...DYNAMODB_SDK_LEFT_OUT, ...bundling.define } };
}

/**
 * The esbuild options every function the constructs deploy is bundled with, under what the user
 * gave (a field given wins; `bundling.banner` replaces the `require` banner, so with ESM output it
 * must define `require` itself if the bundle needs one). What a cold start loads is what these
 * decide (bench `bundle` section):
 *
 * - ESM output (`index.mjs`) from the `module` builds of the dependencies: the AWS SDK's ES module
 *   builds are smaller than its CommonJS ones, and esbuild drops what nothing imports from them;
 *   the clients loaded at first use (`import()`) are evaluated only then.
 * - Whitespace and syntax minified, identifiers not: a smaller file, with every class and function
 *   name intact at no cost at load (errors are named after their class, in our SDK and in users'
 *   code; stack traces read as the source). `minify: true` mangles identifiers too, and then keeps
 *   names (`keepNames`) unless told otherwise: no faster to load (bench `bundle` section), and
 *   stack traces name minified functions.
 * - The AWS SDK bundled (`externalModules` empty): the code runs on the SDK versions it was tested
 *   with, not on whatever the Lambda runtime ships. A durable function and the reconciler talk to
 *   DynamoDB through the light client and bundle none of the SDK's DynamoDB client
 *   ({@link withoutDynamoDbSdk}).
 * - Local esbuild (a dependency of this package), never Docker; node22 syntax.
 */
export function bundleDefaults(bundling: nodejs.BundlingOptions = {}): nodejs.BundlingOptions {
  const format = bundling.format ?? nodejs.OutputFormat.ESM;
  const esm = format === nodejs.OutputFormat.ESM;
  return {
    ...bundling,
    forceDockerBundling: false,
    externalModules: bundling.externalModules ?? [],
    target: bundling.target ?? 'node22',
    format,
    ...(bundling.minify === undefined
      ? { esbuildArgs: { ...MINIFY_KEEPING_IDENTIFIERS, ...bundling.esbuildArgs } }
      : { keepNames: bundling.keepNames ?? bundling.minify }),
    ...(esm ? { mainFields: bundling.mainFields ?? [...ESM_MAIN_FIELDS] } : {}),
    ...(esm || bundling.banner !== undefined ? { banner: bundling.banner ?? ESM_REQUIRE_BANNER } : {}),
  };
}
