import { createHash } from 'node:crypto';

/**
 * What the simulator saw, for tests to assert on (GET /simulator/stats): which
 * models were asked for, how many TCP connections were opened (keep-alive
 * reuse), and which credentials were used, as fingerprints (first 8 hex
 * characters of the key's SHA-256), never the key itself.
 */
export interface SimulatorStats {
  requests: { total: number; chatCompletions: number; byModel: Record<string, number>; byStatus: Record<string, number> };
  connections: { opened: number; open: number };
  /** Fingerprints of the last 20 keys seen on chat requests, oldest first. */
  recentKeyFingerprints: string[];
}

const RECENT_KEYS = 20;

export function keyFingerprint(key: string): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 8);
}

export class StatsRecorder {
  private total = 0;
  private chatCompletions = 0;
  private readonly byModel = new Map<string, number>();
  private readonly byStatus = new Map<number, number>();
  private opened = 0;
  private open = 0;
  private readonly recentKeys: string[] = [];

  request(): void {
    this.total += 1;
  }

  chatCompletion(model: string, apiKey: string): void {
    this.chatCompletions += 1;
    this.byModel.set(model, (this.byModel.get(model) ?? 0) + 1);
    this.recentKeys.push(keyFingerprint(apiKey));
    if (this.recentKeys.length > RECENT_KEYS) this.recentKeys.shift();
  }

  status(status: number): void {
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
  }

  connectionOpened(): void {
    this.opened += 1;
    this.open += 1;
  }

  connectionClosed(): void {
    this.open -= 1;
  }

  snapshot(): SimulatorStats {
    return {
      requests: {
        total: this.total,
        chatCompletions: this.chatCompletions,
        byModel: Object.fromEntries(this.byModel),
        byStatus: Object.fromEntries([...this.byStatus].map(([status, count]) => [String(status), count])),
      },
      connections: { opened: this.opened, open: this.open },
      recentKeyFingerprints: [...this.recentKeys],
    };
  }
}
