#!/usr/bin/env python3
# ===- nested.py - Valid modules nested N levels deep, for the limit tests -===#
#
# Prints `def @main(%x: float32, %c: bool) { ... }` whose body (or signature)
# nests one construct N times, in a way the printer cannot flatten (every
# level uses a variable bound by the level around it), so that parsing,
# verification, type inference, printing and comparison all recurse N deep:
#   parens    ((((%x))))
#   tuples    (%x, (%x, (%x, ...)))
#   fn        fn (%a1) { fn (%a2) { ... (%a1, %a2, ...) } }
#   if        if (%c) { let %v1 = %x; if (%c) { let %v2 = %v1; ... } ... }
#   let       let %v1 = (let %v2 = (... %x ...); %v2); %v1
#   blocks    {{{ %x }}}
#   types     %p: ((((float32,),),),)
#   fntypes   %p: fn () -> fn () -> ... float32
#   attrs     Attr=[[[[1]]]]
#   dense     dense<[[[[1]]]]> : Tensor[(1, 1, 1, 1), float32]
#
#   nested.py KIND N

import sys

kind, n = sys.argv[1], int(sys.argv[2])
params = "%x: float32, %c: bool"
body = "%x"
if kind == "parens":
    body = "(" * n + "%x" + ")" * n
elif kind == "tuples":
    body = "(%x, " * n + "%x" + ")" * n
elif kind == "fn":
    names = ["%a{}".format(i) for i in range(n)]
    body = "".join("fn ({}: float32) {{ ".format(a) for a in names)
    body += "(" + ", ".join(names) + ")" + " }" * n
elif kind == "if":
    body = "".join("if (%c) {{ let %v{} = {}; ".format(i, "%v{}".format(i - 1) if i else "%x")
                   for i in range(n))
    body += "%v{}".format(n - 1) + " } else { %x }" * n
elif kind == "let":
    body = "".join("let %v{} = (".format(i) for i in range(n)) + "%x"
    body += "".join("); %v{}".format(i) for i in reversed(range(n)))
elif kind == "blocks":
    body = "{" * n + "%x" + "}" * n
elif kind == "types":
    params += ", %p: " + "(" * n + "float32" + ",)" * n
elif kind == "fntypes":
    params += ", %p: " + "fn () -> " * n + "float32"
elif kind == "attrs":
    params += ", Attr=" + "[" * n + "1" + "]" * n
elif kind == "dense":
    body = "dense<" + "[" * n + "1" + "]" * n + "> : Tensor[(" + "1, " * n + "), float32]"
else:
    sys.exit("unknown kind " + kind)
sys.stdout.write("def @main({}) {{\n  {}\n}}\n".format(params, body))
