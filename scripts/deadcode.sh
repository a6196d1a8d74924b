#!/usr/bin/env bash
# The lint step's dead-code check (golang.org/x/tools/cmd/deadcode, pinned
# by the Makefile). Nothing may be unreachable from a main or a test, and
# in the product packages nothing may be reachable from tests alone but the
# few functions listed in scripts/deadcode-allow.txt, each with its reason.
# Test-support packages and test-gated tools exist for the tests: they are
# not product code.
set -euo pipefail
cd "$(dirname "$0")/.."
deadcode=(go run "golang.org/x/tools/cmd/deadcode@${DEADCODE:?set by the Makefile}")

fail=0
if out=$("${deadcode[@]}" -test ./...) && [ -n "$out" ]; then
  echo "unreachable even from the tests (delete it):"; echo "$out"; fail=1
fi
support='^(internal/(natstest|coretest|testenv|testcert|familytest|store/storetest|queue/queuetest|faults|archtest|splitplan|tablebench)|tables/catalog/catalogtest|deploy|scripts)/'
allowed=$(grep -v '^#' scripts/deadcode-allow.txt | awk 'NF {print $1}')
while IFS= read -r line; do
  [ -z "$line" ] && continue
  file=${line%%:*}
  [[ $file =~ $support ]] && continue
  fn=${line##*unreachable func: }
  if ! grep -qxF "${file%/*}.$fn" <<<"$allowed"; then
    echo "only tests reach $line: use it, move it into the tests, or list it in scripts/deadcode-allow.txt with why"; fail=1
  fi
done < <("${deadcode[@]}" ./...)
exit $fail
