"""Launches on the tensors' device and from several host threads.

- A kernel launches on the device its tensors are on, whatever the current
  device (cuda:1 with cuda:0 current), on that device's current stream;
  tensors on two devices are refused with a message naming both.
- Several host threads launch the same kernels at once, each on its own
  tensors and stream (on every GPU there is), and every result is right.
- examples/tp_mlp.py (tilec GEMMs, an NCCL all-reduce) runs on two GPUs.
The multi-GPU tests report themselves skipped on a machine with one GPU."""

import os
import subprocess
import sys
import threading

import pytest

from gpu_common import BUNDLES, ROOT, bias_relu_reference, load, rel_err, torch

import tilec

NAN = float("nan")
two_gpus = pytest.mark.skipif(torch.cuda.device_count() < 2, reason="needs two GPUs")


def gemm_case(dev, m=300, n=520, k=136):
    a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=dev, dtype=torch.bfloat16) / k ** 0.5
    bias = torch.randn(n, device=dev)
    c = torch.full((m, n), NAN, device=dev, dtype=torch.bfloat16)
    return a, b, bias, c


@two_gpus
def test_launch_on_the_tensors_device():
    gemm, add = load("gemm")["gemm"], load("vector_add")["vector_add"]
    torch.cuda.set_device(0)
    for _ in range(2):  # the second launch reuses the first's arguments
        a, b, bias, c = gemm_case("cuda:1")
        gemm(a, b, bias, c)
        torch.cuda.synchronize(1)
        assert rel_err(c, bias_relu_reference(a, b, bias)) < 1e-2
    # on cuda:1's current stream: captured into a graph of cuda:1's (a
    # launch on any other stream would break the capture)
    x, y = torch.randn(5000, device="cuda:1"), torch.randn(5000, device="cuda:1")
    out = torch.full_like(x, NAN)
    add(x, y, out)  # loads the module outside the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.device(1):
        s = torch.cuda.Stream()
        with torch.cuda.stream(s):
            with torch.cuda.graph(graph, stream=s):
                add(x, y, out)
    torch.cuda.set_device(0)
    out.fill_(NAN)
    graph.replay()
    torch.cuda.synchronize(1)
    assert rel_err(out, x.double() + y.double()) < 1e-6
    assert torch.cuda.current_device() == 0


@two_gpus
def test_tensors_on_two_devices_are_refused():
    add = load("vector_add")["vector_add"]
    x, y = torch.randn(100, device="cuda:0"), torch.randn(100, device="cuda:1")
    with pytest.raises(tilec.TilecError, match=r"parameter 1 \('y'\): tensor is on cuda:1, "
                                               r"other tensors are on cuda:0"):
        add(x, y, torch.empty_like(x))


def test_launches_from_several_threads():
    """8 threads x 50 launches each of the GEMM and the vector add, every
    thread with its own tensors and stream, spread over the GPUs; every
    result checked."""
    gemm, add = load("gemm")["gemm"], load("vector_add")["vector_add"]
    devices = [f"cuda:{i}" for i in range(torch.cuda.device_count())]
    errors, barrier = [], threading.Barrier(8)

    def run(t):
        try:
            dev = devices[t % len(devices)]
            stream = torch.cuda.Stream(device=dev)
            a, b, bias, c = gemm_case(dev, 128 + 64 * t, 256 + 8 * t, 64 + 8 * t)
            x = torch.randn(1000 + t, device=dev)
            y = torch.randn(1000 + t, device=dev)
            out = torch.full_like(x, NAN)
            barrier.wait()
            with torch.cuda.stream(stream):
                for i in range(50):
                    gemm(a, b, bias, c)
                    add(x, y, out)
                    if i % 10 == 0:  # another tensor now and then: the slow path too
                        add(x[1:], y[1:], out[1:])
            stream.synchronize()
            if not rel_err(c, bias_relu_reference(a, b, bias)) < 1e-2:
                errors.append(f"thread {t}: gemm wrong")
            if not rel_err(out, x.double() + y.double()) < 1e-6:
                errors.append(f"thread {t}: vector add wrong")
        except Exception as e:  # noqa: BLE001 (reported below)
            errors.append(f"thread {t}: {e!r}")

    threads = [threading.Thread(target=run, args=(t,)) for t in range(8)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert not errors, errors


@two_gpus
def test_tensor_parallel_mlp_example():
    r = subprocess.run([sys.executable, os.path.join(ROOT, "examples", "tp_mlp.py"),
                        os.path.join(BUNDLES, "swiglu.tlc"),
                        os.path.join(BUNDLES, "gemm_batched.tlc"), "--gpus", "2"],
                       capture_output=True, text=True, timeout=180)
    print(r.stdout)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "relative error vs float64" in r.stdout
