/**
 * The environment variables the engine heeds, as its host read them: the hosts (the desktop app's
 * engine process, `serve`, `run`, the CLI's direct commands) read `process.env` once and pass it in
 * through EngineOptions; nothing under electron/engine reads `process.env` itself
 * (test/architecture-engine-env.test.ts), so a test or an embedding gives the engine exactly the
 * environment it means. What is read from it: RUNPOD_API_KEY (pools/runpod/api-key.ts), the AWS_*
 * variables for S3 uploads (storage/s3-settings.ts) and the environment command hooks run in.
 */
export type EngineEnv = Readonly<Record<string, string | undefined>>;

/** No variables at all: what an engine is given when its host passes none (tests, one-off tools). */
export const NO_ENV: EngineEnv = Object.freeze({});
