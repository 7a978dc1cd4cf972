/** Types of ./stale-packages.mjs. */

/** True when anything the package's build reads is newer than the oldest file of its dist. */
export declare function isStale(name: string): boolean;
/** The package (a folder name under packages/) and every @durable-lambda package it depends on. */
export declare function withDependencies(name: string, seen?: Set<string>): Set<string>;
/** The stale ones among `names` (folder names under packages/). */
export declare function stalePackages(names: Iterable<string>): string[];
