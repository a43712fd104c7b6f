import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';

/**
 * A real headless Chromium for browser tests: Debian's `chromium` package (installed by .ci/run when
 * missing), driven by playwright-core, which downloads no browser of its own.
 * CHROMIUM_PATH overrides the binary.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath =
    process.env.CHROMIUM_PATH ??
    ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((p) => existsSync(p));
  if (!executablePath) {
    throw new Error('Chromium not found: install Debian package `chromium` or set CHROMIUM_PATH');
  }
  return chromium.launch({ executablePath, headless: true, args: ['--no-sandbox'] });
}
