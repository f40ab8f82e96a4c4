#!/usr/bin/env bash
# Fails when the committed stubs are stale, when buf lint finds a problem, or
# when a change breaks the wire contract of the last commit on main.
set -euo pipefail
cd "$(dirname "$0")"
buf=../node_modules/.bin/buf

$buf lint

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp -r gen "$tmp/committed"
bash ./generate.sh
if ! diff -r "$tmp/committed" gen >/dev/null; then
  diff -r "$tmp/committed" gen | head -40 >&2
  rm -rf gen && cp -r "$tmp/committed" gen
  echo "proto/gen is stale: run 'npm run proto:gen' and commit the result" >&2
  exit 1
fi

# Compare against main's last commit when there is one that holds the module.
top=$(git rev-parse --show-toplevel)
if git -C "$top" rev-parse --verify -q main >/dev/null &&
  git -C "$top" cat-file -e main:proto/buf.yaml 2>/dev/null; then
  $buf breaking --against "$top/.git#branch=main,subdir=proto"
else
  echo "buf breaking: no earlier main commit holds proto/, nothing to compare"
fi
echo "proto: lint, freshness and breaking checks passed"
