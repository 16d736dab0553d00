"""A helm-lib values file as its repository commits it (``repo.id`` empty, the image without
the release tag) takes its release as ``exec-helm.sh VALUES TAG`` packages it: ``convert
--tag``, ``tars:releaseTag``/``tars:releaseDate`` for stacks of values files, and the
``--release-tag``/``--release-date`` flags (docs/cli/convert.md#releases)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.assertions.upstream import shared
from support.engines.cli import run

from tars_components.loading.helm import with_release
from tars_components.settings.options import ReleaseTag

ROOT = Path(__file__).resolve().parents[2]
DATE, TAG = "20221101120000", "v1.0.0"


def _documents(path: Path) -> dict[str, dict[str, Any]]:
    """The TServer and TImage of a helm render (v1beta2, the chart's own text)."""
    return {d["kind"]: d for d in yaml.safe_load_all(path.read_text()) if d and "kind" in d}


def _packaged_pairs() -> list[tuple[Path, Path]]:
    root = shared("wild", "renders")
    pairs = []
    for committed in sorted(root.glob("*/*.committed.yaml")):
        stem = committed.name.removesuffix(".committed.yaml")
        pairs += [(committed, p) for p in sorted(committed.parent.glob(f"{stem}.exechelm*.yaml"))]
    assert len(pairs) >= 8
    return pairs


def test_the_release_of_every_packaged_render() -> None:
    """For each values file of the wild renders, the committed file's render and the render of
    what ``exec-helm.sh VALUES TAG`` packaged: the repo of the committed file with the release
    written into it is the packaged chart's, in the TServer and in the TImage."""
    for committed, packaged in _packaged_pairs():
        before, after = _documents(committed), _documents(packaged)
        release = after["TServer"]["spec"]["release"]
        date, tag = release["id"][:14], release["id"][15:]
        repo = {
            k: v if v is not None else "" for k, v in before["TServer"]["spec"]["release"].items()
        }
        tagged = with_release({"app": "x", "repo": repo}, ReleaseTag(tag, date))["repo"]
        assert tagged == release, packaged
        [image] = after["TImage"]["releases"]
        assert (tagged["id"], tagged["image"]) == (str(image["id"]), image["image"]), packaged


def _committed(root: Path) -> Path:
    """A real helm-lib values file (TarsK8S's own helm-lib test values) as a repository commits
    it: ``repo.id`` empty and the image without a tag."""
    text = shared("wild", "k8sframework", "helm-lib-test", "values-no-mounts.yaml").read_text()
    committed = text.replace("  id: id-test-6\n", "  id: \n").replace("busybox:latest", "busybox")
    assert committed != text
    path = root / "values" / "testserver.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(committed)
    return path


def test_a_committed_values_file_is_refused_without_its_release(tmp_path: Path) -> None:
    done = run("convert", str(_committed(tmp_path)), "--out", str(tmp_path / "out"))
    assert done.returncode == 1
    assert "TS021 error TServer default/test-testserver spec.release.id" in done.stdout
    assert not (tmp_path / "out").exists()


def test_convert_tag_is_the_values_file_exec_helm_packages(tmp_path: Path) -> None:
    """``convert --tag`` writes what converting the packaged values file writes, byte for
    byte: the release is written into the values before the chart renders them."""
    values = _committed(tmp_path)
    done = run(
        "convert", str(values), "--out", str(tmp_path / "tagged"), "--tag", TAG, "--tag-date", DATE
    )
    assert done.returncode == 0, done.stdout
    packaged = tmp_path / "packaged" / "testserver.yaml"
    packaged.parent.mkdir()
    packaged.write_text(
        values.read_text()
        .replace("  id: \n", f"  id: {DATE}-{TAG}\n")
        .replace("image: busybox\n", f"image: busybox:{TAG}\n")
    )
    assert run("convert", str(packaged), "--out", str(tmp_path / "plain")).returncode == 0
    tagged = (tmp_path / "tagged" / "test-testserver.yaml").read_text()
    assert tagged == (tmp_path / "plain" / "test-testserver.yaml").read_text()
    server = next(d for d in yaml.safe_load_all(tagged) if d["kind"] == "TServer")
    assert server["spec"]["release"]["id"] == f"{DATE}-{TAG}"
    assert server["spec"]["release"]["image"] == f"busybox:{TAG}"


def test_the_tag_date_defaults_to_source_date_epoch_then_the_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    values = _committed(tmp_path)

    def release_id(out: str) -> str:
        done = run("convert", str(values), "--out", str(tmp_path / out), "--tag", TAG)
        assert done.returncode == 0, done.stdout + done.stderr
        text = (tmp_path / out / "test-testserver.yaml").read_text()
        return next(d for d in yaml.safe_load_all(text) if d["kind"] == "TServer")["spec"][
            "release"
        ]["id"]

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1667304000")  # 2022-11-01 12:00:00 UTC
    assert release_id("epoch") == f"{DATE}-{TAG}"
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    assert re.fullmatch(rf"20[0-9]{{12}}-{re.escape(TAG)}", release_id("now"))


@pytest.mark.parametrize(
    ("flags", "says"),
    [
        (["--tag", TAG, "--tag-date", "2022-11-01"], "expected YYYYmmddHHMMSS"),
        (["--tag", "v1 0", "--tag-date", DATE], "not an image tag"),
        (["--tag-date", DATE], "--tag-date needs --tag"),
    ],
)
def test_a_bad_tag_is_a_usage_error(tmp_path: Path, flags: list[str], says: str) -> None:
    done = run("convert", str(_committed(tmp_path)), "--out", str(tmp_path / "out"), *flags)
    assert done.returncode == 2
    assert says in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists()


def _project(root: Path, config: str) -> Path:
    """The committed values file in a stack with the dev stack's framework and templates."""
    values = _committed(root).parent
    for name in ("00-framework.yaml", "10-templates.yaml"):
        (values / name).write_text((ROOT / "stacks" / "dev" / name).read_text())
    (root / "Pulumi.dev.yaml").write_text(
        f"config:\n  tars:namespace: tars-dev\n  tars:stackDir: values\n{config}"
    )
    return root


def _image(done: Any) -> str:
    assert done.returncode == 0, done.stderr
    [workload] = [o for o in yaml.safe_load_all(done.stdout) if o["kind"] == "StatefulSet"]
    return str(workload["spec"]["template"]["spec"]["containers"][0]["image"])


def test_a_stack_of_committed_values_files_takes_its_release_from_the_settings(
    tmp_path: Path,
) -> None:
    root = _project(
        tmp_path,
        f"  tars:releaseTag: {TAG}\n  tars:releaseDate: '{DATE}'\n",
    )
    assert run("validate", "--stack", "dev", cwd=root).returncode == 0
    assert _image(run("render", "--stack", "dev", "-o", "yaml", cwd=root)) == f"busybox:{TAG}"
    flags = ["--release-tag", "v1.0.1", "--release-date", "20221102090000"]
    assert _image(run("render", "--stack", "dev", "-o", "yaml", *flags, cwd=root)) == (
        "busybox:v1.0.1"
    )


def test_a_release_tag_without_its_date_is_refused(tmp_path: Path) -> None:
    """A release date read from the clock would make every ``pulumi preview`` a new release:
    the date is a setting too."""
    root = _project(tmp_path, f"  tars:releaseTag: {TAG}\n")
    done = run("validate", "--stack", "dev", cwd=root)
    assert done.returncode == 2
    assert "tars:releaseTag needs tars:releaseDate" in done.stderr
    done = run("validate", "values", "--release-date", DATE, cwd=root)
    assert done.returncode == 2
    assert "--release-date needs --release-tag" in done.stderr
