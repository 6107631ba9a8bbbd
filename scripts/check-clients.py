#!/usr/bin/env python3
"""Checks that clients generated from the OpenAPI document are complete: one endpoint per
operation of the document (a generator may drop an operation it cannot type and still exit
0). Used by scripts/check-openapi.sh.

    check-clients.py DOC --python DIR        # DIR holds the package openapi-python-client
                                             # generated; run with the generator's Python:
                                             # every module is imported
    check-clients.py DOC --typescript FILE   # the .d.ts of openapi-typescript
"""

import argparse
import importlib
import json
import pkgutil
import re
import sys
from pathlib import Path

METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


def operations(doc_path):
    doc = json.loads(Path(doc_path).read_text(encoding="utf-8"))
    found = {}
    for path, item in doc.get("paths", {}).items():
        for method, op in item.items():
            if method in METHODS:
                found[op.get("operationId") or f"{method} {path}"] = f"{method.upper()} {path}"
    return found


def python_endpoints(root):
    """The generated endpoint modules (`api/<tag>/<operation_id>.py`), named by operation."""
    names = set()
    for module in Path(root).glob("*/api/**/*.py"):
        if "def sync_detailed(" in module.read_text(encoding="utf-8"):
            names.add(module.stem)
    return names


def import_all(root):
    """Imports every module of the generated package: it loads, with its models."""
    sys.path.insert(0, str(root))
    packages = [p.parent.name for p in Path(root).glob("*/__init__.py")]
    count = 0
    for name in packages:
        package = importlib.import_module(name)
        count += 1
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{name}."):
            importlib.import_module(info.name)
            count += 1
    return packages, count


def typescript_operations(d_ts):
    """The keys of `export interface operations { … }` in an openapi-typescript file."""
    text = Path(d_ts).read_text(encoding="utf-8")
    start = text.find("export interface operations {")
    if start < 0:
        return set()
    return set(re.findall(r"^    ([A-Za-z_$][\w$]*): \{$", text[start:], flags=re.MULTILINE))


def compare(kind, ops, generated):
    missing = sorted(set(ops) - generated)
    extra = sorted(generated - set(ops))
    for op_id in missing:
        print(f"{kind}: no endpoint for {ops[op_id]} ({op_id})", file=sys.stderr)
    for name in extra:
        print(f"{kind}: an endpoint the document does not name: {name}", file=sys.stderr)
    return not missing and not extra


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("doc")
    parser.add_argument("--python", metavar="DIR")
    parser.add_argument("--typescript", metavar="FILE")
    args = parser.parse_args()
    ops = operations(args.doc)
    ok = bool(ops)
    if args.python:
        generated = python_endpoints(args.python)
        ok &= compare("python client", ops, generated)
        packages, modules = import_all(args.python)
        print(
            f"python client ({', '.join(packages)}): {len(generated)} endpoint functions for "
            f"{len(ops)} operations; {modules} modules import"
        )
    if args.typescript:
        generated = typescript_operations(args.typescript)
        ok &= compare("typescript client", ops, generated)
        print(f"typescript client: {len(generated)} operations typed of {len(ops)}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
