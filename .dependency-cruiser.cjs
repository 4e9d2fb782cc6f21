/**
 * Import zones (conventions.md "The house"), checked by `npm test` (test/architecture.test.ts):
 *   shared            → nothing else in the repo
 *   electron/engine   → shared + Node (never electron, never the DOM/renderer, never a host)
 *     engine/hosting  what every host needs alike (event batching for the wire, export-path
 *                     confinement); the hosts share through it, never through each other
 *     engine/pools    the kinds of workstation behind the WorkerPool seam (comfy-lan: the LAN
 *                     ComfyUI servers; runpod: the RunPod endpoints) and what they share
 *                     (attempt/); called by the scheduler, never importing it: the LAN pool is
 *                     given the scheduler's dispatch policy as a function (LanPolicy)
 *     engine/views    a job's view and why a job waits (the read model): used by the announcer, the
 *                     handlers and the CLI with no farm running, so never the scheduler's running
 *                     parts — only the pure dispatch policy it shares with them
 *     engine/store/postgres/bridge-worker.ts  the only module that imports `pg` (a worker started
 *                     only for a PostgreSQL store)
 *     engine/store/, engine/lock/engine-lock.ts  the only modules that import `better-sqlite3` (the
 *                     SQLite adapter, and the data folder's lock file, which is a SQLite file)
 *   electron/server, electron/cli → engine + shared (never the desktop shell)
 *   electron/main, electron/preload → engine + shared + each other (never the server or the CLI)
 *   renderer          → shared only
 *     renderer/lib    pure helpers (formatting, policies, paths): never the store, so they stay
 *                     testable without one; a hook that reads the store lives in renderer/store
 */
const rule = (name, comment, from, to) => ({ name, comment, severity: 'error', from, to });

module.exports = {
  forbidden: [
    rule(
      'shared-imports-nothing',
      'shared/ is the contract: it may import only npm packages and itself.',
      { path: '^shared/' },
      { path: '^(electron|renderer|test)/' },
    ),
    rule(
      'engine-no-electron',
      'The engine is plain Node: no electron, no renderer, no hosts.',
      { path: '^electron/engine/' },
      { path: '^(renderer/|electron/(main|preload|server|cli)/|test/)|^electron$|node_modules/electron/' },
    ),
    rule(
      'hosts-no-shell',
      'The headless server and the CLI use the engine and shared only, never the Electron shell.',
      { path: '^electron/(server|cli)/', pathNot: '^electron/server/demo-farm\\.ts$' },
      { path: '^(renderer/|electron/(main|preload)/|test/)|node_modules/electron/' },
    ),
    rule(
      'desktop-not-server',
      'The desktop shell does not borrow from the headless server or the CLI: what both hosts need is in electron/engine/hosting.',
      { path: '^electron/(main|preload)/' },
      { path: '^electron/(server|cli)/' },
    ),
    rule(
      'demo-farm-uses-only-the-simulator',
      'serve --demo starts the ComfyUI simulator (a real program kept in test/simulator); nothing else of test/.',
      { path: '^electron/server/demo-farm\\.ts$' },
      { path: '^(renderer/|electron/(main|preload)/|test/(?!simulator/))|node_modules/electron/' },
    ),
    rule(
      'renderer-shared-only',
      'The renderer talks to the engine only through the contract.',
      { path: '^renderer/' },
      { path: '^(electron|test)/|node_modules/(electron|better-sqlite3|undici|ws)/' },
    ),
    rule(
      'renderer-lib-pure',
      'renderer/lib/ holds pure helpers: a hook that reads the store belongs in renderer/store/.',
      { path: '^renderer/lib/' },
      { path: '^renderer/store/' },
    ),
    rule(
      'no-node-builtins-in-renderer-or-shared',
      'The renderer runs in a page, and shared/ is loaded by it.',
      { path: '^(renderer|shared)/' },
      { dependencyTypes: ['core'] },
    ),
    rule(
      'pools-below-scheduler',
      'A pool (pools/: a kind of workstation, and the attempt pieces every kind shares) is called by the scheduler through the WorkerPool seam and never reaches back into scheduler/.',
      { path: '^electron/engine/pools/' },
      { path: '^electron/engine/scheduler/' },
    ),
    rule(
      'views-not-scheduler-runtime',
      "engine/views/ (a job's view, why it waits) is read with no farm running: it may use the scheduler's pure policy (policy, fair-share, capability answers and checks), never its running parts (the scheduler, the registry, runners, reservations…); the farm gives its facts through FarmFacts.",
      { path: '^electron/engine/views/' },
      {
        path: '^electron/engine/scheduler/',
        pathNot: '^electron/engine/scheduler/(policy|fair-share|capability-answers|capability-check|vram-need)\\.ts$',
      },
    ),
    rule(
      'pg-only-in-the-bridge-worker',
      "The PostgreSQL driver is loaded only by the PostgreSQL store's worker thread (store/postgres/bridge-worker.ts), which starts only for a database URL: a farm on SQLite never loads it.",
      { path: '^(shared|electron|renderer)/', pathNot: '^electron/engine/store/postgres/bridge-worker\\.ts$' },
      { path: 'node_modules/(pg|pg-[a-z-]+)/' },
    ),
    rule(
      'better-sqlite3-only-in-the-store',
      "The SQLite driver is loaded only by the store's modules (electron/engine/store/) and the data folder's lock (lock/engine-lock.ts, itself a SQLite file): anything else reaching the database directly would run on SQLite only, not through the store port both stores answer.",
      { path: '^(shared|electron|renderer)/', pathNot: '^electron/engine/(store/|lock/engine-lock\\.ts$)' },
      { path: 'node_modules/better-sqlite3/' },
    ),
    rule(
      'no-circular',
      'A cycle makes load order matter and hides which module owns what.',
      { path: '^(shared|electron|renderer)/' },
      { circular: true },
    ),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // node_modules is not followed but stays visible, so rules can forbid packages (electron…).
    exclude: { path: '(^|/)dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
