#!/usr/bin/env python3
"""Every ctest test has a TIMEOUT, so a hung test fails the suite instead of hanging it. A
property can be lost on the way: gtest_discover_tests splits a list value into words, which
shifted the TIMEOUT, the fixture and the environment after it. Usage:
check_test_properties.py <ctest> <build dir>."""
import json
import subprocess
import sys


def main(ctest, build_dir):
    listing = json.loads(subprocess.run(
        [ctest, "--test-dir", build_dir, "--show-only=json-v1"],
        check=True, capture_output=True, text=True, timeout=60).stdout)
    untimed = [test["name"] for test in listing["tests"]
               if not any(p["name"] == "TIMEOUT" for p in test.get("properties", []))]
    print(f"{len(listing['tests'])} tests, {len(untimed)} without a TIMEOUT")
    for name in untimed:
        print(f"no TIMEOUT: {name}", file=sys.stderr)
    return 1 if untimed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
