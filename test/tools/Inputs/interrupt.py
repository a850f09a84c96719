"""Interrupts `tilec compile` while ptxas runs (a stand-in that sleeps) with
SIGINT or SIGTERM, and prints what it left in its temporary directory and
whether the stand-in still runs: nothing, and no."""
import os
import signal
import subprocess
import sys
import tempfile
import time

tilec, source, sig = sys.argv[1], sys.argv[2], getattr(signal, sys.argv[3])
with tempfile.TemporaryDirectory() as tmp:
    ptxas = os.path.join(tmp, "ptxas")
    with open(ptxas, "w") as f:
        f.write("#!/bin/sh\necho $$ > %s/ptxas.pid\nexec sleep 60\n" % tmp)
    os.chmod(ptxas, 0o755)
    work = os.path.join(tmp, "work")
    os.mkdir(work)
    env = dict(os.environ, TILEC_PTXAS=ptxas, TMPDIR=work)
    proc = subprocess.Popen([tilec, "compile", source, "-o", os.devnull],
                            env=env, stderr=subprocess.DEVNULL)
    pidfile = os.path.join(tmp, "ptxas.pid")
    deadline = time.time() + 60
    while not os.path.exists(pidfile) and time.time() < deadline:
        time.sleep(0.05)
    time.sleep(0.2)
    print("files while ptxas runs:", len(os.listdir(work)))
    proc.send_signal(sig)
    proc.wait(timeout=30)
    print("exit status:", proc.returncode)
    print("files left:", sorted(os.listdir(work)))
    pid = int(open(pidfile).read())
    try:
        os.kill(pid, 0)
        print("ptxas still runs")
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        print("ptxas stopped")
