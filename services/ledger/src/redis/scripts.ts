import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from '@gateway/lib/redis';

/** A Lua script run by its SHA1 (EVALSHA), loaded on the first NOSCRIPT. */
export interface LuaScript {
  name: string;
  source: string;
  sha: string;
}

export function luaScript(name: string): LuaScript {
  const source = readFileSync(join(__dirname, '..', 'quota', 'lua', `${name}.lua`), 'utf8');
  return { name, source, sha: createHash('sha1').update(source).digest('hex') };
}

function isNoScript(error: unknown): boolean {
  return error instanceof Error && error.message.startsWith('NOSCRIPT');
}

export async function runScript(redis: Redis, script: LuaScript, keys: string[], args: Array<string | number>): Promise<unknown> {
  try {
    return await redis.evalsha(script.sha, keys.length, ...keys, ...args);
  } catch (error) {
    if (!isNoScript(error)) throw error;
    return redis.eval(script.source, keys.length, ...keys, ...args);
  }
}
