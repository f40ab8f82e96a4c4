/**
 * CPU time from /proc (Linux): what one process has used (user + system),
 * and how busy the whole machine was over a window. The benchmarks divide
 * these by the requests of the window to get CPU per request.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';

/** Length of one clock tick in ms (`getconf CLK_TCK`, 100 on every Linux we run). */
const TICK_MS = 1000 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100);

/** CPU time (user + system, ms) a process has used; undefined once it has gone. */
export function processCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
  const fields = stat.slice(stat.lastIndexOf(') ') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

/** Busy and total CPU time of the whole machine (all cores, ms) since boot. */
function machineCpuMs(): { busy: number; total: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user).
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = fields;
  const busy = user + nice + system + irq + softirq + steal;
  return { busy: busy * TICK_MS, total: (busy + idle + iowait) * TICK_MS };
}

export interface CpuReading {
  /** CPU ms each named process used over the window (a process that ended counts what it used until its last reading). */
  processes: Record<string, number>;
  /** Busy CPU ms of the whole machine, all cores. */
  machineBusyMs: number;
  /** CPU ms the machine had over the window, all cores (busy and idle). */
  machineTotalMs: number;
  /** How busy the machine was: busy / total over the window, 0..1 (1 = every core busy). */
  machineBusy: number;
  /** Load average (1 min) at the start of the window. */
  loadAverage: number;
  /** Cores of the machine. */
  cores: number;
}

/**
 * Starts a window over named processes: `stop()` says what each used since,
 * and how busy the machine was. A name maps to one or more pids (the
 * Postgres backends of a database are several).
 */
export function cpuWindow(pids: Record<string, readonly number[]>): { stop(): CpuReading } {
  const sum = (list: readonly number[], read: (pid: number) => number | undefined) =>
    list.reduce((total, pid) => total + (read(pid) ?? 0), 0);
  const before = new Map<number, number>();
  for (const list of Object.values(pids)) for (const pid of list) before.set(pid, processCpuMs(pid) ?? 0);
  const machineBefore = machineCpuMs();
  const loadAverage = loadavg()[0] ?? 0;
  return {
    stop: () => {
      const processes: Record<string, number> = {};
      for (const [name, list] of Object.entries(pids)) {
        processes[name] = sum(list, (pid) => {
          const now = processCpuMs(pid);
          return now === undefined ? 0 : now - (before.get(pid) ?? 0);
        });
      }
      const machine = machineCpuMs();
      const busy = machine.busy - machineBefore.busy;
      const total = machine.total - machineBefore.total;
      return { processes, machineBusyMs: busy, machineTotalMs: total, machineBusy: total > 0 ? busy / total : 0, loadAverage, cores: cpus().length };
    },
  };
}
