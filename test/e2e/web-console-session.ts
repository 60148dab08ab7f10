import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { startMockOpenAI, type MockUpstream } from '../support/mock-upstreams/index.js';
import { startDnsServer, type TestDnsServer } from '../support/dns-server.js';
import { ensureWebBuilt } from '../support/web-build.js';
import { launchChromium, openTab } from './browser.js';

/**
 * What the web console's browser tests share: one service (a mock OpenAI model, a DNS server for
 * domain verification), one browser, and a tab for the organization's admin token. Screenshots
 * land in test-artifacts/web-console/.
 */
export const ARTIFACTS = join('test-artifacts', 'web-console');
export const MODEL = 'openai/gpt-4o-priced';
// $2.50 / $10 per million tokens: each request (1,200 in, 800 out) costs $0.011.
const PRICING = { input_per_mtok: 2.5, output_per_mtok: 10 };

export interface ConsoleSession {
  h: Harness;
  mock: MockUpstream;
  dns: TestDnsServer;
  org: { id: string; token: string };
  browser: Browser;
  /** The admin's tab, not signed in yet. */
  page: Page;
  /** Script errors and failed resources of every tab opened with it. */
  pageErrors: string[];
  shot(name: string, tab?: Page): Promise<Buffer>;
  /** The console API with the admin token. */
  api(method: string, path: string, body?: unknown): ReturnType<Harness['console']>;
  signIn(tab: Page, token: string): Promise<void>;
  /** Follows a navigation link and waits for its page. */
  go(name: string, path: string, tab?: Page): Promise<void>;
  stop(): Promise<void>;
}

export async function startConsoleSession(): Promise<ConsoleSession> {
  ensureWebBuilt();
  mkdirSync(ARTIFACTS, { recursive: true });
  let h: Harness | undefined;
  let browser: Browser | undefined;
  let context: BrowserContext | undefined;
  const [mock, dns] = await Promise.all([startMockOpenAI(), startDnsServer()]);
  const stop = async () => {
    await context?.close();
    await browser?.close();
    await h?.stop();
    await Promise.all([mock.close(), dns.close()]);
  };
  try {
    h = await startHarness({
      config: {
        providers: [{ id: 'mock-openai', kind: 'openai', base_url: mock.baseUrl, api_key_env: 'MOCK_OPENAI_KEY' }],
        models: [{ id: MODEL, providers: [{ provider: 'mock-openai', model: 'gpt-4o-upstream' }], pricing: PRICING }],
      },
      env: { MOCK_OPENAI_KEY: 'sk-mock', GATEWAY_DNS_SERVERS: dns.address, GATEWAY_DOMAIN_VERIFY_TIMEOUT_MS: '2000' },
    });
    const org = await h.organization('acme-e2e');
    browser = await launchChromium();
    const pageErrors: string[] = [];
    let page: Page;
    ({ context, page } = await openTab(browser, pageErrors));
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.running.urls.console });
    const service = h;
    const shot = (name: string, tab = page) => tab.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
    return {
      h,
      mock,
      dns,
      org,
      browser,
      page,
      pageErrors,
      shot,
      api: (method, path, body) => service.console(method, path, { token: org.token, body }),
      async signIn(tab, token) {
        await tab.goto(`${service.running.urls.console}/sign-in`);
        await tab.fill('input[name=token]', token);
        await tab.click('button[type=submit]');
        try {
          await tab.waitForURL('**/keys', { timeout: 10_000 });
        } catch (error) {
          await shot('sign-in-failed', tab);
          throw error;
        }
      },
      async go(name, path, tab = page) {
        await tab.getByRole('link', { name, exact: true }).click();
        await tab.waitForURL(`**${path}`);
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
