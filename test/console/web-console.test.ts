import { describe, it, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { ensureWebBuilt } from '../support/web-build.js';
import { CLIENT_ROUTES } from '../../src/console/web-console.js';

describe('web console files on the console listener', () => {
  let h: Harness;
  let webDir: string;
  let script: string;
  let stylesheet: string;

  before(async () => {
    webDir = ensureWebBuilt();
    h = await startHarness();
    const index = readFileSync(join(webDir, 'index.html'), 'utf8');
    script = /<script type="module" src="([^"]+)"/.exec(index)![1]!;
    stylesheet = /<link rel="stylesheet" href="([^"]+)"/.exec(index)![1]!;
  });
  after(() => h.stop());

  it('every client route answers with index.html, revalidated on each load, under a strict CSP', async () => {
    for (const route of [...CLIENT_ROUTES.map((r) => r.replace(':projectId', 'prj_123')), '/keys/']) {
      const page = await h.console('GET', route);
      assert.equal(page.status, 200, route);
      assert.equal(page.headers['content-type'], 'text/html; charset=utf-8', route);
      assert.equal(page.headers['cache-control'], 'no-cache', route);
      assert.match(String(page.headers['content-security-policy']), /default-src 'self'; script-src 'self'/);
      assert.equal(page.headers['x-frame-options'], 'DENY');
      assert.match(page.text, /<div id="app"><\/div>/);
      assert.ok(page.text.includes(script));
    }
  });

  it('hashed assets have their content types and are cached for a year', async () => {
    const js = await h.console('GET', script);
    assert.equal(js.status, 200);
    assert.match(String(js.headers['content-type']), /^application\/javascript/);
    assert.equal(js.headers['cache-control'], 'public, max-age=31536000, immutable');
    assert.ok(js.headers.etag);
    assert.equal(js.text, readFileSync(join(webDir, script), 'utf8'));
    const css = await h.console('GET', stylesheet);
    assert.match(String(css.headers['content-type']), /^text\/css/);
    assert.equal(css.headers['cache-control'], 'public, max-age=31536000, immutable');
  });

  it('nothing is loaded from another origin', () => {
    const index = readFileSync(join(webDir, 'index.html'), 'utf8');
    assert.doesNotMatch(index, /(src|href)="(https?:)?\/\//);
    assert.doesNotMatch(readFileSync(join(webDir, script), 'utf8'), /https:\/\/cdn\./);
  });

  it('unknown paths stay API 404s, not the page', async () => {
    for (const path of ['/assets/missing.js', '/v1/nothing', '/keys/extra/deep']) {
      const result = await h.console('GET', path);
      assert.equal(result.status, 404, path);
      assert.match(String(result.headers['content-type']), /^application\/json/, path);
      assert.equal(result.json.error, 'Not Found');
    }
  });

  it('the page needs no token; the API behind it does', async () => {
    assert.equal((await h.console('GET', '/usage')).status, 200);
    assert.equal((await h.console('GET', '/v1/organizations/me')).status, 401);
  });
});
