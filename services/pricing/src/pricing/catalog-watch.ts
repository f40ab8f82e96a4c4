import { unwatchFile, watchFile } from 'node:fs';
import { loadCatalog } from '@gateway/lib/catalog';
import type { Logger } from '@gateway/lib/logging';
import type { PriceListSource } from './price-list';

/**
 * How often the catalog file's status is read. Polling the status follows
 * symlinks, so it also sees a Kubernetes ConfigMap update (an atomic swap of
 * the directory the file links into), which change events on the file miss.
 */
const POLL_INTERVAL_MS = 1000;

/**
 * Re-reads the catalog file whenever it changes and publishes its prices. A
 * file that fails its checks is logged and ignored: the list in force stays.
 */
export function watchCatalogFile(path: string, source: PriceListSource, logger: Logger): () => void {
  const reload = () => {
    try {
      if (source.replace(loadCatalog(path))) logger.info({ price_list: source.current().book.version }, 'price list published');
    } catch (error) {
      logger.error({ err: error, path }, 'catalog change ignored: the file is invalid, prices stay as they were');
    }
  };
  watchFile(path, { interval: POLL_INTERVAL_MS, persistent: false }, (now, before) => {
    if (now.mtimeMs !== before.mtimeMs || now.size !== before.size || now.ino !== before.ino) reload();
  });
  return () => unwatchFile(path);
}
