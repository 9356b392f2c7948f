/**
 * The architecture rules of `src/` (docs/architecture.md), checked by
 * `npm run lint`. Type-only imports count: a layer that must not know Express must not name its types.
 */
const EXPRESS_LAYER = '^src/(endpoint|console|express)/';

/**
 * The layers of `src/`, bottom first, and the folders each may import besides its own
 * (docs/architecture.md). `types/`, the public types, is the floor: it imports no other folder,
 * and every layer may import it. `versions.ts` sits beside the layers and imports only the tool's
 * feature type.
 */
const LAYERS = {
  types: [],
  errors: ['types'],
  util: ['types', 'errors'],
  tool: ['types', 'errors', 'util'],
  auth: ['types', 'errors', 'util'],
  client: ['types', 'errors', 'util'],
  store: ['types', 'errors', 'util', 'tool', 'client'],
  observe: ['types', 'errors', 'util', 'tool'],
  protocol: ['types', 'errors', 'util', 'tool', 'store', 'observe', 'auth'],
  express: ['types', 'errors', 'util'],
  endpoint: ['types', 'errors', 'util', 'tool', 'store', 'observe', 'auth', 'protocol', 'express'],
  console: ['types', 'errors', 'util', 'tool', 'store', 'client', 'express'],
  metrics: ['types', 'errors', 'observe'],
  cli: ['types', 'errors', 'util', 'store'],
  adapters: ['types', 'errors', 'util'],
};
const layerRules = Object.entries(LAYERS).map(([layer, below]) => ({
  name: `layer-${layer}`,
  severity: 'error',
  comment: `src/${layer}/ imports only ${below.length ? below.map((name) => `src/${name}/`).join(', ') : 'itself'} and the root modules (docs/architecture.md).`,
  from: { path: `^src/${layer}/` },
  to: { path: '^src/[^/]+/', pathNot: [`^src/(${[layer, ...below].join('|')})/`] },
}));
const EXPRESS = '^node_modules/(@types/)?express(/|$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'every-folder-in-a-layer',
      severity: 'error',
      comment: 'A new folder of src/ takes its place among the layers (LAYERS above, docs/architecture.md).',
      from: { path: '^src/' },
      to: { path: `^src/(?!(${Object.keys(LAYERS).join('|')})/)[^/]+/` },
    },
    {
      name: 'adapters-are-entry-points',
      severity: 'error',
      comment:
        'Each adapter is an entry point of its own (package.json exports): nothing imports one, so the main entry never loads a framework.',
      from: { path: '^src/', pathNot: '^src/adapters/' },
      to: { path: '^src/adapters/' },
    },
    {
      name: 'nothing-imports-the-index',
      severity: 'error',
      comment: 'src/index.ts is the public surface; modules import what they need where it lives.',
      from: { path: '^src/' },
      to: { path: '^src/index\\.ts$' },
    },
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment: 'No folder imports one that imports it back, directly or round a loop.',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules import each other in one direction only.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'express-only-in-the-express-layer',
      severity: 'error',
      comment:
        'Below the Express layer the core speaks in plain headers and a plain request context, so it can be driven without HTTP.',
      from: { path: '^src/', pathNot: [EXPRESS_LAYER, '^src/index\\.ts$'] },
      to: { path: EXPRESS },
    },
    {
      name: 'core-does-not-reach-up',
      severity: 'error',
      comment: 'The protocol core, the tool and the stores never import the Express layer.',
      from: { path: '^src/', pathNot: [EXPRESS_LAYER, '^src/index\\.ts$'] },
      to: { path: EXPRESS_LAYER },
    },
    {
      name: 'console-and-endpoint-apart',
      severity: 'error',
      comment: 'The two routers share only src/express/; neither imports the other.',
      from: { path: '^src/(endpoint|console)/' },
      to: { path: '^src/(endpoint|console)/', pathNot: '^src/$1/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
  },
};
