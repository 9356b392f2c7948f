/**
 * The tool cache in front of `tools/list` and `tools/call`: a server's tool (names, schemas,
 * checks) is built once per app object and server revision, however many servers share one app
 * object; past 1,000 servers of one app object, the tool built longest ago is let go.
 */
import { describe, expect, it } from 'vitest';
import { createToolCache } from '../../src/tool/tool.js';
import { featuresOf } from '../../src/versions.js';
import { serverRecordFor } from '../helpers/apps.js';
import { appOf } from '../helpers/tool-call.js';

const app = appOf('workflow');
const serverNumber = (index: number) => serverRecordFor(app, { id: `server-${index}` });

describe('the tool cache', () => {
  it('builds each server’s tool once when many servers share one app object, called in turn', () => {
    const toolFor = createToolCache();
    const servers = Array.from({ length: 50 }, (_, index) => serverNumber(index));
    const first = servers.map((server) => toolFor(app, server));
    const second = servers.map((server) => toolFor(app, server));
    for (const [index, tool] of second.entries()) expect(tool).toBe(first[index]);
    expect(new Set(first).size).toBe(50);
  });

  it('builds the tool again for a new revision, a new description or a new app object', () => {
    const toolFor = createToolCache();
    const server = serverNumber(1);
    const tool = toolFor(app, server);
    expect(toolFor(app, { ...server })).toBe(tool);

    const renamed = toolFor(app, { ...server, description: 'Counts words' });
    expect(renamed).not.toBe(tool);
    expect(renamed.describe(featuresOf('2025-06-18')).description).toBe('Counts words');

    const later = { ...server, description: 'Counts words', updatedAt: new Date('2025-02-01T00:00:00Z') };
    expect(toolFor(app, later)).not.toBe(renamed);

    const reloaded = { ...app };
    const rebuilt = toolFor(reloaded, later);
    expect(toolFor(reloaded, later)).toBe(rebuilt);
    expect(toolFor(app, later)).not.toBe(rebuilt);
  });

  it('keeps the tools of the 1,000 servers of one app object built last, and builds older ones again', () => {
    const toolFor = createToolCache();
    const oldest = toolFor(app, serverNumber(0));
    const kept = toolFor(app, serverNumber(1));
    for (let index = 2; index <= 1000; index++) toolFor(app, serverNumber(index));
    // Server 0 is now the 1,001st built; server 1 the 1,000th.
    expect(toolFor(app, serverNumber(1))).toBe(kept);
    expect(toolFor(app, serverNumber(0))).not.toBe(oldest);
  });

  it('counts that bound per app object: servers of other apps do not push a tool out', () => {
    const toolFor = createToolCache();
    const apps = [appOf('workflow'), appOf('workflow'), appOf('workflow')];
    const servers = Array.from({ length: 600 }, (_, index) => serverNumber(index));
    const first = apps.map((each) => servers.map((server) => toolFor(each, server)));
    for (const [appIndex, each] of apps.entries())
      for (const [index, server] of servers.entries())
        expect(toolFor(each, server)).toBe(first[appIndex]?.[index]);
  });
});
