from .health import healthz

__all__ = ["healthz"]
