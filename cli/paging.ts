import { integerFlag } from './args.js';
import { DEFAULT_PAGE_BOUNDS } from '../src/reads/page-limit.js';

/** parseArgs definition of `--page-size`, shared by the commands that read the whole prefix. */
export const pagingOptions = { 'page-size': { type: 'string' } } as const;

export const PAGING_HELP = `  --page-size N      most leases per etcd request (default ${DEFAULT_PAGE_BOUNDS.maxKeys}). Pages also adapt to
                     stay near 1 MiB, so memory stays flat whatever the prefix holds, and all are
                     read at one revision: the listing is a snapshot. --timeout applies to each page.`;

/** Most keys per page, from `--page-size`. */
export function pageSize(command: string, value: string | undefined): number {
  return integerFlag(command, 'page-size', value, DEFAULT_PAGE_BOUNDS.maxKeys, 1, 10_000);
}
