"""Reads: query functions that pages, API views, services and commands share."""
