#!/usr/bin/env python3
"""Prints the slowest units of a `cargo build --timings` report: its path is the argument
(default target/cargo-timings/cargo-timing.html), the count the second (default 10)."""

import json
import re
import sys

path = sys.argv[1] if len(sys.argv) > 1 else "target/cargo-timings/cargo-timing.html"
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10
with open(path, encoding="utf-8") as report:
    html = report.read()
found = re.search(r"const UNIT_DATA = (\[.*?\]);\n", html, re.S)
if not found:
    sys.exit(f"{path}: no unit data (is it a cargo --timings report?)")
units = sorted(json.loads(found.group(1)), key=lambda u: -u["duration"])
for unit in units[:count]:
    target = unit.get("target", "").strip()
    print(f"{unit['duration']:8.1f} s  {unit['name']} {unit['version']} {target}".rstrip())
print(f"{len(units)} units, {sum(u['duration'] for u in units):.0f} s of compiler time in all")
