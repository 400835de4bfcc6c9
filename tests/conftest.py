"""Shared fixtures for cupboard's tests."""
