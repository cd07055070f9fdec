"""The long fuzz campaign: N mutants of the bundled and test games, through every target.

    python bench/fuzz_campaign.py --mutants 100000 --jobs 1 --seed 1 --out build/fuzz

Mutant i of seed S is always the same (tests/fuzz/mutators.py `mutant_at`), whatever --jobs,
so a finding is replayed with `--only I`. Each worker process runs its mutants in-process under
the harness' per-target alarm and an address-space cap; the parent kills a worker whose mutant
outlives every alarm (a hang in C code) and records that as a hang too.

Prints: mutants tried, accepted, internal errors, hangs, memory, the other kinds, the slowest
mutant and target, peak memory, and every distinct signature with its count and first mutant.
Every failing mutant (up to --keep per signature) is saved under --out as <index>.cards, its
extras beside it, and a .json with the seed, operations, findings and how to replay it.
Exit status 1 when any internal error or hang was found.
"""
from __future__ import annotations

import argparse
import base64
import hashlib
import json
import multiprocessing as mp
import sys
import tempfile
import time
from collections import Counter
from multiprocessing.connection import wait
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests"))

from fuzz.corpus import Mutant, Workspace  # noqa: E402
from fuzz.harness import SOFT_KINDS, Budget, Finding, memory_cap, peak_rss_kb, run_mutant  # noqa: E402
from fuzz.mutators import mutant_at  # noqa: E402

KINDS = ("internal", "hang", "memory", "unlocated", "disagree", "nondeterministic", "unsafe-output", "masked")


