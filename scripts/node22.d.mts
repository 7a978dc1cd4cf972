/** The folder whose lockfile pins the Node 22 package (scripts/node22). */
export declare const NODE22_PROJECT: string;
/** Where its binary lands once installed. */
export declare const NODE22_BINARY: string;
/** DURABLE_NODE22 when set, else the installed package's binary, else undefined; installs nothing. */
export declare function node22Binary(env?: NodeJS.ProcessEnv): string | undefined;
/** Finds or installs Node 22; where it cannot be had, why (the tests that need it skip). */
export declare function ensureNode22(
  log?: (line: string) => void,
): { path: string; version: string } | { skipped: string };
