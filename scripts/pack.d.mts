/** The publishable packages (folder names under packages/), in dependency order. */
export declare const PACKAGES: readonly string[];
/** What a project installs, by purpose: the packages named and all they depend on. */
export declare const PURPOSES: ReadonlyArray<{ purpose: string; wants: readonly string[] }>;
/** Packs every package into `out`; returns each package's tarball (absolute path) by folder name. */
export declare function packAll(out: string): Map<string, string>;
/** The install command of each purpose: the tarballs of what it wants and all they depend on. */
export declare function installLines(
  tarballs: ReadonlyMap<string, string>,
): Array<{ purpose: string; packages: string[]; command: string }>;