def parse_args(argv=None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mutants", type=int, default=1000, help="how many mutants (default 1000)")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    ap.add_argument("--seed", type=int, default=1, help="campaign seed (default 1)")
    ap.add_argument("--start", type=int, default=0, help="first mutant index (default 0)")
    ap.add_argument("--only", type=int, action="append", help="run only mutant I (repeatable)")
    ap.add_argument("--out", default="build/fuzz", help="folder for failing mutants (default build/fuzz)")
    ap.add_argument("--keep", type=int, default=5, help="failing mutants saved per signature (default 5)")
    ap.add_argument("--budget", type=float, default=10.0, help="seconds per target (default 10)")
    ap.add_argument("--memory-mb", type=int, default=1024, help="memory growth per mutant (default 1024)")
    ap.add_argument("--max-steps", type=int, default=5_000, help="step bound of each play and scenario (default 5000)")
    ap.add_argument("--no-svg", action="store_true", help="diagrams as DOT only (the rulebook still draws them)")
    ap.add_argument("--time-limit", type=float, default=0, help="stop handing out mutants after T seconds")
    ap.add_argument("--minimize", type=float, default=0, metavar="SECONDS",
                    help="shrink the first mutant of each failing signature, for up to SECONDS each")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    return ap.parse_args(argv)


# ---------------------------------------------------------------- the worker


def worker(conn, seed: int, budget: Budget) -> None:
    """Receive mutant indexes, run them, send back what happened (until None)."""
    with tempfile.TemporaryDirectory(prefix="cardsmith-fuzz-") as tmp, memory_cap(budget.memory_mb * 2):
        ws = Workspace(tmp)
        while True:
            index = conn.recv()
            if index is None:
                break
            mutant = mutant_at(seed, index)
            start = time.perf_counter()
            out = run_mutant(mutant, ws, budget)
            conn.send({"index": index, "accepted": out.accepted, "findings": out.findings,
                       "seconds": out.seconds, "total": time.perf_counter() - start,
                       "rss_growth_kb": out.rss_growth_kb, "peak_rss_kb": peak_rss_kb()})


class Pool:
    """J worker processes, each with one mutant at a time; a worker stuck past the hard limit
    is killed and replaced (its mutant is a hang)."""

    def __init__(self, jobs: int, seed: int, budget: Budget):
        self.args = (seed, budget)
        self.hard = budget.seconds * 8 + 30
        self.ctx = mp.get_context("fork")
        self.workers = [self._start() for _ in range(jobs)]

    def _start(self) -> dict:
        parent, child = self.ctx.Pipe()
        proc = self.ctx.Process(target=worker, args=(child, *self.args), daemon=True)
        proc.start()
        child.close()
        return {"proc": proc, "conn": parent, "index": None, "since": 0.0}

    def run(self, indexes, on_result, time_limit: float) -> None:
        todo = list(reversed(indexes))
        began = time.monotonic()
        while True:
            for w in self.workers:
                if w["index"] is None and todo and not (time_limit and time.monotonic() - began > time_limit):
                    w["index"], w["since"] = todo.pop(), time.monotonic()
                    w["conn"].send(w["index"])
            busy = [w for w in self.workers if w["index"] is not None]
            if not busy:
                break
            ready = wait([w["conn"] for w in busy], timeout=1.0)
            for w in busy:
                if w["conn"] in ready:
                    try:
                        result = w["conn"].recv()
                    except (EOFError, OSError):      # the worker died (killed by the kernel?)
                        result = self._lost(w, "died")
                    w["index"] = None
                    on_result(result)
                elif time.monotonic() - w["since"] > self.hard:
                    on_result(self._lost(w, f"killed after {self.hard:g} s"))
                    w["index"] = None

    def _lost(self, w: dict, how: str) -> dict:
        index = w["index"]
        w["proc"].kill()
        w["proc"].join()
        w.update(self._start())
        kind = "hang" if how.startswith("killed") else "memory"
        return {"index": index, "accepted": False, "total": time.monotonic() - w["since"], "seconds": {},
                "findings": [Finding(kind, "worker", f"{kind}:worker:{how.split()[0]}", f"the worker {how}")],
                "rss_growth_kb": 0, "peak_rss_kb": 0}

    def close(self) -> None:
        for w in self.workers:
            try:
                w["conn"].send(None)
            except OSError:
                pass
        for w in self.workers:
            w["proc"].join(timeout=10)
            if w["proc"].is_alive():
                w["proc"].kill()


# ---------------------------------------------------------------- saving and figures


def save(out: Path, seed: int, index: int, mutant: Mutant, findings: list[Finding]) -> Path:
    sig = findings[0].signature
    folder = out / findings[0].kind / hashlib.sha1(sig.encode()).hexdigest()[:10]
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{index}.cards").write_bytes(mutant.data)
    meta = {"campaign_seed": seed, "index": index, "seed_file": mutant.seed, "ops": list(mutant.ops),
            "findings": [f.__dict__ if hasattr(f, "__dict__") else
                         {"kind": f.kind, "target": f.target, "signature": f.signature, "detail": f.detail}
                         for f in findings],
            "extra": [{"name": e.name, "kind": e.kind, "target": e.target,
                       "data_b64": base64.b64encode(e.data).decode() if len(e.data) < 100_000 else None,
                       "bytes": len(e.data)} for e in mutant.extra],
            "replay": f"python bench/fuzz_campaign.py --seed {seed} --only {index}"}
    (folder / f"{index}.json").write_text(json.dumps(meta, indent=2, ensure_ascii=False), encoding="utf-8")
    return folder


def shrink(args, budget: Budget, out: Path, first: dict) -> dict[str, str]:
    """Each failing signature's first mutant, shrunk line by line; saved beside it as
    <index>.min.cards (and its extras as <index>.min.extra/). Returns signature -> path."""
    from fuzz.minimize import minimize

    done = {}
    with tempfile.TemporaryDirectory(prefix="cardsmith-shrink-") as tmp, memory_cap(budget.memory_mb * 2):
        ws = Workspace(tmp)
        for sig, (index, _) in first.items():
            if sig.split(":", 1)[0] in SOFT_KINDS or sig.startswith(("hang:worker", "memory:worker")):
                continue
            small = minimize(mutant_at(args.seed, index), sig, ws, budget, seconds=args.minimize)
            folder = out / sig.split(":", 1)[0] / hashlib.sha1(sig.encode()).hexdigest()[:10]
            folder.mkdir(parents=True, exist_ok=True)
            target = folder / f"{index}.min.cards"
            target.write_bytes(small.data)
            for e in small.extra:
                if e.kind == "file":
                    extra = folder / f"{index}.min.extra" / e.name
                    extra.parent.mkdir(parents=True, exist_ok=True)
                    extra.write_bytes(e.data)
            done[sig] = f"{target} ({len(small.data.splitlines())} lines, extras: "
            done[sig] += (", ".join(f"{e.name} ({e.kind})" for e in small.extra) or "none") + ")"
    return done


def main(argv=None) -> int:
    args = parse_args(argv)
    budget = Budget(seconds=args.budget, memory_mb=args.memory_mb, max_steps=args.max_steps, svg=not args.no_svg)
    out = Path(args.out)
    indexes = args.only or list(range(args.start, args.start + args.mutants))
    stats = {"tried": 0, "accepted": 0, "max_seconds": 0.0, "slowest": None, "max_target": (0.0, None),
             "max_growth_kb": 0, "peak_rss_kb": 0}
    mutants_with = Counter()            # kind -> mutants with at least one finding of that kind
    signatures = Counter()
    first: dict[str, tuple[int, str]] = {}
    kept = Counter()
    started = time.perf_counter()

    def on_result(r: dict) -> None:
        stats["tried"] += 1
        stats["accepted"] += r["accepted"]
        if r["total"] > stats["max_seconds"]:
            stats["max_seconds"], stats["slowest"] = r["total"], r["index"]
        for target, s in r["seconds"].items():
            if s > stats["max_target"][0]:
                stats["max_target"] = (s, f"{target} of mutant {r['index']}")
        stats["max_growth_kb"] = max(stats["max_growth_kb"], r["rss_growth_kb"])
        stats["peak_rss_kb"] = max(stats["peak_rss_kb"], r["peak_rss_kb"])
        findings = r["findings"]
        for kind in {f.kind for f in findings}:
            mutants_with[kind] += 1
        for sig in {f.signature for f in findings}:
            signatures[sig] += 1
            if sig not in first:
                f = next(x for x in findings if x.signature == sig)
                first[sig] = (r["index"], f.detail)
        failing = [f for f in findings if f.kind not in SOFT_KINDS]
        if failing and kept[failing[0].signature] < args.keep:
            kept[failing[0].signature] += 1
            save(out, args.seed, r["index"], mutant_at(args.seed, r["index"]), failing)
        if not args.json and stats["tried"] % 100 == 0:
            rate = stats["tried"] / (time.perf_counter() - started)
            print(f"  {stats['tried']} mutants, {stats['accepted']} accepted, "
                  f"{sum(mutants_with[k] for k in KINDS if k not in SOFT_KINDS)} failing, {rate:.1f}/s",
                  file=sys.stderr, flush=True)

    pool = Pool(max(1, args.jobs), args.seed, budget)
    try:
        pool.run(indexes, on_result, args.time_limit)
    except KeyboardInterrupt:
        print("interrupted: the figures so far", file=sys.stderr)
    finally:
        pool.close()
    elapsed = time.perf_counter() - started
    minimized = shrink(args, budget, out, first) if args.minimize else {}
    figures = {
        "campaign_seed": args.seed, "mutants_tried": stats["tried"], "accepted": stats["accepted"],
        "internal_errors": mutants_with["internal"], "hangs": mutants_with["hang"],
        **{k.replace("-", "_"): mutants_with[k] for k in KINDS if k not in ("internal", "hang")},
        "max_seconds_per_mutant": round(stats["max_seconds"], 2), "slowest_mutant": stats["slowest"],
        "max_seconds_per_target": round(stats["max_target"][0], 2), "slowest_target": stats["max_target"][1],
        "max_memory_growth_mb": round(stats["max_growth_kb"] / 1024, 1),
        "peak_worker_rss_mb": round(stats["peak_rss_kb"] / 1024, 1),
        "elapsed_seconds": round(elapsed, 1), "mutants_per_second": round(stats["tried"] / elapsed, 2) if elapsed else None,
        "jobs": args.jobs, "budget_seconds_per_target": args.budget, "max_steps": args.max_steps,
        "signatures": [{"signature": s, "mutants": n, "first": first[s][0], "detail": first[s][1],
                        **({"minimized": minimized[s]} if s in minimized else {})}
                       for s, n in signatures.most_common()],
        "saved_to": str(out),
    }
    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
    else:
        show(figures)
    return 1 if figures["internal_errors"] or figures["hangs"] else 0


def show(f: dict) -> None:
    tried = f["mutants_tried"] or 1
    print(f"fuzz campaign, seed {f['campaign_seed']}: {f['mutants_tried']} mutants in {f['elapsed_seconds']} s "
          f"({f['mutants_per_second']}/s, {f['jobs']} job{'s' * (f['jobs'] != 1)})")
    print(f"  accepted (checked without errors, then played and published): {f['accepted']} "
          f"({100 * f['accepted'] / tried:.1f}%)")
    print(f"  internal errors: {f['internal_errors']}   hangs: {f['hangs']}   memory: {f['memory']}")
    print(f"  unlocated: {f['unlocated']}   disagree: {f['disagree']}   nondeterministic: {f['nondeterministic']}   "
          f"unsafe output: {f['unsafe_output']}   masked rule errors (E0804, soft): {f['masked']}")
    print(f"  max time: {f['max_seconds_per_mutant']} s for one mutant (#{f['slowest_mutant']}), "
          f"{f['max_seconds_per_target']} s for one target ({f['slowest_target']}); "
          f"budget {f['budget_seconds_per_target']} s per target")
    print(f"  max memory: {f['max_memory_growth_mb']} MB growth for one mutant, "
          f"{f['peak_worker_rss_mb']} MB peak worker RSS")
    if f["signatures"]:
        print(f"  {len(f['signatures'])} distinct signatures (mutants, first mutant):")
        for s in f["signatures"]:
            print(f"    {s['mutants']:6}  {s['signature']}  (#{s['first']}: {s['detail'][:100]!r})")
            if "minimized" in s:
                print(f"            minimized: {s['minimized']}")
        print(f"  failing mutants saved under {f['saved_to']}")


if __name__ == "__main__":
    sys.exit(main())
