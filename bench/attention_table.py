"""The table bench/attention.py and bench/attention_bwd.py print: a row per
(B, Hq, Hkv, S, D, causal) with each backend's TFLOP/s and tilec / cuDNN."""

NAMES = {"tilec": "tilec", "cudnn": "cuDNN", "fa2": "FA2", "flex": "Flex",
         "det": "det"}  # det: tilec's deterministic backward


def print_table(rows, backends):
    """rows: [((b, hq, hkv, s, d, causal), {backend: TFLOP/s or None})];
    backends: the columns in order (keys of NAMES), tilec and cudnn among
    them."""
    def fmt(x):
        return "n/a" if x is None else f"{x:.0f}"

    print(f"{'B':>2} {'Hq':>3} {'Hkv':>3} {'S':>6} {'D':>4} {'causal':>6} | "
          + " ".join(f"{NAMES[n]:>6}" for n in backends) + f" | {'tilec/cuDNN':>11}")
    for (b, hq, hkv, s, d, causal), r in rows:
        ratio = (f"{r['tilec'] / r['cudnn']:.2f}" if r["tilec"] and r["cudnn"] else "n/a")
        print(f"{b:>2} {hq:>3} {hkv:>3} {s:>6} {d:>4} {str(causal):>6} | "
              + " ".join(f"{fmt(r[n]):>6}" for n in backends) + f" | {ratio:>11}")
