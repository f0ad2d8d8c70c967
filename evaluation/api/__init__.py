"""The evaluation app's API under /api/v1/; each area keeps its routes beside its views."""
