// Loaded into every test file's process by run-tests.mjs (`--import`). When a file's process has
// nothing left to do — the loop is empty, the test runner's own 'beforeExit' work is done — it
// ends through process.exit() instead of Node's natural teardown. Twice in ~6 CI runs a file whose
// every test had passed spun at full CPU inside that teardown (Environment::CleanupHandles →
// uv_run, seen with perf; no socket, timer or child of ours open) until the 300 s timeout failed
// it. process.exit() skips that clean-up; it changes nothing else, as it runs only when the
// process was about to end anyway (stdout and stderr are pipes or files: written synchronously).
const sorted = () =>
  process
    .getActiveResourcesInfo()
    .filter((r) => r !== 'Immediate')
    .sort()
    .join(',');

process.on('beforeExit', () => {
  // What is listed while the loop is empty (the stdio pipes) does not keep the process up.
  const idle = sorted();
  // After this emission's other listeners (the test runner settles its report in one): if one of
  // them started something, 'beforeExit' comes again once it is done.
  setImmediate(() => {
    if (sorted() === idle) process.exit();
  });
});
