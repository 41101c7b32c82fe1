"""Runs a command and fails unless it exits with the given code; its output
passes through. Usage: expect-exit.py CODE COMMAND..."""
import subprocess
import sys

code = subprocess.call(sys.argv[2:])
if code != int(sys.argv[1]):
    sys.exit(f"expected exit {sys.argv[1]}, got {code}")
