import { readResults, RESULTS_PATH, TABLE_PATH, writeTable } from './results';

/**
 * Rewrites the table in docs/compatibility.md from the results the
 * compatibility suite last wrote (.tmp/compat-results.json). Run the suite
 * first (npx jest test/compat); the suite fails while the committed table
 * differs from its results.
 */
writeTable(readResults());
console.log(`${TABLE_PATH} rewritten from ${RESULTS_PATH}`);
