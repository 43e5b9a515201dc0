#!/bin/sh
# Logs its arguments to the file named by the first one; always interesting.
log=$1
shift
echo "ARGS: $*" >> "$log"
exit 0
