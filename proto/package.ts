import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/**
 * `npm run proto:package`: the generated clients as a package that installs
 * anywhere (`npm install gateway-proto-<version>.tgz`), for teams outside
 * this repository. Inside it, workspaces import the TypeScript stubs
 * directly; the package carries them compiled to CommonJS with their type
 * declarations, under the same import paths:
 * `@gateway/proto/gen/gateway/<svc>/v1/<svc>`.
 *
 * Prints the path of the tarball it writes under .tmp/.
 */

const PROTO_DIR = __dirname;
const GENERATED = join(PROTO_DIR, 'gen');
const OUT_DIR = join(PROTO_DIR, '..', '.tmp', 'proto-package');

function typeScriptFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? typeScriptFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

function compile(outDir: string): void {
  const program = ts.createProgram(typeScriptFiles(GENERATED), {
    outDir,
    rootDir: GENERATED,
    declaration: true,
    module: ts.ModuleKind.CommonJS,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    target: ts.ScriptTarget.ES2022,
    esModuleInterop: true,
    skipLibCheck: true,
    strict: true,
    types: ['node'],
  });
  const emitted = program.emit();
  const problems = [...ts.getPreEmitDiagnostics(program), ...emitted.diagnostics];
  if (problems.length > 0) {
    const host = { getCanonicalFileName: (name: string) => name, getCurrentDirectory: () => PROTO_DIR, getNewLine: () => '\n' };
    throw new Error(ts.formatDiagnostics(problems, host));
  }
}

export function packProto(): string {
  const source = JSON.parse(readFileSync(join(PROTO_DIR, 'package.json'), 'utf8')) as {
    name: string;
    version: string;
    dependencies: Record<string, string>;
  };
  const staging = join(OUT_DIR, 'package');
  rmSync(OUT_DIR, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  compile(join(staging, 'gen'));
  const manifest = {
    name: source.name,
    version: source.version,
    description: 'Clients and message types of the gateway\'s gRPC services (gateway.<svc>.v1), for @grpc/grpc-js.',
    license: 'UNLICENSED',
    engines: { node: '>=18' },
    exports: { './gen/*': { types: './gen/*.d.ts', default: './gen/*.js' }, './package.json': './package.json' },
    dependencies: source.dependencies,
  };
  writeFileSync(join(staging, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(join(PROTO_DIR, 'README.md'), join(staging, 'README.md'));
  const tarball = execFileSync('npm', ['pack', '--silent', '--pack-destination', OUT_DIR], { cwd: staging, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  return join(OUT_DIR, tarball);
}

if (require.main === module) {
  console.log(relative(process.cwd(), packProto()));
}
