#!/usr/bin/env bash
# Regenerates the ts-proto stubs under proto/gen, and the contracts' reference
# under proto/reference, from the .proto files.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf gen
../node_modules/.bin/buf generate
../node_modules/.bin/tsx reference.ts
