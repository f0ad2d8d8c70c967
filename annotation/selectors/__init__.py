"""Reads: query functions that pages, API views and commands share."""
