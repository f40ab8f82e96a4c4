#!/usr/bin/env bash
# Makes the Python virtual environment the compatibility suite runs the
# OpenAI Python SDK from (.tmp/compat-python), with the pinned requirements.
# Idempotent: a venv made from the same requirements file is kept. Without
# python3 it fails and says so: the suite must not pass without its Python
# client. Run by `npm test` and by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/../.."

venv=.tmp/compat-python
requirements=test/compat/python/requirements.txt
stamp="$venv/requirements.sha256"

if ! command -v python3 >/dev/null 2>&1; then
  echo "test/compat/setup-python.sh: python3 is not installed; the compatibility suite runs the OpenAI Python SDK and needs Python 3.9 or newer with venv (Debian: apt-get install python3 python3-venv)" >&2
  exit 1
fi

wanted=$(sha256sum "$requirements" | cut -d' ' -f1)
if [ -x "$venv/bin/python" ] && [ "$(cat "$stamp" 2>/dev/null)" = "$wanted" ]; then
  exit 0
fi

echo "Creating $venv with the pinned OpenAI Python SDK ($requirements)"
rm -rf "$venv"
mkdir -p .tmp
if ! python3 -m venv "$venv"; then
  echo "test/compat/setup-python.sh: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2
  exit 1
fi
"$venv/bin/pip" install --quiet --disable-pip-version-check --retries 2 --requirement "$requirements"
echo "$wanted" >"$stamp"
