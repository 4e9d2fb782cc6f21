/**
 * Where the desktop keeps the personal token of the studio farm it joined: behind one small seam,
 * so the shell is tested without Electron. The Electron implementation encrypts with safeStorage
 * (the OS keychain / DPAPI / libsecret key) into one file in userData and refuses to store the
 * token when encryption is not available — it is never written in plain text. The in-memory one
 * is for tests and for a session that must not persist anything.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';

export interface TokenStore {
  /** The stored token, or null when none is (or it can no longer be decrypted). */
  read(): string | null;
  /** Stores it, replacing the old one; throws with words for the operator when it cannot be kept safely. */
  write(token: string): void;
  clear(): void;
}

/** The part of Electron's safeStorage the store uses. */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

export const TOKEN_FILE = 'studio-token.bin';

export class SafeStorageTokenStore implements TokenStore {
  constructor(
    private readonly file: string,
    private readonly safe: SafeStorageLike,
  ) {}

  read(): string | null {
    if (!existsSync(this.file) || !this.safe.isEncryptionAvailable()) return null;
    try {
      const token = this.safe.decryptString(readFileSync(this.file));
      return token === '' ? null : token;
    } catch {
      // Encrypted under another user or machine key: as if none were stored (the operator joins again).
      return null;
    }
  }

  write(token: string): void {
    if (!this.safe.isEncryptionAvailable()) {
      throw new Error(
        'This computer offers no encrypted storage for the token (on Linux: a keyring such as GNOME Keyring or KWallet); it is not stored in plain text, so the studio farm cannot be remembered.',
      );
    }
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, this.safe.encryptString(token), { mode: 0o600 });
    renameSync(temp, this.file);
  }

  clear(): void {
    rmSync(this.file, { force: true });
  }
}

export class MemoryTokenStore implements TokenStore {
  constructor(private token: string | null = null) {}

  read(): string | null {
    return this.token;
  }

  write(token: string): void {
    this.token = token;
  }

  clear(): void {
    this.token = null;
  }
}
