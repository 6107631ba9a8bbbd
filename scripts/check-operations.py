#!/usr/bin/env python3
"""Two rules of redocly's recommended-strict, made exact for this API.

    python3 scripts/check-operations.py openapi.json

1. No two paths can match the same request path (redocly's no-ambiguous-paths, aware of
   parameter types: a path parameter that is a UUID (format uuid) or has a pattern cannot
   match a literal segment that is not one, so `/messaging/{messageId}/status` and
   `/messaging/templates/{id}`, both fixed by the spec, do not collide).
2. Every operation documents a success: a 2XX answer, or a 3XX for a redirect
   (redocly's operation-2xx-response knows no redirects: a tracked link answers 302)."""
import json, re, sys, itertools

doc = json.load(open(sys.argv[1]))
UUID = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")


def deref(x):
    while isinstance(x, dict) and "$ref" in x:
        parts = x["$ref"].split("/")
        x = doc[parts[1]][parts[2]][parts[3]]
    return x


def param_schemas(path, item):
    """name -> schema of the path parameters of any operation of the path."""
    out = {}
    for op in item.values():
        if not isinstance(op, dict):
            continue
        for p in op.get("parameters", []):
            p = deref(p)
            if p.get("in") == "path":
                out[p["name"]] = deref(p.get("schema", {}))
    return out


def can_match(schema, literal):
    if schema.get("format") == "uuid" and not UUID.match(literal):
        return False
    pattern = schema.get("pattern")
    if pattern and not re.search(pattern, literal):
        return False
    return True


paths = {p: (p.strip("/").split("/"), param_schemas(p, item)) for p, item in doc["paths"].items()}
problems = []
for (a, (sa, pa)), (b, (sb, pb)) in itertools.combinations(paths.items(), 2):
    if len(sa) != len(sb):
        continue
    ambiguous = True
    for x, y in zip(sa, sb):
        xp, yp = x.startswith("{"), y.startswith("{")
        if not xp and not yp:
            ok = x == y
        elif xp and yp:
            ok = True
        elif xp:
            ok = can_match(pa.get(x.strip("{}"), {}), y)
        else:
            ok = can_match(pb.get(y.strip("{}"), {}), x)
        if not ok:
            ambiguous = False
            break
    if ambiguous:
        problems.append(f"{a} and {b} can match the same request path")

METHODS = {"get", "put", "post", "delete", "patch", "options", "head", "trace"}
for path, item in doc["paths"].items():
    for method, op in item.items():
        if method not in METHODS:
            continue
        codes = list(op.get("responses", {}).keys())
        if not any(c[0] in "23" for c in codes):
            problems.append(f"{method.upper()} {path} documents no 2XX or 3XX answer")

for p in problems:
    print(f"error: {p}")
print(f"{len(paths)} paths checked: {'OK' if not problems else f'{len(problems)} problems'}")
sys.exit(1 if problems else 0)
