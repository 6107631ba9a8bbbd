#!/usr/bin/env python3
"""Audits an OpenAPI document against the issue-8 policy (beyond what the validators check).

    python3 scripts/openapi-audit.py openapi.json [--strict]

ERROR lines are document-level rules (security declared, 429 and X-RateLimit-* on every
response, x-tenant-id on every /api/v1 operation, unique operationIds); WARN lines are
per-schema heuristics (ids without format uuid, request schemas marking nothing required,
request bodies without an example, status/role fields that are not enums, numeric query
parameters typed as strings). --strict exits 1 when an ERROR is found."""
import json, sys, re, collections

doc = json.load(open(sys.argv[1]))
strict = "--strict" in sys.argv
S = doc.get("components", {}).get("schemas", {})
P = doc.get("components", {}).get("parameters", {})
METHODS = {"get", "put", "post", "delete", "patch", "options", "head", "trace"}
ops = [(p, m, op) for p, item in doc["paths"].items() for m, op in item.items() if m in METHODS]
hard, soft = [], []

def deref(x):
    while isinstance(x, dict) and "$ref" in x:
        parts = x["$ref"].split("/")
        x = doc[parts[1]][parts[2]][parts[3]]
    return x

def params(op):
    return [deref(p) for p in op.get("parameters", [])]

# operation level
ids = collections.Counter(op.get("operationId") for _, _, op in ops)
for i, n in ids.items():
    if n > 1: hard.append(f"operationId {i} used {n} times")
for p, m, op in ops:
    where = f"{m.upper()} {p}"
    if "security" not in op: hard.append(f"{where}: no security")
    if "429" not in op["responses"]: hard.append(f"{where}: no 429")
    for code, r in op["responses"].items():
        r = deref(r)
        missing = {"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} - set(r.get("headers", {}))
        if missing: hard.append(f"{where} {code}: no {sorted(missing)}")
    if p.startswith("/api/v1/") and not any(x.get("name") == "x-tenant-id" for x in params(op)):
        hard.append(f"{where}: no x-tenant-id")
    inline_tenant = [x for x in op.get("parameters", []) if x.get("name") == "x-tenant-id" and x.get("required")]
    if inline_tenant: soft.append(f"{where}: x-tenant-id inline, not a $ref")
    for x in params(op):
        sch = x.get("schema", {})
        if x["in"] == "path" and re.search(r"(^id$|Id$)", x["name"]) and sch.get("format") != "uuid":
            soft.append(f"{where}: path {x['name']} not format uuid")
        if x["in"] == "query" and sch.get("type") == "string" and re.search(r"(size|page|limit|amount|count)", x["name"], re.I):
            soft.append(f"{where}: query {x['name']} is a string")
    rb = op.get("requestBody")
    if rb:
        for ct, c in rb["content"].items():
            s = c.get("schema", {})
            s = (s.get("oneOf") or [s])[-1]
            name = s.get("$ref", "").split("/")[-1]
            target = S.get(name, s)
            if "example" not in c and "examples" not in c and "example" not in target and "examples" not in target:
                soft.append(f"{where}: request body {name or ct} has no example")
            if name and not target.get("required") and rb.get("required", False) and not name.startswith(("Update", "Patch")):
                soft.append(f"{where}: request schema {name} marks nothing required")

# schema level
nullable_req = 0
for n, s in S.items():
    for f, prop in s.get("properties", {}).items():
        t = prop.get("type")
        if (f == "id" or f.endswith("Id")) and (t == "string" or t == ["string", "null"]) and prop.get("format") != "uuid" and n not in ("LoginRequest", "LoginUser"):
            soft.append(f"schema {n}.{f}: id without format uuid")
        if f in ("status", "paymentMethod", "role", "roles") and "enum" not in json.dumps(deref(prop)):
            soft.append(f"schema {n}.{f}: not an enum")
for x in hard: print("ERROR", x)
for x in soft: print("WARN ", x)
print(f"\n{len(ops)} operations; {len(hard)} errors; {len(soft)} warnings")
kinds = collections.Counter(re.sub(r"^(schema \S+|[A-Z]+ \S+)(\s\d+)?:\s*", "", x) for x in hard + soft)
kinds = collections.Counter(re.sub(r"(path|query|request body|request schema) \S+", r"\1 X", k) for k in kinds.elements())
for k, v in kinds.most_common(): print(f"{v:4d}  {k}")
sys.exit(1 if strict and hard else 0)
