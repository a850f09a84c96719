"""A tensor-parallel gated MLP over several GPUs: tilec kernels for the
GEMMs, torch.distributed (NCCL) for the reduction.

    Y = (silu(X Wg) * (X Wu)) W2

Wg and Wu are split by columns and W2 by rows over the ranks (Megatron's
column- then row-parallel pair), so each rank computes its share with no
communication: H_r = swiglu(X, Wg_r, Wu_r) (examples/swiglu.mlir: both
products in one kernel, X read once) and Y_r = H_r W2_r
(examples/gemm_batched.mlir on a batch of one); then one all-reduce sums
the Y_r. Rank 0 checks Y against a float64 reference and
prints the time of a step beside the same step with torch's matmuls
(cuBLAS).

    python3 examples/tp_mlp.py [SWIGLU.tlc GEMM_BATCHED.tlc] [--gpus N]

Bundles default to $TILEC_BUNDLE_DIR (else build/examples); N defaults to
every visible GPU (at least 2 to be tensor-parallel; 1 also runs).
"""

import argparse
import math
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))
import tilec  # noqa: E402

TOKENS, HIDDEN, FFN = 1000, 2048, 5632  # FFN / ranks: a multiple of 8 (TMA rows)


def shards(world, seed=0):
    """The full weights and input, made alike on every rank (same seed)."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(TOKENS, HIDDEN, generator=g).to(torch.bfloat16)
    wg = (torch.randn(HIDDEN, FFN, generator=g) / math.sqrt(HIDDEN)).to(torch.bfloat16)
    wu = (torch.randn(HIDDEN, FFN, generator=g) / math.sqrt(HIDDEN)).to(torch.bfloat16)
    w2 = (torch.randn(FFN, HIDDEN, generator=g) / math.sqrt(FFN)).to(torch.bfloat16)
    return x, wg, wu, w2


def say(rank, what):
    if os.environ.get("TP_MLP_VERBOSE"):
        print(f"tp_mlp: rank {rank}: {what}", flush=True)


def worker(rank, world, port, paths, out):
    torch.cuda.set_device(rank)
    say(rank, "initializing NCCL")
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank,
                            world_size=world, device_id=torch.device("cuda", rank))
    say(rank, "initialized")
    swiglu = tilec.load(paths[0])["swiglu"]
    gemm = tilec.load(paths[1])["gemm_batched"]
    x, wg, wu, w2 = shards(world)
    part = FFN // world
    cols = slice(rank * part, (rank + 1) * part)
    dev = torch.device("cuda", rank)
    x_d = x.to(dev)
    wg_r = wg[:, cols].contiguous().to(dev)  # column-parallel
    wu_r = wu[:, cols].contiguous().to(dev)
    w2_r = w2[cols, :].contiguous().to(dev)  # row-parallel
    h = torch.empty(TOKENS, part, device=dev, dtype=torch.bfloat16)
    y = torch.empty(TOKENS, HIDDEN, device=dev, dtype=torch.bfloat16)

    def step():
        swiglu(x_d, wg_r, wu_r, h)                            # tilec, on cuda:rank
        gemm(h.unsqueeze(0), w2_r.unsqueeze(0), y.unsqueeze(0))  # tilec
        dist.all_reduce(y)                                     # NCCL, sum of the shares
        return y

    y.fill_(float("nan"))
    step()
    torch.cuda.synchronize()
    say(rank, "first step done")
    yt = torch.empty_like(y)

    def torch_step():  # the same shares with cuBLAS, for comparison
        a = x_d @ wg_r
        torch.matmul(torch.nn.functional.silu(a) * (x_d @ wu_r), w2_r, out=yt)
        dist.all_reduce(yt)

    def ms_of(fn, reps=50):
        fn()
        torch.cuda.synchronize()
        dist.barrier()
        start = time.perf_counter()
        for _ in range(reps):
            fn()
        torch.cuda.synchronize()
        return (time.perf_counter() - start) / reps * 1e3

    ms, torch_ms = ms_of(step), ms_of(torch_step)
    y.fill_(float("nan"))
    step()  # every rank: the all-reduce is collective
    torch.cuda.synchronize()
    if rank == 0:
        xd, gd, ud, w2d = (t.to(dev, torch.float64) for t in (x, wg, wu, w2))
        a, b = xd @ gd, xd @ ud
        ref = (a * torch.sigmoid(a) * b) @ w2d
        err = ((y.double() - ref).norm() / ref.norm()).item()
        flop = 2 * TOKENS * HIDDEN * FFN * 3
        out.put((err, ms, torch_ms, flop, torch.cuda.get_device_name(rank)))
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("bundles", nargs="*")
    ap.add_argument("--gpus", type=int, default=torch.cuda.device_count())
    args = ap.parse_args()
    bundle_dir = os.environ.get("TILEC_BUNDLE_DIR", os.path.join(HERE, "..", "build", "examples"))
    paths = args.bundles or [os.path.join(bundle_dir, "swiglu.tlc"),
                             os.path.join(bundle_dir, "gemm_batched.tlc")]
    world = args.gpus
    if world < 1 or FFN % world or (FFN // world) % 8:
        sys.exit(f"tp_mlp: cannot split FFN={FFN} over {world} GPUs")
    # One host: NCCL's bootstrap over loopback (a sandboxed host may have
    # interfaces that lead nowhere).
    os.environ.setdefault("NCCL_SOCKET_IFNAME", "lo")
    ctx = mp.get_context("spawn")
    out = ctx.SimpleQueue()
    port = 29500 + os.getpid() % 1000
    mp.spawn(worker, args=(world, port, paths, out), nprocs=world, join=True)
    err, ms, torch_ms, flop, name = out.get()
    print(f"tp_mlp: {world} x {name}, X {TOKENS}x{HIDDEN}, FFN {FFN}")
    print(f"tp_mlp: relative error vs float64 {err:.2e}")
    print(f"tp_mlp: a step (two GEMMs and the all-reduce): tilec {ms:.3f} ms "
          f"({flop / ms / 1e9:.0f} TFLOP/s over the {world} GPUs), torch/cuBLAS "
          f"{torch_ms:.3f} ms ({flop / torch_ms / 1e9:.0f} TFLOP/s); tilec/torch "
          f"{torch_ms / ms:.2f}")
    if not err < 2e-2:
        sys.exit(1)


if __name__ == "__main__":
    main()
