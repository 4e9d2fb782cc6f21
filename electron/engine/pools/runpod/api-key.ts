/**
 * The RunPod API key: RUNPOD_API_KEY when set, else the `cloud.runpod_api_key` setting, stored
 * encrypted at rest (AES-256-GCM) with a 32-byte key kept in `<data>/runpod-key.bin`, mode 0600.
 * What that protects: a copy of shotfarm.sqlite alone (a backup, an export of the database, a
 * support bundle) does not reveal the key. What it does not: anyone who can read the data folder as
 * this user has both the database and the key file. The key is never logged, never put in an event,
 * an export or an API answer — the API only says whether one is set.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { ShotfarmError } from '../../../../shared/errors.js';
import type { Db } from '../../store/database.js';
import { deleteSetting, readSetting, writeSetting } from '../../store/settings-store.js';
import type { EngineEnv } from '../../engine-env.js';

const SETTING = 'cloud.runpod_api_key';
const KEY_FILE = 'runpod-key.bin';
const sealedSchema = z.strictObject({ iv: z.string(), tag: z.string(), data: z.string() });

function fileKey(dataDir: string, create: boolean): Buffer | null {
  const path = join(dataDir, KEY_FILE);
  if (!existsSync(path)) {
    if (!create) return null;
    writeFileSync(path, randomBytes(32), { mode: 0o600, flag: 'wx' });
  }
  chmodSync(path, 0o600);
  const key = readFileSync(path);
  if (key.length !== 32)
    throw new ShotfarmError(
      'storage',
      `${path} is not a Shotfarm key file (32 bytes); remove it and set the RunPod API key again`,
    );
  return key;
}

/** Stores the key encrypted (or removes it when `apiKey` is null). */
export function storeRunpodKey(db: Db, dataDir: string, apiKey: string | null, now: number): void {
  if (apiKey === null) return deleteSetting(db, SETTING);
  const key = fileKey(dataDir, true) as Buffer;
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', key, iv);
  const data = Buffer.concat([c.update(apiKey, 'utf8'), c.final()]);
  writeSetting(
    db,
    SETTING,
    { iv: iv.toString('base64'), tag: c.getAuthTag().toString('base64'), data: data.toString('base64') },
    now,
  );
}

function storedKey(db: Db, dataDir: string): string | null {
  const sealed = readSetting(db, SETTING, sealedSchema, {
    badJson: 'the stored RunPod API key is unreadable; set it again: shotfarm workers runpod-key',
    invalid: () => 'the stored RunPod API key is unreadable; set it again: shotfarm workers runpod-key',
  });
  if (!sealed) return null;
  const key = fileKey(dataDir, false);
  if (!key) return null;
  try {
    const d = createDecipheriv('aes-256-gcm', key, Buffer.from(sealed.iv, 'base64'));
    d.setAuthTag(Buffer.from(sealed.tag, 'base64'));
    return Buffer.concat([d.update(Buffer.from(sealed.data, 'base64')), d.final()]).toString('utf8');
  } catch {
    return null;
  }
}

/** The key in force: the environment's, else the stored one; null when neither. */
export function runpodKey(db: Db, dataDir: string, env: EngineEnv): string | null {
  const fromEnv = env.RUNPOD_API_KEY?.trim();
  return fromEnv ? fromEnv : storedKey(db, dataDir);
}

/** Where the key comes from, for the API (never the key itself). */
export function runpodKeySource(db: Db, dataDir: string, env: EngineEnv): 'environment' | 'stored' | 'none' {
  if (env.RUNPOD_API_KEY?.trim()) return 'environment';
  return storedKey(db, dataDir) ? 'stored' : 'none';
}
