"""Secrets: the password hashing of TAccount (:mod:`.hashing`) and how a secret value is kept
out of messages, paths and files (:mod:`.redaction`). The lowest room: it imports nothing of
the package, so every room can keep a secret secret."""
