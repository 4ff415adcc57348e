#!/usr/bin/env bash
# The shell steps of the GitHub Action (action.yml at the repository's root; docs/ci.md). The
# action runs `bash scripts/action.sh start` or `… scenario` with its inputs as INPUT_* variables;
# test/action.test.ts runs it the same way, from action.yml.
#
#   start     starts `crm-sandbox serve` in the background (the binary for the runner's platform
#             when there is one, else `npx crm-sandbox` of the project), waits until
#             /sandbox/health answers, and sets the outputs url and api-key (and CRM_SANDBOX_URL,
#             CRM_SANDBOX_API_KEY for the job's later steps).
#   scenario  runs `crm-sandbox scenario run INPUT_SCENARIO --reporter junit --output INPUT_REPORT`,
#             on the sandbox a `start` began (--server) or in its own process; sets the output
#             report. Its exit status is the run's (1 when it failed), after the report is written.
#
# Inputs (INPUT_*): API_KEY, PORT, SEED, STATE_FILE, BINARY, TIMEOUT (start); SCENARIO,
# WEBHOOK_URL, ACCESS_TOKEN, REPORT (scenario). GitHub sets RUNNER_OS, RUNNER_ARCH, RUNNER_TEMP,
# GITHUB_OUTPUT, GITHUB_ENV and GITHUB_ACTION_PATH.
set -euo pipefail

fail() {
  echo "::error title=crm-sandbox::$*" >&2
  exit 1
}

# The binary of this runner (dist-bin/crm-sandbox-<os>-<arch> beside the action, or INPUT_BINARY), else npx.
crm_sandbox_command() {
  if [ -n "${INPUT_BINARY:-}" ]; then
    [ -x "$INPUT_BINARY" ] || fail "binary: $INPUT_BINARY is not an executable file"
    command=("$INPUT_BINARY")
    return
  fi
  local os arch suffix=''
  case "${RUNNER_OS:-$(uname -s)}" in
    Linux) os=linux ;;
    macOS | Darwin) os=darwin ;;
    Windows | MINGW* | MSYS*) os=win suffix=.exe ;;
    *) os=unknown ;;
  esac
  case "${RUNNER_ARCH:-$(uname -m)}" in
    X64 | x86_64 | amd64) arch=x64 ;;
    ARM64 | aarch64 | arm64) arch=arm64 ;;
    *) arch=unknown ;;
  esac
  local binary="${GITHUB_ACTION_PATH:-.}/dist-bin/crm-sandbox-$os-$arch$suffix"
  if [ -x "$binary" ]; then
    command=("$binary")
  else
    # --no: the project's own crm-sandbox (npm install), never a download of another package of that name.
    command=(npx --no -- crm-sandbox)
  fi
}

start() {
  local port=${INPUT_PORT:-4010} api_key=${INPUT_API_KEY:-sandbox-api-key} timeout=${INPUT_TIMEOUT:-60}
  local temp=${RUNNER_TEMP:-${TMPDIR:-/tmp}}
  local log="$temp/crm-sandbox.log"
  crm_sandbox_command
  echo "crm-sandbox: starting ${command[*]} serve on port $port (log: $log)"
  : >"$log" # there before the server opens it: the wait below reads it at once
  # serve's flags as its variables: an empty input leaves serve's default.
  (
    export CRM_SANDBOX_PORT="$port" CRM_SANDBOX_API_KEY="$api_key"
    [ -z "${INPUT_SEED:-}" ] || export CRM_SANDBOX_SEED="$INPUT_SEED"
    [ -z "${INPUT_STATE_FILE:-}" ] || export CRM_SANDBOX_STATE_FILE="$INPUT_STATE_FILE"
    exec "${command[@]}" serve --quiet
  ) </dev/null >"$log" 2>&1 &
  local pid=$!
  echo "$pid" >"$temp/crm-sandbox.pid"
  # Its address as it printed it (port 0 picks a free one), then its health.
  local url='' waited=0
  while [ "$waited" -lt $((timeout * 10)) ]; do
    kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; fail "crm-sandbox serve exited before it answered (its output is above)"; }
    [ -n "$url" ] || url=$(sed -n 's/^crm-sandbox listening on \(http:\/\/[^ ]*\).*$/\1/p' "$log" | head -1)
    if [ -n "$url" ] && curl -fsS -o /dev/null "$url/sandbox/health" 2>/dev/null; then break; fi
    sleep 0.1
    waited=$((waited + 1))
  done
  [ "$waited" -lt $((timeout * 10)) ] || { cat "$log" >&2; fail "crm-sandbox serve did not answer /sandbox/health within ${timeout}s"; }
  echo "crm-sandbox: healthy at $url (pid $pid); outputs:"
  # The outputs, printed for the log as they are set.
  {
    echo "url=$url"
    echo "api-key=$api_key"
  } | tee -a "${GITHUB_OUTPUT:?}"
  {
    echo "CRM_SANDBOX_URL=$url"
    echo "CRM_SANDBOX_API_KEY=$api_key"
  } >>"${GITHUB_ENV:?}"
}

scenario() {
  local name=${INPUT_SCENARIO:?the scenario input names a built-in or a scenario file}
  local report=${INPUT_REPORT:-}
  [ -n "$report" ] || report="crm-sandbox-reports/$(basename "${name%.*}").xml"
  crm_sandbox_command
  local args=(scenario run "$name" --reporter junit --output "$report")
  [ -z "${INPUT_WEBHOOK_URL:-}" ] || args+=(--webhook-url "$INPUT_WEBHOOK_URL")
  [ -z "${INPUT_ACCESS_TOKEN:-}" ] || args+=(--access-token "$INPUT_ACCESS_TOKEN")
  # On the sandbox an earlier `start` of this action began, when there is one; else in its own process.
  [ -z "${CRM_SANDBOX_URL:-}" ] || args+=(--server "$CRM_SANDBOX_URL" --api-key "${CRM_SANDBOX_API_KEY:-sandbox-api-key}")
  echo "report=$report" | tee -a "${GITHUB_OUTPUT:?}"
  echo "crm-sandbox: ${command[*]} ${args[*]}"
  "${command[@]}" "${args[@]}"
}

case "${1:-}" in
  start) start ;;
  scenario) scenario ;;
  *) fail "usage: scripts/action.sh start|scenario" ;;
esac
