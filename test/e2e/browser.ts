import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/**
 * Debian's Chromium driven by playwright-core (no browser download). The flags keep it from
 * reaching the network and from needing a sandbox or GPU, which this machine and CI lack.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** The reason browser tests skip, or false when Chromium is there. */
export const skipWithoutChromium = existsSync(CHROMIUM)
  ? false
  : `Chromium not found at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH to run the browser test`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A fresh tab (its own sessionStorage) that records script errors and failed resources. */
export async function openTab(
  browser: Browser,
  errors: string[],
  viewport = { width: 1400, height: 900 },
): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true, viewport, acceptDownloads: true });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    // The browser logs every non-2xx fetch; the error states these tests provoke are expected.
    if (message.type() === 'error' && !/the server responded with a status of (4\d\d)/.test(message.text()))
      errors.push(`console: ${message.text()}`);
  });
  return { context, page };
}
