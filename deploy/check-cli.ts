import { join } from 'node:path';
import { checkDeploy, readDeployFiles } from './check';

/** `npx tsx deploy/check-cli.ts`: checks deploy/ against the services' code (the test suite runs the same check). */
const root = join(__dirname, '..');
const problems = checkDeploy(readDeployFiles(root), root);
if (problems.length > 0) {
  console.error(`deploy/ has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('deploy/: every check passed');
