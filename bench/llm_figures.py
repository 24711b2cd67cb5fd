"""Print the llm workload's figures from a pytest-benchmark JSON file of test_inference.py.

python llm_figures.py llm.json
"""

from __future__ import annotations

import json
import sys


def main(path: str) -> None:
    with open(path) as f:
        benchmarks = json.load(f)["benchmarks"]
    for b in benchmarks:
        info = b["extra_info"]
        rate = info.get("prefill_tokens_per_s") or info.get("decode_tokens_per_s")
        if rate is None:  # another benchmark of the same run
            continue
        read = f"  read {info['read_gb_per_s']} GB/s" if "read_gb_per_s" in info else ""
        print(f"{b['name']:<32} {rate:>10} tokens/s  dispatches {info['dispatches_per_call']}{read}")


if __name__ == "__main__":
    main(sys.argv[1])
