/**
 * Import zones (conventions.md "The house"), checked by `npm test` (test/architecture.test.ts):
 *   shared            → nothing else in the repo
 *   electron/engine   → shared + Node (never electron, never the DOM/renderer)
 *   electron/server, electron/cli → engine + shared
 *   electron/main, electron/preload → anything in electron/ and shared
 *   renderer          → shared only
 */
module.exports = {
  forbidden: [
    {
      name: 'shared-imports-nothing',
      comment: 'shared/ is the contract: it may import only npm packages and itself.',
      severity: 'error',
      from: { path: '^shared/' },
      to: { path: '^(electron|renderer|test)/' },
    },
    {
      name: 'engine-no-electron',
      comment: 'The engine is plain Node: no electron, no renderer, no hosts.',
      severity: 'error',
      from: { path: '^electron/engine/' },
      to: { path: '^(renderer/|electron/(main|preload|server|cli)/|test/)|^electron$|node_modules/electron/' },
    },
    {
      name: 'hosts-no-shell',
      comment: 'The headless server and the CLI use the engine and shared only, never the Electron shell.',
      severity: 'error',
      from: { path: '^electron/(server|cli)/', pathNot: '^electron/server/demo-farm\\.ts$' },
      to: { path: '^(renderer/|electron/(main|preload)/|test/)|node_modules/electron/' },
    },
    {
      name: 'demo-farm-uses-only-the-simulator',
      comment: 'serve --demo starts the ComfyUI simulator (a real program kept in test/simulator); nothing else of test/.',
      severity: 'error',
      from: { path: '^electron/server/demo-farm\\.ts$' },
      to: { path: '^(renderer/|electron/(main|preload)/|test/(?!simulator/))|node_modules/electron/' },
    },
    {
      name: 'renderer-shared-only',
      comment: 'The renderer talks to the engine only through the contract.',
      severity: 'error',
      from: { path: '^renderer/' },
      to: { path: '^(electron|test)/|node_modules/(electron|better-sqlite3|undici|ws)/' },
    },
    {
      name: 'no-node-builtins-in-renderer-or-shared',
      severity: 'error',
      from: { path: '^(renderer|shared)/' },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'no-circular',
      severity: 'error',
      from: { path: '^(shared|electron|renderer)/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not followed but stays visible, so rules can forbid packages (electron…).
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'] },
  },
};
