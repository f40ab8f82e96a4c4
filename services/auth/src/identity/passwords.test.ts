import { dummyPasswordHash, hashPassword, verifyPassword } from './passwords';

describe('passwords', () => {
  it('stores scrypt with its parameters, a 16-byte salt and a 32-byte key', async () => {
    const stored = await hashPassword('correct horse battery staple');
    const [scheme, cost, blockSize, parallelism, salt, hash, ...rest] = stored.split('$');
    expect([scheme, cost, blockSize, parallelism]).toEqual(['scrypt', '32768', '8', '1']);
    expect(Buffer.from(salt ?? '', 'base64url')).toHaveLength(16);
    expect(Buffer.from(hash ?? '', 'base64url')).toHaveLength(32);
    expect(rest).toEqual([]);
    expect(stored).not.toContain('correct horse');
  });

  it('verifies the right password and refuses any other', async () => {
    const stored = await hashPassword('s3cret-Passw0rd');
    await expect(verifyPassword('s3cret-Passw0rd', stored)).resolves.toBe(true);
    await expect(verifyPassword('s3cret-passw0rd', stored)).resolves.toBe(false);
    await expect(verifyPassword('', stored)).resolves.toBe(false);
  });

  it('salts every hash', async () => {
    const [first, second] = await Promise.all([hashPassword('same password'), hashPassword('same password')]);
    expect(first).not.toBe(second);
  });

  it('verifies with the parameters written in the stored hash', async () => {
    // A hash made with cheaper parameters still verifies after the current cost changes.
    const { scryptSync } = await import('node:crypto');
    const salt = Buffer.from('0123456789abcdef');
    const key = scryptSync('older password', salt, 64, { N: 2 ** 12, r: 8, p: 1 });
    const stored = ['scrypt', 4096, 8, 1, salt.toString('base64url'), key.toString('base64url')].join('$');
    await expect(verifyPassword('older password', stored)).resolves.toBe(true);
    await expect(verifyPassword('other password', stored)).resolves.toBe(false);
  });

  it('never matches a malformed or oversized stored hash', async () => {
    const valid = await hashPassword('pw');
    const [, , , , salt, hash] = valid.split('$');
    for (const stored of [
      '',
      'plaintext',
      `bcrypt$32768$8$1$${salt}$${hash}`,
      `scrypt$1000$8$1$${salt}$${hash}`, // cost not a power of two
      `scrypt$${2 ** 24}$8$1$${salt}$${hash}`, // would need gigabytes
      `scrypt$32768$8$1$$${hash}`,
      `scrypt$32768$8$1$${salt}$${hash}$extra`,
    ]) {
      await expect(verifyPassword('pw', stored)).resolves.toBe(false);
    }
  });

  it('keeps one dummy hash per process that no password is likely to match', async () => {
    const dummy = await dummyPasswordHash();
    expect(await dummyPasswordHash()).toBe(dummy);
    expect(dummy.startsWith('scrypt$32768$8$1$')).toBe(true);
    await expect(verifyPassword('password', dummy)).resolves.toBe(false);
  });
});
