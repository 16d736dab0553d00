"""Builders of test inputs: documents, stacks, exports and live objects, changed per test."""
