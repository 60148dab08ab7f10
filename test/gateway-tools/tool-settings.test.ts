import { describe, it, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStore } from '../../src/store/database.js';
import { ensureOrganization } from '../../src/store/organizations.js';
import { ToolSettingsRepository } from '../../src/gateway-tools/tool-settings.js';

const dir = mkdtempSync(join(tmpdir(), 'tool-settings-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('tool settings cache', () => {
  it('serves the last known settings of an organization while the database cannot be read, and fails without any', async () => {
    const store = await openStore({ dataDir: dir });
    const { organization } = await ensureOrganization(store, 'acme', 'Acme');
    let clock = 1_000;
    const settings = new ToolSettingsRepository(store, 1_000, () => clock);
    await settings.update(organization.id, 'calculator', { active: true });
    const known = await settings.forOrganization(organization.id);
    assert.equal(known.get('calculator')?.active, true);

    await store.close(); // every read fails from here on
    clock += 5_000; // the entry has expired
    assert.equal((await settings.forOrganization(organization.id)).get('calculator')?.active, true);
    await assert.rejects(settings.forOrganization('another-organization'));
  });
});
