"""Runs gpumerge with -o naming a FIFO (as -o /dev/null or /dev/stdout name
devices) and checks that the kernel came through the FIFO and that the FIFO
is still one: the output goes into it, never renamed over it.

Usage: write-to-fifo.py DIR GPUMERGE ARGS... (the FIFO is DIR/out.fifo)"""
import os
import stat
import subprocess
import sys
import time

fifo = os.path.join(sys.argv[1], "out.fifo")
if os.path.exists(fifo):
    os.remove(fifo)
os.mkfifo(fifo)
# Opened for reading without blocking, so gpumerge's open for writing does
# not block either; read while it runs.
fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
proc = subprocess.Popen(sys.argv[2:] + ["-o", fifo])
received = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except BlockingIOError:
        chunk = None
    if chunk:
        received += chunk
    elif proc.poll() is not None:
        break
    else:
        time.sleep(0.01)
os.close(fd)
print("exit", proc.returncode)
print("still a fifo" if stat.S_ISFIFO(os.stat(fifo).st_mode) else "REPLACED")
print(received.decode())
