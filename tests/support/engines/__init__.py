"""The real thing run as a user or the Pulumi engine runs it: the CLI in a subprocess, the
providers over gRPC, Pulumi's mocks, the real-engine harness, mypy over user programs."""
