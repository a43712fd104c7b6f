import { mkdir, readdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { collect, StatementConflict } from '../../application/collect/index.ts';
import type { UseCaseDeps } from '../../application/shared/deps.ts';
import { StatementDocumentError } from '../../domain/collect/statement.ts';

/**
 * The watched statement folder (COLLECT_STATEMENT_DIR): every `*.xml` file dropped there is imported
 * and moved to `processed/`, or to `failed/` with a `.error.txt` beside it when the document is
 * refused. A file is taken once it has not changed for a poll interval (so one still being copied is
 * left alone; writing it under another name and renaming it is best). Importing is idempotent by the
 * statement's identity, so a file seen twice (two workers, a crash before the move) changes nothing.
 */
export function watchStatementFolder(
  deps: UseCaseDeps,
  options: { dir: string; intervalMs: number },
): { stop(): Promise<void> } {
  const { dir, intervalMs } = options;
  const logger = deps.logger.child({ component: 'statement-folder' });
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  async function move(file: string, folder: 'processed' | 'failed'): Promise<string> {
    await mkdir(path.join(dir, folder), { recursive: true });
    const target = path.join(dir, folder, file);
    await rename(path.join(dir, file), target);
    return target;
  }

  async function importFile(file: string): Promise<void> {
    const full = path.join(dir, file);
    // Bytes: the document is decoded as its XML declaration says (ISO-8859-1, windows-1252, UTF-8).
    const xml = await readFile(full);
    try {
      const statements = await collect.importStatement(deps, { xml, origin: 'folder', fileName: file });
      await move(file, 'processed');
      logger.info({ file, statements: statements.map((s) => s.statementId) }, 'statement file imported');
    } catch (error) {
      if (!(error instanceof StatementDocumentError || error instanceof StatementConflict)) throw error;
      const target = await move(file, 'failed');
      await writeFile(`${target}.error.txt`, `${error.message}\n`);
      logger.warn({ file, err: error.message }, 'statement file refused');
    }
  }

  async function scan(): Promise<void> {
    const entries = await readdir(dir, { withFileTypes: true }).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    });
    for (const entry of entries) {
      if (stopped) return;
      if (!entry.isFile() || !entry.name.toLowerCase().endsWith('.xml')) continue;
      const info = await stat(path.join(dir, entry.name)).catch(() => undefined);
      if (!info || Date.now() - info.mtimeMs < intervalMs) continue;
      try {
        await importFile(entry.name);
      } catch (error) {
        // The database or Temporal is away: the file stays and is tried at the next poll.
        logger.error({ file: entry.name, err: error }, 'statement file not imported; retrying later');
      }
    }
  }

  const tick = () => {
    running = scan()
      .catch((error) => logger.error({ err: error }, 'statement folder scan failed'))
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, intervalMs);
      });
  };
  tick();
  logger.info({ dir }, 'watching the statement folder');

  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
