"""Scale benchmark of ``tars-components diff`` with claims growing in place (a script, not a
test; docs/concepts/storage.md).

For each size (default 100 and 1,000 TServers, 3 replicas and a 5Gi claim template each) it
writes an old stack and two new ones, and measures in the same process, as the CLI runs:

* the floor: ``diff OLD NEW-IMAGE --format json`` where every server changes its release image
  (one StatefulSet update each);
* ``diff OLD NEW-GROWN --format json`` where every server's claim grows to 10Gi (the storage
  rules, the held claim templates and three claim updates per server).

It prints the best of ``--repeat`` runs, the ratio grown / floor and the cost per server, and
checks that each server lists exactly three claim growths and no replacement. Target (2-core
machine): ratio < 1.5 at every size, and the per-server cost at the largest size within 1.5x
of the smallest (linear). The exit code is 1 when a target is missed.

Usage::

    python benchmarks/storage_scale.py
    python benchmarks/storage_scale.py --sizes 100 1000 3000 --repeat 5
"""

from __future__ import annotations

import argparse
import io
import json
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
for path in (REPO, REPO / "benchmarks"):
    if str(path) not in sys.path:
        sys.path.insert(0, str(path))

from timing import best_wall_time  # noqa: E402

NAMESPACE = "bench"
DEFAULT_SIZES = (100, 1000)
TARGET_RATIO = 1.5
TARGET_LINEAR = 1.5

FRAMEWORK = f"""apiVersion: k8s.tars.io/v1beta3
kind: TFrameworkConfig
metadata:
  name: tars-framework
  namespace: {NAMESPACE}
imageBuild:
  executor:
    image: reg.example.com/tars.tarskaniko:v1
imageUpload:
  registry: reg.example.com/upload
nodeImage:
  image: reg.example.com/tars.tarsnode:v1
---
apiVersion: k8s.tars.io/v1beta3
kind: TTemplate
metadata:
  name: tars.default
  namespace: {NAMESPACE}
spec:
  content: ""
  parent: tars.default
"""

SERVER = """apiVersion: k8s.tars.io/v1beta3
kind: TServer
metadata:
  name: bench-db{index}
  namespace: {namespace}
spec:
  app: Bench
  server: Db{index}
  subType: tars
  tars:
    template: tars.default
    servants:
      - name: DbObj
        port: 10000
  k8s:
    replicas: 3
    mounts:
      - name: data
        mountPath: /data
        source:
          persistentVolumeClaimTemplate:
            spec:
              accessModes: [ReadWriteOnce]
              storageClassName: ssd
              resources:
                requests:
                  storage: {size}
  release:
    id: v1
    image: reg.example.com/bench.db:{tag}
"""


def write_stack(directory: Path, servers: int, size: str, tag: str) -> Path:
    """A stack of ``servers`` TServers with a claim of ``size`` and image ``tag``."""
    directory.mkdir(parents=True)
    (directory / "00-framework.yaml").write_text(FRAMEWORK, encoding="utf-8")
    for i in range(servers):
        text = SERVER.format(index=i, namespace=NAMESPACE, size=size, tag=tag)
        (directory / f"srv-{i:05d}.yaml").write_text(text, encoding="utf-8")
    return directory


def diff_json(old: Path, new: Path) -> dict:
    """``tars-components diff OLD NEW --format json`` in-process (exit 0 required)."""
    from tars_components.cli import main

    out = io.StringIO()
    saved, saved_err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, io.StringIO()
    try:
        code = main(
            [
                "diff",
                str(old),
                str(new),
                "--namespace",
                NAMESPACE,
                "--expandable-storage-classes",
                "ssd",
                "--format",
                "json",
            ]
        )
    finally:
        sys.stdout, sys.stderr = saved, saved_err
    if code != 0:
        raise SystemExit(f"diff exited {code}")
    document: dict = json.loads(out.getvalue())
    return document


@dataclass
class Row:
    """One size's figures (seconds)."""

    servers: int
    floor: float
    grown: float

    @property
    def ratio(self) -> float:
        """Grown diff over the image diff."""
        return self.grown / self.floor

    @property
    def per_server_ms(self) -> float:
        """Grown diff per server, in milliseconds."""
        return 1000 * self.grown / self.servers


def measure(servers: int, repeat: int, tmpdir: str | None) -> Row:
    """Best of ``repeat`` runs of each diff."""
    with tempfile.TemporaryDirectory(prefix="tars-storage-bench-", dir=tmpdir) as tmp:
        root = Path(tmp)
        old = write_stack(root / "old", servers, "5Gi", "v1")
        image = write_stack(root / "image", servers, "5Gi", "v2")
        grown = write_stack(root / "grown", servers, "10Gi", "v1")
        diff_json(old, grown)  # warm up imports
        result = diff_json(old, grown)
        claims = [c for c in result["changes"] if c["kind"] == "PersistentVolumeClaim"]
        assert len(claims) == 3 * servers, len(claims)
        assert result["summary"]["replace"] == 0
        assert len(diff_json(old, image)["changes"]) == servers
        floor = best_wall_time(lambda: diff_json(old, image), repeat)
        grow = best_wall_time(lambda: diff_json(old, grown), repeat)
    return Row(servers=servers, floor=floor, grown=grow)


def main(argv: list[str] | None = None) -> int:
    """Command line: the table and the targets."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=list(DEFAULT_SIZES))
    parser.add_argument("--repeat", type=int, default=3, help="runs per size (best is kept)")
    parser.add_argument("--tmpdir", metavar="DIR", help="where the stacks are written")
    args = parser.parse_args(argv)
    rows = [measure(size, args.repeat, args.tmpdir) for size in args.sizes]
    print(f"{'servers':>7} {'image diff s':>12} {'grown diff s':>12} {'ratio':>6} {'ms/server':>9}")
    for r in rows:
        print(
            f"{r.servers:>7} {r.floor:>12.3f} {r.grown:>12.3f} {r.ratio:>6.2f} "
            f"{r.per_server_ms:>9.2f}"
        )
    print(
        "image diff = every server's release image changed (the floor); grown diff = every "
        "server's claim template 5Gi -> 10Gi (3 claim growths each); best of the runs."
    )
    checks = [
        (f"grown / image diff at {r.servers:,} servers < {TARGET_RATIO}: {r.ratio:.2f}", r.ratio)
        for r in rows
    ]
    ok = all(ratio < TARGET_RATIO for _, ratio in checks)
    print()
    for text, ratio in checks:
        print(f"{'PASS' if ratio < TARGET_RATIO else 'FAIL'}  {text}")
    if len(rows) > 1:
        linear = rows[-1].per_server_ms / rows[0].per_server_ms
        passed = linear < TARGET_LINEAR
        ok = ok and passed
        print(
            f"{'PASS' if passed else 'FAIL'}  per-server cost at {rows[-1].servers:,} over "
            f"{rows[0].servers:,} servers < {TARGET_LINEAR}: {linear:.2f}"
        )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
