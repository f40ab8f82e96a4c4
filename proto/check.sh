#!/usr/bin/env bash
# Fails when the committed stubs or contract references are stale, when buf lint finds a problem, or
# when a change breaks the wire contract of the last commit on main.
set -euo pipefail
cd "$(dirname "$0")"
buf=../node_modules/.bin/buf

$buf lint

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
reference=../docs/grpc-reference
cp -r gen "$tmp/gen"
cp -r "$reference" "$tmp/reference"
bash ./generate.sh
for pair in "gen:$tmp/gen" "$reference:$tmp/reference"; do
  generated=${pair%%:*} committed=${pair#*:}
  if ! diff -r "$committed" "$generated" >/dev/null; then
    diff -r "$committed" "$generated" | head -40 >&2 || true
    rm -rf gen "$reference" && cp -r "$tmp/gen" gen && cp -r "$tmp/reference" "$reference"
    echo "$generated (under proto/) is stale: run 'npm run proto:gen' and commit the result" >&2
    exit 1
  fi
done

# Compare against main's last commit when there is one that holds the module.
# The common git directory, so that a linked worktree compares against main too.
git_dir=$(git rev-parse --path-format=absolute --git-common-dir)
if git rev-parse --verify -q main >/dev/null &&
  git cat-file -e main:proto/buf.yaml 2>/dev/null; then
  $buf breaking --against "$git_dir#branch=main,subdir=proto"
else
  echo "buf breaking: no earlier main commit holds proto/, nothing to compare"
fi
echo "proto: lint, freshness and breaking checks passed"
