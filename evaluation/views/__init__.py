"""Browser pages of the evaluation app; each area keeps its routes beside its views."""
