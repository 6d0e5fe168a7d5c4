"""Kibitz chess engine."""
