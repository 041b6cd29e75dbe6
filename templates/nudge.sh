#!/bin/sh
# Cursor preCompact hook: Cursor cannot re-inject context after compaction,
# so ask the user to have the agent reload its work in progress. Never blocks.
cat >/dev/null 2>&1
printf '%s\n' '{"user_message": "Context is being compacted. Afterwards, ask the agent to run `kbs now` to reload the Kanbus work in progress."}'
exit 0
