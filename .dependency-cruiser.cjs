/**
 * The architecture rules of `src/` (docs/http-contract.md, "How the code is laid out"), checked by
 * `npm run lint`. Type-only imports count: a layer that must not know Express must not name its types.
 */
// The tool provider console (`src/providers/console*.ts`) is a console router too.
const EXPRESS_LAYER = '^src/((endpoint|console|express)/|providers/console)';
const EXPRESS = '^node_modules/(@types/)?express(/|$)';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
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
      name: 'errors-at-the-bottom',
      severity: 'error',
      comment:
        'The error vocabulary is a bottom layer every folder may import: it imports only the public types.',
      from: { path: '^src/errors/' },
      to: { path: '^src/', pathNot: ['^src/errors/', '^src/types\\.ts$'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'Modules import each other in one direction only.',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'tool-and-store-below-protocol',
      severity: 'error',
      comment: 'The tool and the stores know nothing of JSON-RPC or the protocol eras.',
      from: { path: '^src/(tool|store)/' },
      to: { path: '^src/protocol/' },
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
