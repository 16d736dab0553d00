"""The entry point of the ``tars`` component provider plugin (``PulumiPlugin.yaml``): serves
the components of :mod:`tars_components.polyglot` (docs/pulumi/multi-language.md)."""

from tars_components.polyglot.host import main

if __name__ == "__main__":
    main()
