// Public entry of the ComfyUI simulator (see README.md beside this file).

export type { DurationOptions, SimInstanceOptions } from './options.js';
export type { SimInstance } from './instance.js';
export type { Counts } from './core.js';
export type { FarmOptions, SimFarm } from './farm.js';
export { startSimInstance } from './instance.js';
export { startSimFarm } from './farm.js';
export { BEHAVIOUR_WORDS, parseWord } from './script.js';
