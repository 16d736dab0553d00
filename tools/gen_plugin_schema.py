"""Write the package schema of the multi-language components (``plugin/schema.json``), as
Pulumi's own analyzer infers it from their type annotations and docstrings
(docs/pulumi/multi-language.md).

Usage: ``python tools/gen_plugin_schema.py`` rewrites the file (run it with the newest pulumi
SDK: the file is what that one serves); ``python tools/gen_plugin_schema.py --check`` says
whether the file is what the installed SDK infers (exit 1 when not; an empty
``dependencies`` list, which older SDKs leave out, is not a difference). A test runs the
check.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tars_components.polyglot.host import comparable, package_schema, schema_text  # noqa: E402

SCHEMA = ROOT / "plugin" / "schema.json"


def main(argv: list[str]) -> int:
    """Write or check the schema; the exit status."""
    if "--check" in argv:
        current = json.loads(SCHEMA.read_text(encoding="utf-8")) if SCHEMA.exists() else {}
        if comparable(current) != comparable(package_schema()):
            print(
                f"{SCHEMA.relative_to(ROOT)} is out of date: run python tools/gen_plugin_schema.py"
            )
            return 1
        return 0
    SCHEMA.write_text(schema_text(), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
