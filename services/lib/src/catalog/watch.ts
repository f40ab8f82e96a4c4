import { unwatchFile, watchFile } from 'node:fs';
import type { Logger } from '../logging';
import { loadCatalog, type Catalog } from './catalog';

/**
 * How often the catalog file's status is read. Polling the status follows
 * symlinks, so it also sees a Kubernetes ConfigMap update (an atomic swap of
 * the directory the file links into), which change events on the file miss.
 */
const POLL_INTERVAL_MS = 1000;

/**
 * Re-reads the catalog file whenever it changes and hands it to `apply`
 * (which publishes what the service derives from it). A file that fails its
 * checks, or that `apply` refuses by throwing, is logged and ignored: what
 * is in force stays.
 */
export function watchCatalogFile(path: string, logger: Logger, apply: (catalog: Catalog) => void): () => void {
  const reload = () => {
    try {
      apply(loadCatalog(path));
    } catch (error) {
      logger.error({ err: error, path }, 'catalog change ignored: the file is invalid, what was published stays in force');
    }
  };
  watchFile(path, { interval: POLL_INTERVAL_MS, persistent: false }, (now, before) => {
    if (now.mtimeMs !== before.mtimeMs || now.size !== before.size || now.ino !== before.ino) reload();
  });
  return () => unwatchFile(path);
}
