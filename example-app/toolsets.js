/**
 * The example host's toolsets (docs/toolsets.md): several demo apps behind one code and one URL.
 * "All demo apps" follows whatever the demo tenant publishes; "Writing tools" lists three apps.
 */

import { TENANT_ID } from './apps.js';

/** The toolsets published at start, by name: `apps` lists the members, in tool order. */
export const DEMO_TOOLSETS = [
  {
    name: 'All demo apps',
    description: 'Every published demo app, one tool each; it follows what the console publishes.',
    allPublished: true,
    apps: [],
  },
  {
    name: 'Writing tools',
    description: 'Tools for writers: rewrite a title, write a tagline, count the words.',
    allPublished: false,
    apps: ['title-case', 'tagline-writer', 'text-stats'],
  },
];

/**
 * Creates each demo toolset the tenant has no toolset of that name for (its first start), and
 * returns them all. Two instances starting at once may each create one: the console shows both.
 * @param {import('express-app-mcp').ServerStore} store
 * @returns {Promise<import('express-app-mcp').ToolsetRecord[]>}
 */
export async function seedToolsets(store) {
  const toolsets = store.toolsets;
  if (!toolsets) return [];
  const existing = await toolsets.list(TENANT_ID);
  const seeded = [];
  for (const demo of DEMO_TOOLSETS) {
    const found = existing.find((toolset) => toolset.name === demo.name);
    seeded.push(
      found ??
        (await toolsets.create({
          tenantId: TENANT_ID,
          name: demo.name,
          description: demo.description,
          allPublished: demo.allPublished,
          members: demo.apps.map((appId) => ({ appId })),
        })),
    );
  }
  return seeded;
}
