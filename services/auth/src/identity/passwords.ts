import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

/**
 * Password hashing with scrypt (node:crypto). The stored string describes its
 * own parameters, `scrypt$N$r$p$salt$hash` (salt and hash in base64url), so
 * the cost can be raised later without invalidating existing hashes.
 */
const CURRENT = { N: 2 ** 15, r: 8, p: 1 };
/** Longer inputs are refused before hashing: nobody types them, and they only cost CPU. */
export const MAX_PASSWORD_LENGTH = 1024;
const SALT_BYTES = 16;
const KEY_BYTES = 32;
/** Bounds on the parameters read back from a stored hash, so a corrupt row cannot exhaust memory or CPU. */
const MAX_MEMORY_BYTES = 256 * 1024 * 1024;
const MAX_PARALLELISM = 16;

/** What scrypt allocates for these parameters (node documents it as about 128 * N * r). */
function memoryFor({ N, r }: { N: number; r: number }): number {
  return 128 * N * r;
}

interface ParsedHash {
  params: { N: number; r: number; p: number };
  salt: Buffer;
  hash: Buffer;
}

function derive(password: string, salt: Buffer, { N, r, p }: ParsedHash['params'], length: number): Promise<Buffer> {
  // Node's default ceiling (32 MiB) is exactly the need at N=2^15, r=8, so it is raised with headroom.
  const options: ScryptOptions = { N, r, p, maxmem: 2 * memoryFor({ N, r }) };
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, CURRENT, KEY_BYTES);
  return ['scrypt', CURRENT.N, CURRENT.r, CURRENT.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

function parseHash(stored: string): ParsedHash | undefined {
  const [scheme, cost, blockSize, parallelism, salt, hash, ...rest] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || hash === undefined || rest.length > 0) return undefined;
  const [N, r, p] = [cost, blockSize, parallelism].map(Number) as [number, number, number];
  const powerOfTwo = N > 1 && Number.isInteger(Math.log2(N));
  const inBounds = Number.isInteger(r) && r >= 1 && Number.isInteger(p) && p >= 1 && p <= MAX_PARALLELISM;
  if (!powerOfTwo || !inBounds || memoryFor({ N, r }) > MAX_MEMORY_BYTES) return undefined;
  const parsed = { params: { N, r, p }, salt: Buffer.from(salt, 'base64url'), hash: Buffer.from(hash, 'base64url') };
  return parsed.salt.length > 0 && parsed.hash.length > 0 ? parsed : undefined;
}

/** True when `password` matches `stored`. A malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parsed = parseHash(stored);
  if (!parsed) return false;
  const candidate = await derive(password, parsed.salt, parsed.params, parsed.hash.length);
  return timingSafeEqual(candidate, parsed.hash);
}

let dummyHash: Promise<string> | undefined;

/**
 * A hash of a random password, made once per process with the current
 * parameters. A login for an unknown email verifies against it, so it costs
 * the same scrypt work as a wrong password and timing reveals no accounts.
 */
export function dummyPasswordHash(): Promise<string> {
  dummyHash ??= hashPassword(randomBytes(32).toString('hex'));
  return dummyHash;
}
