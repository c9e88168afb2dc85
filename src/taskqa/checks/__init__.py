"""Checks that go beyond a file's shape: consistency of states over time, and with a domain."""
