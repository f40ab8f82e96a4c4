import { createHash } from 'node:crypto';

/** The simulator's own account of what reached it (GET /simulator/stats). */
export interface SimulatorStats {
  requests: { total: number; chatCompletions: number; byModel: Record<string, number>; byStatus: Record<string, number> };
  recentKeyFingerprints: string[];
}

export async function simulatorStats(simulatorUrl: string): Promise<SimulatorStats> {
  const response = await fetch(`${simulatorUrl}/simulator/stats`);
  if (!response.ok) throw new Error(`simulator stats answered ${response.status}`);
  return (await response.json()) as SimulatorStats;
}

/** How the simulator names a key it saw: the first 8 hex characters of its SHA-256. */
export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

/** A directive the simulator reads in the last user message (its README, "Failure injection"). */
export function simulatorDirective(settings: Record<string, string | number>): string {
  return `[simulator ${Object.entries(settings)
    .map(([knob, value]) => `${knob}=${value}`)
    .join(' ')}]`;
}
