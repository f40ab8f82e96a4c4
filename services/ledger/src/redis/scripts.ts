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

const luaSource = (name: string) => readFileSync(join(__dirname, '..', 'quota', 'lua', `${name}.lua`), 'utf8');

/** The script, after the shared files it uses (their functions, one copy of each rule for every script). */
export function luaScript(name: string, prelude: string[] = []): LuaScript {
  const source = [...prelude, name].map(luaSource).join('\n');
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
