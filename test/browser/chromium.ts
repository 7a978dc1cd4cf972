/**
 * The Chromium the browser tests drive with playwright-core: `CHROMIUM_PATH` when set (the
 * pretest step finds or installs one and exports it), else Debian's `/usr/bin/chromium`. No
 * browser is ever downloaded.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/** Where Debian's package puts it. */
const DEBIAN_CHROMIUM = '/usr/bin/chromium';

/** The Chromium executable to drive, or an error saying how to get one. */
export function chromiumPath(env: Record<string, string | undefined> = process.env): string {
  const given = env.CHROMIUM_PATH?.trim();
  if (given) {
    if (!existsSync(given))
      throw new Error(`CHROMIUM_PATH=${given}: no such file (unset it, or point it at a Chromium)`);
    return given;
  }
  if (existsSync(DEBIAN_CHROMIUM)) return DEBIAN_CHROMIUM;
  throw new Error(
    `no Chromium: set CHROMIUM_PATH to a Chromium or Chrome executable, or install Debian's (apt-get install -y chromium, giving ${DEBIAN_CHROMIUM}); the browser tests never download one`,
  );
}

/**
 * Launches it headless, with nothing that reaches the network on its own. `extraArgs` are added
 * (for example `--host-resolver-rules=MAP evil.test 127.0.0.1`, a name of "another site" that
 * reaches a local server).
 */
export function launchChromium(extraArgs: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-component-update',
      '--disable-sync',
      ...extraArgs,
    ],
  });
}

let shared: Promise<Browser> | undefined;

/**
 * The test worker's one Chromium, launched at the first call: the browser test files share a
 * worker's modules (see vitest.config.mts), so the files a worker runs one after another reuse it
 * (a launch costs ~2 CPU-s). Each file opens its page with `browser.newPage()`, a browser context of
 * its own (cookies, storage, viewport), and closes that page, not the browser; playwright ends the
 * browser with the worker.
 */
export function sharedChromium(): Promise<Browser> {
  shared ??= launchChromium().then((browser) => {
    browser.on('disconnected', () => {
      shared = undefined;
    });
    return browser;
  });
  return shared;
}
