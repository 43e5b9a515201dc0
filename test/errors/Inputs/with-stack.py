#!/usr/bin/env python3
# ===- with-stack.py - Run a command with a smaller stack -----------------===#
#
# Runs COMMAND with the stack limited to KB kilobytes (as `ulimit -s`, which
# lit's internal shell does not have).
#
#   with-stack.py KB COMMAND [ARG...]

import os
import resource
import sys

limit = int(sys.argv[1]) * 1024
resource.setrlimit(resource.RLIMIT_STACK, (limit, limit))
os.execvp(sys.argv[2], sys.argv[2:])
