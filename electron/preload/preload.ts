/**
 * The preload of the app window. Runs sandboxed and context-isolated: it is bundled into one
 * CommonJS file (vite.config.ts here) because a sandboxed preload can require only `electron` and
 * a few built-ins, and cannot load ES modules.
 */
import { contextBridge, ipcRenderer } from 'electron';
import { exposeBridge } from './bridge.js';

exposeBridge(contextBridge, ipcRenderer);
