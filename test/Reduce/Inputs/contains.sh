#!/bin/sh
# Interesting when the candidate ($# = last argument) contains every pattern
# given before it (each a fixed string).
for last; do :; done
while [ $# -gt 1 ]; do
  grep -qF -- "$1" "$last" || exit 1
  shift
done
exit 0
