"""The names renamed for readability still work, with a DeprecationWarning, for one minor
version: users' programs keep running and learn the new name."""

import subprocess
import sys
import warnings

import pytest

import tars_components
from tars_components import models
from tars_components.kernel.deprecation import MOVED_MODULES

RENAMED_DOCUMENTS = [
    ("TAccount", "TAccountDocument"),
    ("TConfig", "TConfigDocument"),
    ("TFrameworkConfig", "TFrameworkConfigDocument"),
    ("TImage", "TImageDocument"),
    ("TServer", "TServerDocument"),
    ("TTemplate", "TTemplateDocument"),
    ("TTree", "TTreeDocument"),
]


@pytest.mark.parametrize(("old", "new"), RENAMED_DOCUMENTS)
def test_old_document_name_warns_and_is_the_new_class(old: str, new: str) -> None:
    with pytest.warns(
        DeprecationWarning, match=f"tars_components.models.{old} is deprecated.*{new}"
    ):
        value = getattr(models, old)
    assert value is getattr(models, new)


def test_old_document_name_imports_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="use tars_components.models.TServerDocument"):
        exec("from tars_components.models import TServer as old", {})


def test_old_stack_name_warns_and_is_the_document_set() -> None:
    old = "Stack"
    with pytest.warns(
        DeprecationWarning, match=f"tars_components.{old} is deprecated.*DocumentSet"
    ):
        value = getattr(tars_components, old)
    assert value is tars_components.DocumentSet


def test_new_names_do_not_warn() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert models.TServerDocument.KIND == "TServer"
        assert tars_components.DocumentSet.__name__ == "DocumentSet"
        assert tars_components.TServer.__module__ == "tars_components.components.server"


def test_unknown_names_still_raise_attribute_error() -> None:
    missing = "NoSuchName"
    with pytest.raises(AttributeError, match=missing):
        getattr(models, missing)
    with pytest.raises(AttributeError, match=missing):
        getattr(tars_components, missing)


def test_the_old_names_are_not_in_all() -> None:
    old_names = {old for old, _ in RENAMED_DOCUMENTS}
    assert not old_names & set(models.__all__)
    assert "Stack" not in tars_components.__all__
    assert "DocumentSet" in tars_components.__all__


def test_plain_python_shows_the_warning_at_the_users_line() -> None:
    program = (
        "import warnings\n"
        "warnings.simplefilter('always')\n"
        "from tars_components.models import TServer\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, check=True
    )
    old = "TServer"  # not spelled as one dotted path, so that a second run leaves it
    assert f"<string>:3: DeprecationWarning: tars_components.models.{old} is deprecated" in (
        result.stderr
    )


@pytest.mark.parametrize(("old", "new"), sorted(MOVED_MODULES.items()))
def test_a_moved_module_imports_from_its_old_path_with_a_warning(old: str, new: str) -> None:
    """A program written against 0.1 (``from tars_components.options import Options``) runs
    unchanged and is told where the module is now; it gets the very module of the new path."""
    code = (
        "import importlib, sys, warnings\n"
        "warnings.simplefilter('error')\n"
        f"new = importlib.import_module('tars_components.{new}')\n"
        "try:\n"
        f"    importlib.import_module('tars_components.{old}')\n"
        "except DeprecationWarning as warning:\n"
        "    print(warning)\n"
        "warnings.simplefilter('ignore')\n"
        f"old = importlib.import_module('tars_components.{old}')\n"
        "print(old is new, new.__spec__.name)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.splitlines() == [
        f"tars_components.{old} is deprecated and will be removed in the next minor version: "
        f"import tars_components.{new}",
        f"True tars_components.{new}",
    ]


def test_names_that_left_rules_clusters_import_from_there_with_a_warning() -> None:
    from tars_components.loading.clusters import clusters_from_config
    from tars_components.models.cluster import Cluster

    with pytest.warns(DeprecationWarning, match="use tars_components.loading.clusters"):
        exec("from tars_components.rules.clusters import clusters_from_config as old", found := {})
    assert found["old"] is clusters_from_config
    with pytest.warns(DeprecationWarning, match="use tars_components.models.cluster"):
        exec("from tars_components.rules.clusters import FIELD_OVERRIDES as old", found := {})
    exec("from tars_components.rules.clusters import Cluster as old", found := {})
    assert found["old"] is Cluster


@pytest.mark.parametrize("name", ["expand", "expand_server", "crd_documents"])
def test_compositions_that_left_expansion_import_from_there_with_a_warning(name: str) -> None:
    """``expansion`` keeps only the builders of prepared documents; the one-call compositions
    (stages, then objects) are the pipeline's, and the old path still gives them."""
    from tars_components import pipeline

    with pytest.warns(DeprecationWarning, match="use tars_components.pipeline"):
        exec(f"from tars_components.expansion import {name} as old", found := {})
    assert found["old"] is getattr(pipeline, name)
    assert getattr(tars_components, name) is getattr(pipeline, name)
