#!/usr/bin/env bash
# Regenerates, from the .proto files, the ts-proto stubs and the descriptor set
# under proto/gen, and each contract's reference under docs/grpc-reference.
set -euo pipefail
cd "$(dirname "$0")"
rm -rf gen ../docs/grpc-reference
../node_modules/.bin/buf generate
