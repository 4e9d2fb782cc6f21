export * from './api.js';
export * from './domain.js';
export * from './errors.js';
export * from './events.js';
export * from './job-states.js';
export * from './priorities.js';
export * from './shot-list-schema.js';
