/**
 * The architecture rules of `src/` (docs/architecture.md), checked by
 * `npm run lint`. Type-only imports count: a layer that must not know Express must not name its types.
 */
const EXPRESS_LAYER = '^src/(endpoint|console|express)/';

/**
 * The layers of `src/`, bottom first, and the folders each may import besides its own
 * (docs/architecture.md). `types.ts` and `versions.ts` sit beside them: every layer may import
 * the public types, which import no folder; `versions.ts` imports only the tool's feature type.
 */
const LAYERS = {
  errors: [],
  util: ['errors'],
  tool: ['errors', 'util'],
  auth: ['errors', 'util'],
  client: ['errors', 'util'],
  store: ['errors', 'util', 'tool', 'client'],
  observe: ['errors', 'util', 'tool'],
  protocol: ['errors', 'util', 'tool', 'store', 'observe', 'auth'],
  express: ['errors', 'util'],
  endpoint: ['errors', 'util', 'tool', 'store', 'observe', 'auth', 'protocol', 'express'],
  console: ['errors', 'util', 'tool', 'store', 'client', 'express'],
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
      name: 'types-import-no-folder',
      severity: 'error',
      comment:
        'The public types are the floor of the house: every folder may import them, so they import none.',
      from: { path: '^src/types\\.ts$' },
      to: { path: '^src/[^/]+/' },
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
