"""The components served to every Pulumi language: a Python component provider
(docs/pulumi/multi-language.md).

``plugin/PulumiPlugin.yaml`` (``runtime: python``) runs :func:`.host.main`, which serves
``TFramework``, ``TTemplate``, ``TServer``, ``TConfig``, ``TImage``, ``TTree``, ``TAccount``,
``TarsController`` and ``TarsFrameworkInstall`` with the plain arguments of :mod:`.types`.
Consumers in TypeScript, Go, C#, Java or Pulumi YAML add it with ``pulumi package add``.
Python programs keep using :mod:`tars_components.components`: these classes are thin wrappers
of those.
"""
