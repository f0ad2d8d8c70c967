from annotation.views.health import healthz

__all__ = ["healthz"]
