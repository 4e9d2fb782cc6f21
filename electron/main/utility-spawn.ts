/**
 * Makes engine children as Electron utility processes (a Node.js process started by Chromium's
 * service API, with a message port to us). The only Electron-specific part of hosting the engine.
 */
import { utilityProcess } from 'electron';
import type { EngineChild, SpawnEngine } from './engine-host.js';

export interface UtilitySpawnOptions {
  entry: string;
  dataDir: string;
  outputRoot?: string;
  /** The Electron build of better-sqlite3 (node_modules' own is built for Node). */
  nativeBinding?: string;
  log: (m: string) => void;
}

export function utilitySpawner(o: UtilitySpawnOptions): SpawnEngine {
  // The output folder is passed explicitly: the main process serves thumbnails only from inside it.
  const args = [
    '--data',
    o.dataDir,
    ...(o.outputRoot ? ['--outputs', o.outputRoot] : []),
    ...(o.nativeBinding ? ['--native-binding', o.nativeBinding] : []),
  ];
  return () => {
    const child = utilityProcess.fork(o.entry, args, {
      serviceName: 'Shotfarm engine',
      stdio: 'inherit',
      env: { ...process.env, SHOTFARM_DATA: o.dataDir },
    });
    child.on('error', (type, location) => o.log(`engine process error ${type} at ${location}`));
    const adapted: EngineChild = {
      postMessage: (m) => child.postMessage(m),
      kill: () => child.kill(),
      on: (event: 'message' | 'exit', listener: (arg: never) => void) =>
        child.on(event as 'exit', listener as (code: number) => void),
    };
    return adapted;
  };
}
