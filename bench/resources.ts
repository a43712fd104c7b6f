import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { processCpuSeconds, watchPeakRss } from './child.ts';

/** A process whose CPU and memory a scenario reports. */
export interface WatchedProcess {
  label: string;
  pid: number;
}

export interface ProcessUse {
  label: string;
  cpuSeconds: number;
  peakRss: number | undefined;
}

/**
 * CPU seconds (user + system, /proc/<pid>/stat) and peak RSS of the stack's processes over a scenario,
 * and the CPU of the PostgreSQL backends serving `databases` (those connected at the end; a backend
 * that started meanwhile counts from its start, one that ended is missed). Start before the scenario,
 * stop after it (and after its work has drained).
 */
export async function watchResources(
  processes: WatchedProcess[],
  postgres: { db: Database; databases: string[] },
): Promise<{ stop(): Promise<ProcessUse[]> }> {
  const backends = async () => {
    const names = sql.join(
      postgres.databases.map((name) => sql`${name}`),
      sql`, `,
    );
    const answer: unknown = await postgres.db.execute(
      sql`select pid from pg_stat_activity where datname in (${names}) and pid <> pg_backend_pid()`,
    );
    // postgres.js answers the rows as an array (PGlite as { rows }: not a bench database).
    const rows = (Array.isArray(answer) ? answer : []) as { pid: number }[];
    return rows.map((row) => Number(row.pid));
  };
  const cpuOf = (pids: number[]) => {
    const seconds = new Map<number, number>();
    for (const pid of pids) {
      const cpu = processCpuSeconds(pid);
      if (cpu !== undefined) seconds.set(pid, cpu);
    }
    return seconds;
  };
  const before = cpuOf(processes.map((each) => each.pid));
  const backendsBefore = cpuOf(await backends());
  const peaks = processes.map((each) => watchPeakRss(each.pid));
  return {
    async stop() {
      const after = cpuOf(processes.map((each) => each.pid));
      const backendsAfter = cpuOf(await backends());
      const uses = processes.map((each, index) => ({
        label: each.label,
        cpuSeconds: (after.get(each.pid) ?? 0) - (before.get(each.pid) ?? 0),
        peakRss: peaks[index]?.stop(),
      }));
      let postgresCpu = 0;
      for (const [pid, cpu] of backendsAfter) postgresCpu += cpu - (backendsBefore.get(pid) ?? 0);
      uses.push({
        label: `PostgreSQL (${backendsAfter.size} backends of ${postgres.databases.length === 1 ? 'the stack database' : 'the stack and Temporal databases'})`,
        cpuSeconds: postgresCpu,
        peakRss: undefined,
      });
      return uses;
    },
  };
}

/**
 * CPU seconds per `per` units of work (1,000 messages, one loan) over a watched run: in all, and by
 * process as one line ("stack 9.1, Temporal server 3.0, PostgreSQL (…) 1.2").
 */
export function cpuPer(
  used: ProcessUse[],
  units: number,
  { per = 1, digits = 2 }: { per?: number; digits?: number } = {},
): { total: number; byProcess: string } {
  const share = (seconds: number) => (units > 0 ? (seconds * per) / units : Number.NaN);
  return {
    total: share(used.reduce((sum, each) => sum + each.cpuSeconds, 0)),
    byProcess: used.map((each) => `${each.label} ${share(each.cpuSeconds).toFixed(digits)}`).join(', '),
  };
}
