#!/usr/bin/env bash
# Regenerates the ts-proto stubs under proto/gen from the .proto files.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf gen
../node_modules/.bin/buf generate
