"""Writes: `<entity>_<action>` functions, keyword-only, typed, one transaction each."""
