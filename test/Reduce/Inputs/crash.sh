#!/bin/sh
# Dies of a signal: never interesting.
kill -SEGV $$
