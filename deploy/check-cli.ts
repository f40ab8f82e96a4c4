import { join } from 'node:path';
import { checkDeploy, readDeployFiles, SERVICES } from './check';
import { checkOverlays } from './overlays-check';
import { checkSkaffold } from './skaffold-check';
import { readFileSync, existsSync } from 'node:fs';

/** `npx tsx deploy/check-cli.ts`: checks deploy/ and skaffold.yaml against the services' code (the test suite runs the same checks). */
const root = join(__dirname, '..');
const problems = checkDeploy(readDeployFiles(root), root);
const rendered = checkOverlays(root, problems);
const skaffold = join(root, 'skaffold.yaml');
checkSkaffold(root, existsSync(skaffold) ? readFileSync(skaffold, 'utf8') : undefined, [...Object.keys(SERVICES), 'simulator'], rendered, problems);
if (problems.length > 0) {
  console.error(`deploy/ has ${problems.length} problem(s):\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log('deploy/: every check passed');
