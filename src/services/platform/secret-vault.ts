import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { Database } from '../../storage/database';
import { StartupError } from '../../storage/migrator';
import {
  SECRET_COLUMNS,
  SecretRepository,
  type SecretColumn,
  type StoredSecretRow,
} from '../../storage/secret.repository';

/**
 * Secrets the service must read back (the callback signing secret: signing needs it) are stored
 * encrypted with AES-256-GCM under SECRETS_KEY. A stored value reads
 * `enc:v1:<key id>:<iv>:<tag>:<ciphertext>` (base64url parts); the key id is the first 8 hex
 * digits of sha256(key), so a wrong key is named before any decryption is tried. The account id is
 * the additional authenticated data: a ciphertext copied onto another account does not decrypt.
 * Values without the prefix are plaintext (stored before SECRETS_KEY was set).
 */
const PREFIX = 'enc:v1:';

export class SecretKeyError extends StartupError {}

/** SECRETS_KEY: 32 bytes as 64 hex digits or base64 (44 characters). Null when not a valid key. */
export function parseSecretsKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) {
    const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    if (bytes.length === 32) return bytes;
  }
  return null;
}

/** A fresh key in the form SECRETS_KEY takes (base64). */
export function generateSecretsKey(): string {
  return randomBytes(32).toString('base64');
}

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export function isEncrypted(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

export function encryptSecret(key: Buffer, plaintext: string, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context, 'utf8'));
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const parts = [iv, cipher.getAuthTag(), body].map((b) => b.toString('base64url'));
  return `${PREFIX}${keyIdOf(key)}:${parts.join(':')}`;
}

/** Throws SecretKeyError when the value was sealed under another key or was altered. */
export function decryptSecret(key: Buffer, stored: string, context: string): string {
  const [keyId, iv, tag, body] = stored.slice(PREFIX.length).split(':');
  if (keyId !== keyIdOf(key)) {
    throw new SecretKeyError(
      `SECRETS_KEY (key id ${keyIdOf(key)}) is not the key the stored secrets were encrypted with ` +
        `(key id ${keyId}): set the right SECRETS_KEY.`,
    );
  }
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv ?? '', 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(Buffer.from(tag ?? '', 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(body ?? '', 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  } catch {
    throw new SecretKeyError(
      `A stored secret (${context}) does not decrypt with SECRETS_KEY: it was altered.`,
    );
  }
}

type SecretRow = StoredSecretRow;

export interface VaultReport {
  /** Stored signing secrets (current and previous ones) kept encrypted (after this call). */
  encrypted: number;
  /** Plaintext secrets this call encrypted. */
  migrated: number;
  /** Plaintext secrets left as they are (no SECRETS_KEY). */
  plaintext: number;
}

/** Seals and opens the accounts' callback signing secrets; checks and migrates them at start-up. */
export class SecretVault {
  private readonly secrets: SecretRepository;

  constructor(
    private readonly db: Database,
    private readonly key: Buffer | null,
  ) {
    this.secrets = new SecretRepository(db);
  }

  get keyId(): string | null {
    return this.key ? keyIdOf(this.key) : null;
  }

  /** `column` names the secret (current or previous): each is sealed to its own place. */
  sealSigningSecret(accountId: number, secret: string, column: SecretColumn = 'signing_secret'): string {
    return this.key ? encryptSecret(this.key, secret, contextOf(accountId, column)) : secret;
  }

  openSigningSecret(
    accountId: number,
    stored: string | null,
    column: SecretColumn = 'signing_secret',
  ): string | null {
    if (stored === null || !isEncrypted(stored)) return stored;
    if (!this.key) throw missingKey(1);
    return decryptSecret(this.key, stored, contextOf(accountId, column));
  }

  /**
   * At start-up: refuses (SecretKeyError) when encrypted secrets exist and SECRETS_KEY is missing or
   * does not decrypt every one of them; with a key, encrypts the plaintext secrets left from before
   * (compare-and-set per row, so processes starting together do it once).
   */
  async prepare(): Promise<VaultReport> {
    const rows = await this.rows();
    const stored = rows.flatMap((row) =>
      SECRET_COLUMNS.filter((c) => row[c] !== null).map((c) => ({ row, c })),
    );
    const encrypted = stored.filter(({ row, c }) => isEncrypted(row[c]!));
    const plaintext = stored.length - encrypted.length;
    if (encrypted.length > 0 && !this.key) throw missingKey(encrypted.length);
    for (const { row, c } of encrypted) this.openSigningSecret(row.id, row[c], c);
    if (!this.key) return { encrypted: 0, migrated: 0, plaintext };
    let migrated = 0;
    for (const row of rows) {
      const open = SECRET_COLUMNS.filter((c) => row[c] !== null && !isEncrypted(row[c]!));
      if (open.length === 0) continue;
      if ((await this.secrets.replaceSigningSecret(row, this.resealed(row, this))) > 0)
        migrated += open.length;
    }
    return { encrypted: stored.length, migrated, plaintext: 0 };
  }

  /** Re-encrypts every signing secret under `newKey` (plaintext ones too), in one transaction. */
  async rotate(newKey: Buffer): Promise<{ rotated: number; keyId: string }> {
    const rows = await this.rows();
    const next = new SecretVault(this.db, newKey);
    const sealed = rows.map((row) => ({ row, values: this.resealed(row, next) }));
    await this.secrets.replaceSigningSecrets(sealed);
    return { rotated: sealed.length, keyId: keyIdOf(newKey) };
  }

  /** `row`'s secrets opened with this vault's key and sealed with `target`'s. */
  private resealed(row: SecretRow, target: SecretVault): Omit<SecretRow, 'id'> {
    const reseal = (c: SecretColumn): string | null => {
      const open = this.openSigningSecret(row.id, row[c], c);
      return open === null ? null : target.sealSigningSecret(row.id, open, c);
    };
    return {
      signing_secret: reseal('signing_secret'),
      previous_signing_secret: reseal('previous_signing_secret'),
    };
  }

  private async rows(): Promise<SecretRow[]> {
    return this.secrets.signingSecrets();
  }
}

/** The AEAD context: a sealed value opens only on its own account and column. */
function contextOf(accountId: number, column: SecretColumn): string {
  return `account:${accountId}:${column}`;
}

function missingKey(count: number): SecretKeyError {
  return new SecretKeyError(
    `${count} callback signing secret(s) are stored encrypted but SECRETS_KEY is not set: ` +
      'set SECRETS_KEY to the key they were encrypted with.',
  );
}
