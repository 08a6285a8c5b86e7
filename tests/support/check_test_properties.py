#!/usr/bin/env python3
"""Every ctest test has a TIMEOUT, so a hung test fails the suite instead of hanging it, and
every GoogleTest test the environment migronaut_add_test gives it (MIGRONAUT_BIN, the last
property). A property can be lost on the way: gtest_discover_tests splits a list value into
words, which shifted the TIMEOUT, the fixture and the environment after it. Usage:
check_test_properties.py <ctest> <build dir>."""
import json
import subprocess
import sys


def main(ctest, build_dir):
    listing = json.loads(subprocess.run(
        [ctest, "--test-dir", build_dir, "--show-only=json-v1"],
        check=True, capture_output=True, text=True, timeout=60).stdout)
    faults = []
    for test in listing["tests"]:
        properties = {p["name"]: p["value"] for p in test.get("properties", [])}
        if "TIMEOUT" not in properties:
            faults.append(f"no TIMEOUT: {test['name']}")
        discovered = "SKIP_REGULAR_EXPRESSION" in properties  # gtest_discover_tests sets it
        if discovered and not any(value.startswith("MIGRONAUT_BIN=")
                                  for value in properties.get("ENVIRONMENT", [])):
            faults.append(f"no MIGRONAUT_BIN: {test['name']}")
    print(f"{len(listing['tests'])} tests, {len(faults)} faults")
    for fault in faults:
        print(fault, file=sys.stderr)
    return 1 if faults else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
