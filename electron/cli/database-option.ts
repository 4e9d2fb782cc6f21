/**
 * Which store a command's engine opens: `--database URL` (every command takes it), else
 * SHOTFARM_DATABASE_URL from this process's environment, else none — the data folder's SQLite
 * file. The CLI reads the environment here and passes the URL in: the engine reads none itself.
 */
export const DATABASE_ENV = 'SHOTFARM_DATABASE_URL';

export function databaseUrlOf(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const url = given ?? env[DATABASE_ENV];
  return url === undefined || url.trim() === '' ? undefined : url;
}
