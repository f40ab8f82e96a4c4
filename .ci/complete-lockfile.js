#!/usr/bin/env node
// Completes package-lock.json with the other platforms' optional native
// packages (esbuild, swc, buf, ...). A registry mirror that serves only this
// platform's binaries leaves them out of the lock, and `npm ci` then refuses
// the lock as out of sync. Each added entry carries the os and cpu npm reads
// to skip it, so nothing is fetched for it on any machine.
// Run after `npm install` on such a machine: node .ci/complete-lockfile.js
const fs = require('node:fs');
const path = require('node:path');

const file = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(file, 'utf8'));
const packages = lock.packages;

const OS_NAMES = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'sunos', 'aix', 'openharmony'];
const CPU_NAMES = { x64: 'x64', arm64: 'arm64', arm: 'arm', armv7: 'arm', ia32: 'ia32', x86: 'ia32', riscv64: 'riscv64', ppc64: 'ppc64', s390x: 's390x', loong64: 'loong64', mips64el: 'mips64el', wasm32: 'wasm32' };

/** os and cpu from a platform package's name, e.g. @swc/core-darwin-arm64 or @esbuild/linux-arm64. */
function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((part) => OS_NAMES.includes(part));
  const cpuPart = parts.find((part) => part in CPU_NAMES);
  return { ...(os ? { os: [os] } : {}), ...(cpuPart ? { cpu: [CPU_NAMES[cpuPart]] } : {}) };
}

let added = 0;
for (const [location, entry] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const nested = location === '' ? `node_modules/${name}` : `${location}/node_modules/${name}`;
    if (packages[nested] || packages[`node_modules/${name}`]) continue;
    packages[`node_modules/${name}`] = { version: version.replace(/^[\^~=]/, ''), optional: true, ...(entry.dev ? { dev: true } : {}), ...platformOf(name) };
    added += 1;
  }
}
fs.writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`package-lock.json: added ${added} optional platform package(s)`);
