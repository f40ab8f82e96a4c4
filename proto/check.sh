#!/usr/bin/env bash
# Fails when the committed stubs or reference are stale, when buf lint finds a problem, or
# when a change breaks the wire contract of the last commit on main.
set -euo pipefail
cd "$(dirname "$0")"
buf=../node_modules/.bin/buf

$buf lint

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The stubs and the reference are both written by generate.sh from the .proto files.
generated=(gen reference)
for dir in "${generated[@]}"; do cp -r "$dir" "$tmp/$dir"; done
bash ./generate.sh
for dir in "${generated[@]}"; do
  if ! diff -r "$tmp/$dir" "$dir" >/dev/null; then
    diff -r "$tmp/$dir" "$dir" | head -40 >&2 || true
    for each in "${generated[@]}"; do rm -rf "$each" && cp -r "$tmp/$each" "$each"; done
    echo "proto/$dir is stale: run 'npm run proto:gen' and commit the result" >&2
    exit 1
  fi
done

# Compare against main's last commit when there is one that holds the module.
top=$(git rev-parse --show-toplevel)
if git -C "$top" rev-parse --verify -q main >/dev/null &&
  git -C "$top" cat-file -e main:proto/buf.yaml 2>/dev/null; then
  $buf breaking --against "$top/.git#branch=main,subdir=proto"
else
  echo "buf breaking: no earlier main commit holds proto/, nothing to compare"
fi
echo "proto: lint, freshness and breaking checks passed"
